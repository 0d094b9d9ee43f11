import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Api, Model } from "@earendil-works/pi-ai";
import { type ResolvedModel, resolveActiveModel } from "../models";
import { buildInstructions, collectFileDetails, generateSummary, serializeForSummary, SUMMARY_PROMPT } from "../summarizer";
import { assistant, branchySession, tempDir, toolResult, user } from "./helpers/entries";
import { type LlmServer, startLlmServer } from "./helpers/llm-server";

let server: LlmServer;

let localResolved: ResolvedModel;

/** The loopback server as a custom endpoint from Arbor's settings (key "test-key"), with a 4,096-token answer cap. */
function localModel(_baseUrl: string): ResolvedModel {
	const model: Model<Api> = { ...localResolved.model, maxTokens: 4096 };
	return { ...localResolved, model };
}

beforeAll(async () => {
	server = await startLlmServer();
	const r = await resolveActiveModel({
		arbor: { provider: "local", modelId: "test-model", baseUrl: server.baseUrl, api: "openai-completions", apiKey: "test-key" },
		piAgentDir: tempDir("arbor-pi-"),
		env: {},
	});
	if (!r.ok) throw new Error(r.reason);
	localResolved = r.resolved;
});
afterAll(async () => {
	await server.close();
});

describe("summary input", () => {
	it("records read files and modified files from tool calls, a file both read and edited counting as modified", () => {
		const entries = [
			assistant("x1", null, "", [
				{ name: "read", args: { path: "a.ts" } },
				{ name: "read", args: { path: "b.ts" } },
			]),
			assistant("x2", "x1", "", [
				{ name: "edit", args: { path: "b.ts" } },
				{ name: "write", args: { path: "c.ts" } },
				{ name: "bash", args: { command: "ls" } },
			]),
		];
		expect(collectFileDetails(entries)).toEqual({ readFiles: ["a.ts"], modifiedFiles: ["b.ts", "c.ts"] });
	});

	it("carries file lists over from earlier built-in branch summaries but not from extension-written ones", () => {
		const entries = [
			{
				type: "branch_summary",
				id: "b1",
				parentId: null,
				timestamp: "2026-01-01T00:00:00Z",
				fromId: "root",
				summary: "s",
				details: { readFiles: ["old.ts"], modifiedFiles: ["m.ts"] },
			},
			{
				type: "branch_summary",
				id: "b2",
				parentId: "b1",
				timestamp: "2026-01-01T00:00:01Z",
				fromId: "b1",
				summary: "s",
				fromHook: true,
				details: { readFiles: ["ext.ts"], modifiedFiles: [] },
			},
		];
		expect(collectFileDetails(entries)).toEqual({ readFiles: ["old.ts"], modifiedFiles: ["m.ts"] });
	});

	it("keeps the newest entries when the transcript is over the token budget", () => {
		const entries = [user("o1", null, "OLDEST ".repeat(400)), user("o2", "o1", "MIDDLE ".repeat(400)), user("o3", "o2", "NEWEST ".repeat(400))];
		const { text, included } = serializeForSummary(entries, 1_500);
		expect(included).toBe(2);
		expect(text).toContain("NEWEST");
		expect(text).toContain("MIDDLE");
		expect(text).not.toContain("OLDEST");
		expect(text.indexOf("MIDDLE")).toBeLessThan(text.indexOf("NEWEST"));
	});

	it("cuts long tool output", () => {
		const { text } = serializeForSummary([toolResult("t", "a", "bash", "x".repeat(10_000))], 0);
		expect(text.length).toBeLessThan(2_300);
		expect(text).toContain("more characters not shown");
	});

	it("appends custom instructions to the prompt, or replaces it when asked", () => {
		expect(buildInstructions("Focus on tests")).toContain(SUMMARY_PROMPT);
		expect(buildInstructions("Focus on tests")).toContain("Focus on tests");
		expect(buildInstructions("Only list files", true)).toBe("Only list files");
		expect(buildInstructions(undefined, true)).toBe(SUMMARY_PROMPT);
	});
});

