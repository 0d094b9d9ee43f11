// Tries in the app, end to end (issue 30): the real pi 1.6 (Node 24) behind a `pi` command on PATH, a loopback
// model that calls pi's write tool (a different file per try), a git repository with uncommitted work, and the
// browser host. Three tries from a card stream live in the Tries panel; Compare shows their worktree diffs; Keep
// applies the chosen try's changes to the user's tree and opens its session; the other worktrees are gone. Stop all
// (Escape) mid-stream leaves the user's tree, the forks and the repository consistent.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { startTriesRig, type TriesRig } from "../electron/services/test/helpers/tries-rig";
import { expectNoSeriousViolations } from "./helpers/a11y";
import { card, expandAllSegments, jsonl, openApp, scrollAreas, shot } from "./helpers/app";
import { type Host, startHost } from "./helpers/host";

let host: Host | undefined;
let rig: TriesRig | undefined;
test.afterEach(async () => {
	await host?.stop();
	await rig?.close();
	host = rig = undefined;
});

const USER_STATUS = " M notes.txt\n?? draft.txt\n";

async function start(page: Page, delayMs: number, opts: { noGit?: boolean; noPi?: boolean } = {}): Promise<TriesRig> {
	rig = await startTriesRig({ delayMs, noGit: opts.noGit });
	const path = opts.noPi ? "/usr/bin:/bin" : `${rig.binDir}:${process.env.PATH ?? "/usr/bin:/bin"}`;
	// Arbor's idea of pi's agent folder is the rig pi's own: Arbor lists its models (the loopback model), and a
	// confined try sees that folder as pi needs it (docs/tries.md "What a try can touch").
	host = await startHost([rig.session], { env: { PATH: path, PI_CODING_AGENT_DIR: rig.agentDir } });
	await openApp(page, host);
	await expandAllSegments(page);
	return rig;
}

async function openTries(page: Page, n: number, prompt: string): Promise<void> {
	await card(page, "a2").click({ button: "right" });
	await page.getByRole("menuitem", { name: "Try N ways…" }).click();
	const dialog = page.getByTestId("tries-dialog");
	await expect(dialog).toBeVisible();
	// bubblewrap runs here (CI installs it): the dialog says what a try can touch.
	await expect(dialog.getByTestId("tries-confinement")).toContainText(
		"What a try can touch: confined (bubblewrap): a try's pi can write only its own worktree",
	);
	await dialog.getByTestId("tries-n").selectOption(String(n));
	await dialog.getByTestId("tries-prompt").fill(prompt);
	await expect(dialog.getByTestId("tries-model-2").locator("option", { hasText: "arbor-loopback/loopback-model" })).toHaveCount(1);
	await dialog.getByTestId("tries-model-2").selectOption("arbor-loopback/loopback-model");
	await expect(dialog.getByTestId("tries-estimate-1")).toHaveText(/\d+ tokens · price: pick a model/);
	await expect(dialog.getByTestId("tries-estimate-2")).toHaveText(/\d+ tokens · \$0/);
}

function runRecord(): { runId: string; tries: { sessionFile: string; worktree: string; pid: number | null }[] } {
	const dir = join(host!.home, ".arbor", "tries");
	const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
	expect(files).toHaveLength(1);
	return JSON.parse(readFileSync(join(dir, files[0]!), "utf8"));
}

const worktrees = (repo: string): string[] =>
	execFileSync("git", ["worktree", "list", "--porcelain"], { cwd: repo, encoding: "utf8" })
		.split("\n")
		.filter((l) => l.startsWith("worktree "))
		.map((l) => l.slice(9));

