// "Save position for pi" writes the position the user chose (issue 39 item 3), checked on disk in Chromium.
// A new-user pass: Navigate, Save position, label an entry — the resume banner then called the saved position
// "another branch than your latest conversation", and its "Save position for pi" wrote a marker for the OLD
// leaf and moved Arbor's leaf back. The requests the page sends and the answers it gets are read off the
// socket (shared/wire.ts), so "the banner stays away" is checked after the app's own answer, not after a pause.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { decodeWire } from "../shared/wire";
import { card, jsonl, leafId, openApp, shot } from "./helpers/app";
import { type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const T = (s: number): string => new Date(Date.UTC(2026, 5, 1, 9, 0, s)).toISOString();
const user = (id: string, parentId: string | null, text: string, s: number) => ({
	type: "message",
	id,
	parentId,
	timestamp: T(s),
	message: { role: "user", content: text, timestamp: s },
});
const assistant = (id: string, parentId: string, text: string, s: number) => ({
	type: "message",
	id,
	parentId,
	timestamp: T(s),
	message: { role: "assistant", content: [{ type: "text", text }], provider: "anthropic", model: "claude", stopReason: "stop", timestamp: s },
});

/** u1 ─ a1 ┬ u3 ─ a4   (the other approach, older)
 *           └ u2 ─ a3   (the newest conversation, the last line) */
function writeSession(extra: Record<string, unknown>[] = []): string {
	const file = join(mkdtempSync(join(tmpdir(), "arbor-e2e-position-")), "position.jsonl");
	const lines = [
		{ type: "session", version: 3, id: "sess-position", timestamp: T(0), cwd: "/work/project" },
		user("u1", null, "Build the parser", 1),
		assistant("a1", "u1", "Sure, starting.", 2),
		user("u3", "a1", "Try another approach instead", 3),
		assistant("a4", "u3", "Other approach done.", 4),
		user("u2", "a1", "Fix the tokenizer", 5),
		assistant("a3", "u2", "Tokenizer fixed.", 6),
		...extra,
	];
	writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
	return file;
}

/** Every getResumePoint answer the page received, in order. */
function resumeAnswers(page: Page): Array<{ stale: boolean; suggestedId: string | null }> {
	const names = new Map<number, string>();
	const answers: Array<{ stale: boolean; suggestedId: string | null }> = [];
	page.on("websocket", (ws) => {
		ws.on("framesent", (f) => {
			if (typeof f.payload === "string") return;
			const m = decodeWire(f.payload);
			if (m.t === "req") names.set(m.id, m.name);
		});
		ws.on("framereceived", (f) => {
			if (typeof f.payload === "string") return;
			const m = decodeWire(f.payload);
			if (m.t === "res" && m.ok && names.get(m.id) === "getResumePoint") answers.push(m.result as { stale: boolean; suggestedId: string | null });
		});
	});
	return answers;
}

async function select(page: Page, id: string): Promise<void> {
	await page.getByTestId("fit-button").click();
	const node = card(page, id);
	await node.scrollIntoViewIfNeeded();
	await node.click();
	await expect(node.locator(".is-selected")).toHaveCount(1);
}

async function navigateNoSummary(page: Page, id: string): Promise<void> {
	await select(page, id);
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-no-summary").click();
	await expect.poll(() => leafId(page)).toBe(id);
}

type Line = { type: string; id: string; parentId: string | null; customType?: string; data?: { leafId?: string }; targetId?: string };
const lines = (file: string): Line[] => jsonl(file) as unknown as Line[];

test("Navigate, Save position, label: the saved position stays the user's, and the leaf stays on the chosen branch", async ({ page }) => {
	const file = writeSession();
	const answers = resumeAnswers(page);
	host = await startHost([file]);
	await openApp(page, host);
	const banner = page.getByTestId("resume-banner");

	// 1. Navigate to the other approach (no summary): Arbor's leaf is there, pi still resumes at a3.
	await navigateNoSummary(page, "a4");
	// 2. Save position for pi (the status bar's button).
	await page.getByTestId("status-save-position").click();
	await expect.poll(() => lines(file).length).toBe(8);
	const marker = lines(file)[7];
	expect(marker).toMatchObject({ type: "custom", customType: "arbor.position", parentId: "a4", data: { leafId: "a4" } });
	// 3. Label an entry (Shift+L on the selected card).
	await select(page, "u3");
	const asked = answers.length;
	await page.keyboard.press("Shift+L");
	await expect(page.getByTestId("label-editor")).toBeVisible();
	await page.keyboard.type("keep this approach");
	await page.keyboard.press("Enter");
	await expect.poll(() => lines(file).length).toBe(9);
	const label = lines(file)[8];
	expect(label).toMatchObject({ type: "label", targetId: "u3", parentId: marker.id });
	// 4. The app asks where pi resumes again after the label: the saved position, not stale (before the fix: stale,
	// suggesting a3, and the banner's Save position moved the leaf back there and wrote a marker for it).
	await expect.poll(() => answers.length, { timeout: 10_000 }).toBeGreaterThan(asked);
	expect(answers.at(-1)).toMatchObject({ stale: false, suggestedId: null });
	await expect(banner).toHaveCount(0);
	// 5. Nothing else was written; the leaf on screen is still the chosen branch's message, as the status bar says.
	expect(lines(file).length).toBe(9);
	expect(await leafId(page)).toBe("a4");
	await expect(page.getByTestId("status-leaf")).toContainText("Other approach done.");
	await expect(page.getByTestId("status-leaf")).toContainText("pi resumes here");
	await shot(page, "save-position-after-label");
});

test("the banner's Save position saves the entry it names; once the user moves the leaf, the banner steps aside and the save writes that leaf", async ({
	page,
}) => {
	// pi labelled u3 from the old leaf: the last line sits on the other approach's branch (stale).
	const file = writeSession([{ type: "label", id: "l1", parentId: "a4", timestamp: T(7), targetId: "u3", label: "hm" }]);
	host = await startHost([file]);
	await openApp(page, host);
	const banner = page.getByTestId("resume-banner");
	await expect(banner).toContainText("Tokenizer fixed.");
	await shot(page, "save-position-banner");

	// The user moves the leaf to u1's answer instead: that is their choice now, the banner (which names a3) goes.
	await navigateNoSummary(page, "a1");
	await expect(banner).toHaveCount(0);
	await page.getByTestId("status-save-position").click();
	await expect.poll(() => lines(file).length).toBe(9);
	expect(lines(file)[8]).toMatchObject({ customType: "arbor.position", parentId: "a1", data: { leafId: "a1" } });
	expect(await leafId(page)).toBe("a1");
});

test("the banner's Save position writes the marker under the entry it names, in one write", async ({ page }) => {
	const file = writeSession([{ type: "label", id: "l1", parentId: "a4", timestamp: T(7), targetId: "u3", label: "hm" }]);
	host = await startHost([file]);
	await openApp(page, host);
	const banner = page.getByTestId("resume-banner");
	await expect(banner).toContainText("Tokenizer fixed.");
	await page.getByTestId("resume-banner-save").click();
	await expect(banner).toHaveCount(0);
	expect(lines(file).length).toBe(9);
	expect(lines(file)[8]).toMatchObject({ customType: "arbor.position", parentId: "a3", data: { leafId: "a3" } });
	await expect.poll(() => leafId(page)).toBe("a3");
});
