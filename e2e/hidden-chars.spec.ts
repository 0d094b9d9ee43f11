// Issue 39 item 4, in Chromium: a right-to-left override in a session makes "\u202Eevil" read as "live" on
// screen. Cards, labels, the entry view (markdown, code, plain tool output) and the tabs show it as a
// highlighted ⟨U+202E⟩ placeholder named in its tooltip; the DOM holds no raw bidi or invisible character,
// and the file is not touched.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { isHiddenChar } from "../shared/visible-text";
import { card, openApp, sha256, shot } from "./helpers/app";
import { type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const RLO = "\u202E";
const T = (s: number): string => new Date(Date.UTC(2026, 5, 1, 9, 0, s)).toISOString();

function write(dir: string, name: string, lines: Record<string, unknown>[]): string {
	const file = join(dir, name);
	writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
	return file;
}

function hostile(dir: string): string {
	return write(dir, "hostile.jsonl", [
		{ type: "session", version: 3, id: "sess-h", timestamp: T(0), cwd: "/work/project" },
		{ type: "session_info", id: "i1", parentId: null, timestamp: T(1), name: `${RLO}evil plan` },
		{ type: "message", id: "u1", parentId: "i1", timestamp: T(2), message: { role: "user", content: `Run ${RLO}evil now`, timestamp: 2 } },
		{
			type: "message",
			id: "a1",
			parentId: "u1",
			timestamp: T(3),
			message: {
				role: "assistant",
				content: [
					{ type: "text", text: `Done: **${RLO}evil** and a\u200Bb.\n\n\`\`\`js\nconst ok = "${RLO}evil";\n\`\`\`` },
					{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } },
				],
				provider: "anthropic",
				model: "claude",
				stopReason: "toolUse",
				timestamp: 3,
			},
		},
		{
			type: "message",
			id: "r1",
			parentId: "a1",
			timestamp: T(4),
			message: {
				role: "toolResult",
				toolCallId: "c1",
				toolName: "bash",
				content: [{ type: "text", text: `out ${RLO}evil\u2066x\u2069` }],
				isError: false,
				timestamp: 4,
			},
		},
		{ type: "label", id: "l1", parentId: "r1", timestamp: T(5), targetId: "u1", label: `${RLO}evil label` },
	]);
}

/** The hidden characters left in an element's text (none expected). */
async function hiddenIn(loc: Locator): Promise<string[]> {
	const text = (await loc.textContent()) ?? "";
	return Array.from(text)
		.filter((c) => isHiddenChar(c.codePointAt(0) ?? 0))
		.map((c) => `U+${(c.codePointAt(0) ?? 0).toString(16)}`);
}

async function expectShown(loc: Locator, text: string): Promise<void> {
	await expect(loc).toContainText(text);
	expect(await hiddenIn(loc)).toEqual([]);
	const mark = loc.locator(".hidden-char").first();
	await expect(mark).toHaveText("⟨U+202E⟩");
	await expect(mark).toHaveAttribute("title", /U\+202E right-to-left override/);
}

async function select(page: Page, id: string): Promise<void> {
	const node = card(page, id);
	await node.scrollIntoViewIfNeeded();
	await node.click();
	await expect(node.locator(".is-selected")).toHaveCount(1);
}

test('a right-to-left override shows as ⟨U+202E⟩ on cards, labels, the entry view and the tabs, never "live"', async ({ page }) => {
	await page.setViewportSize({ width: 1440, height: 900 });
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-hidden-"));
	const file = hostile(dir);
	const before = sha256(file);
	const other = write(dir, "other.jsonl", [
		{ type: "session", version: 3, id: "sess-o", timestamp: T(0), cwd: "/work/project" },
		{ type: "message", id: "o1", parentId: null, timestamp: T(1), message: { role: "user", content: "A plain session", timestamp: 1 } },
	]);
	host = await startHost([other, file], { settings: { treeFilterMode: "all" } });
	await openApp(page, host);

	// The tab: the session's name.
	const tab = page.getByTestId("session-tab").filter({ hasText: "evil plan" });
	await expect(tab).toHaveCount(1);
	await expectShown(tab, "⟨U+202E⟩evil plan");
	await tab.locator("button").first().click();

	// Cards: the message and the label on it.
	await page.getByTestId("fit-button").click();
	await expectShown(card(page, "u1").locator(".arbor-card__text"), "Run ⟨U+202E⟩evil now");
	await expectShown(card(page, "u1").locator(".arbor-card__label, .label-badge, [title*='label set']").first(), "⟨U+202E⟩evil label");
	expect(await hiddenIn(page.getByTestId("graph"))).toEqual([]);

	// The entry view: markdown (with a zero-width space and a code block), then plain tool output.
	await select(page, "a1");
	const inspector = page.getByTestId("inspector");
	await expectShown(inspector.locator(".markdown").first(), "Done: ⟨U+202E⟩evil and a⟨U+200B⟩b.");
	await expect(inspector.locator(".markdown pre").first()).toContainText('const ok = "⟨U+202E⟩evil";');
	expect(await hiddenIn(inspector)).toEqual([]);
	await shot(page, "hidden-chars-entry");
	await select(page, "r1");
	await expectShown(inspector.locator("pre.plain"), "out ⟨U+202E⟩evil⟨U+2066⟩x⟨U+2069⟩");
	expect(await hiddenIn(page.locator("body"))).toEqual([]);
	await shot(page, "hidden-chars-tool-output");

	// Only the screen changed: the file keeps every character.
	expect(sha256(file)).toBe(before);
});