/** The Compare dialog of tries 1 and 2: both sides (their own files, prompts, answers, written files) and their diffs. */
async function expectTriesCompare(page: Page, rec: ReturnType<typeof runRecord>, wrote: string[], prompt: string): Promise<void> {
	const dialog = page.getByTestId("compare-dialog");
	await expect(dialog).toBeVisible();
	// The fork entry is the common ancestor: both forks hold the original's path up to a2 with the same ids.
	await expect(dialog.getByTestId("compare-ancestor")).toHaveAttribute("data-entry-id", "a2");
	for (const [k, s] of (["a", "b"] as const).entries()) {
		const file = rec.tries[k]!.sessionFile;
		await expect(dialog.getByTestId(`compare-side-name-${s}`)).toHaveText(`Try ${k + 1}`);
		await expect(dialog.getByTestId(`compare-side-file-${s}`)).toHaveAttribute("title", file);
		await expect(dialog.getByTestId(`compare-facts-${s}`)).toHaveAttribute("data-leaf-id", jsonl(file).at(-1)!.id as string);
		await expect(dialog.getByTestId(`compare-facts-${s}`)).toContainText(wrote[k]!);
	}
	const row = dialog.getByTestId("compare-row");
	await expect(row).toHaveCount(1);
	await expect(row.locator("td").nth(0)).toContainText(prompt);
	await expect(row.locator("td").nth(1)).toContainText("I wrote the file.");
	const diffs = dialog.getByTestId("tries-compare");
	await expect(diffs.getByTestId("tries-compare-file")).toHaveCount(2);
	await expect(diffs.getByTestId("tries-compare-file").filter({ hasText: wrote[0]! })).toContainText("unchanged in Try 2");
	await expect(diffs).toContainText("+written by try");
	// The dialog is the one scroll area and its bottom row stays in view, at both sizes, light and dark.
	for (const size of [
		{ width: 1440, height: 900 },
		{ width: 1280, height: 720 },
	]) {
		await page.setViewportSize(size);
		for (const scheme of ["light", "dark"] as const) {
			await page.emulateMedia({ colorScheme: scheme });
			expect(await scrollAreas(page)).toBeLessThanOrEqual(1);
			await expect(page.getByTestId("compare-close")).toBeInViewport({ ratio: 1 });
			await expect(page.getByTestId("compare-keep-b")).toBeInViewport({ ratio: 1 });
			if (size.width === 1440) await expectNoSeriousViolations(page, `the Compare dialog of two tries (${scheme})`);
			await shot(page, `tries-compare-${size.width}-${scheme}`);
		}
	}
	await diffs.scrollIntoViewIfNeeded();
	await expect(page.getByTestId("compare-close")).toBeInViewport();
	await shot(page, "tries-compare-diffs-dark");
	await page.emulateMedia({ colorScheme: "light" });
}

test("three tries from a card stream live; Compare shows their diffs; Keep applies the chosen try and removes the other worktrees", async ({ page }) => {
	const r = await start(page, 250);
	await openTries(page, 3, "Write your own file");
	await shot(page, "tries-dialog");
	await page.getByTestId("tries-start").click();
	const panel = page.getByTestId("tries-panel");
	await expect(panel).toBeVisible();
	// Live: each try is seen running, with a streaming card under the entry in the graph, before it ends.
	await expect(panel.getByTestId("try-status-1")).toHaveText("running", { timeout: 30_000 });
	const cards = page.locator('[data-testid="stream-card"][data-stream-key^="try:"]');
	await expect(cards.first()).toBeVisible();
	await expect(cards.first()).toContainText(/Try \d: /);
	await expect(panel.getByTestId("try-answer-1")).toContainText("I wrote", { timeout: 60_000 });
	for (const i of [1, 2, 3]) await expect(panel.getByTestId(`try-status-${i}`)).toHaveText("done", { timeout: 60_000 });
	for (const i of [1, 2, 3]) await expect(panel.getByTestId(`try-files-${i}`)).toHaveText("1 file +1 −0");
	for (const i of [1, 2, 3]) await expect(panel.getByTestId(`try-answer-${i}`)).toHaveText("I wrote the file.");
	await expect(cards).toHaveCount(0);
	await shot(page, "tries-panel-done");
	expect(r.status()).toBe(USER_STATUS);

	const rec = runRecord();
	const wrote = rec.tries.map((t) => readdirSync(t.worktree).find((f) => /^try-\d\.txt$/.test(f))!);
	expect(new Set(wrote).size).toBe(3);
	for (const t of rec.tries) {
		const header = jsonl(t.sessionFile)[0]!;
		expect(header).toMatchObject({ type: "session", parentSession: r.session, cwd: t.worktree });
	}

	// Compare try 1 and try 2: the Compare dialog across their session files (each at its leaf), with their worktree
	// diffs file by file.
	await expect(panel.getByTestId("tries-compare-open")).toBeDisabled();
	await panel.getByTestId("try-compare-1").check();
	await panel.getByTestId("try-compare-2").check();
	await panel.getByTestId("tries-compare-open").click();
	await expectTriesCompare(page, rec, wrote, "Write your own file");
	await page.getByTestId("compare-close").click();
	await expect(page.getByTestId("compare-dialog")).toHaveCount(0);

	// Keep try 2: exactly its file joins the user's own changes; every worktree goes; its session opens.
	await panel.getByTestId("try-keep-2").click();
	await expect(page.getByText(/Kept try 2: 1 file applied/)).toBeVisible({ timeout: 30_000 });
	await expect(panel).toHaveCount(0);
	expect(r.status()).toBe(`${USER_STATUS}?? ${wrote[1]}\n`);
	expect(readFileSync(join(r.repo, wrote[1]!), "utf8")).toMatch(/^written by try \d\n$/);
	expect(worktrees(r.repo)).toEqual([r.repo]);
	for (const t of rec.tries) expect(existsSync(t.worktree)).toBe(false);
	for (const t of rec.tries) expect(existsSync(t.sessionFile)).toBe(true);
	expect(jsonl(rec.tries[1]!.sessionFile)[0]).toMatchObject({ cwd: r.repo, parentSession: r.session });
	// The kept session is open and active: its tree is the original's path to a2 plus the try's turn.
	await expect(page.getByTestId("status-file")).toHaveAttribute("title", rec.tries[1]!.sessionFile);
	await expect(page.getByTestId("session-tab")).toHaveCount(2);
	await expect(page.getByTestId("status-entries")).toHaveText(`${jsonl(rec.tries[1]!.sessionFile).length - 1} entries`);
	await shot(page, "tries-kept");
});

