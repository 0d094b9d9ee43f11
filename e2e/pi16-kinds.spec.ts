// pi 1.6 / omp 18.3 entry kinds in the app: a session with system messages (full prompt and a patch),
// context edits, cache-warmer usage lines, and every omp record opens with a proper card for each (never
// "unknown entry"), the inspector explains them, the context panel marks edited / omitted messages, and a
// last line written on an old branch raises the resume-point banner whose button saves the position on
// the newest conversation's branch. Screenshots in light and dark.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { card, expandAllSegments, jsonl, openApp, shot } from "./helpers/app";
import { type Host, startHost } from "./helpers/host";

let host: Host | undefined;
test.afterEach(async () => {
	await host?.stop();
	host = undefined;
});

const T = (s: number): string => new Date(Date.UTC(2026, 5, 1, 9, 0, s)).toISOString();
const usage = (total: number, cost: number) => ({
	input: total - 10,
	output: 10,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: total,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
});

function writeSession(): string {
	const dir = mkdtempSync(join(tmpdir(), "arbor-e2e-pi16-"));
	const file = join(dir, "pi16-kinds.jsonl");
	let n = 0;
	const at = () => T(++n);
	const lines: Record<string, unknown>[] = [
		{ type: "session", version: 3, id: "sess-pi16", timestamp: T(0), cwd: "/work/project" },
		{
			type: "message",
			id: "sys1",
			parentId: null,
			timestamp: at(),
			message: {
				role: "system",
				content: "You are a careful coding agent working in this repository.",
				sections: { style: "Answer briefly.", tests: "Run the tests you touch." },
				toolsAdded: [{ name: "read" }, { name: "bash" }, { name: "ls" }],
				timestamp: 1,
			},
		},
		{ type: "message", id: "u1", parentId: "sys1", timestamp: at(), message: { role: "user", content: "Find the flaky test", timestamp: 2 } },
		{
			type: "message",
			id: "a1",
			parentId: "u1",
			timestamp: at(),
			message: {
				role: "assistant",
				content: [{ type: "text", text: "It is the watcher test: it sleeps instead of waiting." }],
				provider: "anthropic",
				model: "claude",
				usage: usage(1200, 0.004),
				stopReason: "stop",
				timestamp: 3,
			},
		},
		{
			type: "message",
			id: "sys2",
			parentId: "a1",
			timestamp: at(),
			message: {
				role: "system",
				content: [],
				sections: { style: "Answer in full sentences.", tests: null },
				toolsAdded: [{ name: "grep" }],
				toolsRemoved: [{ name: "ls" }],
				timestamp: 4,
			},
		},
		{ type: "message", id: "u2", parentId: "sys2", timestamp: at(), message: { role: "user", content: "Fix it", timestamp: 5 } },
		{
			type: "message",
			id: "a2",
			parentId: "u2",
			timestamp: at(),
			message: {
				role: "assistant",
				content: [{ type: "text", text: "Fixed: it waits for the event now." }],
				provider: "anthropic",
				model: "claude",
				usage: usage(2400, 0.008),
				stopReason: "stop",
				timestamp: 6,
			},
		},
		{ type: "usage", id: "w1", parentId: "a2", timestamp: at(), kind: "cache_warm", provider: "anthropic", model: "claude", usage: usage(900, 0.0012) },
		{ type: "usage", id: "w2", parentId: "w1", timestamp: at(), kind: "cache_warm", provider: "anthropic", model: "claude", usage: usage(900, 0.0013) },
		{ type: "context_edit", id: "ce1", parentId: "w2", timestamp: at(), targetId: "u1", replacement: { content: "Find the flaky test (edited)" } },
		{ type: "context_edit", id: "ce2", parentId: "ce1", timestamp: at(), targetId: "a1", replacement: null },
		{ type: "service_tier_change", id: "o1", parentId: "ce2", timestamp: at(), serviceTier: { anthropic: "priority" } },
		{ type: "title_change", id: "o2", parentId: "o1", timestamp: at(), title: "Flaky watcher test", previousTitle: "New session", source: "auto" },
		{ type: "ttsr_injection", id: "o3", parentId: "o2", timestamp: at(), injectedRules: ["no-sleep-in-tests"] },
		{ type: "mode_change", id: "o4", parentId: "o3", timestamp: at(), mode: "plan" },
		{ type: "credential_pin", id: "o5", parentId: "o4", timestamp: at(), provider: "anthropic", hash: "ab12cd" },
		{
			type: "session_init",
			id: "o6",
			parentId: "o5",
			timestamp: at(),
			agent: "scout",
			task: "Look for other sleeps",
			systemPrompt: "You are scout.",
			tools: ["read"],
		},
		{ type: "model_usage", id: "o7", parentId: "o6", timestamp: at(), purpose: "title", provider: "anthropic", model: "haiku", usage: usage(100, 0.0001) },
		{ type: "reset_boundary", id: "o8", parentId: "o7", timestamp: at() },
		{ type: "message", id: "u3", parentId: "o8", timestamp: at(), message: { role: "user", content: "Any other sleeps?", timestamp: 7 } },
		{
			type: "message",
			id: "a3",
			parentId: "u3",
			timestamp: at(),
			message: {
				role: "assistant",
				content: [{ type: "text", text: "Two more in the live tests." }],
				provider: "anthropic",
				model: "claude",
				usage: usage(800, 0.003),
				stopReason: "stop",
				timestamp: 8,
			},
		},
		// A label written from an old leaf: the file's last line now sits on another branch (pi #9930).
		{ type: "label", id: "l1", parentId: "a1", timestamp: at(), targetId: "a1", label: "diagnosis" },
	];
	writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
	return file;
}

