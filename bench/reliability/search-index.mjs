// Figure: the search index (`arbor search`, real processes on real folders).
//   1. Hostile --index-dir: folders that are not Arbor's index (a manifest.json that is [], {}, null, another
//      program's, not JSON; user files and no manifest; a file) are refused in one line naming the folder;
//      Arbor's own indexes (this version and an older one) with a user's file in them are rebuilt. Files that
//      are not Arbor's deleted or changed: 0.
//   2. Two `arbor search` processes sharing one index (5 and 120 files, started together): files found under
//      another file's id, and duplicate ids in the manifest: 0.
//   3. kill -9 during an index build, then the next `arbor search`: temp files or a lock left, a run that
//      fails or waits, wrong results: 0.
//   4. A full disk (a real small tmpfs) under the index: one-line error, the old index kept, no temp file;
//      the next run after space is freed is right.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeRng, repoRoot } from "./fuzz-gen.mjs";
import { sleep } from "./util.mjs";

const CLI = join(repoRoot, "bin", "arbor.cjs");

function sessionText(id, texts) {
	const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-12-01T00:00:00.000Z", cwd: "/w" })];
	texts.forEach((text, i) =>
		lines.push(
			JSON.stringify({
				type: "message",
				id: `${id}-e${i}`,
				parentId: i ? `${id}-e${i - 1}` : null,
				timestamp: "2026-12-01T00:00:01.000Z",
				message: { role: "user", content: [{ type: "text", text }], timestamp: 1 },
			}),
		),
	);
	return `${lines.join("\n")}\n`;
}

/** `count` sessions in `dir`, each with its own word (own<side><i>x), the side's word and filler. */
function writeSessions(dir, side, count, lines = 150) {
	mkdirSync(dir, { recursive: true });
	const filler = Array.from({ length: lines }, (_, k) => `common filler words line ${k} shared${k % 7} ${side}side`);
	for (let i = 0; i < count; i++) writeFileSync(join(dir, `${side}${i}.jsonl`), sessionText(`${side}${i}`, [`own${side}${i}x marker`, ...filler]));
}

function arbor(args, env = {}) {
	const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: 120_000, env: { ...process.env, ...env }, maxBuffer: 1 << 28 });
	return { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
}

function arborAsync(args, env = {}) {
	const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
	let stdout = "";
	let stderr = "";
	child.stdout.on("data", (d) => (stdout += d));
	child.stderr.on("data", (d) => (stderr += d));
	const done = new Promise((ok) => child.on("close", (status, signal) => ok({ status, signal, stdout, stderr })));
	return { child, done };
}

/** Paths of the sessions `query` finds (JSON output), or an error text. */
function found(query, dirs, idx, home) {
	const r = arbor(["search", query, ...dirs, "--index-dir", idx, "--json", "--limit", "100000"], { HOME: home });
	if (r.status !== 0) return { error: `exit ${r.status}: ${r.stderr.trim().slice(0, 300)}` };
	return {
		paths: JSON.parse(r.stdout)
			.sessions.map((s) => s.path)
			.sort(),
	};
}

/** Every file under `dir` with its bytes (folders marked). */
function snapshot(dir) {
	const out = new Map();
	if (!existsSync(dir)) return out;
	for (const n of readdirSync(dir, { recursive: true })) {
		const p = join(dir, n);
		out.set(n, statSync(p).isDirectory() ? "(folder)" : readFileSync(p).toString("base64"));
	}
	return out;
}

const USER_FILES = { "thesis.tex": "years of work", "notes/today.md": "notes", "photo.jpg": "\u00ff\u00d8binary" };

function hostileCases() {
	return [
		{ name: "manifest.json []", files: { "manifest.json": "[]" } },
		{ name: "manifest.json {}", files: { "manifest.json": "{}" } },
		{ name: "manifest.json null", files: { "manifest.json": "null" } },
		{ name: "another program's manifest.json", files: { "manifest.json": '{"name":"ext","version":"1.0","files":["a"]}' } },
		{ name: "manifest.json not JSON", files: { "manifest.json": "<?xml?>" } },
		{ name: "user files, no manifest", files: {} },
		{ name: "user files and an Arbor-like d-*.json, no manifest", files: { "d-616263.json": '{"abc":[1,0]}', "reserved.json": "{}" } },
	];
}

function writeTree(dir, files) {
	for (const [n, text] of Object.entries(files)) {
		mkdirSync(join(dir, n, ".."), { recursive: true });
		writeFileSync(join(dir, n), text);
	}
}