test("Stop all (Escape) mid-stream ends every try; the user's tree, the forks and the repository stay consistent", async ({ page }) => {
	const r = await start(page, 0);
	r.server.setScenario({ kind: "hang" });
	await openTries(page, 3, "Take your time");
	await page.getByTestId("tries-start").click();
	const panel = page.getByTestId("tries-panel");
	for (const i of [1, 2, 3]) await expect(panel.getByTestId(`try-status-${i}`)).toHaveText("running", { timeout: 30_000 });
	await expect.poll(() => r.server.requests.length, { timeout: 30_000 }).toBe(3);
	// Three streaming cards under the entry, each showing its try.
	const cards = page.locator('[data-testid="stream-card"][data-stream-key^="try:"]');
	await expect(cards).toHaveCount(3);
	for (const i of [1, 2, 3]) await expect(cards.filter({ hasText: `Try ${i}:` })).toHaveCount(1);
	await shot(page, "tries-streaming-cards");
	await page.getByTestId("arbor-graph").click({ position: { x: 5, y: 5 } });
	await page.keyboard.press("Escape");
	for (const i of [1, 2, 3]) await expect(panel.getByTestId(`try-status-${i}`)).toHaveText("stopped", { timeout: 30_000 });
	await expect(cards).toHaveCount(0);
	await shot(page, "tries-stopped");
	const rec = runRecord();
	expect(rec.tries.map((t) => t.pid)).toEqual([null, null, null]);
	expect(r.status()).toBe(USER_STATUS);
	for (const t of rec.tries) {
		// Every line of each fork is whole JSON; the header names the original.
		const lines = jsonl(t.sessionFile);
		expect(lines[0]).toMatchObject({ type: "session", parentSession: r.session });
		expect(existsSync(t.worktree)).toBe(true);
	}
	expect(worktrees(r.repo)).toHaveLength(4);
	await panel.getByTestId("tries-discard").click();
	await expect(panel).toHaveCount(0);
	expect(worktrees(r.repo)).toEqual([r.repo]);
	expect(r.status()).toBe(USER_STATUS);
	expect(readdirSync(join(host!.home, ".arbor", "tries")).filter((f) => f.endsWith(".json"))).toEqual([]);
});

test("without git and without pi, the dialog says the tries would be read-only and that no pi can run them, and starts nothing", async ({ page }) => {
	const r = await start(page, 0, { noGit: true, noPi: true });
	await card(page, "a2").click();
	await page.keyboard.press("Shift+T");
	const dialog = page.getByTestId("tries-dialog");
	await expect(dialog).toBeVisible();
	await expect(dialog.getByTestId("tries-readonly")).toContainText("not in a git repository: the tries run with read-only tools");
	await expect(dialog.getByTestId("tries-no-pi")).toContainText("no pi to run the tries");
	await expect(dialog.getByTestId("tries-confinement")).toContainText("confined (bubblewrap): a try's pi can write only its session file");
	await dialog.getByTestId("tries-prompt").fill("Anything");
	await expect(dialog.getByTestId("tries-start")).toBeDisabled();
	await shot(page, "tries-no-pi");
	await page.keyboard.press("Escape");
	await expect(dialog).toHaveCount(0);
	expect(readdirSync(join(r.session, "..")).length).toBe(1);
	expect(existsSync(join(host!.home, ".arbor", "tries"))).toBe(false);
});
