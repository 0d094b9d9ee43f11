// Figure 8: load. A generated session (full run: 1,000,000 entries, ~1.3 GB, `--profile fixture`;
// bounded: 100,000 entries, ~130 MB) opens through the services within 1 GiB peak RSS and stays
// interactive while pi appends to it; 3,000 session files list in under a second. pi's own numbers on the
// same files are printed next to Arbor's.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cacheDir, genSessionTool, repoRoot } from "./fuzz-gen.mjs";
import { workerPath } from "./build.mjs";
import { fmtBytes, forkWorker } from "./util.mjs";

const GiB = 1024 ** 3;
const PI_MAX_BYTES = 500 * 1024 * 1024; // pi reads the file as one string (~537 MB limit, TOOLCHAIN.md)

function cachedSession(n) {
	const dir = join(cacheDir, "load");
	mkdirSync(dir, { recursive: true });
	const p = join(dir, `gen-${n}-fixture.jsonl`);
	if (!existsSync(p)) {
		execFileSync(process.execPath, [genSessionTool, "--n", String(n), "--profile", "fixture", "--seed", "load-1", "--out", `${p}.part`], { stdio: "ignore" });
		renameSync(`${p}.part`, p);
	}
	return p;
}

/** A pi-style agent folder with `files` sessions in 30 project folders (a few of them large). */
export function makeLibrary(root, files, tmp) {
	const sessions = join(root, "sessions");
	const small = [40, 15, 120].map((n, i) => {
		const p = join(tmp, `lib-src-${i}.jsonl`);
		execFileSync(process.execPath, [genSessionTool, "--n", String(n), "--seed", `lib-${i}`, "--out", p], { stdio: "ignore" });
		return readFileSync(p, "utf8");
	});
	const bigSrc = join(tmp, "lib-big.jsonl");
	execFileSync(process.execPath, [genSessionTool, "--n", "8000", "--seed", "lib-big", "--out", bigSrc], { stdio: "ignore" });
	for (let i = 0; i < files; i++) {
		const dir = join(sessions, `--tmp-project-${i % 30}--`);
		if (i < 30) mkdirSync(dir, { recursive: true });
		const id = `0000${i.toString(16)}`.slice(-5) + "-lib";
		const ts = new Date(Date.parse("2026-01-01T00:00:00.000Z") + i * 60_000).toISOString();
		const name = join(dir, `${ts.replace(/[:.]/g, "-")}_${id}.jsonl`);
		if (i % 600 === 7) copyFileSync(bigSrc, name);
		else {
			const text = small[i % small.length];
			const nl = text.indexOf("\n");
			const header = JSON.parse(text.slice(0, nl));
			writeFileSync(name, `${JSON.stringify({ ...header, id, timestamp: ts, cwd: `/tmp/project-${i % 30}` })}${text.slice(nl)}`);
		}
	}
}

