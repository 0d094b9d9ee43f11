// Issue #12 part 1 in the app (browser host, Debian Chromium): compare a card with the leaf and siblings of
// a branch point, the inspector's subtree roll-up, a fold pill's roll-up, export a branch as a download,
// save a pruned copy and hide a branch — the session file never changes.
import { appendFileSync, existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { card, expandAllSegments, jsonl, openApp, sha256, shot } from "./helpers/app";
import { fixturesDir, type Host, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const fixture = () => tempCopy(join(fixturesDir, "formic__pi-v3-branch-compaction.jsonl"));

async function menu(page: Page, id: string, command: string): Promise<void> {
	await page.getByTestId("fit-button").click();
	const node = card(page, id);
	await node.scrollIntoViewIfNeeded();
	await node.click({ button: "right" });
	await page.getByTestId(`menu-item-${command}`).click();
}

test("compare a card with the leaf: ancestor, both sides' facts, prompts side by side, answer diff", async ({ page }) => {
	const file = fixture();
	const before = sha256(file);
	host = await startHost([file]);
	await page.setViewportSize({ width: 1400, height: 950 });
	await openApp(page, host);
	await expandAllSegments(page);
	await menu(page, "inactive-tool", "compare.withLeaf");
	const dialog = page.getByTestId("compare-dialog");
	await expect(dialog).toBeVisible();
	await expect(page.getByTestId("compare-ancestor")).toHaveAttribute("data-entry-id", "thinking-root");
	await expect(page.getByTestId("compare-facts-a")).toHaveAttribute("data-leaf-id", "unknown-active");
	await expect(page.getByTestId("compare-facts-b")).toHaveAttribute("data-leaf-id", "inactive-tool");
	await expect(page.getByTestId("compare-rows")).toContainText("This abandoned branch must not become active chat.");
	await expect(page.getByTestId("compare-diff")).toContainText("active branch closes");
	await shot(page, "compare-with-leaf");
	// Go to B from the view: the navigate dialog for that side's leaf opens.
	await page.getByTestId("compare-navigate-b").click();
	await expect(page.getByTestId("navigate-dialog")).toBeVisible();
	expect(sha256(file)).toBe(before);
});

test("compare siblings of a branch point: pick two of its children", async ({ page }) => {
	const file = fixture();
	// Filter "all": the branch point here is a thinking_level_change, which the default filter hides.
	host = await startHost([file], { settings: { treeFilterMode: "all" } });
	await page.setViewportSize({ width: 1400, height: 950 });
	await openApp(page, host);
	await expandAllSegments(page);
	await menu(page, "thinking-root", "compare.siblings");
	await expect(page.getByTestId("compare-siblings")).toBeVisible();
	await expect(page.getByTestId("compare-ancestor")).toHaveAttribute("data-entry-id", "thinking-root");
	// Children oldest first: user-first then inactive-user; each side runs to its branch's latest entry.
	await expect(page.getByTestId("compare-facts-a")).toHaveAttribute("data-leaf-id", "unknown-active");
	await expect(page.getByTestId("compare-facts-b")).toHaveAttribute("data-leaf-id", "inactive-tool");
	// Each branch is named by its prompt, never by a hex id; both sides say what their numbers cover: the
	// path to the side's leaf, and the whole subtree under the child (the inspector's roll-up of it).
	await expect(page.getByTestId("compare-pick-a").locator("option").first()).not.toContainText("user-first");
	await expect(page.getByTestId("compare-side-name-b")).not.toHaveText(/inactive|user message…/);
	await expect(page.getByTestId("compare-facts-a")).toContainText("Path: from after the common ancestor");
	await expect(page.getByTestId("compare-subtree-a")).toContainText("Whole subtree");
	await page.getByTestId("compare-pick-b").selectOption("user-first");
	await expect(page.getByTestId("compare-ancestor")).toHaveAttribute("data-entry-id", "unknown-active");
	await shot(page, "compare-siblings");
});

test("inspector and fold pill show the subtree roll-up; Hide branch hides it (never the leaf) until shown again", async ({ page }) => {
	const file = fixture();
	host = await startHost([file], { settings: { treeFilterMode: "all" } });
	await page.setViewportSize({ width: 1400, height: 950 });
	await openApp(page, host);
	await expandAllSegments(page);
	await page.getByTestId("fit-button").click();
	await card(page, "thinking-root").click();
	const rollup = page.getByTestId("inspector-rollup");
	await expect(rollup).toBeVisible();
	await expect(page.getByTestId("rollup-entries")).toHaveText("17");
	await expect(page.getByTestId("rollup-files")).toContainText("read");
	await shot(page, "inspector-rollup");
	// The branch point's card carries the same roll-up under it.
	await expect(card(page, "thinking-root").getByTestId("arbor-branch-rollup")).toHaveText(/^17 entries · 1\.8k tok · \$12\.13/);
	// Folded, the abandoned branch's pill carries its roll-up.
	await menu(page, "inactive-user", "fold.toggle");
	await expect(page.getByTestId("arbor-fold-rollup")).toHaveText("4 entries · 3s");
	await menu(page, "inactive-user", "fold.toggle");
	await expect(page.getByTestId("arbor-fold-rollup")).toHaveCount(0);
	// Hiding the branch that holds the leaf is refused: the active path always stays visible.
	const before = sha256(file);
	await menu(page, "thinking-root", "branch.hide");
	await expect(page.locator(".toast, [data-testid^=toast]").filter({ hasText: "holds the leaf" }).first()).toBeVisible();
	await expect(card(page, "thinking-root")).toBeVisible();
	// Hide the abandoned branch: its whole subtree leaves the graph, settings hold it, the file does not.
	await menu(page, "inactive-user", "branch.hide");
	await expect(card(page, "inactive-user")).toHaveCount(0);
	await expect(card(page, "inactive-tool")).toHaveCount(0);
	await expect(card(page, "unknown-active")).toBeVisible();
	await expect(page.getByTestId("hidden-branches-show")).toHaveText("1 hidden branch — show");
	// The minimap draws what the graph draws: the hidden branch leaves its picture too (#12).
	const graphNodes = await page.getByTestId("arbor-graph").getAttribute("data-nodes");
	await expect(page.getByTestId("arbor-minimap")).toHaveAttribute("data-nodes", graphNodes ?? "");
	const settings = JSON.parse(readFileSync(join(host.home, ".arbor", "settings.json"), "utf8"));
	expect(settings.hiddenBranches[file]).toEqual(["inactive-user"]);
	expect(sha256(file)).toBe(before);
	await shot(page, "hidden-branch");
	// Reopened, the branch is still hidden (from Arbor's settings).
	await page.reload();
	await expect(page.locator(".react-flow__node").first()).toBeVisible({ timeout: 60_000 });
	await expandAllSegments(page);
	await page.getByTestId("fit-button").click();
	await expect(page.getByTestId("hidden-branches-show")).toBeVisible();
	await expect(card(page, "inactive-user")).toHaveCount(0);
	// "show" brings it back and clears the saved view state.
	await page.getByTestId("hidden-branches-show").click();
	await expect(page.getByTestId("hidden-branches-show")).toHaveCount(0);
	await page.getByTestId("fit-button").click();
	await expect(card(page, "inactive-user")).toHaveCount(1);
	await expect.poll(() => JSON.parse(readFileSync(join(host!.home, ".arbor", "settings.json"), "utf8")).hiddenBranches[file]).toBeUndefined();
	expect(sha256(file)).toBe(before);
});

test("roll-ups follow live appends: another writer's omp model_usage and pi usage lines bill the assistant turn they hang under", async ({ page }) => {
	const file = fixture();
	host = await startHost([file], { settings: { treeFilterMode: "all" } });
	await page.setViewportSize({ width: 1400, height: 950 });
	await openApp(page, host);
	await expandAllSegments(page);
	await page.getByTestId("fit-button").click();
	const rollup = card(page, "thinking-root").getByTestId("arbor-branch-rollup");
	await expect(rollup).toHaveText(/^17 entries · 1\.8k tok · \$12\.13/);
	const t = new Date().toISOString();
	const lines = [
		{
			type: "model_usage",
			id: "live-mu",
			parentId: "assistant-active",
			timestamp: t,
			purpose: "title",
			role: "smol",
			api: "anthropic-messages",
			provider: "anthropic",
			model: "claude-haiku",
			usage: {
				input: 150,
				output: 50,
				cacheRead: 0,
				cacheWrite: 0,
				totalTokens: 200,
				cost: { input: 1, output: 0.25, cacheRead: 0, cacheWrite: 0, total: 1.25 },
			},
			stopReason: "stop",
		},
		{
			type: "usage",
			id: "live-u",
			parentId: "assistant-active",
			timestamp: t,
			kind: "cache_warm",
			provider: "anthropic",
			model: "claude-x",
			usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.25 } },
		},
	];
	appendFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
	// Both records are hidden in every tree mode; their cost shows on the roll-ups above them.
	await expect(rollup).toHaveText(/^19 entries · 2\.0k tok · \$13\.63/, { timeout: 15_000 });
	await card(page, "thinking-root").click();
	await expect(page.getByTestId("rollup-entries")).toHaveText("19");
	await expect(page.getByTestId("rollup-cost")).toHaveText("$13.6300");
	await shot(page, "rollup-live");
});

