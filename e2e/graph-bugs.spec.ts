// Regression specs for the four bugs a first-time user hit (issue #11): the view running away after a
// drag released outside the window, one composer shared by every tab, the leaf vanishing when the last
// line is hidden by the filter, and error toasts in developer words covering Send.
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { card, jsonl, openApp, shot, viewportSettled } from "./helpers/app";
import { fixturesDir, type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const sample = (dir?: string) => tempCopy(join(repoRoot, "build", "sample-session.jsonl"), dir);

/**
 * How often the viewport's transform changed over the next `frames` animation frames. xyflow's auto-pan runs
 * once per frame, so a loop left running shows up as changes here: frames are the clock the bug runs on.
 */
const transformChangesOver = (page: Page, frames: number) =>
	page.locator(".react-flow__viewport").evaluate(
		(el, n) =>
			new Promise<number>((done) => {
				let last = (el as HTMLElement).style.transform;
				let changes = 0;
				let left = n;
				const tick = () => {
					const now = (el as HTMLElement).style.transform;
					if (now !== last) changes++;
					last = now;
					if (--left <= 0) done(changes);
					else requestAnimationFrame(tick);
				};
				requestAnimationFrame(tick);
			}),
		frames,
	);

test("a card dragged past the window edge and released outside does not leave the view panning", async ({ page }) => {
	host = await startHost([process.env.ARBOR_RUNAWAY_FILE ?? sample()]);
	await openApp(page, host);
	// xyflow's auto-pan loop outlived a drag whose card left the graph mid-drag (culled, filtered, a live
	// re-layout): the drag was aborted without stopping the loop. Here the card leaves through the filter.
	const node = page.locator(".react-flow__node:has(.arbor-card--assistant)").first();
	const box = await node.boundingBox();
	if (!box) throw new Error("no assistant card");
	await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
	await page.mouse.down();
	await page.mouse.move(box.x + box.width / 2 - 40, box.y + box.height / 2 - 40, { steps: 4 });
	await page.mouse.move(2, 2, { steps: 10 });
	await page.mouse.move(-30, -30, { steps: 3 });
	await page.keyboard.press("Control+u");
	// The dragged card has left the graph (user-only shows no assistant card).
	await expect(page.locator(".react-flow__node:has(.arbor-card--assistant)")).toHaveCount(0);
	await page.mouse.move(-40, -35, { steps: 3 });
	// The pointer stays outside for a while (30 frames): long enough for a running auto-pan loop to pan.
	await transformChangesOver(page, 30);
	await page.mouse.up();
	// The release is handled within a few frames; from then on the view must not move by itself.
	await transformChangesOver(page, 10);
	expect(await transformChangesOver(page, 60), "the viewport kept moving after the mouse was released").toBe(0);
	// Fit still works and the view stays where Fit put it.
	await page.getByTestId("fit-button").click();
	await viewportSettled(page);
	expect(await transformChangesOver(page, 60), "the view moved after Fit settled").toBe(0);
});

/** Id of the message entry whose text starts with `text`. */
function idOf(file: string, text: string): string {
	for (const e of jsonl(file)) {
		const m = e.message as { content?: unknown } | undefined;
		const c = m?.content;
		const s = typeof c === "string" ? c : Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? "").join("") : "";
		if (s.startsWith(text)) return e.id as string;
	}
	throw new Error(`no entry starting with ${text}`);
}

test("each session has its own composer draft, and Send names the file it writes to", async ({ page }) => {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-drafts-"));
	const a = sample(dir);
	const b = tempCopy(join(fixturesDir, "formic__pi-v3-branch-compaction.jsonl"), dir);
	host = await startHost([a, b]);
	await openApp(page, host);
	const tabs = page.getByTestId("session-tab");
	await expect(tabs).toHaveCount(2);
	await expect(page.getByTestId("composer-target")).toHaveText("sample-session.jsonl");
	await page.getByTestId("composer").fill("only for the sample");
	await tabs.nth(1).locator("button").first().click();
	await expect(page.getByTestId("composer-target")).toHaveText("formic__pi-v3-branch-compaction.jsonl");
	await expect(page.getByTestId("composer")).toHaveValue("");
	await page.getByTestId("composer").fill("only for formic");
	await tabs.nth(0).locator("button").first().click();
	await expect(page.getByTestId("composer")).toHaveValue("only for the sample");
	await tabs.nth(1).locator("button").first().click();
	await expect(page.getByTestId("composer")).toHaveValue("only for formic");
	await page.getByTestId("composer").fill("");

	// Branch to new file: the message text goes to the new file's tab only.
	await tabs.nth(0).locator("button").first().click();
	await page.getByTestId("composer").fill("");
	const target = idOf(a, "Go with option 2 instead");
	await page.getByTestId("fit-button").click();
	await card(page, target).click({ button: "right" });
	await page.getByTestId("menu-item-branch.toFile").click();
	await expect(tabs).toHaveCount(3);
	await expect(page.getByTestId("composer")).toHaveValue("Go with option 2 instead: return null and print a friendly message.");
	await expect(page.getByTestId("composer-target")).not.toHaveText("sample-session.jsonl");
	await shot(page, "composer-per-session");
	await tabs.nth(0).locator("button").first().click();
	await expect(page.getByTestId("composer")).toHaveValue("");
	await expect(page.getByTestId("composer-target")).toHaveText("sample-session.jsonl");
});

