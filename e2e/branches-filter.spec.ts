// The Branches panel's filter reads every user prompt on a branch's path (issue 29), not only its last one:
// a phrase the user typed early in a conversation finds every branch that grew below that prompt, and each
// row whose own last prompt is another one says which earlier prompt matched. The words are matched by the
// session's search in the main process, so a 100k-entry session is filtered without loading its prompts
// into the page (ARBOR_E2E_BIG=1, as the other 100k specs).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { isUserMessage as isUser, jsonl, openApp, type RawEntry as Raw, shot, textOf } from "./helpers/app";
import { genSession, type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

/**
 * From the raw file: a user message with a three-word phrase no other entry holds, above a fork, with at
 * least one branch below it whose last user message is a later one; and every leaf whose path passes it.
 */
function pickEarlyPrompt(file: string): { prompt: string; phrase: string; leaves: string[]; later: string[]; total: number } {
	const lines = jsonl(file).slice(1) as unknown as Raw[];
	const byId = new Map(lines.map((e) => [e.id, e]));
	const hasKids = new Set(lines.filter((e) => e.type !== "usage").map((e) => e.parentId));
	const leaves = lines.filter((e) => !hasKids.has(e.id) && e.type !== "usage");
	const raw = lines.map((e) => JSON.stringify(e).toLowerCase());
	const flat = lines.map((e) => textOf(e).toLowerCase().replace(/\s+/g, " "));
	const pathOf = (leaf: Raw): Raw[] => {
		const out: Raw[] = [];
		for (let c: Raw | undefined = leaf; c; c = c.parentId ? byId.get(c.parentId) : undefined) out.push(c);
		return out;
	};
	const paths = new Map(leaves.map((l) => [l.id, pathOf(l)]));
	for (const e of lines) {
		if (!isUser(e)) continue;
		const below = leaves.filter((l) => paths.get(l.id)!.some((c) => c.id === e.id));
		// The last user message of each branch below it (nearest its leaf).
		const later = below.filter((l) => paths.get(l.id)!.find(isUser)?.id !== e.id);
		if (below.length < 3 || below.length > 60 || later.length === 0) continue;
		const words = textOf(e)
			.toLowerCase()
			.split(" ")
			.filter((w) => /^[a-z]{4,}$/.test(w));
		for (let w = 0; w + 3 <= words.length; w++) {
			const phrase = words.slice(w, w + 3).join(" ");
			if (!textOf(e).toLowerCase().includes(phrase)) continue;
			if (raw.filter((r) => r.includes(phrase)).length !== 1 || flat.filter((t) => t.includes(phrase)).length !== 1) continue;
			return { prompt: e.id, phrase, leaves: below.map((l) => l.id), later: later.map((l) => l.id), total: leaves.length };
		}
	}
	throw new Error("no early user message with a unique phrase above a fork");
}

async function listedLeaves(page: Page): Promise<string[]> {
	return page.getByTestId("branch-row").evaluateAll((els) => els.map((el) => el.getAttribute("data-leaf-id") ?? ""));
}

test("the Branches filter finds every branch below a prompt typed early on its path, and says which prompt matched", async ({ page }) => {
	await page.setViewportSize({ width: 1440, height: 900 });
	const file = join(mkdtempSync(join(tmpdir(), "arbor-e2e-branches-filter-")), "branchy.jsonl");
	execFileSync(process.execPath, [genSession, "--n", "3000", "--seed", "29", "--branch-every", "25", "--out", file]);
	const task = pickEarlyPrompt(file);
	host = await startHost([file]);
	await openApp(page, host);
	await page.getByTestId("panel-tab-branches").click();
	await expect(page.getByTestId("branches-count")).toHaveText(`${task.total} branches`);
	// The phrase's words: every branch below the prompt is listed, those whose last prompt is a later one too.
	await page.getByTestId("branches-filter").fill(task.phrase);
	await expect(page.getByTestId("branches-count")).toHaveText(new RegExp(`^\\d+ of ${task.total} branches`));
	await expect
		.poll(
			async () => {
				const listed = new Set(await listedLeaves(page));
				return task.leaves.filter((l) => !listed.has(l));
			},
			{ message: "branches below the prompt that the filter leaves out" },
		)
		.toEqual([]);
	// The phrase as pi's search reads it (quoted, the words together): exactly the branches below that prompt.
	await page.getByTestId("branches-filter").fill(`"${task.phrase}"`);
	await expect(page.getByTestId("branches-count")).toHaveText(`${task.leaves.length} of ${task.total} branches`);
	expect((await listedLeaves(page)).sort()).toEqual([...task.leaves].sort());
	// A row whose last prompt is a later one names the earlier prompt that matched.
	const row = page.locator(`[data-testid=branch-row][data-leaf-id="${task.later[0]}"]`);
	await expect(row.getByTestId("branch-match")).toHaveAttribute("data-entry-id", task.prompt);
	await expect(row.getByTestId("branch-match")).toContainText(task.phrase, { ignoreCase: true });
	await shot(page, "branches-filter-path-1440");
	await page.getByTestId("branches-filter").fill("");
	await expect(page.getByTestId("branches-count")).toHaveText(`${task.total} branches`);
});

test("on a 100k-entry session the filter answers from the main process's search: no prompt loaded per branch, the page keeps answering", async ({ page }) => {
	test.skip(!process.env.ARBOR_E2E_BIG, "set ARBOR_E2E_BIG=1 (generates a 100k-entry, ~330 MB session)");
	test.setTimeout(240_000);
	const big = process.env.ARBOR_E2E_BIG_FILE;
	const file = big && existsSync(big) ? big : join(mkdtempSync(join(tmpdir(), "arbor-e2e-branches-filter-")), "big.jsonl");
	if (file !== big) execFileSync(process.execPath, [genSession, "--n", "100000", "--seed", "29", "--branch-every", "25", "--out", file]);
	host = await startHost([file]);
	// Preview indices the page asks for over the socket (a binary frame: "ARB1", the JSON envelope's length,
	// the envelope; shared/wire.ts).
	let previews = 0;
	page.on("websocket", (ws) =>
		ws.on("framesent", (f) => {
			if (typeof f.payload === "string") return;
			const env = JSON.parse(f.payload.subarray(8, 8 + f.payload.readUInt32LE(4)).toString("utf8")) as {
				t: string;
				name?: string;
				params?: { indices?: unknown };
			};
			if (env.t === "req" && env.name === "getPreviews" && Array.isArray(env.params?.indices)) previews += env.params.indices.length;
		}),
	);
	await openApp(page, host);
	// The whole tree, not the first part a big file opens on.
	await expect(page.getByTestId("arbor-graph")).not.toHaveAttribute("data-first-skeleton", /.*/, { timeout: 60_000 });
	await page.getByTestId("panel-tab-branches").click();
	const total = Number(/([\d,]+) branches/.exec((await page.getByTestId("branches-count").textContent()) ?? "")?.[1].replace(/,/g, ""));
	expect(total).toBeGreaterThan(1000);
	// The longest stretch the page's main thread was busy while the filter searched.
	await page.evaluate(() => {
		const w = window as unknown as { longest: number };
		w.longest = 0;
		new PerformanceObserver((l) => {
			for (const e of l.getEntries()) w.longest = Math.max(w.longest, e.duration);
		}).observe({ type: "longtask" });
	});
	const before = previews;
	const started = Date.now();
	await page.getByTestId("branches-filter").fill("cache layout");
	await expect(page.getByTestId("branches-count")).toHaveText(new RegExp(`^[\\d,]+ of ${total.toLocaleString("en-US")} branches`), { timeout: 120_000 });
	const seconds = (Date.now() - started) / 1000;
	const longest = await page.evaluate(() => (window as unknown as { longest: number }).longest);
	const asked = previews - before;
	console.log(
		`100k filter: ${total} branches, answered in ${seconds.toFixed(1)} s, longest main-thread task ${Math.round(longest)} ms, ${asked} previews asked`,
	);
	// Only the rows on screen (a page of 100) and their matches load a preview, never one per branch.
	expect(asked).toBeLessThanOrEqual(200);
	expect(longest).toBeLessThan(1000);
	await shot(page, "branches-filter-100k-1440");
});
