// Progressive open (docs/session-core.md): a big session is drawn first from its first skeleton (the leaf's
// path and the newest entries), then from the whole skeleton; the end state is the one a plain open shows.
// ARBOR_FIRST_SKELETON_MIN_ENTRIES lowers the size at which a session counts as big, so a 6,000-entry file
// takes the path 100k-entry files take; a huge value turns the first skeleton off (the plain open).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { cardIds, sha256, shot } from "./helpers/app";
import { genSession, type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

interface FirstFrame {
	/** The graph drew from a first skeleton when its first card became visible. */
	part: boolean;
	/** Ids of the cards visible in that frame. */
	ids: string[];
	/** The status bar's entry count then. */
	entries: string;
}

/** Records, in the page, the first frame with a visible card: was it drawn from a first skeleton, and which cards. */
async function recordFirstFrame(page: Page): Promise<void> {
	await page.addInitScript(() => {
		const w = window as unknown as { __firstFrame?: FirstFrame };
		const loop = (): void => {
			const nodes = [...document.querySelectorAll<HTMLElement>(".react-flow__node")].filter((el) => {
				const r = el.getBoundingClientRect();
				return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden";
			});
			if (nodes.length === 0) {
				requestAnimationFrame(loop);
				return;
			}
			const graph = document.querySelector('[data-testid="arbor-graph"]');
			w.__firstFrame = {
				part: graph?.hasAttribute("data-first-skeleton") ?? false,
				ids: nodes.map((n) => n.getAttribute("data-id") ?? ""),
				entries: document.querySelector('[data-testid="status-entries"]')?.textContent ?? "",
			};
		};
		requestAnimationFrame(loop);
	});
}

/** Everything a plain open settles on: the skeleton the page holds, the drawn graph, the selection, the cards in view. */
async function settledState(page: Page, file: string) {
	// The whole graph is prepared under the part's at opacity 0 (visible to a locator): settled once the part is gone.
	await expect(page.locator('[data-testid="arbor-graph"]:not([data-first-skeleton])')).toBeVisible({ timeout: 60_000 });
	await expect(page.locator("[data-first-skeleton]")).toHaveCount(0, { timeout: 60_000 });
	await expect(page.locator(".react-flow__node:has(.is-selected)")).toBeVisible();
	const graph = page.getByTestId("arbor-graph");
	return {
		skeleton: await page.evaluate((p) => (window as unknown as { __arborSkeletonOf(p: string): unknown }).__arborSkeletonOf(p), file),
		nodes: await graph.getAttribute("data-nodes"),
		selected: await page.locator(".react-flow__node:has(.is-selected)").getAttribute("data-id"),
		cards: (await cardIds(page)).sort(),
		status: await page.getByTestId("status-file").textContent(),
		entries: await page.getByTestId("status-entries").textContent(),
	};
}

test("a big session shows its leaf's entries from the first skeleton, then ends as a plain open", async ({ page, browser }) => {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-first-"));
	const file = join(dir, "big.jsonl");
	execFileSync(process.execPath, [genSession, "--n", "6000", "--seed", "first", "--out", file]);
	const before = sha256(file);
	// The leaf: the file's last line (where pi resumes).
	const leaf = JSON.parse(readFileSync(file, "utf8").trimEnd().split("\n").pop() ?? "{}") as { id: string };

	host = await startHost([file], { env: { ARBOR_FIRST_SKELETON_MIN_ENTRIES: "1000" } });
	await recordFirstFrame(page);
	await page.goto(host.url);
	await expect.poll(() => page.evaluate(() => (window as unknown as { __firstFrame?: FirstFrame }).__firstFrame ?? null), { timeout: 60_000 }).not.toBeNull();
	const first = (await page.evaluate(() => (window as unknown as { __firstFrame: FirstFrame }).__firstFrame)) as FirstFrame;
	expect(first.part).toBe(true);
	expect(first.ids).toContain(leaf.id);
	expect(first.ids.length).toBeGreaterThan(5);
	// The whole file's count, not the part's ("loading…" while the store holds the part; the whole skeleton
	// may already be in, prepared under the part's graph).
	expect(first.entries).toMatch(/^6,000 entries( \(loading…\))?$/);
	const progressive = await settledState(page, file);
	await shot(page, "first-skeleton-settled");
	await host.stop();

	// The same file opened whole.
	host = await startHost([file], { env: { ARBOR_FIRST_SKELETON_MIN_ENTRIES: "100000000" } });
	const plain = await browser.newPage({ viewport: page.viewportSize() ?? undefined });
	await recordFirstFrame(plain);
	await plain.goto(host.url);
	const whole = await settledState(plain, file);
	const plainFirst = (await plain.evaluate(() => (window as unknown as { __firstFrame?: FirstFrame }).__firstFrame)) as FirstFrame;
	expect(plainFirst.part).toBe(false);
	await plain.close();

	expect(progressive.skeleton).toEqual(whole.skeleton);
	expect((progressive.skeleton as { ids: string[] }).ids).toHaveLength(6000);
	expect(progressive.nodes).toBe(whole.nodes);
	expect(progressive.selected).toBe(whole.selected);
	expect(progressive.cards).toEqual(whole.cards);
	expect(progressive.status).toBe(whole.status);
	expect(progressive.entries).toBe("6,000 entries");
	expect(sha256(file)).toBe(before);
});

interface PaneFrame {
	/** Cards the user can see in this frame (a box, not hidden, not in a transparent layer). */
	cards: number;
	/** The graph on screen draws a first skeleton. */
	part: boolean;
	/** That graph's node count (data-nodes). */
	nodes: number;
	/** The selected card's id and its top on screen, when it is drawn. */
	selected: string | null;
	top: number | null;
}

/** Records, in the page, every animation frame from the first visible card on: what the pane shows. */
async function samplePane(page: Page): Promise<void> {
	await page.addInitScript(() => {
		const frames: PaneFrame[] = [];
		(window as unknown as { __pane: PaneFrame[] }).__pane = frames;
		const seen = (el: Element): boolean => {
			const r = el.getBoundingClientRect();
			return r.width > 0 && r.height > 0 && el.checkVisibility({ opacityProperty: true, visibilityProperty: true });
		};
		const loop = (): void => {
			const cards = [...document.querySelectorAll(".react-flow__node")].filter(seen);
			if (cards.length > 0 || frames.length > 0) {
				const graph = [...document.querySelectorAll('[data-testid="arbor-graph"]')].find((g) => g.checkVisibility({ opacityProperty: true }));
				const sel = cards.find((c) => c.querySelector(".is-selected"));
				frames.push({
					cards: cards.length,
					part: graph?.hasAttribute("data-first-skeleton") ?? false,
					nodes: Number(graph?.getAttribute("data-nodes") ?? 0),
					selected: sel?.getAttribute("data-id") ?? null,
					top: sel ? Math.round(sel.getBoundingClientRect().top) : null,
				});
			}
			// Until the whole graph has been on screen for a while.
			if (frames.filter((f) => !f.part && f.cards > 0).length < 60) requestAnimationFrame(loop);
		};
		requestAnimationFrame(loop);
	});
}

test("the first skeleton's cards stay on screen until the whole graph replaces them in one frame, on the same entry", async ({ page }) => {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-first-"));
	const file = join(dir, "big.jsonl");
	execFileSync(process.execPath, [genSession, "--n", "12000", "--profile", "fixture", "--seed", "swap", "--out", file]);
	const before = sha256(file);
	host = await startHost([file], { env: { ARBOR_FIRST_SKELETON_MIN_ENTRIES: "1000" } });
	await samplePane(page);
	await page.goto(host.url);
	// Screenshots while the part is drawn and the whole one is prepared, then after the swap.
	for (let k = 0; k < 3; k++) await shot(page, `first-skeleton-swap-${k}`);
	await expect
		.poll(() => page.evaluate(() => (window as unknown as { __pane: PaneFrame[] }).__pane.filter((f) => !f.part && f.cards > 0).length), { timeout: 60_000 })
		.toBeGreaterThanOrEqual(60);
	await shot(page, "first-skeleton-swap-done");
	const frames = await page.evaluate(() => (window as unknown as { __pane: PaneFrame[] }).__pane);
	const firstWhole = frames.findIndex((f) => !f.part);
	// The part was drawn first, and no frame after the first card shows no card.
	expect(frames[0].part).toBe(true);
	expect(firstWhole).toBeGreaterThan(0);
	const empty = frames.flatMap((f, k) => (f.cards === 0 ? [k] : []));
	expect(empty, `frames without a card: ${empty.length} of ${frames.length} (part until frame ${firstWhole})`).toEqual([]);
	// The whole graph is the complete one: more rows than the 2,000-entry part, and the status bar's plain count.
	const last = frames[frames.length - 1];
	expect(last.part).toBe(false);
	expect(last.nodes).toBeGreaterThan(2000);
	expect(frames.slice(firstWhole).every((f) => !f.part)).toBe(true);
	await expect(page.getByTestId("status-entries")).toHaveText("12,000 entries");
	// Across the swap the same entry is selected, at the same place on screen.
	const lastPart = frames[firstWhole - 1];
	const whole = frames[firstWhole];
	expect(lastPart.selected).not.toBeNull();
	expect(whole.selected).toBe(lastPart.selected);
	expect(Math.abs((whole.top ?? 0) - (lastPart.top ?? 0))).toBeLessThanOrEqual(1);
	expect(sha256(file)).toBe(before);
});
