#!/usr/bin/env node
// `npm run bench:ui`: the Arbor renderer in Debian's Chromium (through the browser host, `arbor serve`) on
// generated sessions, next to a plain React Flow baseline (bench/ui-baseline/: every entry mounted, laid
// out with d3-hierarchy, no culling) measured in the same run with the same Chromium. Prints time to first
// graph, frame times while panning and zooming, mounted node count and layout time, with the ratios.
// Sessions and builds are cached in bench/.cache/ (gitignored). Not part of `npm test`. See docs/bench-ui.md.
//
//   node bench/ui.mjs                    100k and 10k entries (about 4-8 minutes on 2 loaded cores)
//   node bench/ui.mjs --sizes 10000      other sizes (comma-separated)
//   node bench/ui.mjs --timeout 60       seconds the baseline gets to show its first node (default 90)
//   node bench/ui.mjs --build            rebuild Arbor first (also done when dist/ is missing or stale)
//   node bench/ui.mjs --no-build         never rebuild; measure dist/ as it is
//   node bench/ui.mjs --json             also print the raw results as JSON
//   node bench/ui.mjs --arbor-only       skip the baseline and the floor (quick renderer experiments)
//   node bench/ui.mjs --arbor-css 'CSS'  add a style sheet to Arbor's page (what-if experiments, e.g.
//                                        '.react-flow__viewport { will-change: transform }')
//   node bench/ui.mjs --first-runs 7     paired rounds of "first graph against pi" (default 5; 0 skips it)
//   node bench/ui.mjs --first-only       only that section
//   node bench/ui.mjs --first-before DIR another built checkout (e.g. the previous commit's) measured in
//                                        the same rounds: its ratio is printed as "before -> after"
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { copyFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { extname, join, resolve } from "node:path";
import { build } from "esbuild";
import { chromium } from "@playwright/test";
import { firstAgainstPi, printFirst } from "./ui-first.mjs";

const root = resolve(import.meta.dirname, "..");
const cache = join(root, "bench", ".cache");
const uiCache = join(cache, "ui");
const pageDir = join(cache, "ui-baseline");
const genScript = join(root, "..", "shared", "tools", "gen-session.mjs");
const argv = process.argv.slice(2);
const opt = (name, def) => {
	const i = argv.indexOf(`--${name}`);
	return i >= 0 ? argv[i + 1] : def;
};
const sizes = String(opt("sizes", "100000,10000"))
	.split(",")
	.map(Number)
	.filter((n) => n > 0);
const baselineTimeoutS = Number(opt("timeout", "90"));
const FIRST_GRAPH_TIMEOUT_ARBOR_S = 120;
const arborOnly = argv.includes("--arbor-only");
const arborCss = opt("arbor-css", "");
// The view Arbor opens in: "rows" (its default) or "tree" (the tree of cards, settings layoutDirection TB).
const view = opt("view", "rows");
if (view !== "rows" && view !== "tree") {
	console.error(`bench:ui: --view must be rows or tree, not ${view}`);
	process.exit(2);
}
const firstRuns = Number(opt("first-runs", "5"));
const firstOnly = argv.includes("--first-only");
const VIEWPORT = { width: 1440, height: 900 };
// Same flags as playwright.config.ts (CHROMIUM_ARGS); that file is TypeScript, so they are repeated here.
const CHROMIUM_ARGS = [
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
];
const started = Date.now();
const loadAtStart = loadavg();
const log = (s) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(3)} s] ${s}\n`);
mkdirSync(uiCache, { recursive: true });
mkdirSync(pageDir, { recursive: true });

// ---------------------------------------------------------------- Arbor build (dist/)
function newestMtime(dir) {
	let t = 0;
	for (const e of readdirSync(dir, { withFileTypes: true })) {
		if (e.name === "test" || e.name === "node_modules") continue;
		const p = join(dir, e.name);
		t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
	}
	return t;
}
const distHtml = join(root, "dist", "renderer", "index.html");
const distCli = join(root, "dist", "cli.cjs");
const stale = () =>
	!existsSync(distHtml) ||
	!existsSync(distCli) ||
	statSync(distHtml).mtimeMs < Math.max(newestMtime(join(root, "renderer")), newestMtime(join(root, "shared")));
if (!argv.includes("--no-build") && (argv.includes("--build") || stale())) {
	log("building Arbor (npm run build) ...");
	const r = spawnSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
	if (r.status !== 0) {
		if (!existsSync(distHtml)) throw new Error("npm run build failed and there is no dist/ to measure");
		log("npm run build failed: measuring the existing dist/ (see above)");
	}
}
const distBuilt = new Date(statSync(distHtml).mtimeMs).toISOString().replace(/\.\d+Z$/, "Z");

// ---------------------------------------------------------------- sessions
function sessionFile(n, profile = "brief") {
	const file = join(uiCache, profile === "brief" ? `n${n}_seed-ui.jsonl` : `n${n}_${profile}_seed-ui.jsonl`);
	if (!existsSync(file)) {
		log(`generating a ${n}-entry session (gen-session --n ${n} --profile ${profile} --seed ui) ...`);
		const partial = `${file}.partial`;
		const r = spawnSync(process.execPath, [genScript, "--n", String(n), "--profile", profile, "--seed", "ui", "--out", partial], {
			stdio: ["ignore", "ignore", "inherit"],
		});
		if (r.status !== 0) throw new Error(`gen-session failed for n=${n}`);
		renameSync(partial, file);
	}
	return file;
}

// ---------------------------------------------------------------- bundles: Node prep, baseline page
const prepBundle = join(uiCache, "prep.mjs");
await build({
	entryPoints: [join(root, "bench", "ui-baseline", "prep.ts")],
	outfile: prepBundle,
	bundle: true,
	platform: "node",
	format: "esm",
	target: "node20",
	logLevel: "warning",
});
await build({
	entryPoints: [join(root, "bench", "ui-baseline", "main.tsx")],
	outdir: pageDir,
	bundle: true,
	platform: "browser",
	format: "esm",
	target: "chrome120",
	minify: true,
	jsx: "automatic",
	define: { "process.env.NODE_ENV": '"production"' },
	logLevel: "warning",
});
copyFileSync(join(root, "bench", "ui-baseline", "index.html"), join(pageDir, "index.html"));

/** Arbor's graph pipeline and the naive layout, timed in Node; writes the baseline page's data file. */
function prep(n, file) {
	const data = join(pageDir, `data-${n}.json`);
	log(`n=${n}: Node: open + Arbor pipeline + baseline data ...`);
	const r = spawnSync(process.execPath, ["--max-old-space-size=6144", prepBundle, file, data, "5"], { encoding: "utf8", maxBuffer: 1 << 24 });
	if (r.status !== 0) throw new Error(`prep failed for n=${n}:\n${r.stderr}`);
	return JSON.parse(r.stdout.trim().split("\n").pop());
}

// ---------------------------------------------------------------- static server for the baseline page
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".json": "application/json" };
const baselineServer = createServer((req, res) => {
	const name = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname).replace(/^\/+/, "") || "index.html";
	const path = join(pageDir, name);
	if (!path.startsWith(pageDir) || !existsSync(path)) {
		res.writeHead(404).end();
		return;
	}
	res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" });
	createReadStream(path).pipe(res);
});
await new Promise((ok) => baselineServer.listen(0, "127.0.0.1", ok));
const baselineOrigin = `http://127.0.0.1:${baselineServer.address().port}`;

