// Steering from the graph, checked on disk: navigate with and without a summary (from a real loopback
// LLM server), abort a summary with Escape, branch a user message to a new file, edit a label.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { type LlmServer, startLlmServer } from "../electron/services/test/helpers/llm-server";
import { card, jsonl, leafId, openApp, sha256, shot } from "./helpers/app";
import { type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
let llm: LlmServer | undefined;
test.afterEach(async () => {
	await host?.stop();
	await llm?.close();
	host = undefined;
	llm = undefined;
});

const sample = () => tempCopy(join(repoRoot, "build", "sample-session.jsonl"));

/** Id of the message entry whose text starts with `text`. */
function idOf(file: string, text: string): string {
	for (const e of jsonl(file)) {
		const m = e.message as { content?: unknown } | undefined;
		const c = m?.content;
		const s = typeof c === "string" ? c : Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? "").join("") : "";
		if (s.startsWith(text)) return e.id as string;
	}
	throw new Error(`no entry starting with ${text}`);
}

async function select(page: Page, id: string): Promise<void> {
	await page.getByTestId("fit-button").click();
	const node = card(page, id);
	await node.scrollIntoViewIfNeeded();
	await node.click();
	await expect(node.locator(".is-selected")).toHaveCount(1);
}

async function modelSettings(): Promise<object> {
	llm = await startLlmServer({ kind: "stream", chunks: ["## Goal\nTry the daily fallback.", "\n\n## Outcome\nUnits differ; abandoned."], delayMs: 30 });
	return { model: { provider: "local", modelId: "arbor-test-model", api: "openai-completions", baseUrl: llm.baseUrl, apiKey: "test-key" } };
}

test("navigate without a summary moves the leaf and writes nothing", async ({ page }) => {
	const file = sample();
	const before = sha256(file);
	const target = idOf(file, "The daily block reports wind");
	host = await startHost([file]);
	await openApp(page, host);
	await select(page, target);
	await page.keyboard.press("Enter");
	await expect(page.getByTestId("navigate-dialog")).toBeVisible();
	await expect(page.getByTestId("navigate-preview")).toBeVisible();
	await shot(page, "navigate-dialog");
	await page.getByTestId("navigate-no-summary").click();
	await expect(card(page, target).locator(".is-leaf")).toHaveCount(1);
	expect(await leafId(page)).toBe(target);
	// pi resumes at the last line: the app says so until the position is saved.
	await expect(page.locator(".arbor-badge--resume"))
		.toHaveCount(1, { timeout: 5_000 })
		.catch(() => undefined);
	await shot(page, "navigated-no-summary");
	expect(sha256(file)).toBe(before);
});

test("navigate with a summary streams it from the model and appends a branch_summary at the new position", async ({ page }) => {
	const file = sample();
	const settings = await modelSettings();
	const target = idOf(file, "Found it: `parseForecast`");
	const leftBehind = (jsonl(file).at(-1) as { id: string }).id;
	host = await startHost([file], { settings });
	await openApp(page, host);
	await select(page, target);
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-summarize").click();
	// The result stays visible after streaming: what was saved, where, and an undo.
	await expect(page.getByTestId("navigate-done")).toBeVisible({ timeout: 30_000 });
	await expect(page.getByTestId("navigate-done")).toContainText("sample-session.jsonl");
	await expect(page.getByTestId("navigate-summary-text")).toContainText("Units differ; abandoned.");
	await shot(page, "navigate-summary-saved");
	const summary = jsonl(file).at(-1) as { type: string; parentId: string; summary: string; fromId: string };
	expect(summary.type).toBe("branch_summary");
	expect(summary.parentId).toBe(target);
	// pi 1.6: fromId is the leaf the move left behind.
	expect(summary.fromId).toBe(leftBehind);
	expect(summary.summary).toContain("Units differ; abandoned.");
	expect(llm?.requests.length).toBe(1);
	await page.getByTestId("navigate-done-close").click();
	await expect(page.getByTestId("navigate-dialog")).toBeHidden();
	// One leaf card (the rows view also marks the leaf's dot on its lane: not a card).
	await expect(page.locator(".arbor-card.is-leaf")).toHaveCount(1);
	await shot(page, "navigated-with-summary");
});

