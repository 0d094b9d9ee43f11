// Issue 21: the shape of a conversation at a glance. A 3,000-entry branched session opens at 1440×900 with
// at least 25 readable entries (e2e/helpers/app.ts readableEntries defines "readable"), the leaf in view.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { openApp, readableEntries, shot, viewportSettled } from "./helpers/app";
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
	await page.waitForTimeout(1500);
	await shot(page, "overview-open");
	const r = await readableEntries(page);
	console.log(`readable on open: ${r.count} at zoom ${r.zoom}`);
	await expect.poll(async () => (await readableEntries(page)).count, { timeout: 20_000 }).toBeGreaterThanOrEqual(25);
});
