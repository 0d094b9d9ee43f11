import { defineConfig } from "vitest/config";

// `npm test` (scripts/test-all.mjs) sets ARBOR_FORBID_ONLY=1: a stray `.only` then fails its test instead of
// silently dropping the rest of the run (issue 32). Direct runs keep vitest's default (allowed outside CI).
const allowOnly = process.env.ARBOR_FORBID_ONLY === "1" ? false : !process.env.CI;

export default defineConfig({
	test: {
		allowOnly,
		projects: [
			{
				test: {
					name: "node",
					allowOnly,
					environment: "node",
					include: ["shared/**/*.test.ts", "electron/**/*.test.ts", "pi-extension/**/*.test.ts", "build/**/*.test.ts", "bench/**/*.test.ts"],
					testTimeout: 60_000,
					hookTimeout: 60_000,
				},
			},
			{
				test: {
					name: "renderer",
					allowOnly,
					environment: "jsdom",
					include: ["renderer/**/*.test.ts", "renderer/**/*.test.tsx"],
					setupFiles: ["renderer/test/setup.ts"],
					testTimeout: 30_000,
				},
			},
		],
	},
});
