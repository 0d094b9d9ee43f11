import { defineConfig } from "vitest/config";

export default defineConfig({
	test: {
		projects: [
			{
				test: {
					name: "node",
					environment: "node",
					include: ["shared/**/*.test.ts", "electron/**/*.test.ts", "pi-extension/**/*.test.ts", "build/**/*.test.ts", "bench/**/*.test.ts"],
					testTimeout: 60_000,
					hookTimeout: 60_000,
				},
			},
			{
				test: {
					name: "renderer",
					environment: "jsdom",
					include: ["renderer/**/*.test.ts", "renderer/**/*.test.tsx"],
					setupFiles: ["renderer/test/setup.ts"],
					testTimeout: 30_000,
				},
			},
		],
	},
});
