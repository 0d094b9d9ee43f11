// Dialog buttons never wrap (issue #11): every dialog at 1400×900 and in a narrow 1000 px window keeps
// each button's label on one line and inside the button. Screenshots of each dialog at both widths.
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { openApp, shot } from "./helpers/app";
import { fixturesDir, type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

/** Buttons in the dialog whose label takes more than one line or overflows the button. */
async function wrappedButtons(page: Page, testId: string): Promise<string[]> {
	return page.getByTestId(testId).evaluate((root) => {
		const bad: string[] = [];
		for (const b of Array.from(root.querySelectorAll<HTMLElement>("button"))) {
			if (!b.offsetParent || !b.textContent?.trim()) continue;
			// One text node over two lines is a wrapped label (a name and a path in two blocks are not).
			let wrapped = false;
			const walk = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
			for (let n = walk.nextNode(); n; n = walk.nextNode()) {
				if (!n.textContent?.trim()) continue;
				const range = document.createRange();
				range.selectNodeContents(n);
				const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
				if (rects.length > 1 && Math.abs(rects[0].top - rects[rects.length - 1].top) > 4) wrapped = true;
			}
			// A button row (flex) that puts a button on a second line.
			const row = b.parentElement;
			const rowWrapped =
				row !== null &&
				getComputedStyle(row).display === "flex" &&
				getComputedStyle(row).flexDirection === "row" &&
				Array.from(row.children).some((c) => Math.abs(c.getBoundingClientRect().top - b.getBoundingClientRect().top) > 4);
			if (wrapped || rowWrapped || b.scrollWidth > b.clientWidth + 1) bad.push(b.textContent.trim().slice(0, 60));
		}
		return bad;
	});
}

for (const width of [1400, 1000]) {
	test(`no dialog button wraps at ${width}×900`, async ({ page }) => {
		await page.setViewportSize({ width, height: 900 });
		const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
		const legacy = tempCopy(join(fixturesDir, "pi-mono__large-session.v1.jsonl"));
		host = await startHost([file, legacy]);
		await openApp(page, host);
		const failures: string[] = [];
		// The toolbar keeps both tabs and its last button inside the window.
		await expect(page.getByTestId("session-tab")).toHaveCount(2);
		for (const tab of await page.getByTestId("session-tab").all()) expect((await tab.boundingBox())!.width).toBeGreaterThan(40);
		const last = (await page.getByTestId("open-palette").boundingBox())!;
		expect(last.x + last.width).toBeLessThanOrEqual(width);
		await shot(page, `toolbar-${width}`);
		const check = async (name: string, testId: string) => {
			await expect(page.getByTestId(testId)).toBeVisible();
			for (const b of await wrappedButtons(page, testId)) failures.push(`${name}: "${b}"`);
			await shot(page, `dialog-${name.replace(/\s+/g, "-")}-${width}`);
		};
		const simple: [string, string, () => Promise<void>][] = [
			["command palette", "command-palette", () => page.keyboard.press("Control+k")],
			["settings", "settings-dialog", () => page.getByTestId("open-settings").click()],
			["library", "library", () => page.getByTestId("open-library").click()],
		];
		for (const [name, testId, open] of simple) {
			await open();
			await check(name, testId);
			await page.keyboard.press("Escape");
			await expect(page.getByTestId(testId)).toBeHidden();
		}
		await page.getByTestId("fit-button").click();
		await page.waitForTimeout(300);
		const user = page.locator(".react-flow__node:has(.arbor-card--user)").last();
		await user.click();
		await page.keyboard.press("Enter");
		await check("navigate", "navigate-dialog");
		await page.keyboard.press("Escape");
		await user.click();
		await page.keyboard.press("Shift+L");
		await check("label editor", "label-editor");
		await page.keyboard.press("Escape");
		await user.click({ button: "right" });
		await check("context menu", "context-menu");
		await page.keyboard.press("Escape");
		await page.keyboard.press("Control+k");
		await page.getByTestId("palette-item-branch.pick").click();
		await check("branch list", "branch-list");
		await page.keyboard.press("Escape");
		await page.getByTestId("session-tab").nth(1).locator("button").first().click();
		await expect(page.getByTestId("upgrade-banner")).toBeVisible();
		await page.getByTestId("status-warnings").click();
		await check("warnings", "warnings-dialog");
		expect(failures).toEqual([]);
	});
}
