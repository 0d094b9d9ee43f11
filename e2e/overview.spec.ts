// Issue 21: the shape of a conversation at a glance. A 3,000-entry branched session opens at 1440×900 with
// at least 25 readable entries (e2e/helpers/app.ts readableEntries defines "readable"), the leaf in view.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { extentInPane, openApp, readableEntries, shot, viewportSettled } from "./helpers/app";
import { genSession, type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

function generated(n: number, seed: string): string {
	const file = join(mkdtempSync(join(tmpdir(), "arbor-e2e-overview-")), `gen${n}.jsonl`);
	execFileSync(process.execPath, [genSession, "--n", String(n), "--seed", seed, "--out", file]);
	return file;
}

test("a 3,000-entry branched session opens with at least 25 readable entries and the leaf in view", async ({ page }) => {
	host = await startHost([generated(3000, "e2e")]);
	await openApp(page, host);
	await viewportSettled(page);
	await expect(page.getByTestId("leaf-badge")).toBeInViewport({ ratio: 1 });
	await expect.poll(async () => (await readableEntries(page)).count, { timeout: 20_000 }).toBeGreaterThanOrEqual(25);
	// The active path runs up from the leaf: the rows right above it are on it.
	expect(await page.locator(".arbor-card.is-active").count()).toBeGreaterThanOrEqual(20);
	// Where branches leave the path: lanes other than the path's are drawn beside it.
	expect(await page.locator(".arbor-lane-dot:not(.is-active):not(.is-leaf)").count()).toBeGreaterThan(0);
	await shot(page, "overview-open");
});

for (const scheme of ["light", "dark"] as const) {
	test.describe(scheme, () => {
		test.use({ colorScheme: scheme });
		test(`Fit shows every entry of the filter as the overview and says how to get back to rows (${scheme})`, async ({ page }) => {
			host = await startHost([generated(3000, "e2e")]);
			await openApp(page, host);
			await page.getByTestId("filter-no-tools").click();
			await page.getByTestId("fit-button").click();
			await viewportSettled(page);
			expect(await extentInPane(page)).toBe(true);
			await expect(page.getByTestId("arbor-overview")).toBeVisible();
			await expect(page.getByTestId("overview-hint")).toContainText("Ctrl+G");
			await shot(page, `overview-fit-${scheme}`);
			// Ctrl+G: the leaf's rows, readable again.
			await page.getByTestId("arbor-tree").focus();
			await page.keyboard.press("Control+g");
			await viewportSettled(page);
			await expect(page.getByTestId("overview-hint")).toBeHidden();
			await expect.poll(async () => (await readableEntries(page)).count, { timeout: 20_000 }).toBeGreaterThanOrEqual(25);
			await expect(page.getByTestId("leaf-badge")).toBeInViewport();
		});
	});
}

test("a filter switch mounts only the new filter's rows: no card or lane of the old list drawn against the new model", async ({ page }) => {
	host = await startHost([generated(3000, "e2e")]);
	await openApp(page, host);
	await viewportSettled(page);
	// Everything the switch adds to the DOM: React Flow nodes, and lane attributes that are not numbers.
	await page.evaluate(() => {
		const w = window as unknown as { __switch: { added: string[]; bad: string[] } };
		w.__switch = { added: [], bad: [] };
		new MutationObserver((records) => {
			for (const r of records) {
				if (r.type === "attributes") {
					const v = (r.target as Element).getAttribute(r.attributeName ?? "") ?? "";
					if (/NaN|undefined/.test(v)) w.__switch.bad.push(`${r.attributeName}=${v.slice(0, 40)}`);
				}
				for (const n of r.addedNodes) {
					if (!(n instanceof Element)) continue;
					if (n.matches(".react-flow__node")) w.__switch.added.push(n.getAttribute("data-id") ?? "(no id)");
					for (const el of [n, ...n.querySelectorAll("*")])
						for (const a of el.getAttributeNames())
							if (/NaN|undefined/.test(el.getAttribute(a) ?? "")) w.__switch.bad.push(`${a}=${(el.getAttribute(a) ?? "").slice(0, 40)}`);
				}
			}
		}).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["d", "cx", "cy", "transform", "style", "data-id"] });
	});
	for (const mode of ["labeled-only", "no-tools", "default"]) {
		await page.evaluate(() => {
			const w = window as unknown as { __switch: { added: string[]; bad: string[] } };
			w.__switch.added = [];
		});
		await page.getByTestId(`filter-${mode}`).click();
		await viewportSettled(page);
		await page.waitForTimeout(300);
		const { added, bad, now } = await page.evaluate(() => {
			const w = window as unknown as { __switch: { added: string[]; bad: string[] } };
			return { ...w.__switch, now: [...document.querySelectorAll(".react-flow__node")].map((n) => n.getAttribute("data-id") ?? "") };
		});
		expect(bad, `${mode}: lane or card attributes`).toEqual([]);
		// A card mounted during the switch and gone once it settled belonged to the old list.
		expect(
			added.filter((id) => !now.includes(id)),
			`${mode}: cards mounted for one commit`,
		).toEqual([]);
		expect(now.length).toBeGreaterThan(0);
	}
});
