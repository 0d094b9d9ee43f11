#!/usr/bin/env node
// `npm test`: every check the project has, in one run, ending with the line CI reads:
// "N passed, N failed[, N skipped]" summed over every runner (type-check, vitest, Playwright,
// reliability figures, electronegativity, lint), then a last check that no test left a process running.
// Each runner's own output is shown as it goes. The line before it says how many distinct tests those runs are (the electron/ tests run twice: once more on Node 22.19).
//
// Runtimes: the Node that starts this script (the system's, possibly older than Arbor's floor) only bootstraps:
// it installs the runtimes (scripts/runtimes.mjs) and runs this script again on Node 24 with that Node first on
// PATH, so every runner and every `node` a test starts is Node 24. The main-process core runs once more on
// Node 22.19, Arbor's floor (step 3b).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { leftoverCheck, newTestRunMarker, TEST_RUN_VAR } from "./leftover-processes.mjs";
import { NODE24_VERSION, runtimes } from "./runtimes.mjs";
import { envWithNode } from "./supported-node.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

if (process.versions.node !== NODE24_VERSION) {
	let node24;
	try {
		node24 = runtimes(["node24"]).node24;
	} catch (e) {
		process.stdout.write(`\n=== runtimes\n${e.message}\n0 passed, 1 failed\n`);
		process.exit(1);
	}
	const r = spawnSync(node24, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
		cwd: root,
		stdio: "inherit",
		// The bootstrapping Node stays known: the floor test runs `arbor` on it when it is older than the floor.
		env: { ...envWithNode(node24), ARBOR_BOOTSTRAP_NODE: process.execPath },
	});
	process.exit(r.status ?? 1);
}
const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];
/** Every test identity that ran (file + full name; a check without a file is its title): distinct tests. */
const distinct = new Set();

// A stray `.only` fails the run instead of shrinking it (vitest.config.ts, playwright.config.ts; issue 32).
process.env.ARBOR_FORBID_ONLY = "1";
// Every process a runner starts inherits this marker: what still carries it at the end was left by a test (step 7).
const testRun = newTestRunMarker();
process.env[TEST_RUN_VAR] = testRun;

/** Test identities from vitest's JSON report: the file relative to the repo, then the test's full name. */
function vitestIds(report) {
	return report.testResults.flatMap((file) => file.assertionResults.map((t) => `${relative(root, file.name)} > ${t.fullName}`));
}

/** Test identities from Playwright's JSON report: file, describe titles and title, per project. */
function playwrightIds(report) {
	const out = [];
	const walk = (suite, titles) => {
		for (const spec of suite.specs ?? [])
			for (const t of spec.tests ?? []) out.push(`${spec.file} > ${[...titles, spec.title].join(" > ")}${t.projectName ? ` [${t.projectName}]` : ""}`);
		for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
	};
	for (const file of report.suites ?? []) walk(file, []);
	return out;
}

function run(title, cmd, args, env = {}) {
	process.stdout.write(`\n=== ${title}: ${cmd} ${args.join(" ")}\n`);
	const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
	return r.status ?? 1;
}

function count(title, passed, failed, skipped = 0, ids = [title]) {
	for (const id of ids) distinct.add(id);
	totals.passed += passed;
	totals.failed += failed;
	totals.skipped += skipped;
	lines.push(`${title}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
}

// 0. The runtimes (Node 24 for the suite and the real pi 1.6 CLI, Node 22.19 for the floor, Bun, omp 18.3.4's
// source for the omp oracle and its CLI rig for the live omp test, verdaccio for the install-path test),
// installed once into a cache folder.
const runtimesCode = run("runtimes", "node", ["scripts/runtimes.mjs"]);
count("runtimes", runtimesCode === 0 ? 1 : 0, runtimesCode === 0 ? 0 : 1);

// 1. Type-check every project (one check per tsconfig).
for (const p of ["electron", "renderer", "tsconfig.node.json"]) {
	const code = run(`typecheck ${p}`, "npx", ["tsc", "-p", p]);
	count(`typecheck ${p}`, code === 0 ? 1 : 0, code === 0 ? 0 : 1);
}

// 1b. Lint: ESLint (layer walls, hooks, max-lines) and Prettier's check (`npm run lint`).
const lintCode = run("lint", "npm", ["run", "lint", "--silent"]);
count("lint", lintCode === 0 ? 1 : 0, lintCode === 0 ? 0 : 1);

// 2. Build (the browser host serves the built renderer; the CLI tests run the built bundle).
const buildCode = run("build", "npm", ["run", "build", "--silent"]);
count("build", buildCode === 0 ? 1 : 0, buildCode === 0 ? 0 : 1);

// 3. Unit, service, API and component tests.
const vitestOut = join(root, ".vitest-results.json");
rmSync(vitestOut, { force: true });
const vitestCode = run("vitest", "npx", ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${vitestOut}`]);
if (existsSync(vitestOut)) {
	const r = JSON.parse(readFileSync(vitestOut, "utf8"));
	count("vitest", r.numPassedTests, r.numFailedTests + (vitestCode !== 0 && r.numFailedTests === 0 ? 1 : 0), r.numPendingTests + r.numTodoTests, vitestIds(r));
} else count("vitest", 0, 1);