async function select(page: Page, id: string): Promise<void> {
	await card(page, id).click();
	await expect(page.getByTestId("inspector").locator(".inspector-ids")).toContainText(id);
}

for (const scheme of ["light", "dark"] as const) {
	test(`pi 1.6 / omp 18.3 kinds: cards, inspector, context, resume banner (${scheme})`, async ({ page }) => {
		test.setTimeout(120_000);
		await page.emulateMedia({ colorScheme: scheme });
		await page.setViewportSize({ width: 1400, height: 900 });
		const file = writeSession();
		// "all": context edits and omp records are settings rows pi hides in the default mode.
		host = await startHost([file], { settings: { treeFilterMode: "all" } });
		await openApp(page, host);
		await expandAllSegments(page);

		// Every kind has its own card; none is "unknown"; usage lines have none.
		await expect(page.locator(".arbor-card--unknown")).toHaveCount(0);
		await expect(card(page, "sys1")).toContainText("system");
		await expect(card(page, "sys1")).toContainText("You are a careful coding agent");
		await expect(card(page, "sys2")).toContainText("1 section set, 1 section removed, 1 tool added, 1 tool removed");
		await expect(card(page, "ce1")).toContainText("context replace: Find the flaky test");
		await expect(card(page, "ce2")).toContainText("context omit: It is the watcher test");
		await expect(card(page, "o1")).toContainText("service tier");
		await expect(card(page, "o2")).toContainText("title: Flaky watcher test (was New session)");
		await expect(card(page, "o3")).toContainText("rules: no-sleep-in-tests");
		await expect(card(page, "o4")).toContainText("mode: plan");
		await expect(card(page, "o5")).toContainText("account pinned for anthropic");
		await expect(card(page, "o6")).toContainText("subagent scout");
		await expect(card(page, "o8")).toContainText("context cleared");
		for (const hidden of ["w1", "w2", "o7"]) await expect(card(page, hidden)).toHaveCount(0);
		// The usage lines' cost is folded into the card they hang under.
		const rollup = card(page, "a2").getByTestId("card-usage-rollup");
		await expect(rollup).toHaveText("+$0.0025 ×2");
		await expect(rollup).toHaveAttribute("title", /cache warming: 2 calls/);

		// The resume-point banner names the newest conversation.
		const banner = page.getByTestId("resume-banner");
		await expect(banner).toContainText("pi will resume on another branch than your latest conversation");
		await expect(banner).toContainText("Two more in the live tests.");
		await page.getByTestId("fit-button").click();
		await page.waitForTimeout(400);
		await shot(page, `pi16-kinds-fit-${scheme}`);

		// Inspector: system patch, context edit with original and edited text, cache warming on the parent.
		await select(page, "sys2");
		await expect(page.getByTestId("system-section")).toHaveCount(2);
		await expect(page.getByTestId("system-section-removed")).toHaveCount(1);
		await expect(page.getByTestId("system-tools-added")).toHaveText("grep");
		await expect(page.getByTestId("system-tools-removed")).toHaveText("ls");
		await shot(page, `pi16-inspector-system-${scheme}`);
		await select(page, "ce1");
		await expect(page.getByTestId("context-edit-original")).toHaveText("Find the flaky test");
		await expect(page.getByTestId("context-edit-new")).toHaveText("Find the flaky test (edited)");
		await select(page, "ce2");
		await expect(page.getByTestId("context-edit-new")).toHaveText("omitted");
		await shot(page, `pi16-inspector-edit-${scheme}`);
		await page.getByTestId("context-edit-target").click();
		await expect(page.getByTestId("inspector").locator(".inspector-ids")).toContainText("a1");
		await select(page, "a2");
		await expect(page.getByTestId("inspector-usage-rollup")).toHaveText("cache warming: 2 calls, $0.0025 (1,800 tokens)");

		// Context panel at o6 (before omp's /clear): the edited message is tagged, the omitted one listed as omitted.
		await page.getByTestId("fit-button").click();
		await page.waitForTimeout(400);
		await select(page, "o6");
		await page.getByRole("tab", { name: /context/i }).click();
		const panel = page.getByTestId("context-panel");
		// The file holds omp records, so it opens as omp sends it; context edits are pi 1.6's: show pi's view.
		await expect(panel.getByTestId("context-rules-name")).toHaveText("As omp 18.3 sends it");
		await panel.getByTestId("context-rules-switch").click();
		await expect(panel.getByTestId("context-rules-name")).toHaveText("As pi 1.6 sends it");
		await expect(panel.getByTestId("context-edited-tag").first()).toHaveText("edited by ce1");
		await expect(panel.getByTestId("context-omitted")).toContainText("a1 is not sent to the model");
		await expect(panel.locator(".role-system").first()).toBeVisible();
		await shot(page, `pi16-context-${scheme}`);
		// The tag shows the edit: the graph centres it at a readable zoom (cards of the new kinds up close).
		await panel.getByTestId("context-edited-tag").first().click();
		await expect(card(page, "ce1").locator(".arbor-card.is-selected")).toBeVisible();
		await page.waitForTimeout(500);
		await shot(page, `pi16-cards-${scheme}`);
		// The new cards, the banner and the panels pass axe (serious / critical) like the rest of the app.
		const axe = await new AxeBuilder({ page })
			.include('[data-testid="resume-banner"]')
			.include('[data-testid="context-panel"]')
			.include(".react-flow__node:has(.arbor-card--edit)")
			.include(".react-flow__node:has(.arbor-card--system)")
			.withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
			.analyze();
		expect(
			axe.violations
				.filter((v) => v.impact === "serious" || v.impact === "critical")
				.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
		).toEqual([]);

		// Save position for pi: appended on the newest conversation's branch; the banner goes away.
		const before = jsonl(file).length;
		await page.getByTestId("resume-banner-save").click();
		await expect(banner).toHaveCount(0);
		const after = jsonl(file);
		expect(after.length).toBe(before + 1);
		const saved = after[after.length - 1];
		expect(saved.type).toBe("custom");
		expect(saved.parentId).toBe("a3");
	});
}

test("the resume-point banner can be dismissed", async ({ page }) => {
	const file = writeSession();
	host = await startHost([file]);
	await openApp(page, host);
	await expect(page.getByTestId("resume-banner")).toBeVisible();
	await page.getByTestId("resume-banner-dismiss").click();
	await expect(page.getByTestId("resume-banner")).toHaveCount(0);
});
