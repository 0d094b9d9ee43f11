#!/usr/bin/env node
// `npm run test:mutations` (not part of `npm test`): does the suite catch a one-line bug in the rules that matter
// most? Each mutation below replaces one exact text in one file, runs only the tests named for it, and counts
// as caught when at least one of them fails. Every mutation must be caught (exit 1 otherwise); a search text
// that is not found exactly once fails the run before anything is changed (the code moved: update the text).
// Files are changed in place and always restored (finally, and on SIGINT / SIGTERM); at the end every file
// must hold its original bytes and `git status` must read as it did before the run. docs/guarantees.md
// "Mutation check" lists the mutations and the tests that catch them.
//
//   node scripts/mutations.mjs                 # all
//   node scripts/mutations.mjs marker-bound    # some, by id
//   node scripts/mutations.mjs --list          # the list, nothing run
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MUTATIONS } from "./mutation-list.mjs";

const root = join(import.meta.dirname, "..");
const args = process.argv.slice(2);

if (args.includes("--list")) {
	for (const m of MUTATIONS) process.stdout.write(`${m.id}\n  ${m.file}: ${m.what}\n  caught by: ${m.tests.join(", ")}\n`);
	process.exit(0);
}

const chosen = args.length > 0 ? MUTATIONS.filter((m) => args.includes(m.id)) : MUTATIONS;
const unknown = args.filter((a) => !MUTATIONS.some((m) => m.id === a));
if (unknown.length > 0) fail(`no such mutation: ${unknown.join(", ")} (--list shows them)`);

function fail(message) {
	process.stderr.write(`mutations: ${message}\n`);
	process.exit(2);
}

function occurrences(text, search) {
	let n = 0;
	for (let at = text.indexOf(search); at >= 0; at = text.indexOf(search, at + 1)) n++;
	return n;
}

function gitStatus() {
	const r = spawnSync("git", ["status", "--porcelain"], { cwd: root, encoding: "utf8" });
	if (r.status !== 0) fail(`git status failed: ${r.stderr}`);
	return r.stdout;
}

// 1. Every search text must be found exactly once, and every named test file must exist, before anything changes.
const problems = [];
for (const m of chosen) {
	const path = join(root, m.file);
	if (!existsSync(path)) {
		problems.push(`${m.id}: ${m.file} does not exist`);
		continue;
	}
	const n = occurrences(readFileSync(path, "utf8"), m.search);
	if (n !== 1) problems.push(`${m.id}: the search text is found ${n} times in ${m.file} (must be exactly once):\n    ${JSON.stringify(m.search)}`);
	for (const t of m.tests) if (!existsSync(join(root, t))) problems.push(`${m.id}: test file ${t} does not exist`);
}
if (problems.length > 0) fail(`the list does not match the code; nothing was changed:\n  ${problems.join("\n  ")}`);

// 2. Restore whatever is mutated, whatever happens.
const originals = new Map();
function restoreAll() {
	for (const [path, bytes] of originals) writeFileSync(path, bytes);
}
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"])
	process.on(sig, () => {
		restoreAll();
		process.stderr.write(`\nmutations: ${sig}: every file restored\n`);
		process.exit(130);
	});
const statusBefore = gitStatus();

function runTests(files) {
	const out = join(root, `.mutation-results.json`);
	rmSync(out, { force: true });
	const r = spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run", ...files, "--reporter=dot", "--reporter=json", `--outputFile.json=${out}`], {
		cwd: root,
		encoding: "utf8",
		env: { ...process.env, ARBOR_FORBID_ONLY: "1" },
		maxBuffer: 64 * 1024 * 1024,
	});
	let failed = [];
	let total = 0;
	if (existsSync(out)) {
		const report = JSON.parse(readFileSync(out, "utf8"));
		rmSync(out, { force: true });
		total = report.numTotalTests;
		for (const file of report.testResults)
			for (const t of file.assertionResults)
				if (t.status === "failed") failed.push({ name: t.fullName, message: (t.failureMessages?.[0] ?? "").split("\n")[0].slice(0, 300) });
		if (failed.length === 0 && report.numFailedTestSuites > 0)
			failed = report.testResults.filter((f) => f.status === "failed").map((f) => ({ name: f.name, message: (f.message ?? "").split("\n")[0].slice(0, 300) }));
	}
	return { status: r.status, total, failed, output: r.stdout + r.stderr };
}

// 3. The named tests must pass on the code as it is: a test that fails anyway catches nothing.
const results = [];
try {
	const allTests = [...new Set(chosen.flatMap((m) => m.tests))];
	process.stdout.write(`baseline: ${allTests.length} test files on the unchanged code\n`);
	const base = runTests(allTests);
	if (base.status !== 0 || base.total === 0)
		fail(
			`the named tests do not pass on the unchanged code (exit ${base.status}):\n${base.failed.map((f) => `  ${f.name}: ${f.message}`).join("\n") || base.output.slice(-3000)}`,
		);

	for (const m of chosen) {
		const path = join(root, m.file);
		const original = readFileSync(path);
		originals.set(path, original);
		const started = Date.now();
		let r;
		try {
			writeFileSync(
				path,
				original.toString("utf8").replace(m.search, () => m.replace),
			);
			r = runTests(m.tests);
		} finally {
			writeFileSync(path, original);
			originals.delete(path);
		}
		const caught = r.status !== 0 && (r.failed.length > 0 || r.total === 0);
		const seconds = ((Date.now() - started) / 1000).toFixed(0);
		results.push({ m, caught, failed: r.failed });
		process.stdout.write(`${caught ? "caught" : "MISSED"}  ${m.id} (${seconds} s): ${m.what}\n`);
		for (const f of r.failed.slice(0, 3)) process.stdout.write(`    ✗ ${f.name}\n      ${f.message}\n`);
		if (!caught) process.stdout.write(`    no test in ${m.tests.join(", ")} failed\n`);
	}
} finally {
	restoreAll();
	// Tests that build the main bundle (the CLI's) built it from mutated sources: build it again from the real ones.
	spawnSync(process.execPath, ["build/build-main.mjs"], { cwd: root, stdio: "ignore" });
}

const missed = results.filter((r) => !r.caught);
process.stdout.write(
	`\n${results.length - missed.length} of ${results.length} mutations caught${missed.length ? `; missed: ${missed.map((r) => r.m.id).join(", ")}` : ""}\n`,
);
// Every mutated file holds its original bytes again (restored above); anything else that changed meanwhile
// (an edit made during the run) is reported, since the results may not be about the code as committed.
const statusAfter = gitStatus();
if (statusAfter !== statusBefore) fail(`git status differs after the run (files changed while it ran?):\nbefore:\n${statusBefore}\nafter:\n${statusAfter}`);
process.exit(missed.length === 0 ? 0 : 1);
