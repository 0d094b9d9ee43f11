// Issue 21: the shape of a conversation at a glance. A 3,000-entry branched session opens at 1440×900 with
// at least 25 readable entries (e2e/helpers/app.ts readableEntries defines "readable"), the leaf in view.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { extentInPane, openApp, readableEntries, shot, viewportSettled } from "./helpers/app";
import { genSession, type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

function generated(n: number, seed: string): string {
	const file = join(mkdtempSync(join(tmpdir(), "arbor-e2e-overview-")), `gen${n}.jsonl`);
	execFileSync(process.execPath, [genSession, "--n", String(n), "--seed", seed, "--out", file]);
	return file;
}

test("a 3,000-entry branched session opens with at least 25 readable entries and the leaf in view", async ({ page }) => {
	host = await startHost([generated(3000, "e2e")]);
	await openApp(page, host);
	await viewportSettled(page);
	await expect(page.getByTestId("leaf-badge")).toBeInViewport({ ratio: 1 });
	await expect.poll(async () => (await readableEntries(page)).count, { timeout: 20_000 }).toBeGreaterThanOrEqual(25);
	// The active path runs up from the leaf: the rows right above it are on it.
	expect(await page.locator(".arbor-card.is-active").count()).toBeGreaterThanOrEqual(20);
	// Where branches leave the path: lanes other than the path's are drawn beside it.
	expect(await page.locator(".arbor-lane-dot:not(.is-active):not(.is-leaf)").count()).toBeGreaterThan(0);
	await shot(page, "overview-open");
});

for (const scheme of ["light", "dark"] as const) {
	test.describe(scheme, () => {
		test.use({ colorScheme: scheme });
		test(`Fit shows every entry of the filter as the overview and says how to get back to rows (${scheme})`, async ({ page }) => {
			host = await startHost([generated(3000, "e2e")]);
			await openApp(page, host);
			await page.getByTestId("filter-no-tools").click();
			await page.getByTestId("fit-button").click();
			await viewportSettled(page);
			expect(await extentInPane(page)).toBe(true);
			await expect(page.getByTestId("arbor-overview")).toBeVisible();
			await expect(page.getByTestId("overview-hint")).toContainText("Ctrl+G");
			await shot(page, `overview-fit-${scheme}`);
			// Ctrl+G: the leaf's rows, readable again.
			await page.getByTestId("arbor-tree").focus();
			await page.keyboard.press("Control+g");
			await viewportSettled(page);
			await expect(page.getByTestId("overview-hint")).toBeHidden();
			await expect.poll(async () => (await readableEntries(page)).count, { timeout: 20_000 }).toBeGreaterThanOrEqual(25);
			await expect(page.getByTestId("leaf-badge")).toBeInViewport();
		});
	});
}
