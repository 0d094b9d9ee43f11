#!/usr/bin/env node
// `npm test`: every check the project has, in one run, ending with the line CI reads:
// "N passed, N failed[, N skipped]" summed over every runner (type-check, vitest, Playwright,
// reliability figures, electronegativity, lint). Each runner's own output is shown as it goes. The line
// before it says how many distinct tests those runs are (the electron/ tests run twice: once more on Node 24).
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..");
const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];
/** Every test identity that ran (file + full name; a check without a file is its title): distinct tests. */
const distinct = new Set();

// A stray `.only` fails the run instead of shrinking it (vitest.config.ts, playwright.config.ts; issue 32).
process.env.ARBOR_FORBID_ONLY = "1";

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

// 0. The oracle runtimes (Node 24 for the real pi 1.6 CLI, Bun and omp 18.3.4's source for the omp oracle),
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

// 3b. The main-process and CLI tests once more under Node 24, the Node inside Electron 45 (Arbor's CLI and
// `arbor serve` run on the user's Node 20; the app's main process on Electron's). The real-pi oracle tests
// already run pi itself under Node 24, so they are not repeated here.
const node24 = (() => {
	const p = spawnSync("node", ["scripts/runtimes.mjs", "node24"], { cwd: root, encoding: "utf8" });
	try {
		return p.status === 0 ? JSON.parse(p.stdout).node24 : null;
	} catch {
		return null;
	}
})();
if (node24) {
	const out24 = join(root, ".vitest-results-node24.json");
	rmSync(out24, { force: true });
	const code = run("vitest (Node 24: electron/, CLI)", node24, [
		"node_modules/vitest/vitest.mjs",
		"run",
		"--project",
		"node",
		"electron/",
		"--exclude",
		"electron/services/test/real-pi/**",
		"--reporter=dot",
		"--reporter=json",
		`--outputFile.json=${out24}`,
	]);
	if (existsSync(out24)) {
		const r = JSON.parse(readFileSync(out24, "utf8"));
		count(
			"vitest node24",
			r.numPassedTests,
			r.numFailedTests + (code !== 0 && r.numFailedTests === 0 ? 1 : 0),
			r.numPendingTests + r.numTodoTests,
			vitestIds(r),
		);
	} else count("vitest node24", 0, 1);
} else count("vitest node24", 0, 1);

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

process.stdout.write(`\n=== summary\n${lines.join("\n")}\n`);
const runs = totals.passed + totals.failed + totals.skipped;
process.stdout.write(`${runs} runs of ${distinct.size} distinct tests\n`);
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ""}\n`);
process.exit(totals.failed === 0 ? 0 : 1);
