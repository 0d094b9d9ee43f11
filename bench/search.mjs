#!/usr/bin/env node
// Bench (`npm run bench:search`): search across all sessions (electron/services/search-index.ts) on a
// generated library. Figures (docs/bench.md "Search across sessions"): the background build of the whole
// index run in cooperative slices as the app's main process runs it, with the longest event-loop stall
// measured while it runs; warm queries, the first query of the building instance and of new instances
// (what a new process pays: the dictionary files its words start with, read from disk); and the time from an
// appended entry to it being found (stat of every file + tail indexing + query).
// Usage: node bench/search.mjs [--files 300] [--entries 150]
//   --files 3000 is the 3,000-session / ~1 GB target; the default is a tenth of it, for the shared
//   machine, and the report extrapolates linearly (say so when quoting it).
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");
const arg = (name, def) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const FILES = arg("files", 300);
const ENTRIES = arg("entries", 150);
const BASES = 20;
const cache = join(root, "bench", ".cache");
mkdirSync(cache, { recursive: true });
const bundle = join(cache, "search-index.bench.mjs");
await build({ entryPoints: [join(root, "electron", "services", "search-index.ts")], bundle: true, platform: "node", format: "esm", outfile: bundle, logLevel: "error" });
// eslint-disable-next-line arbor/layers -- the module under test is bundled to a temp file first
const { SearchIndex, indexedFileList } = await import(bundle);

const dir = mkdtempSync(join(tmpdir(), "arbor-bench-search-"));
const indexDir = mkdtempSync(join(tmpdir(), "arbor-bench-search-index-"));
try {
	const gen = join(root, "..", "shared", "tools", "gen-session.mjs");
	const bases = [];
	for (let i = 0; i < BASES; i++) {
		const out = join(dir, `base-${i}.tmp`);
		execFileSync(process.execPath, [gen, "--n", String(ENTRIES), "--seed", `search${i}`, "--out", out]);
		bases.push(readFileSync(out, "utf8").split("\n").filter(Boolean));
		rmSync(out);
	}
	const projects = 40;
	for (let p = 0; p < projects; p++) mkdirSync(join(dir, `--home-me-p${p}--`));
	let bytes = 0;
	for (let i = 0; i < FILES; i++) {
		const lines = bases[i % BASES].slice();
		const h = JSON.parse(lines[0]);
		h.id = `bench-${i}`;
		lines[0] = JSON.stringify(h);
		const last = JSON.parse(lines.at(-1));
		lines.push(JSON.stringify({ type: "message", id: `m${i}`, parentId: last.id, timestamp: new Date().toISOString(), message: { role: "user", content: [{ type: "text", text: `marker word uniq${i}x` }], timestamp: Date.now() } }));
		const text = `${lines.join("\n")}\n`;
		bytes += Buffer.byteLength(text);
		writeFileSync(join(dir, `--home-me-p${i % projects}--`, `s-${i}.jsonl`), text);
	}
	const files = indexedFileList([dir]);
	console.log(`library: ${files.length} files, ${(bytes / 1e6).toFixed(0)} MB (${ENTRIES} generated entries each)`);

	// Background build: 10 ms slices with a macrotask turn between them, as the app runs it.
	let maxLag = 0;
	let last = performance.now();
	const timer = setInterval(() => {
		const now = performance.now();
		maxLag = Math.max(maxLag, now - last - 5);
		last = now;
	}, 5);
	const index = new SearchIndex({ indexDir });
	const steps = index.updateSteps(files);
	const t0 = performance.now();
	let slice = performance.now();
	for (;;) {
		const r = steps.next();
		if (r.done) break;
		if (performance.now() - slice < 10) continue;
		await new Promise((ok) => setImmediate(ok));
		slice = performance.now();
	}
	const buildMs = performance.now() - t0;
	clearInterval(timer);
	const rss = process.memoryUsage().rss;
	console.log(`build (cooperative): ${(buildMs / 1000).toFixed(1)} s, ${(bytes / 1e6 / (buildMs / 1000)).toFixed(1)} MB/s, longest event-loop stall ${maxLag.toFixed(0)} ms, rss ${(rss / 1e6).toFixed(0)} MB`);
	console.log(`  extrapolated to 3,000 files / ${((bytes / FILES) * 3000 / 1e9).toFixed(2)} GB: ${((buildMs / FILES) * 3000 / 1000).toFixed(0)} s (target ≤ 60 s)`);

	const queries = ["session tree", "uniq7x", "parse merge", "zzznothing", "graph viewport"];
	const time = (f) => {
		const s = performance.now();
		const r = f();
		return [performance.now() - s, r];
	};
	const [firstMs] = time(() => index.search("session tree", { limit: 20 }));
	const warm = [];
	for (let k = 0; k < 3; k++) for (const q of queries) warm.push(time(() => index.search(q, { limit: 20 }))[0]);
	warm.sort((a, b) => a - b);
	const [coldMs] = time(() => new SearchIndex({ indexDir }).search("uniq7x"));
	// A new instance (= the first query of a new process, e.g. `arbor search`) on common words.
	const [coldCommonMs] = time(() => new SearchIndex({ indexDir }).search("parse merge", { limit: 20 }));
	const [, found] = time(() => index.search(`uniq${FILES - 1}x`));
	console.log(`query (warm, ${warm.length} queries): median ${warm[warm.length >> 1].toFixed(1)} ms, max ${warm.at(-1).toFixed(1)} ms (target ≤ 100 ms); first query of this process: ${firstMs.toFixed(0)} ms; new instance: ${coldMs.toFixed(0)} ms (rare word), ${coldCommonMs.toFixed(0)} ms (common words); unique marker found: ${found.sessions.length === 1}`);

	// Appended entry -> searchable: stat all files, index the one new tail, query.
	const target = files[Math.floor(files.length / 2)];
	appendFileSync(target, `${JSON.stringify({ type: "message", id: "appended1", parentId: null, timestamp: new Date().toISOString(), message: { role: "user", content: [{ type: "text", text: "freshly appended quokkaword" }], timestamp: Date.now() } })}\n`);
	const a0 = performance.now();
	index.update(files);
	const hit = index.search("quokkaword");
	const appendMs = performance.now() - a0;
	console.log(`appended entry searchable after ${appendMs.toFixed(0)} ms (target ≤ 2000 ms; found: ${hit.sessions[0]?.path === target && hit.sessions[0].matches[0].entryId === "appended1"})`);
	let indexBytes = 0;
	for (const f of readdirSync(indexDir)) indexBytes += statSync(join(indexDir, f)).size;
	console.log(`index on disk: ${(indexBytes / 1e6).toFixed(0)} MB; rss after queries ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB; load average ${(await import("node:os")).loadavg()[0].toFixed(1)} on ${(await import("node:os")).cpus().length} cores`);
} finally {
	rmSync(dir, { recursive: true, force: true });
	rmSync(indexDir, { recursive: true, force: true });
}