test("export a branch as Markdown (download) and save a pruned copy next to the file", async ({ page }) => {
	const file = fixture();
	const before = sha256(file);
	host = await startHost([file]);
	await openApp(page, host);
	await expandAllSegments(page);
	const download = page.waitForEvent("download");
	await menu(page, "inactive-tool", "export.md");
	const d = await download;
	expect(d.suggestedFilename()).toMatch(/inactive-tool\.md$/);
	const text = readFileSync(await d.path(), "utf8");
	expect(text).toContain("This abandoned branch must not become active chat.");
	expect(text).not.toContain("Continue from the compacted active branch.");

	await menu(page, "inactive-user", "prune.mark");
	await menu(page, "unknown-active", "prune.save");
	await expect(page.locator(".toast, [data-testid^=toast]").filter({ hasText: "pruned copy" }).first()).toBeVisible();
	const created = readdirSync(dirname(file)).filter((f) => f.endsWith(".jsonl") && join(dirname(file), f) !== file);
	expect(created).toHaveLength(1);
	const ids = jsonl(join(dirname(file), created[0])).map((e) => e.id);
	expect(ids).not.toContain("inactive-user");
	expect(ids).toContain("unknown-active");
	expect(sha256(file)).toBe(before);
	expect(existsSync(file)).toBe(true);
});

