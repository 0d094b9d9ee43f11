// Page-level helpers for the browser-host specs: open the app, read what the graph shows, and compare it
// with the `arbor` CLI's view of the same file (the CLI and the app share shared/tree-view).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Page, expect } from "@playwright/test";
import { type Host, repoRoot, screenshotDir } from "./host";

export async function openApp(page: Page, host: Host): Promise<void> {
	const errors: string[] = [];
	page.on("pageerror", (e) => errors.push(e.message));
	await page.goto(host.url);
	await expect(page.locator(".react-flow__node").first()).toBeVisible({ timeout: 60_000 });
	expect(errors).toEqual([]);
}

export async function shot(page: Page, name: string): Promise<void> {
	mkdirSync(screenshotDir, { recursive: true });
	await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}

/** Ids of the entry cards currently mounted (segments and fold stubs excluded). */
export async function cardIds(page: Page, selector = ""): Promise<string[]> {
	return page
		.locator(`.react-flow__node:has([data-testid="arbor-card"]${selector})`)
		.evaluateAll((els) => els.map((el) => el.getAttribute("data-id") ?? "").filter(Boolean));
}

/**
 * Expands every "+N" segment so each visible entry has its own card (small sessions only).
 * Progress is read from the graph's `data-segments` (closed segments in the whole graph): the number of
 * mounted pills depends on the viewport (culling; the app opens centred on the leaf at zoom 1, and an
 * expansion re-lays out and shifts things), so counting pills on screen can neither tell "done" nor
 * "this click worked".
 */
export async function expandAllSegments(page: Page): Promise<void> {
	const graph = page.getByTestId("arbor-graph");
	const closed = async (): Promise<number> => Number((await graph.getAttribute("data-segments")) ?? "0");
	const pills = page.locator('[data-testid="arbor-segment"]');
	for (let i = 0; i < 200; i++) {
		const n = await closed();
		if (n === 0) break;
		// Fit first, so a pill is on screen (small sessions stay above the overview zoom at Fit), and let the
		// Fit animation end: a click while it runs can land where the pill was a frame ago.
		await page.getByTestId("fit-button").click();
		await viewportSettled(page);
		await expect(pills.first(), `${n} closed segment(s) but none drawn after Fit`).toBeVisible();
		await pills.first().click();
		await expect.poll(closed, { timeout: 15_000 }).toBe(n - 1);
	}
	expect(await closed()).toBe(0);
	await page.getByTestId("fit-button").click();
	await viewportSettled(page);
}

/**
 * Waits until the graph's viewport transform stops changing (an animated fit or zoom finished), however long
 * a busy machine makes that take; returns the settled transform. Replaces fixed sleeps before reading it.
 */
export async function viewportSettled(page: Page): Promise<string | null> {
	const viewport = page.locator(".react-flow__viewport");
	let last: string | null | undefined;
	await expect
		.poll(
			async () => {
				const now = await viewport.getAttribute("style");
				const still = now === last;
				last = now;
				return still;
			},
			{ intervals: [200], timeout: 30_000 },
		)
		.toBe(true);
	return last ?? null;
}

export function card(page: Page, id: string) {
	return page.locator(`.react-flow__node[data-id="${id}"]`);
}

export async function leafId(page: Page): Promise<string | null> {
	const leaf = page.locator(".react-flow__node:has(.is-leaf)");
	return (await leaf.count()) === 0 ? null : leaf.first().getAttribute("data-id");
}

export function cli(args: string[]): string {
	return execFileSync(process.execPath, [join(repoRoot, "bin", "arbor.cjs"), ...args], { encoding: "utf8" });
}

interface CliNode {
	id: string;
	type: string;
	role?: string;
	label?: string;
	children: CliNode[];
}

/** Every id of the CLI's visible tree (`arbor tree --json`), in pre-order. */
export function cliVisibleIds(file: string, extra: string[] = []): string[] {
	const tree = JSON.parse(cli(["tree", file, "--json", ...extra])) as { leafId: string | null; roots: CliNode[] };
	const out: string[] = [];
	const stack = [...tree.roots].reverse();
	while (stack.length) {
		const n = stack.pop() as CliNode;
		out.push(n.id);
		for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
	}
	return out;
}

export const sha256 = (file: string): string => createHash("sha256").update(readFileSync(file)).digest("hex");

export function jsonl(file: string): Record<string, unknown>[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((l) => l.trim())
		.map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A session line as the specs read it to find what the app should show. */
export interface RawEntry {
	id: string;
	parentId: string | null;
	type: string;
	message?: { role?: string; content?: unknown };
}

/** The text blocks of a message, joined (tool calls, thinking and images left out). */
export const textOf = (e: RawEntry): string => {
	const c = e.message?.content;
	if (typeof c === "string") return c;
	return Array.isArray(c) ? c.map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : "")).join(" ") : "";
};

