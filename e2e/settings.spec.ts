// The Settings dialog end to end: configure the summary model (a real loopback OpenAI-compatible server)
// through the UI of a fresh install (HOME is a temp dir, so ~/.arbor starts empty), then navigate with
// Summarize and find the branch_summary in the file. The key goes to ~/.arbor/settings.json and never
// back to the page.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { type LlmServer, startLlmServer } from "../electron/services/test/helpers/llm-server";
import { writeLoopbackAgentConfig } from "../electron/services/test/helpers/real-pi";
import { card, jsonl, openApp, shot } from "./helpers/app";
import { type Host, repoRoot, startHost, tempCopy } from "./helpers/host";

let host: Host | undefined;
let llm: LlmServer | undefined;
test.afterEach(async () => {
	await host?.stop();
	await llm?.close();
	host = undefined;
	llm = undefined;
});

/** Id of the message entry whose text starts with `text`. */
function idOf(file: string, text: string): string {
	for (const e of jsonl(file)) {
		const c = (e.message as { content?: unknown } | undefined)?.content;
		const s = typeof c === "string" ? c : Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? "").join("") : "";
		if (s.startsWith(text)) return e.id as string;
	}
	throw new Error(`no entry starting with ${text}`);
}

test("a model configured in the Settings dialog writes the summary when navigating with Summarize", async ({ page }) => {
	llm = await startLlmServer({ kind: "stream", chunks: ["## Goal\nSettings e2e.", "\n\n## Outcome\nConfigured through the dialog."], delayMs: 20 });
	const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	const target = idOf(file, "Found it: `parseForecast`");
	// No pi config and no provider keys: the only model is the one the dialog sets.
	const noKeys = Object.fromEntries(
		["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY", "XAI_API_KEY", "MISTRAL_API_KEY", "DEEPSEEK_API_KEY"].map(
			(k) => [k, ""],
		),
	);
	host = await startHost([file], { env: noKeys });
	await openApp(page, host);

	const status = page.getByTestId("status-model");
	await expect(status).toHaveText("no model");
	await status.click();
	const dialog = page.getByTestId("settings-dialog");
	await expect(dialog).toBeVisible();
	await expect(page.getByTestId("settings-active-model")).toContainText("No model is active");
	await shot(page, "settings-no-model");

	await page.getByTestId("settings-provider").fill("local");
	await page.getByTestId("settings-model").fill("arbor-e2e-model");
	await page.getByTestId("settings-api").selectOption("openai-completions");
	await page.getByTestId("settings-base-url").fill(llm.baseUrl);
	await page.getByTestId("settings-api-key").fill("e2e-secret-key");
	await page.getByTestId("settings-save").click();
	await expect(page.getByTestId("settings-status")).toHaveText("Saved.");
	await expect(page.getByTestId("settings-active-model")).toContainText("local/arbor-e2e-model");
	await expect(page.getByTestId("settings-active-model")).toContainText("Arbor's settings");
	await expect(page.getByTestId("settings-api-key")).toHaveValue("");
	await expect(page.getByTestId("settings-clear-key")).toBeEnabled();
	await shot(page, "settings-saved");

	const saved = JSON.parse(readFileSync(join(host.home, ".arbor", "settings.json"), "utf8")) as { model: Record<string, string> };
	expect(saved.model).toEqual({ provider: "local", modelId: "arbor-e2e-model", api: "openai-completions", baseUrl: llm.baseUrl, apiKey: "e2e-secret-key" });
	expect(await page.content()).not.toContain("e2e-secret-key");

	await page.getByTestId("settings-close").click();
	await expect(dialog).toBeHidden();
	await expect(status).toHaveText("local/arbor-e2e-model");

	await page.getByTestId("fit-button").click();
	const node = card(page, target);
	await node.scrollIntoViewIfNeeded();
	await node.click();
	await expect(node.locator(".is-selected")).toHaveCount(1);
	await page.keyboard.press("Enter");
	await page.getByTestId("navigate-summarize").click();
	await expect(page.getByTestId("navigate-done")).toBeVisible({ timeout: 30_000 });
	await page.getByTestId("navigate-done-close").click();
	await expect(page.getByTestId("navigate-dialog")).toBeHidden();

	const last = jsonl(file).at(-1) as { type: string; parentId: string; summary: string };
	expect(last.type).toBe("branch_summary");
	expect(last.parentId).toBe(target);
	expect(last.summary).toContain("Configured through the dialog.");
	expect(llm.requests).toHaveLength(1);
	expect(llm.requests[0].authorization).toBe("Bearer e2e-secret-key");
	expect((llm.requests[0].body as { model?: string }).model).toBe("arbor-e2e-model");
	await shot(page, "settings-summary-written");
});

test("Clear key removes the stored key from ~/.arbor/settings.json and keeps the rest of the model", async ({ page }) => {
	llm = await startLlmServer();
	const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	host = await startHost([file], {
		settings: { model: { provider: "local", modelId: "m", api: "openai-completions", baseUrl: llm.baseUrl, apiKey: "old-key" } },
	});
	await openApp(page, host);
	await page.getByTestId("open-settings").click();
	await expect(page.getByTestId("settings-api-key")).toHaveAttribute("placeholder", /stored/);
	await page.getByTestId("settings-clear-key").click();
	await expect(page.getByTestId("settings-status")).toContainText("removed");
	await expect(page.getByTestId("settings-clear-key")).toBeDisabled();
	const saved = JSON.parse(readFileSync(join(host.home, ".arbor", "settings.json"), "utf8")) as { model: Record<string, string> };
	expect(saved.model).toEqual({ provider: "local", modelId: "m", api: "openai-completions", baseUrl: llm.baseUrl });
});

test("pi's models.json and settings.json written while Arbor runs: the open navigate dialog and the status bar name the model at once (no restart)", async ({
	page,
}) => {
	llm = await startLlmServer({ kind: "stream", chunks: ["unused"] });
	const file = tempCopy(join(repoRoot, "build", "sample-session.jsonl"));
	const noKeys = Object.fromEntries(
		["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY", "XAI_API_KEY", "MISTRAL_API_KEY", "DEEPSEEK_API_KEY"].map(
			(k) => [k, ""],
		),
	);
	host = await startHost([file], { env: noKeys });
	await openApp(page, host);
	await expect(page.getByTestId("status-model")).toHaveText("no model");
	// A move that would summarize a branch: the dialog warns that no model is configured.
	await page.getByTestId("fit-button").click();
	await card(page, idOf(file, "The daily block reports wind")).click();
	await page.keyboard.press("Enter");
	await expect(page.getByTestId("navigate-preview")).toContainText("Leaving a branch");
	await expect(page.getByTestId("navigate-no-model")).toBeVisible();

	// pi's own configuration appears (as `pi` writes it, in the HOME Arbor runs with).
	writeLoopbackAgentConfig(join(host.home, ".pi", "agent"), llm);
	await expect(page.getByTestId("navigate-no-model")).toHaveCount(0, { timeout: 20_000 });
	await expect(page.getByTestId("navigate-model")).toContainText("arbor-loopback/loopback-model");
	await expect(page.getByTestId("status-model")).toHaveText("arbor-loopback/loopback-model");
	await shot(page, "navigate-model-appeared");
	// And goes away again.
	rmSync(join(host.home, ".pi", "agent", "models.json"));
	await expect(page.getByTestId("navigate-no-model")).toBeVisible({ timeout: 20_000 });
	await expect(page.getByTestId("status-model")).toHaveText("no model");
});