test("compare siblings starts from the child you came from, and its whole-subtree figures are the inspector's", async ({ page }) => {
	const file = fixture();
	host = await startHost([file], { settings: { treeFilterMode: "all" } });
	await page.setViewportSize({ width: 1440, height: 900 });
	await openApp(page, host);
	await expandAllSegments(page);
	// The child off the leaf's path: its inspector roll-up first.
	await page.getByTestId("fit-button").click();
	await card(page, "inactive-user").click();
	const entries = (await page.getByTestId("rollup-entries").textContent())!.trim();
	const cost = Number((await page.getByTestId("rollup-cost").textContent())!.replace("$", ""));
	await card(page, "thinking-root").click({ button: "right" });
	await page.getByTestId("menu-item-compare.siblings").click();
	await expect(page.getByTestId("compare-pick-a")).toHaveValue("inactive-user");
	await expect(page.getByTestId("compare-facts-a")).toHaveAttribute("data-leaf-id", "inactive-tool");
	await expect(page.getByTestId("compare-subtree-figures-a")).toContainText(`${entries} entries`);
	await expect(page.getByTestId("compare-subtree-figures-a")).toContainText(`$${cost.toFixed(2)}`);
	await expect(page.getByTestId("compare-path-entries-a")).toHaveText(/\d+/);
	for (const scheme of ["light", "dark"] as const) {
		await page.emulateMedia({ colorScheme: scheme });
		await shot(page, `compare-siblings-from-child-${scheme}`);
	}
});
