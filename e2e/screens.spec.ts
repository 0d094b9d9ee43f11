// Issue 21 item 6: every screen of the graph at 1440×900 and 1280×720, light and dark, for a person to
// look at (e2e/screenshots/screens-*.png; the ones in docs/graph.md are copied from here). Each screen
// also checks what a demanding user would notice first: nothing of the graph pane's own controls
// overlaps, the rows are readable, the overview says how to get back.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { openApp, readableEntries, shot, viewportSettled } from "./helpers/app";
import { genSession, type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const overlap = async (page: Page, a: string, b: string): Promise<boolean> => {
	const ra = await page.getByTestId(a).boundingBox();
	const rb = await page.getByTestId(b).boundingBox();
	return !!ra && !!rb && ra.x < rb.x + rb.width && rb.x < ra.x + ra.width && ra.y < rb.y + rb.height && rb.y < ra.y + ra.height;
};

const file = (): string => {
	const f = join(mkdtempSync(join(tmpdir(), "arbor-e2e-screens-")), "gen3000.jsonl");
	execFileSync(process.execPath, [genSession, "--n", "3000", "--seed", "e2e", "--out", f]);
	return f;
};

for (const size of [
	{ width: 1440, height: 900 },
	{ width: 1280, height: 720 },
]) {
	for (const scheme of ["light", "dark"] as const) {
		test.describe(`${size.width}x${size.height} ${scheme}`, () => {
			test.use({ colorScheme: scheme, viewport: size });
			test(`every graph screen (${size.width}x${size.height}, ${scheme})`, async ({ page }) => {
				const tag = `${size.width}-${scheme}`;
				host = await startHost([file()]);
				await openApp(page, host);
				await viewportSettled(page);
				// Rows view on open.
				await expect.poll(async () => (await readableEntries(page)).count, { timeout: 20_000 }).toBeGreaterThanOrEqual(size.height >= 900 ? 25 : 15);
				expect(await overlap(page, "view-toggle", "minimap-toggle")).toBe(false);
				// The minimap covers none of the lanes' dots (at 1280×720 it used to sit over the top-left rows).
				const dotsUnder = await page.evaluate(() => {
					const mm = document.querySelector('[data-testid="arbor-minimap"]')?.getBoundingClientRect();
					if (!mm) return -1;
					return [...document.querySelectorAll(".arbor-lane-dot")].filter((d) => {
						const r = d.getBoundingClientRect();
						return r.x < mm.right && mm.x < r.right && r.y < mm.bottom && mm.y < r.bottom;
					}).length;
				});
				expect(dotsUnder).toBe(0);
				await shot(page, `screens-rows-${tag}`);
				// Search in rows.
				await page.getByTestId("search-input").fill("render");
				await expect(page.getByTestId("search-count")).toHaveText(/^\d+\/\d+/);
				await page.keyboard.press("F3");
				await viewportSettled(page);
				await shot(page, `screens-rows-search-${tag}`);
				await page.getByTestId("search-input").fill("");
				// Fit: the overview, with its hint clear of the graph's buttons.
				await page.getByTestId("fit-button").click();
				await viewportSettled(page);
				await expect(page.getByTestId("overview-hint")).toBeVisible();
				expect(await overlap(page, "overview-hint", "view-toggle")).toBe(false);
				expect(await overlap(page, "overview-hint", "arbor-minimap")).toBe(false);
				await shot(page, `screens-overview-${tag}`);
				// Back to rows, then the tree of cards.
				await page.getByTestId("zoom-leaf-button").click();
				await viewportSettled(page);
				await page.getByTestId("view-toggle").click();
				await expect(page.getByTestId("view-toggle")).toHaveText("Rows view");
				await viewportSettled(page);
				// The switch lands on the selected entry (it once kept the rows' viewport: an empty pane).
				await expect(page.locator(".arbor-card.is-selected").first()).toBeInViewport();
				await shot(page, `screens-tree-${tag}`);
				await page.getByTestId("view-toggle").click();
				await expect(page.getByTestId("view-toggle")).toHaveText("Tree view");
				await viewportSettled(page);
				await expect(page.locator(".arbor-card.is-selected").first()).toBeInViewport();
				// Dialogs over the rows.
				await page.getByTestId("open-library").click();
				await page.waitForTimeout(500);
				await shot(page, `screens-library-${tag}`);
				await page.keyboard.press("Escape");
				await page.getByTestId("open-settings").click();
				await page.waitForTimeout(500);
				await shot(page, `screens-settings-${tag}`);
				await page.keyboard.press("Escape");
				await page.getByTestId("open-palette").click();
				await page.waitForTimeout(300);
				await shot(page, `screens-palette-${tag}`);
				await page.keyboard.press("Escape");
				const leaf = page.locator(".arbor-card.is-selected").first();
				await leaf.click({ button: "right" });
				await expect(page.getByTestId("context-menu")).toBeVisible();
				await shot(page, `screens-menu-${tag}`);
				await page.keyboard.press("Escape");
			});
		});
	}
}
