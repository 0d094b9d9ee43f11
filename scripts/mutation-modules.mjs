// The modules `npm run test:mutations` mutates (StrykerJS, stryker.config.mjs; docs/guarantees.md "Mutation
// testing"), each with the test files that test it in-process, and the score each must reach.
//
// Each module names its test files instead of vitest's `--related`: the static import graph reaches most of the
// suite from any service module (the services index imports everything), and tests that only drive the built CLI
// bundle or a real pi in another process cannot see a mutant in this process anyway.

/** The mutation score every module must reach (issue 39), in percent of mutants that tests kill. */
export const TARGET_SCORE = 85;

/** @type {Record<string, { mutate: string[]; tests: string[] }>} */
export const MODULES = {
	"path-policy": {
		mutate: ["electron/api/path-policy.ts"],
		tests: ["electron/api/test/path-policy.test.ts", "electron/services/test/symlink-swap-api.test.ts"],
	},
	"recent-files": {
		mutate: ["electron/services/recent-files.ts"],
		tests: ["electron/services/test/recent-swap.test.ts", "electron/services/test/settings.test.ts"],
	},
	"fork-check": {
		mutate: ["electron/services/steering/fork-check.ts"],
		tests: ["electron/services/test/fork-check.test.ts"],
	},
	markdown: {
		mutate: ["electron/services/markdown-safe.ts"],
		tests: ["electron/services/test/export-markdown.test.ts"],
	},
	export: {
		mutate: ["electron/services/export.ts"],
		tests: ["electron/services/test/export-markdown.test.ts", "electron/services/test/compare-export-api.test.ts"],
	},
	preview: {
		mutate: ["shared/preview.ts", "shared/tree-text.ts"],
		tests: ["electron/session/test/preview.test.ts", "electron/session/test/previews-batch.test.ts", "shared/test/tree-text.test.ts"],
	},
	compare: {
		mutate: ["shared/compare.ts", "electron/services/compare-files.ts"],
		tests: ["electron/services/test/compare-files.test.ts", "electron/services/test/compare-export-api.test.ts"],
	},
	"json-lines": {
		mutate: ["shared-node/json-lines.ts"],
		tests: ["pi-extension/test/channel-limits.test.ts", "electron/services/test/live/live-trust.test.ts"],
	},
	"live-files": {
		mutate: ["shared-node/live-files.ts"],
		tests: ["pi-extension/test/channel-place.test.ts", "pi-extension/test/runtime.test.ts", "electron/services/test/live/live-trust.test.ts"],
	},
	channel: {
		mutate: ["pi-extension/channel.ts"],
		tests: ["pi-extension/test/channel-limits.test.ts", "pi-extension/test/channel.test.ts"],
	},
	writes: {
		mutate: ["electron/session/write.ts", "electron/session/append-slot.ts", "electron/session/branch-file.ts", "electron/session/live-file.ts"],
		tests: [
			"electron/session/test/writing.test.ts",
			"electron/session/test/torn-append.test.ts",
			"electron/session/test/write-failure.test.ts",
			"electron/session/test/kill-at-byte.test.ts",
			"electron/session/test/symlink-swap.test.ts",
			"electron/session/test/live-catchup.test.ts",
			"electron/session/test/branch-copy.test.ts",
			"electron/session/test/branch-dir.test.ts",
			"electron/session/test/append-line-numbers.test.ts",
		],
	},
	tries: {
		mutate: ["electron/services/tries/apply.ts", "electron/services/tries/run.ts", "electron/services/tries/state.ts", "electron/services/tries/pi-process.ts"],
		tests: [
			"electron/services/test/tries-pi-choice.test.ts",
			"electron/services/test/real-pi/tries.test.ts",
			"electron/services/test/real-pi/tries-live.test.ts",
		],
	},
	"shared-host": {
		mutate: ["electron/cli/shared-host.ts"],
		tests: ["electron/cli/test/serve-shared.test.ts"],
	},
	// The rules the hand-written mutation check (issue 32) covered besides the ones above.
	context: {
		mutate: ["electron/session/context.ts"],
		tests: ["electron/session/test/context.test.ts", "electron/session/test/conformance-pi16.test.ts"],
	},
	"tree-view": {
		mutate: ["shared/tree-view.ts"],
		tests: ["shared/test/tree-view.filters.test.ts", "shared/test/tree-view.pi-conformance.test.ts"],
	},
};