// ---------------------------------------------------------------- Arbor host
async function startHost(file, appRoot = root) {
	const home = mkdtempSync(join(tmpdir(), "arbor-bench-ui-home-"));
	if (view === "tree") {
		mkdirSync(join(home, ".arbor"), { recursive: true });
		writeFileSync(join(home, ".arbor", "settings.json"), JSON.stringify({ layoutDirection: "TB" }));
	}
	const t0 = performance.now();
	const proc = spawn(process.execPath, [join(appRoot, "bin", "arbor.cjs"), "serve", file, "--port", "0", "--no-open"], {
		cwd: appRoot,
		env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, ".pi", "agent") },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	const url = await new Promise((ok, fail) => {
		const timer = setTimeout(() => fail(new Error(`arbor serve printed no URL within 180 s:\n${out}`)), 180_000);
		const onData = (d) => {
			out += d.toString();
			const m = /http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+/.exec(out);
			if (m) {
				clearTimeout(timer);
				ok(m[0]);
			}
		};
		proc.stdout.on("data", onData);
		proc.stderr.on("data", onData);
		proc.on("exit", (code) => fail(new Error(`arbor serve exited with ${code}:\n${out}`)));
	});
	const readyMs = performance.now() - t0;
	const stop = () =>
		new Promise((ok) => {
			const done = () => {
				rmSync(home, { recursive: true, force: true });
				ok();
			};
			if (proc.exitCode !== null) return done();
			proc.once("exit", done);
			proc.kill("SIGTERM");
		});
	return { url, readyMs, stop };
}

