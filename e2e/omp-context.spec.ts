// An omp 18.3 file in the app: the context panel shows the context as omp sends it (its /clear boundary, the
// compaction, a tool call without a result stripped) with omp's facts (models by role, service tier,
// thinking, TTSR rules, mode), says so, and its switch shows the same file as pi 1.6 sends it and back.
// Screenshots of both views.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { card, expandAllSegments, openApp, shot } from "./helpers/app";
import { type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const T = (s: number): string => new Date(Date.UTC(2026, 5, 1, 9, 0, s)).toISOString();

function slotLine(title: string): string {
	const obj = { type: "title", v: 1, title, source: "auto", updatedAt: T(0), pad: "" };
	return `${JSON.stringify({ ...obj, pad: " ".repeat(255 - Buffer.byteLength(JSON.stringify(obj))) })}\n`;
}

function writeSession(): string {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-omp-"));
	const file = join(dir, "omp-context.jsonl");
	let n = 0;
	const at = () => T(++n);
	const msg = (id: string, parentId: string, message: Record<string, unknown>) => ({
		type: "message",
		id,
		parentId,
		timestamp: at(),
		message: { timestamp: n, ...message },
	});
	const reply = (id: string, parentId: string, content: unknown[], stopReason = "stop") =>
		msg(id, parentId, { role: "assistant", content, provider: "anthropic", model: "claude-x", stopReason, usage: { input: 10, output: 10, totalTokens: 20 } });
	const lines: Record<string, unknown>[] = [
		{ type: "session", version: 3, id: "sess-omp", timestamp: T(0), cwd: "/work/project", title: "Flaky watcher", titleSource: "auto" },
		{ type: "session_init", id: "si", parentId: null, timestamp: at(), systemPrompt: "You are omp.", task: "fix the watcher", tools: ["read", "bash"] },
		{ type: "model_change", id: "mc", parentId: "si", timestamp: at(), model: "anthropic/claude-x", role: "default" },
		{ type: "model_change", id: "ms", parentId: "mc", timestamp: at(), model: "openai/gpt-mini", role: "smol" },
		{ type: "service_tier_change", id: "st", parentId: "ms", timestamp: at(), serviceTier: "priority" },
		{ type: "thinking_level_change", id: "tl", parentId: "st", timestamp: at(), thinkingLevel: "high", configured: "auto" },
		msg("u1", "tl", { role: "user", content: "Find the flaky test" }),
		reply("a1", "u1", [{ type: "text", text: "It is the watcher test: it sleeps." }]),
		{ type: "compaction", id: "c1", parentId: "a1", timestamp: at(), summary: "Found the flaky watcher test.", firstKeptEntryId: "a1", tokensBefore: 12000 },
		{ type: "ttsr_injection", id: "tt", parentId: "c1", timestamp: at(), injectedRules: ["no-sleep-in-tests"] },
		{ type: "mode_change", id: "md", parentId: "tt", timestamp: at(), mode: "plan" },
		msg("u2", "md", { role: "user", content: "Fix it" }),
		reply(
			"a2",
			"u2",
			[
				{ type: "text", text: "Reading the test first." },
				{ type: "toolCall", id: "call-lost", name: "read", arguments: { path: "watcher.test.ts" } },
			],
			"toolUse",
		),
		{ type: "reset_boundary", id: "rb", parentId: "a2", timestamp: at() },
		msg("u3", "rb", { role: "user", content: "Any other sleeps?" }),
		reply("a3", "u3", [{ type: "text", text: "Two more in the live tests." }]),
	];
	writeFileSync(file, slotLine("Flaky watcher") + lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
	return file;
}

async function select(page: Page, id: string): Promise<void> {
	await card(page, id).click();
	await expect(card(page, id).locator(".arbor-card.is-selected")).toBeVisible();
}

test("omp file: the context panel shows omp 18.3's context and facts, and switches to pi 1.6's", async ({ page }) => {
	test.setTimeout(120_000);
	await page.setViewportSize({ width: 1400, height: 900 });
	const file = writeSession();
	const before = readFileSync(file);
	host = await startHost([file]);
	await openApp(page, host);
	await expandAllSegments(page);

	// Before omp's /clear: the compaction summary, the kept a1, then u2 and a2 with its dangling call stripped.
	await select(page, "a2");
	await page.getByRole("tab", { name: /context/i }).click();
	const panel = page.getByTestId("context-panel");
	await expect(panel.getByTestId("context-rules-name")).toHaveText("As omp 18.3 sends it");
	const items = panel.getByTestId("context-message");
	await expect(items).toHaveCount(4);
	await expect(items.nth(0)).toContainText("compactionSummary");
	await expect(items.nth(3)).toContainText("Reading the test first.");
	await expect(items.nth(3)).not.toContainText("tool calls");
	const facts = panel.getByTestId("context-omp-facts");
	await expect(facts).toContainText("default: anthropic/claude-x · smol: openai/gpt-mini");
	await expect(facts).toContainText("priority");
	await expect(facts).toContainText("high (configured auto)");
	await expect(facts).toContainText("no-sleep-in-tests");
	await expect(facts).toContainText("plan");
	await shot(page, "omp-context-omp");

	// After the /clear omp sends only what follows it.
	await select(page, "a3");
	await expect(items).toHaveCount(2);
	await expect(items.nth(0)).toContainText("Any other sleeps?");

	// The switch: the same file as pi 1.6 sends it (no /clear, the whole path after the compaction).
	await panel.getByTestId("context-rules-switch").click();
	await expect(panel.getByTestId("context-rules-name")).toHaveText("As pi 1.6 sends it");
	await expect(items).toHaveCount(6);
	await expect(panel.getByTestId("context-omp-facts")).toHaveCount(0);
	await shot(page, "omp-context-pi");
	// The choice holds for the file while the selection moves, and switches back.
	await select(page, "u3");
	await expect(items).toHaveCount(5);
	await expect(panel.getByTestId("context-rules-name")).toHaveText("As pi 1.6 sends it");
	await panel.getByTestId("context-rules-switch").click();
	await expect(panel.getByTestId("context-rules-name")).toHaveText("As omp 18.3 sends it");
	await expect(items).toHaveCount(1);
	expect(readFileSync(file).equals(before)).toBe(true);
});
