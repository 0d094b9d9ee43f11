// Tries with a live pi, in Chromium (issue 30, docs/tries.md "Compare and Keep"): the real pi 1.6 (Node 24, RPC mode,
// Arbor's extension loaded) holds the session file of a git repository with uncommitted work; the tries run by the
// real pi behind a `pi` command on PATH against a loopback model that calls pi's write tool (a different file per
// try). Three tries from a card finish; Compare of two opens the Compare dialog across their files with both sides
// and their worktree diffs; Keep in that dialog applies the kept try's changes, and then the running pi itself
// (its RPC get_state) names the kept try's file; the user's tree holds exactly those changes; the other worktrees
// are gone.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { type RealPi, startRealPi } from "../electron/services/test/helpers/real-pi";
import { startTriesRig, type TriesRig } from "../electron/services/test/helpers/tries-rig";
import { card, expandAllSegments, jsonl, openApp, scrollAreas, shot } from "./helpers/app";
import { type Host, repoRoot, startHost } from "./helpers/host";

const EXTENSION = join(repoRoot, "pi-extension", "index.ts");
const USER_STATUS = " M notes.txt\n?? draft.txt\n";

let host: Host | undefined;
let pi: RealPi | undefined;
let rig: TriesRig | undefined;
test.afterEach(async () => {
	await host?.stop();
	await pi?.stop();
	await rig?.close();
	host = pi = rig = undefined;
});

const worktrees = (repo: string): string[] =>
	execFileSync("git", ["worktree", "list", "--porcelain"], { cwd: repo, encoding: "utf8" })
		.split("\n")
		.filter((l) => l.startsWith("worktree "))
		.map((l) => l.slice(9));

test("with a live pi: three tries finish, Compare of two shows both sides and their diffs, Keep in the dialog switches the live pi to the kept file (pi's get_state)", async ({
	page,
}) => {
	test.setTimeout(240_000);
	rig = await startTriesRig({ delayMs: 50 });
	// The live pi resumes the rig's session in the repository and runs no turn of its own: it stays idle.
	pi = await startRealPi({ server: rig.server, session: rig.session, cwd: rig.repo, args: ["-e", EXTENSION] });
	expect(await pi.sessionFile()).toBe(rig.session);
	// Arbor runs with pi's HOME (where pi's extension registers under ~/.arbor/live) and the rig's `pi` on PATH.
	host = await startHost([rig.session], {
		env: { HOME: pi.home, PI_CODING_AGENT_DIR: pi.agentDir, PATH: `${rig.binDir}:${process.env.PATH ?? "/usr/bin:/bin"}` },
	});
	await page.setViewportSize({ width: 1440, height: 900 });
	await openApp(page, host);
	await expect(page.getByTestId("live-badge")).toContainText("pi 1.6.0", { timeout: 30_000 });
	await expandAllSegments(page);

	await card(page, "a2").click({ button: "right" });
	await page.getByRole("menuitem", { name: "Try N ways…" }).click();
	const dialog = page.getByTestId("tries-dialog");
	await dialog.getByTestId("tries-n").selectOption("3");
	await dialog.getByTestId("tries-prompt").fill("Write your own file");
	await dialog.getByTestId("tries-start").click();
	const panel = page.getByTestId("tries-panel");
	for (const i of [1, 2, 3]) await expect(panel.getByTestId(`try-status-${i}`)).toHaveText("done", { timeout: 120_000 });
	for (const i of [1, 2, 3]) await expect(panel.getByTestId(`try-files-${i}`)).toHaveText("1 file +1 −0");
	// The tries ran beside the live pi: it still holds the original, and the user's tree is untouched.
	expect(await pi.sessionFile()).toBe(rig.session);
	expect(rig.status()).toBe(USER_STATUS);

	const dir = join(pi.home, ".arbor", "tries");
	const records = readdirSync(dir).filter((f) => f.endsWith(".json"));
	expect(records).toHaveLength(1);
	const rec = JSON.parse(readFileSync(join(dir, records[0]!), "utf8")) as { tries: { sessionFile: string; worktree: string }[] };
	const wrote = rec.tries.map((t) => readdirSync(t.worktree).find((f) => /^try-\d\.txt$/.test(f))!);
	expect(new Set(wrote).size).toBe(3);

	// Compare tries 1 and 3: the Compare dialog across their files, both sides and both worktree diffs.
	await panel.getByTestId("try-compare-1").check();
	await panel.getByTestId("try-compare-3").check();
	await panel.getByTestId("tries-compare-open").click();
	const cmp = page.getByTestId("compare-dialog");
	await expect(cmp.getByTestId("compare-ancestor")).toHaveAttribute("data-entry-id", "a2");
	for (const [s, k] of [
		["a", 0],
		["b", 2],
	] as const) {
		const file = rec.tries[k]!.sessionFile;
		await expect(cmp.getByTestId(`compare-side-name-${s}`)).toHaveText(`Try ${k + 1}`);
		await expect(cmp.getByTestId(`compare-side-file-${s}`)).toHaveAttribute("title", file);
		await expect(cmp.getByTestId(`compare-facts-${s}`)).toHaveAttribute("data-leaf-id", jsonl(file).at(-1)!.id as string);
		await expect(cmp.getByTestId(`compare-facts-${s}`)).toContainText(wrote[k]!);
	}
	const files = cmp.getByTestId("tries-compare-file");
	await expect(files).toHaveCount(2);
	await expect(files.filter({ hasText: wrote[0]! })).toContainText(`+written by try`);
	await expect(files.filter({ hasText: wrote[0]! })).toContainText("unchanged in Try 3");
	await expect(files.filter({ hasText: wrote[2]! })).toContainText("unchanged in Try 1");
	expect(await scrollAreas(page)).toBeLessThanOrEqual(1);
	await shot(page, "tries-live-compare");

	// Keep try 3 from the dialog: its change lands in the user's tree and the live pi continues its session.
	await cmp.getByTestId("compare-keep-b").click();
	await expect(page.getByText(/Kept try 3: 1 file applied to your working tree; its session continues in your live pi/)).toBeVisible({ timeout: 60_000 });
	await expect(cmp).toHaveCount(0);
	await expect(panel).toHaveCount(0);
	const kept = rec.tries[2]!.sessionFile;
	// pi's own answer (RPC get_state): the file it now writes is the kept try's.
	await expect.poll(() => pi!.sessionFile(), { timeout: 30_000 }).toBe(kept);
	expect(rig.status()).toBe(`${USER_STATUS}?? ${wrote[2]}\n`);
	expect(readFileSync(join(rig.repo, wrote[2]!), "utf8")).toMatch(/^written by try \d\n$/);
	expect(worktrees(rig.repo)).toEqual([rig.repo]);
	for (const t of rec.tries) expect(existsSync(t.worktree)).toBe(false);
	for (const t of rec.tries) expect(existsSync(t.sessionFile)).toBe(true);
	expect(jsonl(kept)[0]).toMatchObject({ cwd: rig.repo, parentSession: rig.session });
	// The app shows the kept session, held by the live pi.
	await expect(page.getByTestId("status-file")).toHaveAttribute("title", kept);
	await expect(page.getByTestId("live-badge")).toContainText("pi 1.6.0", { timeout: 30_000 });
	await shot(page, "tries-live-kept");
});