// ---------------------------------------------------------------- in-page instrumentation and gestures
// Runs before any page script. Every animation frame: until a React Flow node is visible (React Flow
// keeps nodes `visibility: hidden` until measured), look for one: the frame timestamp where one first is
// = time to first graph (ms since navigation start). While recording: keep every frame's timestamp, and
// every 10th frame the number of mounted nodes.
//
// The gestures are driven from inside the page, one input event per animation frame, as a mouse sends
// them at 60 Hz: a slow page then gets fewer events per second instead of a queue of them, and a gesture
// can stop on a time budget. (Driving them through the DevTools protocol waits for each event to be
// handled; a page that takes seconds per frame then makes the run last many minutes.) d3-zoom, which
// React Flow pans and zooms with, does not look at isTrusted, so the page handles these events as real ones.
const INSTRUMENT = () => {
	const b = { first: null, complete: null, rec: false, frames: [], counts: [] };
	window.__bench = b;
	// Seen: a box, not visibility: hidden (React Flow hides a node until it is measured), not in a
	// transparent layer (the whole skeleton's graph is prepared under the first skeleton's, at opacity 0).
	const seen = (el) => {
		const r = el.getBoundingClientRect();
		return (
			r.width > 0 &&
			r.height > 0 &&
			(el.checkVisibility ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : getComputedStyle(el).visibility !== "hidden")
		);
	};
	const visible = (root = document) => {
		const els = root.querySelectorAll(".react-flow__node");
		for (let k = 0; k < els.length && k < 20; k++) if (seen(els[k])) return true;
		return false;
	};
	// The complete graph: a card seen in a graph that does not draw a first skeleton (a page without a
	// progressive open draws the complete graph first).
	const complete = () => {
		for (const g of document.querySelectorAll('[data-testid="arbor-graph"]:not([data-first-skeleton])')) if (visible(g)) return true;
		return !document.querySelector('[data-testid="arbor-graph"]') && visible();
	};
	const loop = (t) => {
		if (b.first === null && visible()) b.first = t;
		if (b.first !== null && b.complete === null && complete()) b.complete = t;
		if (b.rec) {
			b.frames.push(t);
			if (b.frames.length % 10 === 0) b.counts.push(document.querySelectorAll(".react-flow__node").length);
		}
		requestAnimationFrame(loop);
	};
	requestAnimationFrame(loop);

	const frame = () => new Promise((ok) => requestAnimationFrame(ok));
	/** A point on the empty pane (not on a node, edge or panel), nearest the centre. */
	const panPoint = () => {
		const pane = document.querySelector(".react-flow__pane") ?? document.querySelector(".react-flow");
		const r = pane.getBoundingClientRect();
		const cx = r.left + r.width / 2;
		const cy = r.top + r.height / 2;
		let best = { x: cx, y: cy, el: pane };
		let bestD = Number.POSITIVE_INFINITY;
		for (let gx = 0.1; gx < 0.91; gx += 0.04) {
			for (let gy = 0.1; gy < 0.91; gy += 0.04) {
				const x = r.left + r.width * gx;
				const y = r.top + r.height * gy;
				const el = document.elementFromPoint(x, y);
				const d = (x - cx) ** 2 + (y - cy) ** 2;
				if (el?.classList.contains("react-flow__pane") && d < bestD) {
					best = { x, y, el };
					bestD = d;
				}
			}
		}
		return best;
	};
	const mouse = (el, type, x, y, buttons) =>
		el.dispatchEvent(
			new MouseEvent(type, { bubbles: true, cancelable: true, view: window, clientX: x, clientY: y, screenX: x, screenY: y, button: 0, buttons }),
		);
	window.__drive = {
		async pan(drags, steps, budgetMs) {
			const end = performance.now() + budgetMs;
			let events = 0;
			for (const [dx, dy] of drags) {
				if (performance.now() > end) break;
				const p = panPoint();
				mouse(p.el, "mousedown", p.x, p.y, 1);
				let x = p.x;
				let y = p.y;
				for (let k = 1; k <= steps && performance.now() <= end; k++) {
					await frame();
					x = p.x + (dx * k) / steps;
					y = p.y + (dy * k) / steps;
					mouse(p.el, "mousemove", x, y, 1);
					events++;
				}
				mouse(p.el, "mouseup", x, y, 0);
				await frame();
			}
			return { events, planned: drags.length * steps };
		},
		// Filter switches: click each filter button, then wait until the graph shows a new node count and
		// has drawn `settleMs` more; every frame in between is recorded. Returns one entry per switch.
		async filters(modes, settleMs) {
			const out = [];
			for (const mode of modes) {
				const graph = document.querySelector('[data-testid="arbor-graph"]');
				const before = graph?.getAttribute("data-nodes");
				const btn = document.querySelector(`[data-testid="filter-${mode}"]`);
				if (!btn) continue;
				const from = window.__bench.frames.length;
				const t0 = performance.now();
				btn.click();
				let changedAt = null;
				while (performance.now() - t0 < 20_000) {
					await frame();
					const now = document.querySelector('[data-testid="arbor-graph"]')?.getAttribute("data-nodes");
					if (changedAt === null && now !== before) changedAt = performance.now();
					if (changedAt !== null && performance.now() - changedAt > settleMs) break;
					if (changedAt === null && performance.now() - t0 > 3000) break; // same count: nothing more to wait for
				}
				const f = window.__bench.frames.slice(from);
				let max = 0;
				// The click's own frame counts: from the click to the first frame after it.
				let prev = t0;
				for (const t of f) {
					if (t < t0) continue;
					max = Math.max(max, t - prev);
					prev = t;
				}
				out.push({ mode, maxMs: max, frames: f.length, tookMs: (changedAt ?? performance.now()) - t0 });
			}
			return out;
		},
		async zoom(phases, budgetMs) {
			const end = performance.now() + budgetMs;
			const p = panPoint();
			let events = 0;
			for (const [ticks, deltaY] of phases) {
				for (let k = 0; k < ticks && performance.now() <= end; k++) {
					await frame();
					p.el.dispatchEvent(new WheelEvent("wheel", { bubbles: true, cancelable: true, view: window, clientX: p.x, clientY: p.y, deltaY, deltaMode: 0 }));
					events++;
				}
			}
			return { events, planned: phases.reduce((a, [t]) => a + t, 0) };
		},
	};
};

