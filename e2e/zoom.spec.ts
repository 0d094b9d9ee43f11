// Readable at every zoom (issue #11): Fit on a small session draws one-line cards whose text stays
// legible, Fit on a big session shows the leaf's neighbourhood at a zoom that draws text, and a search
// jump lands where text is drawn. Screenshots in light and dark (ARBOR_E2E_BIG=1 adds a 100k session).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { extentInPane, openApp, shot, viewportSettled } from "./helpers/app";
import { genSession, type Host, repoRoot, startHost, tempCopy, TREE_VIEW } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const zoomOf = async (page: Page): Promise<number> => {
	const t = await page.locator(".react-flow__viewport").evaluate((el) => (el as HTMLElement).style.transform);
	return Number(/scale\(([\d.e-]+)\)/.exec(t)?.[1] ?? "1");
};

/** Smallest on-screen font size (px) of the mounted cards' text. */
const smallestText = (page: Page) =>
	page.locator(".arbor-card__text").evaluateAll((els) => {
		const vp = document.querySelector<HTMLElement>(".react-flow__viewport");
		const z = Number(/scale\(([\d.e-]+)\)/.exec(vp?.style.transform ?? "")?.[1] ?? "1");
		let min = Infinity;
		for (const el of els) {
			const cs = getComputedStyle(el);
			if (cs.visibility === "hidden" || cs.display === "none") continue;
			min = Math.min(min, parseFloat(cs.fontSize) * z);
		}
		return min;
	});

function generated(n: number): string {
	const file = join(mkdtempSync(join(tmpdir(), "arbor-e2e-zoom-")), `gen${n}.jsonl`);
	execFileSync(process.execPath, [genSession, "--n", String(n), "--seed", "e2e", "--out", file]);
	return file;
}