// 3b. The main-process and CLI tests once more on Node 22.19, the oldest Node Arbor supports (engines.node): the
// suite above ran on Node 24. The real-pi oracle tests run pi itself on Node 24, and the omp test omp on Bun, so
// they are not repeated here.
const node22 = (() => {
	try {
		return runtimes(["node22"]).node22;
	} catch {
		return null;
	}
})();
if (node22) {
	const out22 = join(root, ".vitest-results-node22.json");
	rmSync(out22, { force: true });
	const code = run(
		"vitest (Node 22.19: electron/, CLI)",
		node22,
		[
			"node_modules/vitest/vitest.mjs",
			"run",
			"--project",
			"node",
			"electron/",
			"--exclude",
			"electron/services/test/real-pi/**",
			"--exclude",
			"electron/services/test/live/live-omp.test.ts",
			"--reporter=dot",
			"--reporter=json",
			`--outputFile.json=${out22}`,
		],
		envWithNode(node22),
	);
	if (existsSync(out22)) {
		const r = JSON.parse(readFileSync(out22, "utf8"));
		count(
			"vitest node22",
			r.numPassedTests,
			r.numFailedTests + (code !== 0 && r.numFailedTests === 0 ? 1 : 0),
			r.numPendingTests + r.numTodoTests,
			vitestIds(r),
		);
	} else count("vitest node22", 0, 1);
} else count("vitest node22", 0, 1);

// 4. End-to-end specs in Debian Chromium through the browser host (and Electron where a binary exists).
const hasSpecs = existsSync(join(root, "e2e")) && readdirSync(join(root, "e2e")).some((f) => f.endsWith(".spec.ts"));
if (hasSpecs) {
	const pwOut = join(root, ".playwright-results.json");
	rmSync(pwOut, { force: true });
	const code = run("playwright", "npx", ["playwright", "test", "--reporter=list,json"], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwOut });
	if (existsSync(pwOut)) {
		const report = JSON.parse(readFileSync(pwOut, "utf8"));
		const s = report.stats;
		count("playwright", s.expected + s.flaky, s.unexpected + (code !== 0 && s.unexpected === 0 ? 1 : 0), s.skipped, playwrightIds(report));
	} else count("playwright", 0, 1);
}

// 5. Reliability and security figures (bounded version in CI; see README "Guarantees").
if (existsSync(join(root, "scripts", "reliability.mjs"))) {
	const code = run("reliability", "node", ["scripts/reliability.mjs", "--bounded"]);
	count("reliability", code === 0 ? 1 : 0, code === 0 ? 0 : 1);
}

// 6. Electron security lint.
if (existsSync(join(root, "scripts", "electronegativity.mjs"))) {
	const code = run("electronegativity", "node", ["scripts/electronegativity.mjs"]);
	count("electronegativity", code === 0 ? 1 : 0, code === 0 ? 0 : 1);
}

// 7. No test leaves a process behind (issue 39): each process still carrying this run's marker is a failed check.
{
	process.stdout.write(`\n=== leftover processes (${TEST_RUN_VAR}=${testRun})\n`);
	const left = await leftoverCheck(testRun);
	for (const p of left) process.stdout.write(`left running by a test (killed): pid ${p.pid}: ${p.command}\n`);
	if (left.length === 0) process.stdout.write("none\n");
	count("leftover processes", left.length === 0 ? 1 : 0, left.length);
}

process.stdout.write(`\n=== summary\n${lines.join("\n")}\n`);
const runs = totals.passed + totals.failed + totals.skipped;
process.stdout.write(`${runs} runs of ${distinct.size} distinct tests\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ""}\n`);
process.exit(totals.failed === 0 ? 0 : 1);