test("the leaf stays visible when the filter hides the file's last line, and the status bar goes there", async ({ page }) => {
	const file = sample();
	// The sample ends with a session_info line (hidden in the default filter); a label line after it too.
	const lines = jsonl(file);
	const last = lines.at(-1) as { id: string };
	appendFileSync(
		file,
		`${JSON.stringify({ type: "label", id: "feedbeef", parentId: last.id, timestamp: "2026-11-02T09:05:00.000Z", targetId: idOf(file, "Go with option 2 instead"), label: "chosen" })}\n`,
	);
	host = await startHost([file]);
	await openApp(page, host);
	await expect(page.getByTestId("leaf-badge")).toHaveCount(1);
	await expect(page.getByTestId("status-go-leaf")).not.toContainText("feedbeef");
	await expect(page.getByTestId("status-go-leaf")).toContainText("Leaf:");
	for (const key of ["Control+u", "Control+l", "Control+t", "Control+a", "Control+d"]) {
		await page.keyboard.press(key);
		await page.getByTestId("zoom-leaf-button").click();
		await expect(page.getByTestId("leaf-badge"), `leaf badge after ${key}`).toHaveCount(1);
	}
	await page.keyboard.press("Control+u");
	await page.getByTestId("fit-button").click();
	await page.getByTestId("status-go-leaf").click();
	const badgeCard = page.locator('.react-flow__node:has([data-testid="leaf-badge"])');
	await expect(badgeCard.locator(".is-selected")).toHaveCount(1);
	await expect(page.getByTestId("leaf-badge")).toBeInViewport();
	await shot(page, "leaf-hidden-by-filter");
	// The palette has both commands.
	await page.keyboard.press("Control+k");
	await page.keyboard.type("Go to leaf");
	await expect(page.getByTestId("command-palette").getByText("Go to leaf")).toBeVisible();
	await page.keyboard.press("Escape");
	await page.keyboard.press("Control+k");
	await page.keyboard.type("where pi resumes");
	await expect(page.getByTestId("command-palette").getByText("Go to where pi resumes")).toBeVisible();
	await page.keyboard.press("Enter");
	await expect(page.getByTestId("command-palette")).toBeHidden();
});

test("an error toast says what happened in user words, offers the fix as a button, and never covers Send", async ({ page }) => {
	const file = tempCopy(join(fixturesDir, "pi-mono__large-session.v1.jsonl"));
	const before = readFileSync(file);
	host = await startHost([file]);
	await openApp(page, host);
	await page.getByTestId("zoom-leaf-button").click();
	await page.locator(".react-flow__node:has(.is-leaf)").click();
	await page.keyboard.press("Shift+L");
	await page.getByTestId("label-editor-input").fill("try");
	await page.keyboard.press("Enter");
	const toast = page.getByTestId("toast-error");
	await expect(toast).toBeVisible();
	await expect(toast).not.toContainText("upgradeLegacy");
	await expect(toast).not.toContainText("()");
	const action = toast.getByTestId("toast-action");
	await expect(action).toHaveText("Upgrade file (keeps a .bak)");
	expect(readFileSync(file).equals(before)).toBe(true);
	// Toasts never cover the composer's Send button.
	await page.getByTestId("composer").fill("x");
	const t = await page.getByTestId("toasts").boundingBox();
	const send = await page.getByTestId("composer-send").boundingBox();
	if (!t || !send) throw new Error("not laid out");
	const overlap = t.x < send.x + send.width && send.x < t.x + t.width && t.y < send.y + send.height && send.y < t.y + t.height;
	expect(overlap, "the toasts cover Send").toBe(false);
	await shot(page, "toast-upgrade-action");
	await action.click();
	await expect(page.getByTestId("toast-info").filter({ hasText: "backup" })).toBeVisible();
	// Transient toasts go away by themselves.
	await expect(page.getByTestId("toast-info")).toHaveCount(0, { timeout: 8_000 });
	await expect(toast).toHaveCount(0);
	expect(readFileSync(`${file}.bak`).equals(before)).toBe(true);
});
