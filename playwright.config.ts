// Playwright: the same specs against the browser host in Debian's Chromium (always), and Electron where
// a binary exists (e2e/electron.spec.ts reports itself skipped otherwise). Playwright's own browser
// download fails on this machine, so Chromium comes from apt (`.ci/run` installs it).
import { defineConfig } from "@playwright/test";

export const CHROMIUM_ARGS = [
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
];

export default defineConfig({
	testDir: "e2e",
	timeout: 90_000,
	expect: { timeout: 15_000 },
	workers: 1,
	retries: 0,
	// `npm test` (scripts/test-all.mjs) sets ARBOR_FORBID_ONLY=1: a stray `test.only` fails the run instead of
	// silently dropping every other spec (issue 32).
	forbidOnly: process.env.ARBOR_FORBID_ONLY === "1" || !!process.env.CI,
	reporter: "list",
	use: {
		browserName: "chromium",
		launchOptions: { executablePath: process.env.ARBOR_CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS },
		viewport: { width: 1440, height: 900 },
		trace: "off",
	},
});
