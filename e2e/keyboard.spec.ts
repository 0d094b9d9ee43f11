// Keyboard (issue #11): Shift+F10 / the context-menu key open the entry menu, Enter/Space open a "+N"
// pill, Ctrl+Tab / Ctrl+PageUp/Down switch sessions, ArrowDown from the library search enters the
// results, the graph is one tab stop whose active descendant is the selected card; the toolbar holds two
// tabs on one row at 1400 px.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { openApp, shot, viewportSettled } from "./helpers/app";
import { fixturesDir, genSession, type Host, repoRoot, startHost, tempCopy, TREE_VIEW } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

test("menu keys, +N pills, session switching, and one tab stop for the tree", async ({ page }) => {
	await page.setViewportSize({ width: 1400, height: 900 });
	const a = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	const b = tempCopy(join(fixturesDir, "formic__pi-v3-branch-compaction.jsonl"));
	host = await startHost([a, b], TREE_VIEW);
	await openApp(page, host);
	// Two tabs fit on one toolbar row.
	const bar = await page.locator("header.toolbar").boundingBox();
	const fit = await page.getByTestId("fit-button").boundingBox();
	expect(bar && fit && bar.height < 50 && fit.y < bar.y + bar.height).toBe(true);
	await expect(page.getByTestId("session-tab").first()).not.toContainText(".jsonl");
	await shot(page, "toolbar-two-tabs-1400");

	const tree = page.getByTestId("arbor-tree");
	await tree.focus();
	const active = await tree.getAttribute("aria-activedescendant");
	expect(active).toBeTruthy();
	await expect(page.locator(`#${active}`)).toHaveAttribute("role", "treeitem");
	await expect(page.locator('[role="treeitem"][aria-current="true"]')).toHaveCount(1);
	// One tab stop: no card or wrapper inside the tree takes Tab focus.
	expect(await page.locator('.arbor-tree [tabindex="0"]').count()).toBe(0);
	await page.keyboard.press("ArrowUp");
	await expect.poll(() => tree.getAttribute("aria-activedescendant")).not.toBe(active);
	await expect(page.getByTestId("graph-announcer")).not.toHaveText("");

	await page.keyboard.press("Shift+F10");
	await expect(page.getByTestId("context-menu")).toBeVisible();
	await page.keyboard.press("Escape");
	await expect(page.getByTestId("context-menu")).toBeHidden();
	await tree.focus();
	await page.keyboard.press("ContextMenu");
	await expect(page.getByTestId("context-menu")).toBeVisible();
	await page.keyboard.press("Escape");

	// Enter and Space on a focused "+N" pill open it.
	const graph = page.getByTestId("arbor-graph");
	// The moves above animate the viewport to the selection; on a busy machine such an animation can end
	// after a Fit clicked at once and leave the pills off screen (culled). Let it end, then Fit, then let
	// the Fit end too.
	await viewportSettled(page);
	await page.getByTestId("fit-button").click();
	await viewportSettled(page);
	for (const key of ["Enter", " "]) {
		const before = Number(await graph.getAttribute("data-segments"));
		const pill = page.getByTestId("arbor-segment").first();
		await pill.focus();
		await page.keyboard.press(key === " " ? "Space" : key);
		await expect.poll(async () => Number(await graph.getAttribute("data-segments"))).toBe(before - 1);
	}

	// Session switching.
	const file = page.getByTestId("status-file");
	await expect(file).toContainText("sample-session.jsonl");
	await page.keyboard.press("Control+Tab");
	await expect(file).toContainText("formic__pi-v3-branch-compaction.jsonl");
	await page.keyboard.press("Control+PageUp");
	await expect(file).toContainText("sample-session.jsonl");
	await page.keyboard.press("Control+PageDown");
	await expect(file).toContainText("formic__pi-v3-branch-compaction.jsonl");
});

test("ArrowDown from the library search enters the results; counts are exact for small files", async ({ page }) => {
	host = await startHost([join(repoRoot, "build")]);
	await page.goto(host.url);
	await expect(page.getByTestId("library")).toBeVisible({ timeout: 60_000 });
	await expect(page.getByTestId("library-item").first()).toBeVisible();
	await page.getByTestId("library-search").focus();
	await page.keyboard.press("ArrowDown");
	await expect(page.getByTestId("library-item").first()).toBeFocused();
	await expect(page.getByTestId("library-item").first()).toContainText("39 entries");
	await expect(page.getByTestId("library-item").first()).not.toContainText("≈");
	await page.keyboard.press("ArrowUp");
	await expect(page.getByTestId("library-search")).toBeFocused();
	// Nothing open: no session controls on the welcome screen.
	await page.keyboard.press("Escape");
	await expect(page.getByTestId("welcome")).toBeVisible();
	await expect(page.getByTestId("fit-button")).toHaveCount(0);
	await expect(page.getByTestId("search-input")).toHaveCount(0);
	await shot(page, "welcome");
});

test("a big file's ≈ count in the library is refined to the exact count in the background", async ({ page }) => {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-lib-"));
	const file = join(dir, "big.jsonl");
	execFileSync(process.execPath, [genSession, "--n", "4000", "--seed", "lib", "--out", file]);
	expect(statSync(file).size).toBeGreaterThan(8 * 1024 * 1024);
	const entries =
		readFileSync(file, "utf8")
			.split("\n")
			.filter((l) => l.trim()).length - 1;
	host = await startHost([dir]);
	await page.goto(host.url);
	await expect(page.getByTestId("library")).toBeVisible({ timeout: 60_000 });
	const item = page.getByTestId("library-item").first();
	await expect(item).toContainText(`${entries.toLocaleString("en-US")} entries`, { timeout: 20_000 });
	await expect(item).not.toContainText("≈");
	await shot(page, "library-exact-count");
});
