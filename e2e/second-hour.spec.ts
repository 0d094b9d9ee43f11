// Issue 38, what a new user hit in their second hour, each in Chromium through the browser host: switching
// tabs kept each tab's filter and search; a reload keeps the open tabs.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { expect, test } from "@playwright/test";
import { openApp, shot } from "./helpers/app";
import { genSession, type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

function twoSessions(): [string, string] {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-hour-"));
	const files = ["first", "second"].map((name) => join(dir, `${name}.jsonl`)) as [string, string];
	for (const [i, f] of files.entries()) execFileSync(process.execPath, [genSession, "--n", "120", "--seed", `hour-${i}`, "--out", f]);
	return files;
}

test("switching tabs keeps each tab's filter and search (it reset them to the default)", async ({ page }) => {
	const [a, b] = twoSessions();
	host = await startHost([a, b]);
	await openApp(page, host);
	const tabs = page.getByTestId("session-tab");
	await expect(tabs).toHaveCount(2);
	const pressed = (mode: string) => expect(page.getByTestId(`filter-${mode}`)).toHaveAttribute("aria-pressed", "true");
	const search = page.getByTestId("search-input");
	await tabs.nth(0).locator("button").first().click();
	await page.getByTestId("filter-user-only").click();
	await pressed("user-only");
	await search.fill("test");
	await tabs.nth(1).locator("button").first().click();
	// The other tab shows its own (here: a new tab's) view.
	await pressed("default");
	await expect(search).toHaveValue("");
	await page.getByTestId("filter-no-tools").click();
	await tabs.nth(0).locator("button").first().click();
	await pressed("user-only");
	await expect(search).toHaveValue("test");
	await shot(page, "tabs-keep-filter");
	await tabs.nth(1).locator("button").first().click();
	await pressed("no-tools");
	await expect(search).toHaveValue("");
});

test("a reload of the page keeps its tabs and the active one (it closed every session)", async ({ page }) => {
	const [a, b] = twoSessions();
	const c = join(dirname(a), "third.jsonl");
	execFileSync(process.execPath, [genSession, "--n", "60", "--seed", "hour-2", "--out", c]);
	// Launched on one file of a served folder; two more opened from the library.
	host = await startHost([dirname(a), a]);
	await openApp(page, host);
	const tabs = page.getByTestId("session-tab");
	await expect(page.getByTestId("status-file")).toContainText(basename(a));
	for (const f of [b, c]) {
		await page.getByTestId("open-library").click();
		await page.locator(`[data-testid="library-item"][title="${f}"]`).click();
		await expect(page.getByTestId("status-file")).toContainText(basename(f));
	}
	await expect(tabs).toHaveCount(3);
	await tabs.nth(1).locator("button").first().click();
	await expect(page.getByTestId("status-file")).toContainText(basename(b));
	await page.reload();
	await expect(tabs).toHaveCount(3);
	await expect(page.getByTestId("status-file")).toContainText(basename(b));
	await expect(page.getByTestId("library")).toHaveCount(0);
	await shot(page, "reload-keeps-tabs");
});

test("Escape in the composer hands the keys back to the graph, its draft kept (there was no key back)", async ({ page }) => {
	const [a] = twoSessions();
	host = await startHost([a]);
	await openApp(page, host);
	const composer = page.getByTestId("composer");
	await composer.click();
	await composer.fill("a draft");
	await page.keyboard.press("Escape");
	await expect(composer).not.toBeFocused();
	await expect.poll(() => page.evaluate(() => document.activeElement?.closest("[role=tree]") !== null)).toBe(true);
	await expect(composer).toHaveValue("a draft");
	// The graph has the keys again: Down moves the selection, as pi's tree selector does.
	const before = await page.locator('[aria-selected="true"]').first().getAttribute("id");
	await page.keyboard.press("ArrowUp");
	await expect.poll(() => page.locator('[aria-selected="true"]').first().getAttribute("id")).not.toBe(before);
});