function hostile(tmp, home, sessions) {
	let refused = 0;
	let tried = 0;
	let changed = 0;
	let rebuilt = 0;
	let rebuiltTried = 0;
	const details = [];
	for (const c of hostileCases()) {
		tried++;
		const idx = join(tmp, `hostile-${tried}`);
		writeTree(idx, { ...USER_FILES, ...c.files });
		const before = snapshot(idx);
		const r = arbor(["search", "marker", sessions, "--index-dir", idx], { HOME: home });
		const lines = r.stderr.split("\n").filter(Boolean);
		const clear = r.status === 2 && lines.length === 1 && lines[0].includes(`"${idx}"`) && /not empty and holds no Arbor search index/.test(lines[0]);
		if (clear) refused++;
		else details.push(`${c.name}: exit ${r.status}, stderr ${JSON.stringify(r.stderr.slice(0, 300))}`);
		const after = snapshot(idx);
		for (const [n, v] of before)
			if (after.get(n) !== v) {
				changed++;
				details.push(`${c.name}: ${n} ${after.has(n) ? "changed" : "deleted"}`);
			}
	}
	// A file given as the folder.
	tried++;
	const file = join(tmp, "a-file");
	writeFileSync(file, "mine");
	const r = arbor(["search", "marker", sessions, "--index-dir", file], { HOME: home });
	if (r.status === 2 && r.stderr.split("\n").filter(Boolean).length === 1) refused++;
	else details.push(`a file as the folder: exit ${r.status} ${r.stderr.slice(0, 200)}`);
	if (readFileSync(file, "utf8") !== "mine") changed++;
	// Arbor's own indexes with a user's file in them: an older version's (rebuilt) and this version's.
	for (const kind of ["older", "current"]) {
		rebuiltTried++;
		const idx = join(tmp, `own-${kind}`);
		if (kind === "older") writeTree(idx, { "manifest.json": JSON.stringify({ version: 2, files: {}, nextFid: 3 }), "b-2.json": "[]", "d-6d6172.json": "{}" });
		else arbor(["search", "marker", sessions, "--index-dir", idx], { HOME: home });
		writeTree(idx, USER_FILES);
		const before = snapshot(idx);
		const ok = found("marker", [sessions], idx, home);
		if (ok.paths && ok.paths.length === readdirSync(sessions).length) rebuilt++;
		else details.push(`${kind} index with a user's file: ${ok.error ?? ok.paths.length}`);
		const after = snapshot(idx);
		for (const n of Object.keys(USER_FILES))
			if (after.get(n) !== before.get(n)) {
				changed++;
				details.push(`${kind} index: user file ${n} ${after.has(n) ? "changed" : "deleted"}`);
			}
	}
	return { tried, refused, changed, rebuilt, rebuiltTried, details };
}

async function race(tmp, home, trials) {
	let wrong = 0;
	let dupIds = 0;
	let failed = 0;
	let waited = 0;
	const details = [];
	for (let t = 0; t < trials; t++) {
		const root = join(tmp, `race-${t}`);
		const a = join(root, "a");
		const b = join(root, "b");
		writeSessions(a, "a", 5);
		writeSessions(b, "b", 120);
		const idx = join(root, "index");
		const runs = await Promise.all([a, b].map((d) => arborAsync(["search", "marker", d, "--index-dir", idx, "--json"], { HOME: home }).done));
		for (const r of runs) {
			if (r.status !== 0) {
				failed++;
				details.push(`race ${t}: exit ${r.status} ${r.stderr.slice(0, 300)}`);
			}
			if (/waiting for another Arbor process/.test(r.stderr)) waited++;
		}
		// One more process over both folders, then each side's word must find exactly that side's files.
		for (const [side, dir, n] of [
			["a", a, 5],
			["b", b, 120],
		]) {
			const got = found(`${side}side`, [a, b], idx, home);
			const want = Array.from({ length: n }, (_, i) => join(dir, `${side}${i}.jsonl`)).sort();
			if (got.error) {
				failed++;
				details.push(`race ${t}: ${got.error}`);
				continue;
			}
			const extra = got.paths.filter((p) => !want.includes(p));
			const missing = want.filter((p) => !got.paths.includes(p));
			wrong += extra.length + missing.length;
			if (extra.length + missing.length) details.push(`race ${t}: "${side}side" found ${extra.length} other files, missed ${missing.length}`);
		}
		const fids = Object.values(JSON.parse(readFileSync(join(idx, "manifest.json"), "utf8")).files).map((s) => s.fid);
		dupIds += fids.length - new Set(fids).size;
		rmSync(root, { recursive: true, force: true });
	}
	return { trials, wrong, dupIds, failed, waited, details };
}