for (const scheme of ["light", "dark"] as const) {
	test.describe(`${scheme}`, () => {
		test.use({ colorScheme: scheme });

		test(`Fit on a small session keeps card text legible (${scheme})`, async ({ page }) => {
			host = await startHost([tempCopy(join(repoRoot, "build", "sample-session.jsonl"))], TREE_VIEW);
			await openApp(page, host);
			await page.getByTestId("fit-button").click();
			await page.waitForTimeout(500);
			expect(await zoomOf(page)).toBeLessThan(0.5);
			expect(await smallestText(page)).toBeGreaterThanOrEqual(7.5);
			await expect(page.getByTestId("leaf-badge")).toBeVisible();
			await shot(page, `zoom-sample-fit-${scheme}`);
		});

		test(`Fit on a 3k session shows every entry as the overview, says how to get back; a search jump draws text (${scheme})`, async ({ page }) => {
			host = await startHost([generated(3000)], TREE_VIEW);
			await openApp(page, host);
			await page.getByTestId("fit-button").click();
			await viewportSettled(page);
			// Every node of the layout inside the pane (issue 21: Fit fits), drawn as the overview with its hint.
			expect(await extentInPane(page)).toBe(true);
			expect(await zoomOf(page)).toBeLessThan(0.5);
			await expect(page.getByTestId("arbor-overview")).toBeVisible();
			await expect(page.getByTestId("overview-hint")).toContainText("Ctrl+=");
			await shot(page, `zoom-3k-fit-${scheme}`);
			await page.getByTestId("search-input").fill("the");
			await expect(page.getByTestId("search-count")).toHaveText(/^\d+\/\d+/);
			await page.keyboard.press("F3");
			await viewportSettled(page);
			expect(await zoomOf(page)).toBeGreaterThanOrEqual(0.5);
			await expect(page.getByTestId("overview-hint")).toBeHidden();
			expect(await smallestText(page)).toBeGreaterThanOrEqual(11);
			await shot(page, `zoom-3k-search-${scheme}`);
		});

		test(`the zoomed-out overview of a 3k session draws user messages and labels as text (${scheme})`, async ({ page }) => {
			host = await startHost([generated(3000)], TREE_VIEW);
			await openApp(page, host);
			await page.getByTestId("fit-button").click();
			await page.waitForTimeout(400);
			for (let i = 0; i < 14 && (await zoomOf(page)) >= 0.2; i++) {
				await page.keyboard.press("Control+-");
				await page.waitForTimeout(100);
			}
			await page.waitForTimeout(600);
			expect(await zoomOf(page)).toBeLessThan(0.25);
			const overview = page.getByTestId("arbor-overview");
			await expect(overview).toBeVisible();
			// Previews for the landmarks arrive after the first draw; the count settles above zero.
			await expect.poll(async () => Number(await overview.getAttribute("data-texts")), { timeout: 5000 }).toBeGreaterThan(3);
			await shot(page, `zoom-3k-overview-${scheme}`);
		});

		test(`the minimap moves to another corner rather than cover the leaf (${scheme})`, async ({ page }) => {
			host = await startHost([generated(3000)], TREE_VIEW);
			await openApp(page, host);
			await page.getByTestId("zoom-leaf-button").click();
			await page.waitForTimeout(500);
			const minimap = page.getByTestId("arbor-minimap");
			const leafCard = page.locator(".arbor-card.is-leaf").first();
			await expect(leafCard).toBeVisible();
			const mm = (await minimap.boundingBox())!;
			const lf = (await leafCard.boundingBox())!;
			// Pan (drag on empty canvas) so the leaf's card lands where the minimap sits.
			const start = await page.evaluate(() => {
				const pane = document.querySelector(".react-flow__pane")!.getBoundingClientRect();
				for (let y = pane.top + 60; y < pane.bottom - 60; y += 17)
					for (let x = pane.left + 40; x < pane.right - 240; x += 23) {
						const el = document.elementFromPoint(x, y);
						if (el?.classList.contains("react-flow__pane")) return { x, y };
					}
				return null;
			});
			expect(start).not.toBeNull();
			const dx = mm.x + mm.width / 2 - (lf.x + lf.width / 2);
			const dy = mm.y + mm.height / 2 - (lf.y + lf.height / 2);
			await page.mouse.move(start!.x, start!.y);
			await page.mouse.down();
			await page.mouse.move(start!.x + dx / 2, start!.y + dy / 2, { steps: 5 });
			await page.mouse.move(start!.x + dx, start!.y + dy, { steps: 5 });
			await page.mouse.up();
			await page.waitForTimeout(300);
			const lf2 = (await leafCard.boundingBox())!;
			expect(Math.abs(lf2.x + lf2.width / 2 - (mm.x + mm.width / 2))).toBeLessThan(40);
			const mm2 = (await minimap.boundingBox())!;
			const overlap = lf2.x < mm2.x + mm2.width && mm2.x < lf2.x + lf2.width && lf2.y < mm2.y + mm2.height && mm2.y < lf2.y + lf2.height;
			expect(overlap).toBe(false);
			await expect(minimap).not.toHaveAttribute("data-corner", "bottom-right");
			await shot(page, `minimap-off-leaf-${scheme}`);
		});

		test(`a 100k session: Fit shows it whole (${scheme})`, async ({ page }) => {
			test.skip(!process.env.ARBOR_E2E_BIG, "set ARBOR_E2E_BIG=1 (generates a 100k-entry, ~330 MB session)");
			const file = process.env.ARBOR_E2E_BIG_FILE && existsSync(process.env.ARBOR_E2E_BIG_FILE) ? process.env.ARBOR_E2E_BIG_FILE : generated(100_000);
			host = await startHost([file], TREE_VIEW);
			await openApp(page, host);
			await shot(page, `zoom-100k-open-${scheme}`);
			await page.getByTestId("fit-button").click();
			await viewportSettled(page);
			expect(await extentInPane(page)).toBe(true);
			await shot(page, `zoom-100k-fit-${scheme}`);
			for (let i = 0; i < 12; i++) await page.keyboard.press("Control+-");
			await page.waitForTimeout(800);
			await expect.poll(async () => Number(await page.getByTestId("arbor-overview").getAttribute("data-texts")), { timeout: 8000 }).toBeGreaterThan(3);
			await shot(page, `zoom-100k-overview-${scheme}`);
		});
	});
}
