// The session family and the library's search across session contents, in the browser host on generated
// sessions: status bar -> family dialog (who branched from whom, at which entry) -> the branch point opens
// the parent at that card; the library search box finds an entry inside a session and opens it at its card.
import { execFileSync } from "node:child_process";
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, test } from "@playwright/test";
import { card, openApp, sha256, shot } from "./helpers/app";
import { fixturesDir, genSession, type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

function library() {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-family-"));
	const proj = join(dir, "--home-me-app--");
	mkdirSync(proj);
	const parent = join(proj, "parent.jsonl");
	execFileSync(process.execPath, [genSession, "--n", "200", "--seed", "family-e2e", "--out", parent]);
	const lines = readFileSync(parent, "utf8").split("\n").filter(Boolean);
	// Branched at an assistant answer (pi's /fork at a prompt copies the path up to the answer before it).
	// A text-only answer: the default filter shows its card (a tool-calling turn may be folded away).
	type Line = { id: string; type: string; message?: { role: string; content?: { type: string }[] } };
	const at = (
		lines
			.slice(60)
			.map((l) => JSON.parse(l) as Line)
			.find((o) => o.message?.role === "assistant" && Array.isArray(o.message.content) && o.message.content.every((b) => b.type === "text")) as { id: string }
	).id;
	const child = join(proj, "child.jsonl");
	// pi 1.6's createBranchedSession shape: a new header naming the parent file, then the copied path.
	const byId = new Map(lines.slice(1).map((l) => [(JSON.parse(l) as { id: string }).id, l]));
	const path: string[] = [];
	for (let id: string | null = at; id; id = (JSON.parse(byId.get(id) as string) as { parentId: string | null }).parentId) path.unshift(byId.get(id) as string);
	writeFileSync(
		child,
		[
			JSON.stringify({ type: "session", version: 3, id: "child-e2e", timestamp: new Date().toISOString(), cwd: "/home/me/app", parentSession: parent }),
			...path,
		].join("\n") + "\n",
	);
	appendFileSync(
		child,
		`${JSON.stringify({ type: "message", id: "zq000001", parentId: (JSON.parse(path.at(-1) as string) as { id: string }).id, timestamp: new Date().toISOString(), message: { role: "user", content: [{ type: "text", text: "where is the zebraquartz helper?" }], timestamp: Date.now() } })}\n`,
	);
	return { dir, parent, child, at };
}

test("the family dialog shows who branched from whom and opens the parent at the branch point", async ({ page }) => {
	const { dir, parent, child, at } = library();
	const before = [parent, child].map(sha256);
	// The folder is served (its files may be read) and the child opened at launch.
	host = await startHost([dir, child]);
	await openApp(page, host);
	await page.getByTestId("status-family").click();
	const dialog = page.getByTestId("family");
	await expect(dialog.getByTestId("family-member")).toHaveCount(2);
	await expect(dialog.getByTestId("family-member").nth(1)).toHaveAttribute("data-depth", "1");
	// The fork point reads as its entry ("role: first words", the id in the tooltip), and the fork's card by
	// its own first message after the fork, not the first message it shares with its parent.
	await expect(dialog.getByTestId("family-branch-point")).toHaveAttribute("title", new RegExp(at));
	await expect(dialog.getByTestId("family-branch-point")).toHaveText(/^“.+”$/);
	await expect(dialog.getByTestId("family-member").nth(1).getByTestId("family-first-prompt")).toContainText("where is the zebraquartz helper?");
	await expect(dialog.getByTestId("family-member").nth(0).getByTestId("family-first-prompt")).not.toContainText("zebraquartz");
	await shot(page, "family-dialog");
	// The tree graph stays accessible: no serious/critical axe violations, and the keyboard opens the branch point.
	const axe = await new AxeBuilder({ page }).include('[data-testid="family"]').withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
	expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
	await dialog.getByTestId("family-branch-point").focus();
	await page.keyboard.press("Enter");
	await expect(page.getByTestId("status-file")).toContainText("parent.jsonl");
	// The branch point is the selected entry of the parent (the inspector shows it).
	await expect(page.getByTestId("inspector")).toContainText(at);
	await shot(page, "family-branch-point-in-parent");
	// The other member stays one click away.
	await page.getByTestId("status-family").click();
	await expect(page.getByTestId("family").getByTestId("family-member")).toHaveCount(2);
	expect([parent, child].map(sha256)).toEqual(before);
});

test("a parent outside what was served is named in the family, never read or opened (issue #23)", async ({ page }) => {
	const { parent, child } = library();
	const before = [parent, child].map(sha256);
	// Only the child is served: its parent, next to it on disk, was not opened by the user.
	host = await startHost([child]);
	await openApp(page, host);
	await page.getByTestId("status-family").click();
	const dialog = page.getByTestId("family");
	await expect(dialog.getByTestId("family-member")).toHaveCount(2);
	const outside = dialog.getByTestId("family-outside");
	await expect(outside).toHaveCount(1);
	await expect(outside).toContainText("parent.jsonl");
	await expect(outside).toContainText("not read");
	// No branch point (it needs the parent's entries) and nothing of the parent's conversation.
	await expect(dialog.getByTestId("family-branch-point")).toHaveCount(0);
	await expect(dialog.getByTestId("family-open")).toHaveCount(1);
	await shot(page, "family-outside-parent");
	await page.setViewportSize({ width: 1280, height: 720 });
	await page.emulateMedia({ colorScheme: "dark" });
	await shot(page, "family-outside-parent-dark-1280");
	await page.emulateMedia({ colorScheme: "light" });
	await outside.click();
	await expect(page.getByTestId("status-file")).toContainText("child.jsonl");
	expect([parent, child].map(sha256)).toEqual(before);
});

test("the family dialog opens from the library too", async ({ page }) => {
	const { dir } = library();
	host = await startHost([dir]);
	await page.goto(host.url);
	await expect(page.getByTestId("library-item")).toHaveCount(2);
	// Either file of the library has the same family of two.
	await page.getByTestId("library-item-family").first().click();
	const dialog = page.getByTestId("family");
	await expect(dialog.getByTestId("family-member")).toHaveCount(2);
	await expect(dialog).toContainText("parent.jsonl");
	await expect(dialog).toContainText("child.jsonl");
	await shot(page, "family-from-library");
	await dialog.getByTestId("family-member").nth(1).getByTestId("family-open").click();
	await expect(page.getByTestId("status-file")).toContainText("child.jsonl");
});

test("the library searches session contents through the index and opens the session at the matching card", async ({ page }) => {
	const { dir, parent, child } = library();
	const before = [parent, child].map(sha256);
	host = await startHost([dir]);
	await page.goto(host.url);
	await page.getByTestId("library-search").fill("zebraquartz");
	const match = page.getByTestId("content-search-match");
	await expect(match).toHaveCount(1, { timeout: 30_000 });
	await expect(match).toHaveAttribute("data-entry-id", "zq000001");
	await expect(page.getByTestId("content-search-session")).toContainText("child.jsonl");
	await shot(page, "library-content-search");
	await match.click();
	await expect(page.getByTestId("status-file")).toContainText("child.jsonl");
	await expect(card(page, "zq000001").locator(".is-selected")).toBeVisible();
	await expect(page.getByTestId("inspector-body")).toContainText("zebraquartz");
	await shot(page, "library-content-search-opened");
	expect([parent, child].map(sha256)).toEqual(before);
});

test("the library's content search shows its matches and asks once per query, also once the index is built", async ({ page }) => {
	const { dir } = library();
	host = await startHost([dir]);
	let asked = 0;
	page.on("websocket", (ws) =>
		ws.on("framesent", (f) => {
			if (String(f.payload).includes('"searchAllSessions"')) asked++;
		}),
	);
	await page.goto(host.url);
	const search = page.getByTestId("library-search");
	// The first query builds the index; the second runs on an index with nothing left to index.
	await search.fill("zebraquartz");
	await expect(page.getByTestId("content-search-match")).toHaveCount(1, { timeout: 30_000 });
	// Let the first build finish: its own "done" asks once more (results may have grown while it ran).
	await expect(page.getByTestId("content-search-progress")).toHaveCount(0);
	await page.waitForTimeout(1_000);
	await search.fill("");
	await search.fill("helper");
	const results = page.getByTestId("content-search-session");
	await expect(results.first()).toBeVisible({ timeout: 10_000 });
	const settled = asked;
	// An answer announced "done" and the page searched again, about 5 times a second, dropping each answer.
	await page.waitForTimeout(2_000);
	expect(asked - settled).toBe(0);
	await expect(results.first()).toBeVisible();
	await search.fill("nosuchwordanywhere");
	await expect(page.getByTestId("content-search")).toContainText("No entry of any session contains “nosuchwordanywhere”");
	const afterMiss = asked;
	await page.waitForTimeout(1_000);
	expect(asked - afterMiss).toBe(0);
});

test("the parent's graph marks where a child branched, and the badge and the header's Family button open the family", async ({ page }) => {
	const { dir, parent, child, at } = library();
	const before = [parent, child].map(sha256);
	host = await startHost([dir, child]);
	await openApp(page, host);
	// The header's Family button opens the same dialog as the status bar.
	await page.getByTestId("family-button").click();
	const dialog = page.getByTestId("family");
	await expect(dialog.getByTestId("family-member")).toHaveCount(2);
	await dialog.getByTestId("family-branch-point").click();
	await expect(page.getByTestId("status-file")).toContainText("parent.jsonl");
	// The branch point's card in the parent carries the badge; no other card does.
	await expect(card(page, at)).toBeVisible();
	const badge = card(page, at).getByTestId("family-branch-badge");
	await expect(badge).toBeVisible();
	await expect(badge).toContainText("branched →");
	await expect(page.getByTestId("family-branch-badge")).toHaveCount(1);
	await shot(page, "family-branch-badge");
	await badge.click();
	await expect(page.getByTestId("status-file")).toContainText("child.jsonl");
	// The child's own graph has no badge (nothing branched from it).
	await expect(page.getByTestId("family-branch-badge")).toHaveCount(0);
	expect([parent, child].map(sha256)).toEqual(before);
});

test("a content-search hit in an id-less (v1) session opens the session at the hit, not at its last entry", async ({ page }) => {
	// pi-mono's own v1 session: no entry has an id (Arbor migrates it in memory, with fresh ids, as pi does).
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-v1-search-"));
	const proj = join(dir, "--home-me-pi-mono--");
	mkdirSync(proj);
	const file = join(proj, "large-session.v1.jsonl");
	copyFileSync(join(fixturesDir, "pi-mono__large-session.v1.jsonl"), file);
	const before = sha256(file);
	host = await startHost([dir]);
	await page.goto(host.url);
	// A user message on line 70 of 1019 (its typos make the phrase unique).
	await page.getByTestId("library-search").fill("lakcing htemes");
	const match = page.getByTestId("content-search-match");
	await expect(match).toHaveCount(1, { timeout: 30_000 });
	await expect(match).toHaveAttribute("data-entry-id", "");
	await match.click();
	await expect(page.getByTestId("status-file")).toContainText("large-session.v1.jsonl");
	await expect(page.getByTestId("inspector-body")).toContainText("what's lakcing is the htemes for selectlist");
	await expect(page.locator(".react-flow__node .is-selected")).toHaveCount(1);
	await expect(page.locator(".react-flow__node .is-selected")).toContainText("lakcing");
	await shot(page, "library-content-search-v1");
	expect(sha256(file)).toBe(before);
});