async function kills(tmp, home, trials, rng) {
	let left = 0;
	let failed = 0;
	let wrong = 0;
	let killedMidBuild = 0;
	const details = [];
	const root = join(tmp, "kill");
	const dir = join(root, "s");
	writeSessions(dir, "k", 200, 300);
	const want = readdirSync(dir)
		.map((n) => join(dir, n))
		.sort();
	for (let t = 0; t < trials; t++) {
		const idx = join(root, `index-${t}`);
		// Half the trials kill a first build, half an update after appends to every file.
		if (t % 2) {
			arbor(["search", "marker", dir, "--index-dir", idx], { HOME: home });
			for (const n of readdirSync(dir)) writeFileSync(join(dir, n), `${sessionText(n, ["grown ksidex more words"]).split("\n")[1]}\n`, { flag: "a" });
		}
		const run = arborAsync(["search", "marker", dir, "--index-dir", idx], { HOME: home });
		await sleep(rng.int(0, 1200));
		run.child.kill("SIGKILL");
		const r = await run.done;
		if (r.signal === "SIGKILL") killedMidBuild++;
		const next = found("kside", [dir], idx, home);
		const names = readdirSync(idx);
		const litter = names.filter((n) => n.endsWith(".tmp") || n.startsWith("index.lock"));
		left += litter.length;
		if (litter.length) details.push(`kill ${t}: left ${litter.join(", ")}`);
		if (next.error) {
			failed++;
			details.push(`kill ${t}: next run ${next.error}`);
		} else if (next.paths.join("\n") !== want.join("\n")) {
			wrong++;
			details.push(`kill ${t}: next run found ${next.paths.length} of ${want.length}`);
		}
		rmSync(idx, { recursive: true, force: true });
	}
	return { trials, left, failed, wrong, killedMidBuild, details };
}

/**
 * What the old index answers is kept: the same manifest, and in every dictionary and table file the same
 * postings and block tables for each file id that manifest names (files rewritten before the failure may
 * hold more, for ids it does not name).
 */
function keptDifference(before, after) {
	if (before.get("manifest.json") !== after.get("manifest.json")) return "manifest.json changed";
	const json = (v) => JSON.parse(Buffer.from(v, "base64").toString("utf8"));
	const fids = new Set(Object.values(json(before.get("manifest.json")).files).map((s) => s.fid));
	for (const [n, v] of before) {
		if (!/^[dt]-/.test(n) || after.get(n) === v) continue;
		if (!after.has(n)) return `${n} deleted`;
		let old;
		let now;
		try {
			old = json(v);
			now = json(after.get(n));
		} catch {
			return `${n} does not parse`;
		}
		if (n.startsWith("t-")) {
			for (const fid of Object.keys(old))
				if (fids.has(Number(fid)) && JSON.stringify(old[fid]) !== JSON.stringify(now[fid])) return `${n}: table of ${fid} changed`;
			continue;
		}
		const pairs = (list) => {
			const out = [];
			for (let i = 0; i < (list ?? []).length; i += 2) if (fids.has(list[i])) out.push(`${list[i]}:${list[i + 1]}`);
			return out.sort().join();
		};
		for (const word of Object.keys(old)) if (pairs(old[word]) !== pairs(now[word])) return `${n}: postings of "${word}" changed`;
	}
	return null;
}

