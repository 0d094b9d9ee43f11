#!/usr/bin/env node
// `npm run test:mutations` (not part of `npm test`): StrykerJS over the modules that keep users' data and trust
// (scripts/mutation-modules.mjs; docs/guarantees.md "Mutation testing"). One Stryker run per module, each with its
// own incremental file (reports/stryker-incremental/<module>.json, outside git): a re-run retests only the
// mutants whose code or covering tests changed since that module's last run.
//
//   npm run test:mutations                          # every module, one after another (hours: see the docs)
//   npm run test:mutations -- path-policy export    # some modules
//   npm run test:mutations -- --changed [BASE]      # only the lines changed since the branch left BASE (default: main), in the
//                                                   # modules whose files changed; modules whose tests changed rerun whole
//   npm run test:mutations -- --list                # the modules, their files and test files
//   npm run test:mutations -- --no-typecheck ...    # without the TypeScript checker (faster on a loaded machine)
//   npm run test:mutations -- --changed --plan      # what would run, nothing run
//   npm run test:mutations -- export -- --force     # anything after a second `--` goes to `stryker run`
//
// Exit 1 when a module's score is below TARGET_SCORE (or Stryker failed), 2 on a usage error.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { MODULES, TARGET_SCORE } from "./mutation-modules.mjs";
import { runtimes } from "./runtimes.mjs";
import { envWithNode } from "./supported-node.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

// StrykerJS 10 needs Node 22 or newer: like `npm test`, the system Node only bootstraps.
if (Number(process.versions.node.split(".")[0]) < 22) {
	const node24 = runtimes(["node24"]).node24;
	const r = spawnSync(node24, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { cwd: root, stdio: "inherit", env: envWithNode(node24) });
	process.exit(r.status ?? 1);
}

function usage(message) {
	process.stderr.write(`test:mutations: ${message}\n`);
	process.exit(2);
}

const argv = process.argv.slice(2);
const split = argv.indexOf("--");
const flags = new Set(["--no-typecheck", "--plan"]);
const typecheck = !argv.includes("--no-typecheck");
const ours = (split >= 0 ? argv.slice(0, split) : argv).filter((a) => !flags.has(a));
const passThrough = split >= 0 ? argv.slice(split + 1) : [];

if (ours.includes("--list")) {
	for (const [name, m] of Object.entries(MODULES)) process.stdout.write(`${name}\n  mutates: ${m.mutate.join(", ")}\n  tests: ${m.tests.join(", ")}\n`);
	process.exit(0);
}

function git(args) {
	const r = spawnSync("git", args, { cwd: root, encoding: "utf8" });
	if (r.status !== 0) usage(`git ${args.join(" ")} failed: ${r.stderr.trim()}`);
	return r.stdout;
}

/** The new-side line ranges each file changed since `base` (committed and not), from `git diff -U0`. */
function changedLines(base) {
	const ranges = new Map();
	let file = null;
	for (const line of git(["diff", "-U0", "--no-color", "--no-ext-diff", base, "--"]).split("\n")) {
		const plus = /^\+\+\+ (?:b\/(.*)|\/dev\/null)$/.exec(line);
		if (plus) {
			file = plus[1] ?? null;
			if (file && !ranges.has(file)) ranges.set(file, []);
			continue;
		}
		const hunk = /^@@ -\S+ \+(\d+)(?:,(\d+))? @@/.exec(line);
		if (hunk && file) {
			const start = Number(hunk[1]);
			const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
			if (count > 0) ranges.get(file).push([start, start + count - 1]);
		}
	}
	for (const f of git(["ls-files", "--others", "--exclude-standard"]).split("\n").filter(Boolean)) ranges.set(f, "all");
	return ranges;
}