export async function run(ctx) {
	const { bounded, tmp, log } = ctx;
	mkdirSync(tmp, { recursive: true });
	const home = join(tmp, "home");
	mkdirSync(home, { recursive: true });
	const n = bounded ? 100_000 : 1_000_000;
	const t0 = Date.now();
	const cached = cachedSession(n);
	const file = join(tmp, "big.jsonl");
	copyFileSync(cached, file);
	const size = statSync(file).size;
	log(`load: ${n.toLocaleString("en")} entries, ${fmtBytes(size)} (generated/cached in ${((Date.now() - t0) / 1000).toFixed(0)} s)`);
	const piScript = join(repoRoot, "bench", "reliability", "pi-side.mjs");

	// pi's numbers first, in their own process (pi holds the whole file as one string).
	const pi = await forkWorker(piScript, { execArgv: ["--max-old-space-size=8192"] });
	let piOpen;
	try {
		piOpen = await pi.ask({ mode: "measureOpen", file }, "done", 600_000);
	} finally {
		pi.kill();
	}

	const arbor = await forkWorker(workerPath(ctx.workers, "load-worker"));
	let opened, liveRes, appendRes;
	try {
		opened = await arbor.ask({ mode: "open", file, home }, "opened", 900_000);
		if (opened.fatal) throw new Error(`Arbor could not open the file: ${opened.fatal}`);
		log(`load: Arbor opened it in ${(opened.openMs / 1000).toFixed(1)} s, peak RSS ${fmtBytes(opened.rss)}`);
		// Interactive while pi appends: 20 entries/s for 10 s.
		const appender = await forkWorker(piScript, { execArgv: ["--max-old-space-size=8192"] });
		try {
			const liveMs = bounded ? 8_000 : 15_000;
			await appender.ask({ mode: "appendLive", file, rate: 20, ms: liveMs - 2_000, real: size < PI_MAX_BYTES }, "prepared", 600_000);
			const appendDone = appender.ask({ goLive: true }, "done", 600_000);
			liveRes = await arbor.ask({ live: true, ms: liveMs }, "liveDone", 600_000);
			appendRes = await appendDone;
		} finally {
			appender.kill();
		}
		if (liveRes.fatal) throw new Error(`live phase failed: ${liveRes.fatal}`);
		if (appendRes.fatal) throw new Error(`appender failed: ${appendRes.fatal}`);
		// Whether every appended entry reaches the client must not depend on the phase's length: wait for them.
		const settled = await arbor.ask({ settle: appendRes.written.map(([id]) => id) }, "settled", 180_000);
		if (settled.fatal) throw new Error(`waiting for the appended entries failed: ${settled.fatal}`);
		liveRes.seenAt = settled.seenAt;
	} finally {
		arbor.kill();
	}
	const delays = appendRes.written.map(([id, t]) => (liveRes.seenAt[id] === undefined ? Number.POSITIVE_INFINITY : liveRes.seenAt[id] - t));
	const seen = delays.filter(Number.isFinite);
	const maxDelay = seen.length ? Math.max(...seen) : Number.NaN;

	// Library of 3,000 files.
	const agentDir = join(tmp, "agent");
	makeLibrary(agentDir, 3000, tmp);
	const lib = await forkWorker(workerPath(ctx.workers, "load-worker"));
	let libRes;
	try {
		libRes = await lib.ask({ mode: "library", agentDir, home }, "listed", 300_000);
	} finally {
		lib.kill();
	}
	// pi reads every file whole (~30 s for this folder here): full run only.
	let piLib = { skipped: true };
	if (!bounded) {
		const piList = await forkWorker(piScript, { env: { PI_CODING_AGENT_DIR: agentDir } });
		try {
			piLib = await piList.ask({ mode: "list" }, "done", 600_000);
		} finally {
			piList.kill();
		}
	}
	if (libRes.fatal) throw new Error(`library failed: ${libRes.fatal}`);
	const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
	const libMs = median(libRes.ms);
	const piText = piOpen.error
		? `cannot open it (${piOpen.error}) after ${(piOpen.ms / 1000).toFixed(1)} s, peak RSS ${fmtBytes(piOpen.rss)}`
		: `${(piOpen.openMs / 1000).toFixed(1)} s, peak RSS ${fmtBytes(piOpen.rss)}`;
	// Durations measured on a machine shared with other work: pass/fail in the full run (by hand, on a quiet
	// machine); in the bounded run inside `npm test` they are reported, not judged (speed belongs in
	// `npm run bench`; a figure that fails whenever a neighbour is busy is a flaky test).
	const timed = (ok) => (bounded ? { info: true, reportedOnly: true, metTarget: ok } : { ok });
	return {
		title: `Load: ${n.toLocaleString("en")}-entry session (${fmtBytes(size)}) and a 3,000-file library`,
		figures: [
			{
				label: "Arbor: open (load + index) through the services",
				value: `${(opened.openMs / 1000).toFixed(1)} s; skeleton ${opened.skeletonMs.toFixed(0)} ms; first previews ${opened.previewsMs.toFixed(0)} ms`,
				info: true,
			},
			{ label: "Arbor: peak RSS after open", value: fmtBytes(opened.rss), targetText: "≤ 1 GiB", ok: opened.rss <= GiB },
			{ label: "pi 0.73.1 SessionManager.open, same file", value: piText, info: true },
			{
				label: `while pi appends (${appendRes.written.length} entries, ${appendRes.via}): interaction latency (previews, entry, navigation preview) p50 / p99 / max`,
				value: `${liveRes.p50.toFixed(0)} / ${liveRes.p99.toFixed(0)} / ${liveRes.max.toFixed(0)} ms over ${liveRes.requests} requests`,
				targetText: "p99 ≤ 250 ms",
				...timed(liveRes.p99 <= 250),
			},
			{
				label: "  and building the model context of a random entry (whole path) p50 / p99 / max",
				value: `${liveRes.context.p50.toFixed(0)} / ${liveRes.context.p99.toFixed(0)} / ${liveRes.context.max.toFixed(0)} ms over ${liveRes.context.n} requests`,
				info: true,
			},
			{ label: "appended entries that reached the client", value: `${seen.length}/${delays.length}`, targetText: "all", ok: seen.length === delays.length },
			{
				label: "  slowest append -> session_appended",
				value: Number.isFinite(maxDelay) ? `${maxDelay} ms` : "-",
				targetText: "≤ 2 s",
				...timed(maxDelay <= 2000),
			},
			{ label: "Arbor: peak RSS over the whole run", value: fmtBytes(liveRes.rss), targetText: "≤ 1 GiB", ok: liveRes.rss <= GiB },
			{ label: "library: session files listed", value: libRes.files, target: 3000 },
			{ label: "  listing them (median of 3)", value: `${libMs.toFixed(0)} ms`, targetText: "< 1000 ms", ...timed(libMs < 1000) },
			{
				label: "pi 0.73.1 SessionManager.listAll, same folder",
				value: piLib.skipped
					? "not run in the bounded run"
					: piLib.fatal
						? `failed: ${piLib.fatal.slice(0, 120)}`
						: `${median(piLib.ms).toFixed(0)} ms for ${piLib.files} files`,
				info: true,
			},
		],
		details: [
			`events during the live phase: ${JSON.stringify(liveRes.events)}`,
			`append -> session_appended delays (ms, in append order): ${delays.map((d) => (Number.isFinite(d) ? d : "lost")).join(" ")}`,
			...Object.entries(liveRes.perRequest).map(([k, v]) => `${k}: n=${v.n} p50=${v.p50.toFixed(0)} p99=${v.p99.toFixed(0)} max=${v.max.toFixed(0)} ms`),
		],
	};
}