function fullDisk(tmp, home) {
	const mnt = join(tmp, "tmpfs");
	mkdirSync(mnt, { recursive: true });
	const m = spawnSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt], { encoding: "utf8" });
	if (m.status !== 0) return { ran: false, why: (m.stderr || "mount failed").trim() };
	const out = { ran: true, cases: 0, clean: 0, details: [] };
	try {
		// Left free: nothing (the lock cannot be written), a few pages (a build fails midway).
		for (const leave of [0, 4096 * 3, 4096 * 8]) {
			out.cases++;
			const dir = join(tmp, `full-sessions-${leave}`);
			writeSessions(dir, "f", 20, 40);
			const idx = join(mnt, "index");
			rmSync(idx, { recursive: true, force: true });
			const first = arbor(["search", "marker", dir, "--index-dir", idx], { HOME: home });
			writeSessions(join(dir, "more"), "g", 30, 60);
			for (const n of readdirSync(dir)
				.filter((n) => n.endsWith(".jsonl"))
				.slice(0, 5))
				writeFileSync(join(dir, n), sessionText(n, ["rewritten gsidex"]));
			const before = snapshot(idx);
			const st = statfsSync(mnt);
			const free = st.bavail * st.bsize;
			writeFileSync(join(mnt, "filler"), Buffer.alloc(Math.max(0, free - leave)));
			const r = arbor(["search", "marker", dir, "--index-dir", idx], { HOME: home });
			const lines = r.stderr.split("\n").filter(Boolean);
			const after = snapshot(idx);
			const litter = [...after.keys()].filter((n) => n.endsWith(".tmp") || n === "index.lock");
			const difference = litter.length ? `left ${litter.join(", ")}` : keptDifference(before, after);
			const oneLine = r.status === 2 && lines.length === 1 && /no space left/.test(lines[0]) && lines[0].includes(idx) && !/\n\s+at /.test(r.stderr);
			rmSync(join(mnt, "filler"));
			const again = found("gside", [dir], idx, home);
			// 30 new files and 5 rewritten ones hold the word.
			const ok = first.status === 0 && oneLine && difference === null && !again.error && again.paths.length === 35;
			if (ok) out.clean++;
			else
				out.details.push(
					`full disk (${leave} bytes left): first ${first.status}, exit ${r.status}, stderr ${JSON.stringify(r.stderr.slice(0, 300))}, old index kept: ${difference ?? "yes"}, next run ${again.error ?? again.paths.length}`,
				);
			rmSync(dir, { recursive: true, force: true });
		}
	} finally {
		spawnSync("umount", ["-l", mnt]);
	}
	return out;
}

export async function run(ctx) {
	const { bounded, seed, tmp, log } = ctx;
	mkdirSync(tmp, { recursive: true });
	const home = join(tmp, "home");
	mkdirSync(home, { recursive: true });
	const sessions = join(tmp, "sessions");
	writeSessions(sessions, "h", 6, 20);
	const rng = makeRng(`search-index-${seed}`);
	log("hostile --index-dir folders");
	const h = hostile(tmp, home, sessions);
	const raceTrials = bounded ? 3 : 20;
	log(`two arbor search processes on one index (${raceTrials} trials)`);
	const rc = await race(tmp, home, raceTrials);
	const killTrials = bounded ? 4 : 30;
	log(`kill -9 during an index build (${killTrials} trials)`);
	const k = await kills(tmp, home, killTrials, rng);
	log("full disk under the index (4 MiB tmpfs)");
	const full = fullDisk(tmp, home);
	const figures = [
		{
			label: `hostile --index-dir (${h.tried} folders that are not Arbor's index): refused in one line naming the folder`,
			value: `${h.refused} of ${h.tried}`,
			ok: h.refused === h.tried,
		},
		{
			label: `Arbor's own index (older and current) with a user's file in it: rebuilt and right`,
			value: `${h.rebuilt} of ${h.rebuiltTried}`,
			ok: h.rebuilt === h.rebuiltTried,
		},
		{ label: "files that are not Arbor's deleted or changed by index builds", value: h.changed, target: 0 },
		{
			label: `two arbor search processes on one index (${rc.trials} trials, 5 + 120 files, ${rc.waited} waits for the lock): files found under another file's id or missed`,
			value: rc.wrong,
			target: 0,
		},
		{ label: "two processes: duplicate file ids in the manifest", value: rc.dupIds, target: 0 },
		{ label: "two processes: runs that failed", value: rc.failed, target: 0 },
		{
			label: `kill -9 during an index build (${k.trials} trials, ${k.killedMidBuild} killed before finishing): temp files or lock left after the next run`,
			value: k.left,
			target: 0,
		},
		{ label: "kill -9: next runs failed or wrong", value: k.failed + k.wrong, target: 0 },
	];
	if (full.ran)
		figures.push({
			label: `full disk under the index (${full.cases} cases, real tmpfs): one-line error, old index kept (same manifest, same postings and tables for its files), no temp file, right after space is freed`,
			value: `${full.clean} of ${full.cases}`,
			ok: full.clean === full.cases,
		});
	else figures.push({ label: "full disk under the index on a real tmpfs (the injected case is in search-index-full-disk.test.ts)", notRun: full.why });
	return {
		title: "Search index: hostile --index-dir, two processes on one index, kill -9, full disk",
		figures,
		details: [...h.details, ...rc.details, ...k.details, ...(full.details ?? [])],
	};
}
