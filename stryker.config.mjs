// StrykerJS over the modules that keep users' data and trust (scripts/mutation-modules.mjs; docs/guarantees.md
// "Mutation testing"). Not part of `npm test`: `npm run test:mutations` (scripts/stryker.mjs) picks the modules
// and passes each one's files, test files, incremental file and report folder here through ARBOR_MUTATE (JSON).
// Run bare (`npx stryker run`) it mutates every module against all their test files: hours on a 2-core machine.

import { MODULES, TARGET_SCORE } from "./scripts/mutation-modules.mjs";

const all = Object.values(MODULES);
const chosen = process.env.ARBOR_MUTATE
	? JSON.parse(process.env.ARBOR_MUTATE)
	: {
			mutate: all.flatMap((m) => m.mutate),
			testFiles: [...new Set(all.flatMap((m) => m.tests))],
			incrementalFile: "reports/stryker-incremental/all.json",
			report: "reports/mutation/all",
		};

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
	packageManager: "npm",
	testRunner: "vitest",
	// forks, as `npm test` runs them: some tests set the umask or the working folder, which worker threads cannot.
	vitest: { configFile: "vitest.mutations.config.ts", related: false, pool: "forks" },
	// A mutant that does not type-check is dropped before any test runs. On a loaded 2-core machine the checker
	// costs more than the tests (the whole electron program is re-checked per mutant group): `--no-typecheck`
	// (ARBOR_STRYKER_TYPECHECK=0) runs without it, and a mutant that would not compile then counts as survived unless a test kills it.
	checkers: process.env.ARBOR_STRYKER_TYPECHECK === "0" ? [] : ["typescript"],
	tsconfigFile: "electron/tsconfig.json",
	typescriptChecker: { prioritizePerformanceOverAccuracy: true },
	coverageAnalysis: "perTest",
	mutate: chosen.mutate,
	testFiles: chosen.testFiles,
	// The machine is shared: one test runner (and one checker).
	concurrency: 1,
	// Tests with real files, sockets and child processes are slower under load than in the dry run.
	timeoutMS: 20_000,
	timeoutFactor: 2,
	dryRunTimeoutMinutes: 30,
	// Only the per-run results file outside git; a re-run after a change tests only mutants whose code or tests changed.
	incremental: true,
	incrementalFile: chosen.incrementalFile,
	reporters: ["clear-text", "progress-append-only", "html", "json"],
	htmlReporter: { fileName: `${chosen.report}/index.html` },
	jsonReporter: { fileName: `${chosen.report}/mutation.json` },
	clearTextReporter: { allowColor: false, logTests: false, allowEmojis: false, reportScoreTable: true, reportMutants: true },
	ignorePatterns: ["dist", "out", "e2e", "bench/.cache", "test-results", "playwright-report", "reports", ".tmp"],
	thresholds: { high: 90, low: TARGET_SCORE, break: null },
	cleanTempDir: "always",
};