const DRAGS = [
	[-360, 0],
	[360, 0],
	[0, -260],
	[0, 260],
	[-300, -220],
	[300, 220],
	[-360, 120],
	[360, -120],
];
const DRAG_STEPS = 40;
// d3-zoom turns one 120-unit wheel tick into a 2^0.24 ≈ 1.18x zoom: 6 out (to ~0.37, above Arbor's 0.25
// overview switch), 12 in, 6 out again.
const WHEEL = [
	[6, 120],
	[12, -120],
	[6, 120],
];
// A page that takes a second per frame would make the gestures last minutes: each gesture stops after
// this long (the frame count N shows how far it got).
const GESTURE_BUDGET_MS = 30_000;

async function record(page, gesture) {
	await page.evaluate(() => {
		window.__bench.frames = [];
		window.__bench.counts = [];
		window.__bench.rec = true;
	});
	const done = await gesture();
	// Let the last frame after the gesture land (a mount/unmount after a move can take longer than one frame).
	await page.waitForTimeout(300);
	return page
		.evaluate(() => {
			window.__bench.rec = false;
			return { frames: window.__bench.frames, counts: window.__bench.counts };
		})
		.then((r) => ({ ...r, ...done }));
}
// Filter switches on the open session (Arbor only): each mode once, back to the default, twice over.
const FILTER_SEQUENCE = ["no-tools", "user-only", "labeled-only", "all", "default", "no-tools", "user-only", "labeled-only", "all", "default"];
const FILTER_TARGET_MS = 100;
const filterGesture = (page) => page.evaluate(([m, s]) => window.__drive.filters(m, s), [FILTER_SEQUENCE, 600]);
const panGesture = (page) => page.evaluate(([d, s, b]) => window.__drive.pan(d, s, b), [DRAGS, DRAG_STEPS, GESTURE_BUDGET_MS]);
const zoomGesture = (page) => page.evaluate(([w, b]) => window.__drive.zoom(w, b), [WHEEL, GESTURE_BUDGET_MS]);

