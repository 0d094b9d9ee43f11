// Opening sessions in the browser host: every shared fixture, the bundled sample, a generated session;
// clicking selects and shows the entry; dragging moves a node; the graph mounts a bounded number of cards.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { cardIds, openApp, sha256, shot, viewportSettled } from "./helpers/app";
import { fixturesDir, genSession, type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const fixtures = readdirSync(fixturesDir).filter((f) => f.endsWith(".jsonl"));

for (const name of fixtures) {
	test(`opens the fixture ${name} without changing a byte`, async ({ page }) => {
		const file = tempCopy(join(fixturesDir, name));
		const before = sha256(file);
		host = await startHost([file]);
		await openApp(page, host);
		expect((await cardIds(page)).length).toBeGreaterThan(0);
		await expect(page.getByTestId("status-file")).toContainText(name);
		await shot(page, `open-${name.replace(/\.jsonl$/, "")}`);
		expect(sha256(file)).toBe(before);
	});
}

test("the bundled sample session shows branches, labels and the leaf", async ({ page }) => {
	const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	host = await startHost([file]);
	await openApp(page, host);
	await page.getByTestId("fit-button").click();
	await expect(page.locator(".arbor-badge--label").first()).toBeVisible();
	await expect(page.locator(".is-branch").first()).toBeVisible();
	await shot(page, "sample-fit");
});

test("a generated 3,000-entry session mounts a bounded number of cards and pans", async ({ page }) => {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-gen-"));
	const file = join(dir, "gen3k.jsonl");
	execFileSync(process.execPath, [genSession, "--n", "3000", "--seed", "e2e", "--out", file]);
	host = await startHost([file]);
	await openApp(page, host);
	const mounted = await page.locator(".react-flow__node").count();
	expect(mounted).toBeGreaterThan(0);
	expect(mounted).toBeLessThanOrEqual(1000);
	await page.getByTestId("fit-button").click();
	await viewportSettled(page);
	await shot(page, "generated-3k-fit");
	// Zoomed all the way out the graph draws a canvas overview instead of DOM cards.
	expect(await page.locator(".react-flow__node").count()).toBeLessThanOrEqual(1000);
	const pane = page.getByTestId("graph");
	const box = await pane.boundingBox();
	if (!box) throw new Error("graph pane not laid out");
	await page.getByTestId("zoom-leaf-button").click();
	const before = await viewportSettled(page);
	// Grab the empty pane (not a card, which would drag the node instead).
	const start = await page.evaluate(
		({ x, y, w, h }) => {
			for (let gy = 0.1; gy < 0.9; gy += 0.1) {
				for (let gx = 0.1; gx < 0.9; gx += 0.1) {
					const el = document.elementFromPoint(x + w * gx, y + h * gy);
					if (el?.classList.contains("react-flow__pane")) return { x: x + w * gx, y: y + h * gy };
				}
			}
			return null;
		},
		{ x: box.x, y: box.y, w: box.width, h: box.height },
	);
	if (!start) throw new Error("no empty pane area to grab");
	await page.mouse.move(start.x, start.y);
	await page.mouse.down();
	await page.mouse.move(start.x + 200, start.y + 120, { steps: 8 });
	await page.mouse.up();
	expect(await viewportSettled(page)).not.toBe(before);
	await shot(page, "generated-3k-panned");
});

test("clicking a card selects it and the inspector shows the whole entry; dragging it pans the view, the card stays in the layout", async ({ page }) => {
	const file = tempCopy(join(fixturesDir, "formic__pi-v3-branch-compaction.jsonl"));
	host = await startHost([file]);
	await openApp(page, host);
	await page.getByTestId("fit-button").click();
	const node = page.locator('.react-flow__node[data-id="user-active"]');
	await node.click();
	await expect(page.getByTestId("inspector-kind")).toContainText("user");
	await expect(page.getByTestId("inspector-body")).toContainText("Continue");
	const a = await node.boundingBox();
	if (!a) throw new Error("card not laid out");
	const neighbour = page.locator('.react-flow__node:has([data-testid="arbor-card"])').first();
	const na = (await neighbour.boundingBox())!;
	await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
	await page.mouse.down();
	await page.mouse.move(a.x + a.width / 2 + 150, a.y + a.height / 2 + 40, { steps: 10 });
	await page.mouse.up();
	const b = await node.boundingBox();
	if (!b) throw new Error("card vanished after drag");
	// Card dragging is off (it steered nothing, and xyflow's auto-pan could outlive it): the drag pans the
	// whole view instead, so the card keeps its place relative to its neighbours. The rows view pans like a
	// document (renderer/graph/rowsFrame.ts): down with the pointer, never sideways off its lanes.
	expect(Math.abs(b.y - a.y - 40)).toBeLessThan(10);
	expect(Math.abs(b.x - a.x)).toBeLessThan(1);
	const nb = (await neighbour.boundingBox())!;
	expect([Math.round(nb.x - b.x), Math.round(nb.y - b.y)]).toEqual([Math.round(na.x - a.x), Math.round(na.y - a.y)]);
	await shot(page, "dragged-card");
});