export const isUserMessage = (e: RawEntry): boolean => e.type === "message" && e.message?.role === "user";

/**
 * Entries a user can read on screen right now (issue 21's measure). A card counts when:
 * - its text element's computed font size × the graph's zoom is at least 11 px;
 * - its box (getBoundingClientRect) lies wholly inside the graph pane and not under the minimap;
 * - its text is not clipped mid-line: the text box's height is a whole number of lines
 *   (clientHeight / line-height within 0.5 px of an integer ≥ 1);
 * - its text is loaded (not the "…" placeholder shown while the preview is fetched).
 * Segments ("+N") and fold stubs are not entries and never count.
 */
export async function readableEntries(page: Page): Promise<{ count: number; ids: string[]; zoom: number }> {
	return page.evaluate(() => {
		const vp = document.querySelector<HTMLElement>(".react-flow__viewport");
		const zoom = Number(/scale\(([\d.e-]+)\)/.exec(vp?.style.transform ?? "")?.[1] ?? "1");
		const pane = document.querySelector('[data-testid="arbor-graph"]')?.getBoundingClientRect();
		const mini = document.querySelector('[data-testid="arbor-minimap"]')?.getBoundingClientRect();
		if (!pane) return { count: 0, ids: [], zoom };
		const ids: string[] = [];
		const overlaps = (a: DOMRect, b: DOMRect | undefined): boolean =>
			!!b && b.width > 0 && a.left < b.right && a.right > b.left && a.top < b.bottom && a.bottom > b.top;
		for (const card of document.querySelectorAll<HTMLElement>('[data-testid="arbor-card"]')) {
			const text = card.querySelector<HTMLElement>(".arbor-card__text, .arbor-row__text");
			if (!text) continue;
			const cs = getComputedStyle(text);
			if (cs.display === "none" || cs.visibility === "hidden") continue;
			if (parseFloat(cs.fontSize) * zoom < 11 - 1e-6) continue;
			const r = card.getBoundingClientRect();
			if (r.width <= 0 || r.left < pane.left - 0.5 || r.right > pane.right + 0.5 || r.top < pane.top - 0.5 || r.bottom > pane.bottom + 0.5) continue;
			if (overlaps(r, mini)) continue;
			const lh = parseFloat(cs.lineHeight) || parseFloat(cs.fontSize) * 1.2;
			const lines = text.clientHeight / lh;
			if (lines < 0.99 || Math.abs(lines - Math.round(lines)) > 0.5 / lh + 0.02) continue;
			const t = (text.textContent ?? "").trim();
			if (t === "" || t === "…") continue;
			ids.push(card.closest(".react-flow__node")?.getAttribute("data-id") ?? "");
		}
		return { count: ids.length, ids, zoom };
	});
}

/**
 * Is the whole drawing of the current filter inside the graph pane? The graph element carries the layout's
 * extent in flow coordinates (`data-extent`: minX minY maxX maxY); the viewport transform maps it to the screen.
 */
export async function extentInPane(page: Page): Promise<boolean> {
	return page.evaluate(() => {
		const graph = document.querySelector<HTMLElement>('[data-testid="arbor-graph"]');
		const vp = document.querySelector<HTMLElement>(".react-flow__viewport");
		if (!graph || !vp) return false;
		const [minX, minY, maxX, maxY] = (graph.dataset.extent ?? "").split(" ").map(Number);
		const m = /translate\(([-\d.e]+)px, ?([-\d.e]+)px\) scale\(([\d.e-]+)\)/.exec(vp.style.transform);
		if (!m || !Number.isFinite(maxY)) return false;
		const [tx, ty, z] = [Number(m[1]), Number(m[2]), Number(m[3])];
		const pane = graph.getBoundingClientRect();
		const left = pane.left + tx + minX * z;
		const top = pane.top + ty + minY * z;
		const right = pane.left + tx + maxX * z;
		const bottom = pane.top + ty + maxY * z;
		return left >= pane.left - 1 && top >= pane.top - 1 && right <= pane.right + 1 && bottom <= pane.bottom + 1;
	});
}

/** How many elements of the Compare dialog scroll on their own (the dialog itself counts): #29 wants one at most. */
export async function scrollAreas(page: Page): Promise<number> {
	return page.getByTestId("compare-dialog").evaluate((root) => {
		const all = [root, ...Array.from(root.querySelectorAll("*"))] as HTMLElement[];
		return all.filter((el) => {
			const o = getComputedStyle(el).overflowY;
			return (o === "auto" || o === "scroll") && el.scrollHeight > el.clientHeight + 1;
		}).length;
	});
}