describe("summary generation against a loopback chat-completions server", () => {
	it("streams the answer, reports deltas, and appends the file lists", async () => {
		server.setScenario({ kind: "stream", chunks: ["## Goal\n", "Fix the tokenizer.", "\n## Open items\n- (none)"] });
		const deltas: string[] = [];
		const out = await generateSummary({
			entries: branchySession().slice(4),
			resolved: localModel(server.baseUrl),
			signal: new AbortController().signal,
			onDelta: (t) => deltas.push(t),
		});
		expect(out.aborted).toBe(false);
		if (out.aborted) return;
		expect(deltas.join("")).toBe("## Goal\nFix the tokenizer.\n## Open items\n- (none)");
		expect(out.summary.startsWith("## Goal\nFix the tokenizer.")).toBe(true);
		expect(out.summary).toContain("<read-files>\nsrc/a.ts\n</read-files>");
		expect(out.summary).toContain("<modified-files>\nsrc/b.ts\n</modified-files>");
		expect(out.details).toEqual({ readFiles: ["src/a.ts"], modifiedFiles: ["src/b.ts"] });
		const req = server.requests.at(-1);
		expect(req?.authorization).toBe("Bearer test-key");
		const sent = JSON.stringify(req?.body);
		expect(sent).toContain("Fix the tokenizer");
		expect(sent).toContain("Open items");
	});

	it("turns HTTP 401 into llm_error with the server's message", async () => {
		server.setScenario({ kind: "status", status: 401, message: "invalid api key" });
		await expect(
			generateSummary({ entries: branchySession(), resolved: localModel(server.baseUrl), signal: new AbortController().signal }),
		).rejects.toMatchObject({
			code: "llm_error",
			message: expect.stringContaining("401"),
		});
	});

	it("turns HTTP 500 into llm_error", async () => {
		server.setScenario({ kind: "status", status: 500, message: "boom" });
		await expect(
			generateSummary({ entries: branchySession(), resolved: localModel(server.baseUrl), signal: new AbortController().signal }),
		).rejects.toMatchObject({ code: "llm_error" });
	});

	it("turns a malformed stream into llm_error", async () => {
		server.setScenario({ kind: "malformed" });
		await expect(
			generateSummary({ entries: branchySession(), resolved: localModel(server.baseUrl), signal: new AbortController().signal }),
		).rejects.toMatchObject({ code: "llm_error" });
	});

	it("returns aborted when the signal fires mid-stream, and the server sees the connection closed", async () => {
		server.setScenario({ kind: "stream", chunks: Array.from({ length: 200 }, (_, i) => `part ${i} `), delayMs: 50 });
		const controller = new AbortController();
		let n = 0;
		const out = await generateSummary({
			entries: branchySession(),
			resolved: localModel(server.baseUrl),
			signal: controller.signal,
			onDelta: () => {
				if (++n === 2) controller.abort();
			},
		});
		expect(out.aborted).toBe(true);
		await expect.poll(() => server.requests.at(-1)?.aborted, { timeout: 5_000 }).toBe(true);
	});
});

describe("summary input selection on a long abandoned branch", () => {
	it("parses the newest entries within the budget and, beyond it, only entries that carry file operations", async () => {
		const { SessionManager } = await import("../../session");
		const { entriesForSummary } = await import("../navigation");
		const { tempDir, writeSession } = await import("./helpers/entries");
		const entries = [
			assistant("old-read", null, "", [{ name: "read", args: { path: "old.ts" } }]),
			user("old-chat", "old-read", "X".repeat(8_000)),
			user("mid", "old-chat", "Y".repeat(8_000)),
			user("new", "mid", "Z".repeat(2_000)),
		];
		const m = SessionManager.open(writeSession(tempDir(), entries));
		const picked = entriesForSummary(m, ["old-read", "old-chat", "mid", "new"], 1_000);
		expect(picked.map((e) => e.id)).toEqual(["old-read", "mid", "new"]);
		expect(collectFileDetails(picked).readFiles).toEqual(["old.ts"]);
		m.close();
	});
});
