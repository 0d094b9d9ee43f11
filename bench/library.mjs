#!/usr/bin/env node
// Bench: `arbor sessions` over a generated library of 3,000 session files (the target: under a
// second). Prints the time of listSessions (in-process, after the build) and of the whole CLI command, plus
// a baseline measured in the same run: reading every file whole, as pi's session list does.
// Usage: node bench/library.mjs [--files 3000] [--big 20]   (builds dist/ first if needed)
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const arg = (name, def) => {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 ? Number(process.argv[i + 1]) : def;
};
const FILES = arg("files", 3000);
const BIG = arg("big", 20);

execFileSync(process.execPath, [join(root, "build", "build-main.mjs")], { stdio: "inherit" });
const dir = mkdtempSync(join(tmpdir(), "arbor-bench-library-"));
try {
	const projects = Array.from({ length: 40 }, (_, i) => `--home-me-project${i}--`);
	for (const p of projects) mkdirSync(join(dir, p));
	const gen = join(root, "..", "shared", "tools", "gen-session.mjs");
	// A few big files (like real libraries) so that reading whole files would show.
	for (let i = 0; i < BIG; i++) {
		execFileSync(process.execPath, [gen, "--n", "5000", "--seed", `big${i}`, "--out", join(dir, projects[i % 40], `big-${i}.jsonl`)]);
	}
	const small =
		readFileSync(join(dir, projects[0], "big-0.jsonl"), "utf8")
			.split("\n")
			.slice(0, 40)
			.join("\n") + "\n";
	for (let i = BIG; i < FILES; i++) writeFileSync(join(dir, projects[i % 40], `s-${i}.jsonl`), small);
	let bytes = 0;
	const t0 = performance.now();
	for (const p of readdirSync(dir)) for (const f of readdirSync(join(dir, p))) bytes += readFileSync(join(dir, p, f)).length;
	const baseline = performance.now() - t0;

	const t1 = performance.now();
	const r = spawnSync(process.execPath, [join(root, "bin", "arbor.cjs"), "sessions", dir, "--json"], { encoding: "utf8", maxBuffer: 1 << 28 });
	const cli = performance.now() - t1;
	if (r.status !== 0) throw new Error(`arbor sessions failed: ${r.stderr}`);
	const n = JSON.parse(r.stdout).length;
	console.log(`library: ${n} files (${(bytes / 1e6).toFixed(0)} MB)`);
	console.log(`  arbor sessions (whole CLI process): ${cli.toFixed(0)} ms${cli < 1000 ? "" : "  (over the 1 s target)"}`);
	console.log(`  baseline, reading every file whole: ${baseline.toFixed(0)} ms`);
	console.log(`  ratio CLI / baseline: ${(cli / baseline).toFixed(2)}`);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
