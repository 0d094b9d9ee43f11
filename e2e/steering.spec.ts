// Finding and steering (issue #11): phrase search with the count and first match at once (the same rule
// as `arbor tree --search`), drag the leaf badge onto a card to navigate there, a filter change keeps
// the selection in view, and navigating to a user message focuses the composer with its text.
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { card, cliVisibleIds, jsonl, openApp, sha256, shot } from "./helpers/app";
import { type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const sample = () => tempCopy(join(repoRoot, "build", "sample-session.jsonl"));

function idOf(file: string, text: string): string {
	for (const e of jsonl(file)) {
		const m = e.message as { content?: unknown } | undefined;
		const c = m?.content;
		const s = typeof c === "string" ? c : Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? "").join("") : "";
		if (s.startsWith(text)) return e.id as string;
	}
	throw new Error(`no entry starting with ${text}`);
}

const selectedCardId = (page: Page) => page.locator(".react-flow__node:has(.is-selected)").getAttribute("data-id");

test("a quoted phrase matches the exact phrase, as in arbor tree --search; count and first match show at once", async ({ page }) => {
	const file = sample();
	host = await startHost([file]);
	await openApp(page, host);
	const phrase = cliVisibleIds(file, ["--search", '"option 2"']);
	const words = cliVisibleIds(file, ["--search", "option 2"]);
	// The phrase is narrower than the two words in any order.
	expect(phrase.length).toBeLessThanOrEqual(words.length);
	await page.getByTestId("search-input").fill('"option 2"');
	await expect(page.getByTestId("search-count")).toHaveText(/^1\/\d+/);
	const count = Number(/\/(\d+)/.exec((await page.getByTestId("search-count").textContent()) ?? "")?.[1]);
	const matchIds = await page.locator(".react-flow__node:has(.is-match)").evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
	expect(count).toBeGreaterThan(0);
	expect(count).toBe(phrase.length);
	expect(matchIds.length).toBeGreaterThan(0);
	const sel = await selectedCardId(page);
	expect(matchIds).toContain(sel);
	await expect(page.getByTestId("inspector-body")).toContainText(/option 2/i);
	await shot(page, "search-phrase");
	// Unquoted: pi's token rule, unchanged.
	await page.getByTestId("search-input").fill("2 option");
	await expect(page.getByTestId("search-count")).toHaveText(/\/\d+/);
});

test("dragging the leaf badge onto a card opens the navigate dialog for it; a drop on empty canvas cancels", async ({ page }) => {
	const file = sample();
	const before = sha256(file);
	const target = idOf(file, "The daily block reports wind");
	host = await startHost([file]);
	await openApp(page, host);
	await page.getByTestId("fit-button").click();
	await page.waitForTimeout(400);
	const badge = page.getByTestId("leaf-badge");
	const dest = card(page, target);
	await dest.scrollIntoViewIfNeeded();
	const b = await badge.boundingBox();
	const d = await dest.boundingBox();
	if (!b || !d) throw new Error("not laid out");
	// Onto empty canvas: nothing happens.
	await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
	await page.mouse.down();
	await page.mouse.move(b.x + 200, b.y - 5, { steps: 6 });
	await page.mouse.move(20, 300, { steps: 6 });
	await page.mouse.up();
	await expect(page.getByTestId("navigate-dialog")).toHaveCount(0);
	await expect(page.getByTestId("toast-info")).toContainText("Leaf not moved");
	// Onto a card: the navigate dialog for that card.
	await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
	await page.mouse.down();
	await page.mouse.move(d.x + d.width / 2, d.y + d.height / 2, { steps: 12 });
	await expect(dest).toHaveClass(/is-drop-target/);
	await shot(page, "leaf-drag-over-card");
	await page.mouse.up();
	await expect(page.getByTestId("navigate-dialog")).toBeVisible();
	await expect(page.getByTestId("navigate-preview")).toBeVisible();
	await page.getByTestId("navigate-no-summary").click();
	await expect(card(page, target).locator(".is-leaf")).toHaveCount(1);
	expect(sha256(file)).toBe(before);
});

test("a filter change keeps the selection in view; navigating to a user message focuses the composer with its text", async ({ page }) => {
	const file = sample();
	const target = idOf(file, "Go with option 2 instead");
	host = await startHost([file]);
	await openApp(page, host);
	await page.getByTestId("fit-button").click();
	await card(page, target).click();
	await page.getByTestId("zoom-leaf-button").click();
	await page.keyboard.press("Control+u");
	await expect(card(page, target)).toBeInViewport();
	await page.keyboard.press("Control+a");
	await expect(card(page, target)).toBeInViewport();
	await page.keyboard.press("Control+d");
	await card(page, target).click();
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-no-summary").click();
	await expect(page.getByTestId("composer")).toBeFocused();
	await expect(page.getByTestId("composer")).toHaveValue("Go with option 2 instead: return null and print a friendly message.");
});