test("undo after a summarized move puts the leaf back where it was", async ({ page }) => {
	const file = sample();
	const settings = await modelSettings();
	const target = idOf(file, "Found it: `parseForecast`");
	host = await startHost([file], { settings });
	await openApp(page, host);
	const leafBefore = await leafId(page);
	await select(page, target);
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-summarize").click();
	await expect(page.getByTestId("navigate-done")).toBeVisible({ timeout: 30_000 });
	await page.getByTestId("navigate-undo").click();
	await expect(page.getByTestId("navigate-dialog")).toBeHidden();
	await page.getByTestId("zoom-leaf-button").click();
	await expect.poll(() => leafId(page)).toBe(leafBefore);
	// The summary stays in the file (append-only) as a side branch; only the leaf moved back.
	expect(jsonl(file).some((l) => l.type === "branch_summary")).toBe(true);
});

test("Escape aborts a running summary: the leaf stays and the file is unchanged", async ({ page }) => {
	const file = sample();
	const settings = await modelSettings();
	llm?.setScenario({ kind: "hang" });
	const before = sha256(file);
	const target = idOf(file, "Found it: `parseForecast`");
	host = await startHost([file], { settings });
	await openApp(page, host);
	const leafBefore = await leafId(page);
	await select(page, target);
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-summarize").click();
	await expect(page.getByTestId("navigate-progress")).toBeVisible();
	await expect.poll(() => llm?.requests.length).toBe(1);
	await shot(page, "summary-in-progress");
	await page.keyboard.press("Escape");
	await expect(page.getByTestId("navigate-dialog")).toBeHidden({ timeout: 15_000 });
	expect(await leafId(page)).toBe(leafBefore);
	expect(sha256(file)).toBe(before);
	await expect.poll(() => llm?.requests[0]?.aborted).toBe(true);
});

test("a summary without a configured model fails at once with a plain message", async ({ page }) => {
	const file = sample();
	const before = sha256(file);
	host = await startHost([file]);
	await openApp(page, host);
	await select(page, idOf(file, "Found it: `parseForecast`"));
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-summarize").click();
	await expect(page.getByTestId("navigate-error")).toContainText(/model/i);
	await shot(page, "summary-no-model");
	expect(sha256(file)).toBe(before);
});

test("right-click a user message → Branch to new file writes the new file and prefills the composer", async ({ page }) => {
	const file = sample();
	const before = sha256(file);
	const target = idOf(file, "Go with option 2 instead");
	host = await startHost([file]);
	await openApp(page, host);
	await select(page, target);
	await card(page, target).click({ button: "right" });
	await expect(page.getByTestId("context-menu")).toBeVisible();
	await shot(page, "context-menu");
	await page.getByTestId("menu-item-branch.toFile").click();
	await expect(page.getByTestId("composer")).toHaveValue("Go with option 2 instead: return null and print a friendly message.");
	const created = readdirSync(dirname(file)).filter((f) => f.endsWith(".jsonl") && join(dirname(file), f) !== file);
	expect(created).toHaveLength(1);
	const newFile = join(dirname(file), created[0]);
	const lines = jsonl(newFile);
	expect(lines[0].type).toBe("session");
	expect(lines[0].parentSession).toBe(file);
	// The path up to the message's parent, without the message itself.
	expect(lines.some((l) => l.id === target)).toBe(false);
	await expect(page.getByTestId("status-file")).toContainText(created[0]);
	await shot(page, "branched-to-new-file");
	expect(sha256(file)).toBe(before);
	expect(readFileSync(newFile, "utf8").endsWith("\n")).toBe(true);
});

test("Shift+L edits a label and the label is appended to the file", async ({ page }) => {
	const file = sample();
	const target = idOf(file, "Now add a regression test");
	host = await startHost([file]);
	await openApp(page, host);
	await select(page, target);
	await page.keyboard.press("Shift+L");
	await expect(page.getByTestId("label-editor")).toBeVisible();
	await page.getByTestId("label-editor-input").fill("  regression test  ");
	await shot(page, "label-editor");
	await page.keyboard.press("Enter");
	await expect(card(page, target).locator(".arbor-badge--label")).toContainText("regression test");
	const last = jsonl(file).at(-1) as { type: string; targetId: string; label: string };
	expect(last).toMatchObject({ type: "label", targetId: target, label: "regression test" });
	await shot(page, "label-saved");
});
