// Accessibility (issue #11): axe-core reports no serious or critical violation on the welcome screen,
// the library, the graph, and every dialog, in the light and the dark colour scheme. Runs inside
// `npm test`'s Playwright run like every other spec.
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { expectNoSeriousViolations } from "./helpers/a11y";
import { openApp, shot } from "./helpers/app";
import { fixturesDir, type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

for (const scheme of ["light", "dark"] as const) {
	test.describe(`${scheme} colour scheme`, () => {
		test.use({ colorScheme: scheme });

		test(`welcome screen and library: no serious or critical axe violations (${scheme})`, async ({ page }) => {
			const dir = join(repoRoot, "build");
			host = await startHost([dir]);
			await page.goto(host.url);
			await expect(page.getByTestId("library")).toBeVisible({ timeout: 60_000 });
			await expectNoSeriousViolations(page, "library");
			await shot(page, `a11y-library-${scheme}`);
			await page.keyboard.press("Escape");
			await expect(page.getByTestId("welcome")).toBeVisible();
			await expectNoSeriousViolations(page, "welcome");
			await shot(page, `a11y-welcome-${scheme}`);
		});

		test(`graph and every dialog: no serious or critical axe violations (${scheme})`, async ({ page }) => {
			const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
			const legacy = tempCopy(join(fixturesDir, "pi-mono__large-session.v1.jsonl"));
			host = await startHost([file, legacy]);
			await openApp(page, host);
			await expectNoSeriousViolations(page, "graph");
			await shot(page, `a11y-graph-${scheme}`);
			await page.getByTestId("fit-button").click();
			await page.waitForTimeout(300);
			await expectNoSeriousViolations(page, "graph after Fit");

			const dialogs: { name: string; open: () => Promise<void>; testId: string }[] = [
				{ name: "command palette", testId: "command-palette", open: () => page.keyboard.press("Control+k") },
				{ name: "settings", testId: "settings-dialog", open: () => page.getByTestId("open-settings").click() },
				{ name: "library", testId: "library", open: () => page.getByTestId("open-library").click() },
				{ name: "session family", testId: "family", open: () => page.getByTestId("status-family").click() },
			];
			for (const d of dialogs) {
				await d.open();
				await expect(page.getByTestId(d.testId)).toBeVisible();
				await expectNoSeriousViolations(page, d.name);
				await page.keyboard.press("Escape");
				await expect(page.getByTestId(d.testId)).toBeHidden();
			}
			// Entry dialogs: select a card first.
			const leafCard = page.locator('.react-flow__node:has([data-testid="leaf-badge"])');
			await page.getByTestId("fit-button").click();
			await page.waitForTimeout(300);
			const user = page.locator(".react-flow__node:has(.arbor-card--user)").last();
			await user.click();
			await page.keyboard.press("Enter");
			await expect(page.getByTestId("navigate-dialog")).toBeVisible();
			await expectNoSeriousViolations(page, "navigate dialog");
			await shot(page, `a11y-navigate-${scheme}`);
			await page.keyboard.press("Escape");
			await user.click();
			await page.keyboard.press("Shift+L");
			await expect(page.getByTestId("label-editor")).toBeVisible();
			await expectNoSeriousViolations(page, "label editor");
			await page.keyboard.press("Escape");
			await user.click({ button: "right" });
			await expect(page.getByTestId("context-menu")).toBeVisible();
			await expectNoSeriousViolations(page, "context menu");
			await page.keyboard.press("Escape");
			await page.keyboard.press("Control+k");
			await page.getByTestId("palette-item-branch.pick").click();
			await expect(page.getByTestId("branch-list")).toBeVisible();
			await expectNoSeriousViolations(page, "branch list");
			await page.keyboard.press("Escape");
			expect(await leafCard.count()).toBeGreaterThanOrEqual(0);
			// The legacy file: upgrade banner and the warnings dialog.
			await page.getByTestId("session-tab").nth(1).locator("button").first().click();
			await expect(page.getByTestId("upgrade-banner")).toBeVisible();
			await expectNoSeriousViolations(page, "legacy file with upgrade banner");
			await page.getByTestId("status-warnings").click();
			await expect(page.getByTestId("warnings-dialog")).toBeVisible();
			await expectNoSeriousViolations(page, "warnings dialog");
			await shot(page, `a11y-warnings-${scheme}`);
		});
	});
}
