// ESLint flat config (`npm run lint` runs it with `prettier --check`). The layer walls of DESIGN.md are
// the local rule `arbor/layers` (eslint/layers.mjs), the format seam's `arbor/raw-records` (eslint/raw-records.mjs); the rest is the stock recommended sets with the few
// choices below, each with its reason.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";
import arbor from "./eslint/layers.mjs";

const TEST_FILES = ["**/test/**", "**/testing/**", "**/*.test.ts", "**/*.test.tsx", "**/*.spec.ts"];

export default tseslint.config(
	{ ignores: ["node_modules/", "dist/", "out/", "test-results/", "playwright-report/", "bench/.cache/", ".tmp/", "e2e/screenshots/"] },
	js.configs.recommended,
	tseslint.configs.recommended,
	{
		linterOptions: { reportUnusedDisableDirectives: "error" },
		plugins: { arbor },
		rules: {
			"arbor/layers": "error",
			// Raw record names of each agent's files stay in its format module (eslint/raw-records.mjs, docs/formats.md).
			"arbor/raw-records": "error",
			// TypeScript resolves names (tsc -p ×3); for the .mjs scripts Node's own run is the check.
			"no-undef": "off",
			"@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }],
			// Control characters in regexes are deliberate: the JSONL and terminal-text sanitizers match them.
			"no-control-regex": "off",
			"no-empty": ["error", { allowEmptyCatch: true }],
		},
	},
	{
		files: ["renderer/**/*.{ts,tsx}"],
		plugins: { "react-hooks": reactHooks },
		rules: {
			"react-hooks/rules-of-hooks": "error",
			"react-hooks/exhaustive-deps": "error",
		},
	},
	{
		// shared/ runs on both sides: no DOM and no Node globals (the imports are walled by arbor/layers).
		files: ["shared/**/*.ts"],
		ignores: TEST_FILES,
		rules: {
			"no-restricted-globals": [
				"error",
				...["document", "window", "navigator", "localStorage", "process", "Buffer", "require", "__dirname", "__filename", "global"].map((name) => ({
					name,
					message: "shared/ is pure TypeScript: no DOM or Node globals (DESIGN.md).",
				})),
			],
		},
	},
	{
		// Every byte the `arbor` command prints goes through electron/cli/io.ts (and output.ts, its part the lean `arbor context` entry loads), which shows control characters
		// from session text escaped (shared/terminal-text.ts): a message must not drive the terminal (issue #23).
		files: ["electron/cli/**/*.ts"],
		ignores: [...TEST_FILES, "electron/cli/io.ts", "electron/cli/output.ts"],
		rules: {
			"no-restricted-syntax": [
				"error",
				{
					selector: "MemberExpression[object.object.name='process'][object.property.name=/^(stdout|stderr)$/][property.name='write']",
					message: "Print through electron/cli/io.ts (printLine, Output, warn ...): it escapes terminal control characters.",
				},
				{
					selector: "CallExpression[callee.object.name='console']",
					message: "Print through electron/cli/io.ts (printLine, Output, warn ...): it escapes terminal control characters.",
				},
			],
		},
	},
	{
		// One reason per file: no non-test source file over 600 lines (issue #13).
		files: ["electron/**/*.{ts,tsx}", "renderer/**/*.{ts,tsx}", "shared/**/*.{ts,tsx}"],
		ignores: TEST_FILES,
		rules: { "max-lines": ["error", { max: 600, skipBlankLines: false, skipComments: false }] },
	},
	{
		// Tests poke at loose JSON read back from files and at upstream internals; production code uses `unknown`.
		files: TEST_FILES,
		rules: {
			"@typescript-eslint/no-explicit-any": "off",
			// A stray `.only` shrinks the run without a skip being reported (issue 32); `npm test` also makes
			// vitest and Playwright refuse it (ARBOR_FORBID_ONLY).
			"no-restricted-syntax": [
				"error",
				{
					selector:
						"MemberExpression[property.name='only'][object.name=/^(it|test|describe|suite)$/], MemberExpression[property.name='only'][object.property.name=/^(describe|it|test)$/]",
					message: "No .only in committed tests: it silently drops every other test from the run.",
				},
			],
		},
	},
	{
		files: ["**/*.cjs"],
		languageOptions: { sourceType: "commonjs" },
		rules: { "@typescript-eslint/no-require-imports": "off" },
	},
);
