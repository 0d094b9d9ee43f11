#!/usr/bin/env node
// Keep's speed (issue 39 item 6.3): a real git repository with N committed files, a try worktree that changes every
// one of them (with --merge, a third also changed by the user: merged), and the time Keep takes to plan and apply them
// (applyTryChanges: the try's tree is computed first and not counted). Reported: wall time and the number of git
// processes it started (a `git` wrapper first on PATH counts them).
//
//   node bench/keep.mjs                     1,500 and 5,000 files
//   node bench/keep.mjs --n 1500            one size
//   node bench/keep.mjs --merge             a third of the files also changed by the user (one git merge-file each)
//   node bench/keep.mjs --root DIR          the Arbor checkout whose electron/services/tries/*.ts runs (compare code)
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (k, d) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : d);
const root = resolve(opt("--root", join(here, "..")));
const sizes = opt("--n") ? [Number(opt("--n"))] : [1500, 5000];
const merge = argv.includes("--merge");

// The checkout's own Keep and git code, bundled for Node as the app bundles it.
const bundle = join(mkdtempSync(join(tmpdir(), "arbor-keep-bundle-")), "keep.mjs");
await build({
	stdin: { contents: `export * from "./electron/services/tries/apply.ts"; export * from "./electron/services/tries/git.ts";`, resolveDir: root },
	bundle: true,
	platform: "node",
	format: "esm",
	outfile: bundle,
	logLevel: "error",
});
// eslint-disable-next-line arbor/layers -- the module under test is bundled to a temp file first
const keep = await import(pathToFileURL(bundle).href);
const apply = keep;
const git = keep;

const sh = (cwd, ...args) => execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

for (const n of sizes) {
	const tmp = realpathSync(mkdtempSync(join(tmpdir(), "arbor-keep-bench-")));
	try {
		const repo = join(tmp, "repo");
		mkdirSync(repo);
		sh(repo, "init", "-q");
		sh(repo, "config", "user.email", "b@b");
		sh(repo, "config", "user.name", "b");
		for (let i = 0; i < n; i++) {
			mkdirSync(join(repo, `d${i % 50}`), { recursive: true });
			writeFileSync(join(repo, `d${i % 50}`, `f${i}.txt`), `line one of ${i}\nline two\nline three\nline four\n`);
		}
		sh(repo, "add", "-A");
		sh(repo, "commit", "-q", "-m", "init");
		const head = sh(repo, "rev-parse", "HEAD");
		const snapshot = await git.snapshotWorkingTree({ root: repo, prefix: "", head }, "refs/arbor/tries/bench");
		const wt = join(tmp, "wt");
		await git.addTryWorktree({ root: repo, prefix: "", head }, wt, snapshot);
		for (let i = 0; i < n; i++) {
			const rel = join(`d${i % 50}`, `f${i}.txt`);
			writeFileSync(join(wt, rel), `line one of ${i}\nline two\nline three\nline four\nadded by the try\n`);
			// A third of the files the user changed too, at the top: Keep merges them.
			if (merge && i % 3 === 0) writeFileSync(join(repo, rel), `the user's top line\nline one of ${i}\nline two\nline three\nline four\n`);
		}
		const tree = git.treeOfTry ? await git.treeOfTry({ root: repo, head }, wt) : await git.treeOfWorkingFiles(wt, head);
		// Count git processes: a wrapper first on PATH logs each one, then runs the real git.
		const bin = join(tmp, "bin");
		mkdirSync(bin);
		const log = join(tmp, "git.log");
		const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
		writeFileSync(join(bin, "git"), `#!/bin/sh\necho x >> '${log}'\nexec '${realGit}' "$@"\n`);
		chmodSync(join(bin, "git"), 0o755);
		writeFileSync(log, "");
		const path0 = process.env.PATH;
		process.env.PATH = `${bin}:${path0}`;
		const t0 = performance.now();
		const result = await apply.applyTryChanges(repo, snapshot, tree);
		const ms = performance.now() - t0;
		process.env.PATH = path0;
		const procs = readFileSync(log, "utf8").split("\n").filter(Boolean).length;
		console.log(`${n} files: ${(ms / 1000).toFixed(2)} s, ${procs} git processes, ${result.applied.length} applied, ${result.conflicts.length} conflicts`);
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
}
