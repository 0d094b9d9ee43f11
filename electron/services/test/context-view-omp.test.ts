// The context panel's view (getContext) on an omp 18.3 file: omp's context (buildOmpContext) by default, each
// message paired with its entry, omp's context facts; `as: "pi"` switches to pi 1.6's rules for the same file;
// pi files are unchanged (pi's rules, writer "pi").
import * as fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { buildOmpContext, SessionManager } from "../../session";
import { header, tempDir } from "./helpers/entries";
import { makeServices, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

const T = (s: number) => new Date(Date.UTC(2026, 5, 1) + s * 1000).toISOString();
const m = (id: string, parentId: string | null, s: number, message: Record<string, unknown>) => ({
	type: "message",
	id,
	parentId,
	timestamp: T(s),
	message: { timestamp: s, ...message },
});
const u = (id: string, parentId: string | null, s: number, text: string) => m(id, parentId, s, { role: "user", content: text });
const a = (id: string, parentId: string | null, s: number, content: unknown[], stopReason = "stop") =>
	m(id, parentId, s, { role: "assistant", content, provider: "anthropic", model: "claude-x", stopReason, usage: { input: 1, output: 1, totalTokens: 2 } });
const text = (s: string) => ({ type: "text", text: s });
const call = (id: string) => ({ type: "toolCall", id, name: "read", arguments: { path: "/a" } });

function ompFile(): string {
	const lines = [
		{ ...header(), title: "Fix it", titleSource: "user" },
		{ type: "session_init", id: "si", parentId: null, timestamp: T(1), systemPrompt: "You are omp", task: "fix", tools: ["read"] },
		{ type: "model_change", id: "mc", parentId: "si", timestamp: T(2), model: "anthropic/claude-x", role: "default" },
		{ type: "model_change", id: "ms", parentId: "mc", timestamp: T(3), model: "openai/gpt-small", role: "smol" },
		{ type: "service_tier_change", id: "st", parentId: "ms", timestamp: T(4), serviceTier: "priority" },
		{ type: "thinking_level_change", id: "tl", parentId: "st", timestamp: T(5), thinkingLevel: "high", configured: "auto" },
		u("u1", "tl", 6, "one"),
		a("a1", "u1", 7, [text("first"), call("c1")], "toolUse"),
		m("r1", "a1", 8, { role: "toolResult", toolCallId: "c1", toolName: "read", content: [text("file")], isError: false }),
		a("a1b", "r1", 9, [text("done one")]),
		u("u2", "a1b", 10, "two"),
		a("a2", "u2", 11, [text("two")]),
		{ type: "compaction", id: "c", parentId: "a2", timestamp: T(12), summary: "Earlier work", firstKeptEntryId: "u2", tokensBefore: 900 },
		{ type: "ttsr_injection", id: "tt", parentId: "c", timestamp: T(13), injectedRules: ["no-any"] },
		{ type: "mode_change", id: "md", parentId: "tt", timestamp: T(14), mode: "plan" },
		u("u3", "md", 15, "three"),
		// A turn whose tool call never got a result: omp strips the call and keeps the text.
		a("a3", "u3", 16, [text("trying"), call("lost")], "toolUse"),
		{
			type: "model_usage",
			id: "mu",
			parentId: "a3",
			timestamp: T(17),
			purpose: "title",
			api: "x",
			provider: "openai",
			model: "gpt-small",
			usage: { totalTokens: 5 },
			stopReason: "stop",
		},
		{ type: "reset_boundary", id: "rb", parentId: "mu", timestamp: T(18) },
		u("u4", "rb", 19, "after clear"),
		a("a4", "u4", 20, [text("fresh")]),
	];
	const file = `${tempDir()}/omp.jsonl`;
	fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
	return file;
}

describe("getContext on an omp 18.3 file", () => {
	it("shows omp's context by default: /clear, compaction, dangling tool call cut exactly as buildOmpContext does", async () => {
		t = makeServices();
		const file = ompFile();
		const before = fs.readFileSync(file);
		const s = await t.services.openSession({ path: file });
		const sm = SessionManager.open(file);
		for (const leafId of ["a4", "a3", "u3", "a2", "r1"]) {
			const view = await t.services.getContext({ sessionId: s.sessionId, leafId });
			const omp = buildOmpContext(sm, leafId);
			expect(view.rules).toBe("omp");
			expect(view.writer).toBe("omp");
			expect(JSON.stringify(view.messages.map((v) => v.message))).toBe(JSON.stringify(omp.messages));
			expect(view.messages.map((v) => v.entryId)).toEqual(omp.entryIds);
		}
		sm.close();
		// After the /clear only its tail is sent.
		const leaf = await t.services.getContext({ sessionId: s.sessionId, leafId: "a4" });
		expect(leaf.messages.map((v) => [v.entryId, v.message.role])).toEqual([
			["u4", "user"],
			["a4", "assistant"],
		]);
		expect(leaf.compactionId).toBeNull();
		expect(leaf.omp).toEqual({
			models: { default: "anthropic/claude-x", smol: "openai/gpt-small" },
			serviceTier: "priority",
			thinkingLevel: "high",
			configuredThinkingLevel: "auto",
			injectedTtsrRules: ["no-any"],
			mode: "plan",
		});
		expect(leaf.model).toEqual({ provider: "anthropic", modelId: "claude-x" });
		expect(leaf.thinkingLevel).toBe("high");
		// Before it: the compaction's summary, its kept range, then a3 without the call that has no result.
		const a3 = await t.services.getContext({ sessionId: s.sessionId, leafId: "a3" });
		expect(a3.messages.map((v) => [v.entryId, v.message.role])).toEqual([
			["c", "compactionSummary"],
			["u2", "user"],
			["a2", "assistant"],
			["u3", "user"],
			["a3", "assistant"],
		]);
		expect((a3.messages[4].message as { content: unknown }).content).toEqual([text("trying")]);
		expect(a3.compactionId).toBe("c");
		expect(a3.totalEstimatedTokens).toBe(a3.messages.reduce((n, v) => n + v.estimatedTokens, 0));
		// No leaf: nothing is sent, under either rules.
		expect((await t.services.getContext({ sessionId: s.sessionId, leafId: null })).messages).toEqual([]);
		expect(fs.readFileSync(file).equals(before)).toBe(true);
	});

	it('as: "pi" shows pi 1.6\'s context of the same file (the dangling call kept, no /clear), as: "omp" again omp\'s', async () => {
		t = makeServices();
		const s = await t.services.openSession({ path: ompFile() });
		const pi = await t.services.getContext({ sessionId: s.sessionId, leafId: "a4", as: "pi" });
		expect(pi.rules).toBe("pi");
		expect(pi.writer).toBe("omp");
		expect(pi.omp).toBeUndefined();
		expect(pi.messages.map((v) => v.entryId)).toEqual(["c", "u2", "a2", "u3", "a3", "u4", "a4"]);
		expect((pi.messages[4].message as { content: unknown }).content).toEqual([text("trying"), call("lost")]);
		const omp = await t.services.getContext({ sessionId: s.sessionId, leafId: "a4", as: "omp" });
		expect(omp.messages.map((v) => v.entryId)).toEqual(["u4", "a4"]);
	});

	it("a pi file keeps pi's rules by default and can be shown as omp would send it", async () => {
		t = makeServices();
		const file = `${tempDir()}/pi.jsonl`;
		const lines = [header(), u("u1", null, 1, "one"), a("a1", "u1", 2, [text("x"), call("k")], "toolUse")];
		fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
		const s = await t.services.openSession({ path: file });
		const pi = await t.services.getContext({ sessionId: s.sessionId, leafId: "a1" });
		expect([pi.rules, pi.writer, pi.omp]).toEqual(["pi", "pi", undefined]);
		expect(pi.messages.map((v) => v.entryId)).toEqual(["u1", "a1"]);
		const asOmp = await t.services.getContext({ sessionId: s.sessionId, leafId: "a1", as: "omp" });
		expect([asOmp.rules, asOmp.writer]).toEqual(["omp", "pi"]);
		expect((asOmp.messages[1].message as { content: unknown }).content).toEqual([text("x")]);
	});
});