function frameStats(frames) {
	const d = [];
	for (let k = 1; k < frames.length; k++) d.push(frames[k] - frames[k - 1]);
	if (d.length === 0) return null;
	d.sort((a, b) => a - b);
	const q = (p) => d[Math.min(d.length - 1, Math.floor(p * d.length))];
	const span = frames[frames.length - 1] - frames[0];
	return { n: d.length, p50: q(0.5), p95: q(0.95), max: d[d.length - 1], over50: d.filter((x) => x > 50).length, fps: (d.length * 1000) / span };
}

/** Rejects after `ms` even when the promise never settles (a page stuck in one long task may not answer). */
function within(promise, ms, what) {
	let timer;
	return Promise.race([promise, new Promise((_, fail) => (timer = setTimeout(() => fail(new Error(`${what}: no answer within ${ms / 1000} s`)), ms)))]).finally(
		() => clearTimeout(timer),
	);
}

/**
 * One page load + gestures in a fresh browser; `timeoutS` bounds the wait for the first visible node.
 * The browser is killed afterwards (not closed politely): a page that never finished rendering does not
 * answer a close.
 */
async function measurePage(url, timeoutS, css = "", filters = false) {
	const server = await chromium.launchServer({ executablePath: process.env.ARBOR_CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
	const errors = [];
	const result = { errors };
	try {
		const browser = await chromium.connect(server.wsEndpoint());
		const context = await browser.newContext({ viewport: VIEWPORT });
		await context.addInitScript(INSTRUMENT);
		if (css) {
			await context.addInitScript((text) => {
				document.addEventListener("DOMContentLoaded", () => {
					const style = document.createElement("style");
					style.textContent = text;
					document.head.append(style);
				});
			}, css);
		}
		const page = await context.newPage();
		page.on("pageerror", (e) => errors.push(e.message));
		await page.goto(url, { waitUntil: "commit" });
		try {
			await within(
				page.waitForFunction(() => window.__bench?.first != null, null, { timeout: timeoutS * 1000, polling: 250 }),
				timeoutS * 1000 + 5000,
				"first graph",
			);
		} catch {
			result.firstMs = null;
			result.timedOutS = timeoutS;
			return result;
		}
		result.firstMs = await page.evaluate(() => window.__bench.first);
		// A big session is drawn first from a part of it (docs/session-core.md "Progressive open"): the
		// gestures start once the whole skeleton is drawn.
		await page.waitForFunction(() => !document.querySelector("[data-first-skeleton]"), null, { timeout: 120_000, polling: 100 });
		await page.waitForTimeout(1500); // settle: culling, preview pages, layout worker done
		result.mountedAtStart = await page.evaluate(() => document.querySelectorAll(".react-flow__node").length);
		result.pageInfo = await page.evaluate(() => window.__baseline ?? null);
		const counts = [result.mountedAtStart];
		for (const [what, gesture] of [
			["pan", panGesture],
			["zoom", zoomGesture],
		]) {
			try {
				const r = await within(
					record(page, () => gesture(page)),
					GESTURE_BUDGET_MS + 60_000,
					what,
				);
				result[what] = { ...frameStats(r.frames), events: r.events, planned: r.planned };
				counts.push(...r.counts);
			} catch {
				// One frame took longer than the whole budget (the page is stuck in a long task): say so.
				result[what] = { stuckS: (GESTURE_BUDGET_MS + 60_000) / 1000 };
				break;
			}
		}
		result.mountedMax = Math.max(...counts);
		if (filters) {
			try {
				await page.evaluate(() => {
					window.__bench.frames = [];
					window.__bench.rec = true;
				});
				result.filters = await within(filterGesture(page), 5 * 60_000, "filter switches");
				await page.evaluate(() => (window.__bench.rec = false));
			} catch (e) {
				result.filters = { failed: String(e?.message ?? e).split("\n")[0] };
			}
		}
		return result;
	} catch (e) {
		result.failed = String(e?.message ?? e).split("\n")[0];
		return result;
	} finally {
		await server.kill().catch(() => {});
	}
}

/**
 * First-graph and complete-graph times (ms from navigation start), in a fresh browser; null when not drawn
 * within the timeout. They differ when a big session is drawn first from its first skeleton.
 */
async function firstGraphOnly(url) {
	const server = await chromium.launchServer({ executablePath: process.env.ARBOR_CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
	try {
		const browser = await chromium.connect(server.wsEndpoint());
		const context = await browser.newContext({ viewport: VIEWPORT });
		await context.addInitScript(INSTRUMENT);
		const page = await context.newPage();
		await page.goto(url, { waitUntil: "commit" });
		await page.waitForFunction(() => window.__bench?.complete != null, null, { timeout: FIRST_GRAPH_TIMEOUT_ARBOR_S * 1000, polling: 50 });
		return await page.evaluate(() => ({ first: window.__bench.first, complete: window.__bench.complete }));
	} catch {
		return null;
	} finally {
		await server.kill().catch(() => {});
	}
}

// ---------------------------------------------------------------- run
const results = [];
const FLOOR_NODES = 50;
let floor = null;
let first = [];
if (firstRuns > 0) {
	const sessions = [
		{ key: "100k fixture profile", file: sessionFile(100000, "fixture") },
		{ key: "100k long tool outputs", file: sessionFile(100000) },
	].map((x) => ({ ...x, bytes: statSync(x.file).size }));
	const before = opt("first-before", "");
	first = await firstAgainstPi({
		root,
		before: before ? resolve(before) : null,
		cache,
		sessions,
		rounds: firstRuns,
		startHost,
		arborFirst: firstGraphOnly,
		log,
	});
}
try {
	for (const n of firstOnly ? [] : sizes) {
		const file = sessionFile(n);
		const node = prep(n, file);

		log(`n=${n}: Arbor: arbor serve (opens the file) ...`);
		const host = await startHost(file);
		let arbor;
		try {
			log(`n=${n}: Arbor: first graph, pan, zoom ...`);
			arbor = await measurePage(host.url, FIRST_GRAPH_TIMEOUT_ARBOR_S, arborCss, true);
			arbor.hostReadyMs = host.readyMs;
		} finally {
			await host.stop();
		}

		let baseline = { errors: [], skipped: true };
		if (!arborOnly) {
			log(`n=${n}: baseline: first graph (timeout ${baselineTimeoutS} s), pan, zoom ...`);
			baseline = await measurePage(`${baselineOrigin}/index.html?data=data-${n}.json`, baselineTimeoutS);
		}
		results.push({ n, bytes: statSync(file).size, node, arbor, baseline });
	}
	// The environment's floor: the same page and gestures with only 50 nodes. Frames here cost what the
	// machine (software compositing, no GPU, shared cores) charges for any React Flow pane at all.
	if (results.length > 0 && !arborOnly && !firstOnly) {
		log(`floor: plain React Flow with ${FLOOR_NODES} nodes, pan, zoom ...`);
		floor = await measurePage(`${baselineOrigin}/index.html?data=data-${results[results.length - 1].n}.json&limit=${FLOOR_NODES}`, 60);
	}
} finally {
	baselineServer.close();
}

// ---------------------------------------------------------------- report
const ms = (x) => (x == null ? "—" : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(x < 10 ? 1 : 0)} ms`);
/** Always "how many times better Arbor is": callers pass (baseline, Arbor) for times, (Arbor, baseline) for rates. */
const ratio = (base, ours) => (base == null || ours == null || ours <= 0 ? "" : `${(base / ours).toFixed(1)}x`);
const frames = (f) => (!f ? "—" : f.stuckS ? `gesture did not finish within ${f.stuckS} s` : `${ms(f.p50)} / ${ms(f.p95)} / ${ms(f.max)} (${f.n})`);
/** A gesture cut short by its time budget: percentiles over its few frames say little, the frame rate does. */
const complete = (f) => f?.n > 0 && f.events === f.planned;
const fpsText = (f) =>
	!f || f.stuckS ? "—" : `${f.fps.toFixed(1)} fps, ${f.events}/${f.planned} events${complete(f) ? "" : ` (stopped after ${GESTURE_BUDGET_MS / 1000} s)`}`;
const pad = (s, w) => String(s).padEnd(w);
const row = (a, b, c, d, e = "") => console.log(`  ${pad(a, 30)}${pad(b, 36)}${pad(c, 50)}${pad(d, 8)}${e}`);
const version = execFileSync(process.env.ARBOR_CHROMIUM ?? "/usr/bin/chromium", ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
	.trim()
	.split(" built")[0];
console.log(
	`\nbench:ui — ${version} headless, ${CHROMIUM_ARGS.includes("--disable-gpu") ? "--disable-gpu" : ""}, ${cpus().length} cores, ${VIEWPORT.width}x${VIEWPORT.height}; Arbor dist/ built ${distBuilt}; Arbor's view: ${view === "tree" ? "tree of cards (--view tree)" : "rows"}`,
);
const la = (l) => l.map((x) => x.toFixed(1)).join(", ");
console.log(`load average (1/5/15 min) at start ${la(loadAtStart)}, at end ${la(loadavg())}: other work on the machine slows every number here`);
if (arborCss) console.log(`Arbor's page got extra CSS (--arbor-css): ${arborCss}`);
console.log(`baseline = plain React Flow: every entry a default node, d3-hierarchy layout, no culling (bench/ui-baseline/)`);
for (const r of results) {
	const { node: p, arbor: a, baseline: b } = r;
	const baseFirst = b.skipped ? "(skipped: --arbor-only)" : b.firstMs == null ? `did not render within ${b.timedOutS} s` : ms(b.firstMs);
	const firstRatio = b.skipped
		? ""
		: b.firstMs == null
			? a.firstMs
				? `> ${((b.timedOutS * 1000) / a.firstMs).toFixed(0)}x`
				: ""
			: ratio(b.firstMs, a.firstMs);
	console.log(
		`\n${r.n.toLocaleString("en")}-entry generated session (gen-session --seed ui, ${(r.bytes / 1e6).toFixed(0)} MB): Arbor draws ${p.visibleRows.toLocaleString("en")} visible rows as ${p.graphNodes.toLocaleString("en")} graph nodes (${p.segments.toLocaleString("en")} "+N" segments); the baseline draws all ${p.entries.toLocaleString("en")} entries`,
	);
	row("", "Arbor", "plain React Flow", "ratio", "target");
	row("host start (opens the file)", ms(a.hostReadyMs), "(prepared JSON, not timed)", "");
	row("time to first graph", ms(a.firstMs), baseFirst, firstRatio);
	row("pan frames p50/p95/max (N)", frames(a.pan), frames(b.pan), complete(b.pan) ? ratio(b.pan.p95, a.pan?.p95) : "", "p95 ≤ 16.7 ms");
	row("pan frame rate", fpsText(a.pan), fpsText(b.pan), b.pan?.fps ? ratio(a.pan?.fps, b.pan.fps) : "", "60 fps");
	row("zoom frames p50/p95/max (N)", frames(a.zoom), frames(b.zoom), complete(b.zoom) ? ratio(b.zoom.p95, a.zoom?.p95) : "", "p95 ≤ 16.7 ms");
	row("zoom frame rate", fpsText(a.zoom), fpsText(b.zoom), b.zoom?.fps ? ratio(a.zoom?.fps, b.zoom.fps) : "", "60 fps");
	row("frames > 50 ms (pan + zoom)", a.pan?.n ? a.pan.over50 + (a.zoom?.over50 ?? 0) : "—", b.pan?.n ? b.pan.over50 + (b.zoom?.over50 ?? 0) : "—", "");
	row(
		"mounted nodes (start / max)",
		a.mountedAtStart == null ? "—" : `${a.mountedAtStart} / ${a.mountedMax}`,
		b.mountedAtStart == null ? `— (${p.entries.toLocaleString("en")} would be)` : `${b.mountedAtStart} / ${b.mountedMax ?? "—"}`,
		b.mountedAtStart == null ? "" : ratio(b.mountedMax, a.mountedMax),
		"≤ ~1000",
	);
	row(
		"layout, Node CPU",
		`${ms(p.layoutMs)} (computeGraphLayout)`,
		`${ms(p.baselineLayoutMs)} (stratify + tree)`,
		ratio(p.baselineLayoutMs, p.layoutMs),
		"≤ 50 ms",
	);
	if (Array.isArray(a.filters) && a.filters.length > 0) {
		const worst = Math.max(...a.filters.map((f) => f.maxMs));
		const over = a.filters.filter((f) => f.maxMs > FILTER_TARGET_MS).length;
		row(
			"filter switch, longest frame",
			`${ms(worst)} (${over}/${a.filters.length} switches over ${FILTER_TARGET_MS} ms)`,
			"(no filters)",
			"",
			`every frame ≤ ${FILTER_TARGET_MS} ms`,
		);
		console.log(`    per switch (longest frame, time to new graph): ${a.filters.map((f) => `${f.mode} ${ms(f.maxMs)}, ${ms(f.tookMs)}`).join(" · ")}`);
	} else if (a.filters?.failed) console.log(`  Arbor filter switches failed: ${a.filters.failed}`);
	if (b.pageInfo) row("layout, in the page", "(in a Web Worker, not exposed)", ms(b.pageInfo.layoutMs), "");
	row("Arbor pipeline, Node CPU", `view ${ms(p.treeViewMs)}, compress ${ms(p.compressMs)}, spatial ${ms(p.spatialMs)}`, "", "");
	for (const [who, x] of [
		["Arbor", a],
		["baseline", b],
	]) {
		if (x.errors.length) console.log(`  ${who} page errors: ${x.errors.slice(0, 3).join(" | ")}`);
		if (x.failed) console.log(`  ${who} run failed: ${x.failed}`);
	}
}
if (first.length > 0) printFirst(first);
if (floor)
	console.log(
		`\nenvironment floor, plain React Flow with ${FLOOR_NODES} nodes: pan ${frames(floor.pan)}, ${fpsText(floor.pan)}; zoom ${frames(floor.zoom)}, ${fpsText(floor.zoom)} (p50/p95/max (N))`,
	);
console.log(
	`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s. Frame times are rAF-to-rAF intervals in the page during drags (${DRAGS.length} x ${DRAG_STEPS} mouse moves) and wheel zooms (24 ticks), one input event per frame; headless Chromium on shared cores without a GPU is a pessimistic environment.`,
);
if (argv.includes("--json")) console.log(JSON.stringify({ results, first, floor }, null, 2));
