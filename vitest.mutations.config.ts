import { defineConfig } from "vitest/config";

// The vitest config StrykerJS runs (stryker.config.mjs, `npm run test:mutations`): the node project only, no
// renderer or e2e. Stryker passes the test files of the modules it mutates; `.only` is never allowed here.
export default defineConfig({
	test: {
		allowOnly: false,
		environment: "node",
		include: ["shared/**/*.test.ts", "electron/**/*.test.ts", "pi-extension/**/*.test.ts"],
		testTimeout: 60_000,
		hookTimeout: 60_000,
	},
});