/** [module name, { mutate, testFiles }] for each run. */
function plan() {
	const changed = ours.indexOf("--changed");
	if (changed < 0) {
		const names = ours.length > 0 ? ours : Object.keys(MODULES);
		const unknown = names.filter((n) => !MODULES[n]);
		if (unknown.length > 0) usage(`no such module: ${unknown.join(", ")} (--list shows them)`);
		return names.map((n) => [n, { mutate: MODULES[n].mutate, testFiles: MODULES[n].tests }]);
	}
	const base = ours[changed + 1] ?? "main";
	// From where this branch left BASE: what BASE gained since is not this change's.
	const ranges = changedLines(git(["merge-base", "HEAD", base]).trim());
	const runs = [];
	for (const [name, m] of Object.entries(MODULES)) {
		const testsChanged = m.tests.some((t) => ranges.has(t));
		const mutate = m.mutate.flatMap((f) => {
			if (testsChanged || ranges.get(f) === "all") return ranges.has(f) || testsChanged ? [f] : [];
			return (ranges.get(f) ?? []).map(([a, b]) => `${f}:${a}-${b}`);
		});
		if (mutate.length > 0) runs.push([name, { mutate, testFiles: m.tests }]);
	}
	if (runs.length === 0) process.stdout.write(`test:mutations: no module's files or tests changed since ${base}\n`);
	return runs;
}

// Tests read the fixtures at <repo>/../shared; in Stryker's sandbox (<repo>/.stryker-tmp/sandbox-*) that is
// <repo>/.stryker-tmp/shared: a link to the real folder (Stryker deletes the link with its temp folder, never the target).
const fixtures = join(root, "..", "shared");
const tempDir = join(root, ".stryker-tmp");

const stryker = join(root, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js");
if (argv.includes("--plan")) {
	for (const [name, chosen] of plan()) process.stdout.write(`${name}\n  mutates: ${chosen.mutate.join(", ")}\n  tests: ${chosen.testFiles.join(", ")}\n`);
	process.exit(0);
}

// A --changed run keeps its own incremental file: the module's full one stays whole for the next full run.
const changedRun = ours.includes("--changed");
const scores = [];
let below = false;
for (const [name, chosen] of plan()) {
	mkdirSync(tempDir, { recursive: true });
	if (existsSync(fixtures) && !existsSync(join(tempDir, "shared"))) symlinkSync(fixtures, join(tempDir, "shared"));
	process.stdout.write(`\n=== mutations: ${name}: ${chosen.mutate.join(", ")}\n`);
	const started = Date.now();
	const report = join("reports", "mutation", name);
	const incrementalFile = join("reports", "stryker-incremental", `${name}${changedRun ? ".changed" : ""}.json`);
	const r = spawnSync(process.execPath, [stryker, "run", ...passThrough], {
		cwd: root,
		stdio: "inherit",
		env: {
			...process.env,
			ARBOR_MUTATE: JSON.stringify({ ...chosen, incrementalFile, report }),
			ARBOR_FORBID_ONLY: "1",
			...(typecheck ? {} : { ARBOR_STRYKER_TYPECHECK: "0" }),
		},
	});
	const minutes = ((Date.now() - started) / 60_000).toFixed(1);
	const file = join(root, report, "mutation.json");
	if (r.status !== 0 || !existsSync(file)) {
		scores.push(`${name}: stryker exited ${r.status ?? r.signal} (${minutes} min)`);
		below = true;
		continue;
	}
	let killed = 0;
	let counted = 0;
	for (const f of Object.values(JSON.parse(readFileSync(file, "utf8")).files))
		for (const m of f.mutants) {
			if (m.status === "CompileError" || m.status === "RuntimeError" || m.status === "Ignored") continue;
			counted++;
			if (m.status === "Killed" || m.status === "Timeout") killed++;
		}
	const score = counted === 0 ? 100 : (100 * killed) / counted;
	if (score < TARGET_SCORE) below = true;
	scores.push(`${name}: ${score.toFixed(2)}% (${killed} of ${counted} mutants killed, ${minutes} min)`);
}
if (scores.length > 0) process.stdout.write(`\n=== mutation scores (target ${TARGET_SCORE}% per module)\n${scores.join("\n")}\n`);
process.exit(below ? 1 : 0);
