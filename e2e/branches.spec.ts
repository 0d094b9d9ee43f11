// The Branches panel (issue #21 item 3): every leaf of a generated 3,000-entry branching session as a row,
// most expensive first, with each path's figures as computed from the file here; newest first; Go to,
// Compare with leaf and Label from a row. Screenshots at 1440×900 and 1280×720, light and dark.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { jsonl, openApp, shot } from "./helpers/app";
import { genSession, type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

interface Path {
	leaf: string;
	entries: number;
	cost: number;
	last: number;
}

/** Every leaf's path figures, walked up from the leaf in the raw file (no Arbor code involved). */
function leafPaths(file: string): Path[] {
	const entries = jsonl(file).slice(1) as {
		id: string;
		parentId: string | null;
		type: string;
		timestamp?: string;
		message?: { usage?: { cost?: { total?: number } } };
	}[];
	const byId = new Map(entries.map((e) => [e.id, e]));
	const hasKids = new Set(entries.filter((e) => e.type !== "usage").map((e) => e.parentId));
	const out: Path[] = [];
	for (const e of entries) {
		if (hasKids.has(e.id) || e.type === "usage") continue;
		let n = 0,
			cost = 0,
			last = -Infinity;
		for (let c: typeof e | undefined = e; c; c = c.parentId ? byId.get(c.parentId) : undefined) {
			n++;
			cost += c.message?.usage?.cost?.total ?? 0;
			last = Math.max(last, Date.parse(c.timestamp ?? "") || -Infinity);
		}
		out.push({ leaf: e.id, entries: n, cost, last });
	}
	return out;
}

test("the Branches panel lists every leaf, most expensive or newest first, with go to / compare / label", async ({ page }) => {
	const file = join(mkdtempSync(join(tmpdir(), "arbor-e2e-branches-")), "branchy.jsonl");
	execFileSync(process.execPath, [genSession, "--n", "3000", "--seed", "21", "--branch-every", "25", "--out", file]);
	const paths = leafPaths(file);
	expect(paths.length).toBeGreaterThan(20);
	host = await startHost([file]);
	await openApp(page, host);
	await page.getByTestId("panel-tab-branches").click();
	const panel = page.getByTestId("branches-panel");
	await expect(panel).toBeVisible();
	await expect(page.getByTestId("branches-count")).toHaveText(`${paths.length} branches`);
	const rows = panel.getByTestId("branch-row");
	// Most expensive first: the top row is the costliest path, with its entry count and cost.
	const costliest = [...paths].sort((a, b) => b.cost - a.cost)[0];
	await expect(rows.first()).toHaveAttribute("data-leaf-id", costliest.leaf);
	await expect(rows.first().getByTestId("branch-figures")).toContainText(`${costliest.entries.toLocaleString("en-US")} entries`);
	await expect(rows.first().getByTestId("branch-cost")).toHaveText(`$${costliest.cost.toFixed(2)}`);
	await expect(rows.first().getByTestId("branch-prompt")).not.toHaveText(/user message…|^$/);
	await shot(page, "branches-panel-1440");
	// Newest first.
	await page.getByTestId("branches-sort").selectOption("newest");
	const newest = [...paths].sort((a, b) => b.last - a.last)[0];
	await expect(rows.first()).toHaveAttribute("data-leaf-id", newest.leaf);
	// Go to: the branch's leaf (or its nearest shown entry) is selected and in view.
	const second = rows.nth(1);
	await second.getByTestId("branch-go").click();
	await expect(page.locator(".react-flow__node:has(.is-selected)")).toBeInViewport();
	// Compare with leaf opens the compare view for this branch against the leaf's.
	await second.getByTestId("branch-compare").click();
	await expect(page.getByTestId("compare-dialog")).toBeVisible();
	await page.keyboard.press("Escape");
	await expect(page.getByTestId("compare-dialog")).toBeHidden();
	// Label: the label editor for the branch's leaf.
	await page.getByTestId("panel-tab-branches").click();
	await rows.nth(1).getByTestId("branch-label").click();
	await expect(page.getByTestId("label-editor")).toBeVisible();
	await page.keyboard.press("Escape");
	for (const [w, h] of [
		[1440, 900],
		[1280, 720],
	] as const) {
		for (const scheme of ["light", "dark"] as const) {
			await page.setViewportSize({ width: w, height: h });
			await page.emulateMedia({ colorScheme: scheme });
			await shot(page, `branches-panel-${w}x${h}-${scheme}`);
		}
	}
});
