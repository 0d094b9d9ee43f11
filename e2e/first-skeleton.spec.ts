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
	await expect(page.locator('[data-testid="arbor-graph"]:not([data-first-skeleton])')).toBeVisible({ timeout: 60_000 });
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
	// The whole file's count, not the part's.
	expect(first.entries).toBe("6,000 entries (loading…)");
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
