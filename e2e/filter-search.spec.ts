// Filters and search in the app show exactly what the `arbor` CLI shows for the same file (both use
// shared/tree-view, which follows pi's tree selector).
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { cardIds, cliVisibleIds, expandAllSegments, openApp, shot } from "./helpers/app";
import { fixturesDir, type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const MODES = ["default", "no-tools", "user-only", "labeled-only", "all"] as const;
const FILES = [join(repoRoot, "build", "sample-session.jsonl"), join(fixturesDir, "formic__pi-v3-branch-compaction.jsonl")];

for (const src of FILES) {
	test(`each filter mode shows the CLI's visible tree: ${src.split("/").at(-1)}`, async ({ page }) => {
		const file = tempCopy(src);
		host = await startHost([file]);
		await openApp(page, host);
		for (const mode of MODES) {
			await page.getByTestId(`filter-${mode}`).click();
			await expect(page.getByTestId(`filter-${mode}`)).toHaveAttribute("aria-pressed", "true");
			await expandAllSegments(page);
			const expected = cliVisibleIds(file, ["--filter", mode]).sort();
			// Cards mount as the Fit animation brings them on screen (culling): on a busy machine the last
			// ones arrive a little later, so read until they are all there.
			await expect.poll(async () => (await cardIds(page)).sort(), { message: `filter ${mode}` }).toEqual(expected);
			await shot(
				page,
				`filter-${mode}-${src
					.split("/")
					.at(-1)
					?.replace(/\.jsonl$/, "")}`,
			);
		}
	});
}

test("search highlights the CLI's matches, dims the rest, and counts them", async ({ page }) => {
	const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	host = await startHost([file]);
	await openApp(page, host);
	for (const query of ["hourly", "option test", "user null"]) {
		const expected = cliVisibleIds(file, ["--search", query]).sort();
		await page.getByTestId("search-input").fill(query);
		// A query without matches shows "No matches", not "i/N" ("option test" has none in the sample).
		await expect(page.getByTestId("search-count")).toHaveText(expected.length === 0 ? "No matches" : new RegExp(`/${expected.length}\\b`));
		await expandAllSegments(page);
		const matched = (await cardIds(page, ".is-match")).sort();
		// The CLI keeps the leaf's ancestors only when they match too (pi), so compare the matching rows.
		expect(matched, `search "${query}"`).toEqual(expected);
		expect((await cardIds(page, ".is-dimmed")).length).toBeGreaterThan(0);
		await shot(page, `search-${query.replace(/\s+/g, "-")}`);
	}
	await page.getByTestId("search-input").press("Escape");
	await expect(page.getByTestId("search-input")).toHaveValue("");
	expect((await cardIds(page, ".is-dimmed")).length).toBe(0);
});
