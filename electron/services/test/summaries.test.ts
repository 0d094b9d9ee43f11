import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { branchySession, tempDir, writeSession } from "./helpers/entries";
import { type LlmServer, startLlmServer } from "./helpers/llm-server";
import { makeServices, readLines, type TestServices } from "./helpers/services";

let server: LlmServer;
let t: TestServices;

beforeAll(async () => {
	server = await startLlmServer();
});
afterAll(async () => {
	await server.close();
});
afterEach(() => t?.services.dispose());

async function openWithModel(): Promise<{ sessionId: string; file: string }> {
	t = makeServices();
	await t.services.setSettings({ settings: { model: { provider: "local", modelId: "test-model", baseUrl: server.baseUrl, api: "openai-completions" } } });
	const file = writeSession(tempDir(), branchySession());
	const s = await t.services.openSession({ path: file });
	t.events.length = 0;
	return { sessionId: s.sessionId, file };
}

function requestText(): string {
	return JSON.stringify(server.requests.at(-1)?.body);
}

describe("navigate with a summary from a real (loopback) model", () => {
	it("writes a branch_summary with file details at the new position, moves the leaf, and streams progress", async () => {
		server.setScenario({ kind: "stream", chunks: ["## Goal\n", "Tokenizer fix.", "\n## Open items\n- none"] });
		const { sessionId, file } = await openWithModel();
		expect(await t.services.getActiveModel({})).toEqual({
			provider: "local",
			modelId: "test-model",
			source: "arbor-settings",
			auth: null,
			baseUrl: server.baseUrl,
		});
		const r = await t.services.navigate({ sessionId, targetId: "a4", summarize: true, label: "tokenizer attempt" });
		expect(r.cancelled).toBe(false);
		const lines = readLines(file);
		const summary = lines.find((l) => l.type === "branch_summary");
		// pi 1.6: fromId is the leaf left behind, and the summary call's usage is kept.
		expect(summary).toMatchObject({
			parentId: "a4",
			fromId: "a3",
			details: { readFiles: ["src/a.ts"], modifiedFiles: ["src/b.ts"] },
			usage: { input: 11, output: 7 },
		});
		expect(Object.keys(summary ?? {})).toEqual(["type", "id", "parentId", "timestamp", "fromId", "summary", "details", "usage", "fromHook"]);
		expect(summary?.summary).toMatch(/^## Goal\nTokenizer fix\./);
		expect(summary?.summary).toContain("<modified-files>\nsrc/b.ts\n</modified-files>");
		expect(summary?.fromHook).toBeFalsy();
		expect(r.summaryEntryId).toBe(summary?.id);
		// pi's rule: with a summary, the label goes on the summary entry.
		expect(lines.at(-1)).toMatchObject({ type: "label", targetId: summary?.id, label: "tokenizer attempt" });
		expect(r.newLeafId).toBe(lines.at(-1)?.id);
		const phases = t.of("summary_progress").map((e) => e.phase);
		expect(phases[0]).toBe("start");
		expect(phases.at(-1)).toBe("done");
		expect(
			t
				.of("summary_progress")
				.filter((e) => e.phase === "delta")
				.map((e) => e.text)
				.join(""),
		).toBe("## Goal\nTokenizer fix.\n## Open items\n- none");
		const appended = t.of("session_appended");
		expect(appended.map((e) => e.delta.ids.length).reduce((a, b) => a + b, 0)).toBe(2);
		expect(appended[0]?.delta.start).toBe(8);
		expect(t.of("session_tree")).toEqual([
			{ type: "session_tree", sessionId, newLeafId: r.newLeafId, oldLeafId: "a3", summaryEntryId: summary?.id, fromExtension: false },
		]);
		expect(t.of("labels_changed")).toHaveLength(1);
		// The model saw the abandoned branch, not the kept one.
		expect(requestText()).toContain("Fix the tokenizer");
		expect(requestText()).not.toContain("Other approach done");
		// A custom base URL gets the request shape local servers understand.
		const body = server.requests.at(-1)?.body as Record<string, unknown>;
		expect(body.max_tokens).toBe(4096);
		expect(body).not.toHaveProperty("store");
		expect((body.messages as { role: string }[])[0]?.role).toBe("system");
	});

	it("appends custom instructions to the prompt, or replaces the prompt", async () => {
		server.setScenario({ kind: "stream", chunks: ["ok"] });
		const { sessionId } = await openWithModel();
		await t.services.navigate({ sessionId, targetId: "a4", summarize: true, customInstructions: "Mention the parser." });
		expect(requestText()).toContain("Mention the parser.");
		expect(requestText()).toContain("## Goal");
		await t.services.navigate({ sessionId, targetId: "a3", summarize: true, customInstructions: "ONLY A HAIKU", replaceInstructions: true });
		expect(requestText()).toContain("ONLY A HAIKU");
		expect(requestText()).not.toContain("## Goal");
	});

	it("aborting a slow stream cancels the navigation: leaf unchanged, no entry written, file bytes unchanged", async () => {
		server.setScenario({ kind: "stream", chunks: Array.from({ length: 400 }, (_, i) => `word${i} `), delayMs: 25 });
		const { sessionId, file } = await openWithModel();
		const before = fs.readFileSync(file);
		t.services.onEvent((e) => {
			if (e.type === "summary_progress" && e.phase === "delta") void t.services.cancel({ sessionId });
		});
		const r = await t.services.navigate({ sessionId, targetId: "a4", summarize: true });
		expect(r).toMatchObject({ cancelled: true, reason: "aborted", newLeafId: "a3", oldLeafId: "a3" });
		expect(fs.readFileSync(file).equals(before)).toBe(true);
		expect(t.of("summary_progress").at(-1)?.phase).toBe("aborted");
		expect(t.of("session_tree")).toEqual([]);
		expect(t.of("leaf_changed")).toEqual([]);
		await expect.poll(() => server.requests.at(-1)?.aborted, { timeout: 5_000 }).toBe(true);
	});

	it("cancel while the server has not sent a word yet also leaves everything unchanged", async () => {
		server.setScenario({ kind: "hang" });
		const { sessionId, file } = await openWithModel();
		const before = fs.readFileSync(file);
		t.services.onEvent((e) => {
			if (e.type === "summary_progress" && e.phase === "start") setTimeout(() => void t.services.cancel({ sessionId }), 50);
		});
		const r = await t.services.navigate({ sessionId, targetId: "a4", summarize: true });
		expect(r).toMatchObject({ cancelled: true, reason: "aborted" });
		expect(fs.readFileSync(file).equals(before)).toBe(true);
	});

	it("a file truncated by another process while the summary streams ends in conflict, with nothing written", async () => {
		server.setScenario({ kind: "stream", chunks: Array.from({ length: 40 }, (_, i) => `w${i} `), delayMs: 20 });
		const { sessionId, file } = await openWithModel();
		const head = fs.readFileSync(file, "utf8").split("\n").slice(0, 3).join("\n") + "\n";
		let truncated = false;
		t.services.onEvent((e) => {
			if (e.type === "summary_progress" && e.phase === "delta" && !truncated) {
				truncated = true;
				fs.writeFileSync(file, head);
			}
		});
		const err = await t.services.navigate({ sessionId, targetId: "a4", summarize: true }).catch((e: unknown) => e);
		expect(err).toMatchObject({ code: "conflict" });
		expect(fs.readFileSync(file, "utf8")).toBe(head);
		expect(t.of("session_reloaded").length).toBeGreaterThan(0);
	});

	for (const [name, scenario] of [
		["HTTP 401", { kind: "status", status: 401, message: "bad key" }],
		["HTTP 500", { kind: "status", status: 500, message: "server fell over" }],
		["a malformed stream", { kind: "malformed" }],
	] as const) {
		it(`${name} fails with llm_error and changes nothing`, async () => {
			server.setScenario(scenario);
			const { sessionId, file } = await openWithModel();
			const before = fs.readFileSync(file);
			const err = await t.services.navigate({ sessionId, targetId: "a4", summarize: true }).catch((e: unknown) => e);
			expect(err).toMatchObject({ code: "llm_error", message: expect.stringContaining("local/test-model") });
			expect(fs.readFileSync(file).equals(before)).toBe(true);
			expect(t.of("summary_progress").at(-1)?.phase).toBe("error");
			expect(t.of("leaf_changed")).toEqual([]);
			const p = await t.services.previewNavigation({ sessionId, targetId: "a4" });
			expect(p.oldLeafId).toBe("a3");
		});
	}

	it("uses a custom provider from pi's models.json when Arbor has no model set", async () => {
		server.setScenario({ kind: "stream", chunks: ["from pi config"] });
		t = makeServices({ env: { LOCAL_LLM_KEY: "k-123" } });
		fs.writeFileSync(path.join(t.piAgentDir, "settings.json"), JSON.stringify({ defaultProvider: "lab", defaultModel: "m1" }));
		fs.writeFileSync(
			path.join(t.piAgentDir, "models.json"),
			JSON.stringify({ providers: { lab: { baseUrl: server.baseUrl, api: "openai-completions", apiKey: "$LOCAL_LLM_KEY", models: [{ id: "m1" }] } } }),
		);
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		expect(await t.services.getActiveModel({})).toEqual({ provider: "lab", modelId: "m1", source: "pi-settings", auth: "env" });
		const r = await t.services.navigate({ sessionId, targetId: "a4", summarize: true });
		expect(r.summaryEntryId).toBeDefined();
		expect(server.requests.at(-1)?.authorization).toBe("Bearer k-123");
		expect((server.requests.at(-1)?.body as { model?: string }).model).toBe("m1");
	});
});

describe("the base-URL credential rule through the API (#9)", () => {
	it("setSettings pointing a built-in provider at another server, then a summary: the server gets none of the provider's keys", async () => {
		server.setScenario({ kind: "stream", chunks: ["## Goal\nx"] });
		t = makeServices({ env: { ANTHROPIC_API_KEY: "sk-ant-ENV-secret", OPENAI_API_KEY: "sk-openai-ENV-secret" } });
		fs.writeFileSync(
			path.join(t.piAgentDir, "auth.json"),
			JSON.stringify({
				anthropic: { type: "oauth", access: "sk-ant-oat-OAUTH-secret", refresh: "r", expires: Date.now() + 3_600_000 },
				openai: { type: "api_key", key: "sk-openai-STORED-secret" },
			}),
		);
		// What a client holding the API could do: point the built-in provider at its own server.
		await t.services.setSettings({
			settings: { model: { provider: "anthropic", modelId: "claude-opus-5-5", baseUrl: server.baseUrl, api: "openai-completions" } },
		});
		expect(await t.services.getActiveModel({})).toEqual({
			provider: "anthropic",
			modelId: "claude-opus-5-5",
			source: "arbor-settings",
			auth: null,
			baseUrl: server.baseUrl,
		});
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		await t.services.navigate({ sessionId, targetId: "a4", summarize: true });
		const req = server.requests.at(-1);
		expect(req).toBeDefined();
		expect(JSON.stringify(req?.headers)).not.toMatch(/secret/);
		expect(req?.headers["x-api-key"]).toBeUndefined();
		expect(req?.authorization).toBe("Bearer arbor-no-key");
	});
});
