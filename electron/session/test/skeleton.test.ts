import { describe, expect, it } from "vitest";
import { applySkeletonDelta, EntryFlag, EntryKind } from "../../../shared/skeleton";
import { SessionManager } from "../index";
import { writeSession } from "./helpers";

const T = "2026-01-01T00:00:00.000Z";
const e = (id: string, parentId: string | null, type: string, extra: Record<string, unknown> = {}) => ({ type, id, parentId, timestamp: T, ...extra });
const m = (id: string, parentId: string | null, message: Record<string, unknown>) => e(id, parentId, "message", { message });

describe("skeleton", () => {
	it("codes each entry's kind by type and role", () => {
		const f = writeSession([
			m("u", null, { role: "user", content: "x" }),
			m("a", "u", { role: "assistant", content: [] }),
			m("t", "a", { role: "toolResult", content: [] }),
			m("b", "t", { role: "bashExecution", command: "ls" }),
			m("c", "b", { role: "custom", content: "c" }),
			m("h", "c", { role: "hookMessage", content: "c" }),
			m("d", "h", { role: "developer", content: "x" }),
			e("cp", "d", "compaction", { summary: "s", tokensBefore: 5 }),
			e("bs", "cp", "branch_summary", { summary: "s", fromId: "cp" }),
			e("cm", "bs", "custom_message", { customType: "x", content: "c", display: true }),
			e("cu", "cm", "custom", { customType: "x" }),
			e("l", "cu", "label", { targetId: "u", label: "x" }),
			e("mc", "l", "model_change", { provider: "p", modelId: "m" }),
			e("tl", "mc", "thinking_level_change", { thinkingLevel: "low" }),
			e("si", "tl", "session_info", { name: "n" }),
			e("fx", "si", "mystery"),
		]);
		const k = Array.from(SessionManager.open(f).getSkeleton().kind);
		expect(k).toEqual([
			EntryKind.user,
			EntryKind.assistant,
			EntryKind.toolResult,
			EntryKind.bashExecution,
			EntryKind.customMessageRole,
			EntryKind.customMessageRole,
			EntryKind.otherRole,
			EntryKind.compaction,
			EntryKind.branchSummary,
			EntryKind.customMessage,
			EntryKind.custom,
			EntryKind.label,
			EntryKind.modelChange,
			EntryKind.thinkingLevelChange,
			EntryKind.sessionInfo,
			EntryKind.unknown,
		]);
	});

	it("flags follow pi's tree-selector rules and the file's oddities", () => {
		const f = writeSession([
			m("a1", null, { role: "assistant", content: [{ type: "toolCall", id: "x", name: "read", arguments: {} }], stopReason: "toolUse" }),
			m("a2", "a1", {
				role: "assistant",
				content: [
					{ type: "text", text: "  " },
					{ type: "thinking", thinking: "hm" },
				],
				stopReason: "stop",
			}),
			m("a3", "a2", { role: "assistant", content: [], stopReason: "error", errorMessage: "boom" }),
			m("a4", "a3", { role: "assistant", content: [{ type: "text", text: "cut" }], stopReason: "length" }),
			m("a5", "a4", { role: "assistant", content: [], stopReason: "aborted" }),
			m("a6", "a5", { role: "assistant", content: [] }),
			m("tr", "a6", { role: "toolResult", content: [{ type: "image", data: "x", mimeType: "image/png" }], isError: true }),
			m("bx", "tr", { role: "bashExecution", command: "false", output: "", exitCode: 1, cancelled: true }),
			e("cm", "bx", "custom_message", { customType: "x", content: "c", display: false }),
			m("dup", "cm", { role: "user", content: "1" }),
			m("dup", "cm", { role: "user", content: "2" }),
			m("orph", "ghost", { role: "user", content: "o" }),
			m("self", "self", { role: "user", content: "s" }),
			{ type: "custom", customType: "noid", timestamp: T },
		]);
		const sk = SessionManager.open(f).getSkeleton();
		const has = (i: number, flag: number) => (sk.flags[i] & flag) !== 0;
		expect(has(0, EntryFlag.toolOnly) && has(0, EntryFlag.hasToolCalls)).toBe(true);
		expect(has(1, EntryFlag.toolOnly) && has(1, EntryFlag.hasThinking)).toBe(true);
		expect(has(2, EntryFlag.error) && !has(2, EntryFlag.toolOnly)).toBe(true);
		expect(has(3, EntryFlag.truncated) && !has(3, EntryFlag.toolOnly)).toBe(true);
		expect(has(4, EntryFlag.aborted) && !has(4, EntryFlag.toolOnly)).toBe(true);
		expect(has(5, EntryFlag.toolOnly)).toBe(true); // no stopReason: pi hides it too
		expect(has(6, EntryFlag.error) && has(6, EntryFlag.hasImage)).toBe(true);
		expect(has(7, EntryFlag.error) && has(7, EntryFlag.aborted)).toBe(true);
		expect(has(8, EntryFlag.hidden)).toBe(true);
		expect(has(9, EntryFlag.duplicateId) && has(10, EntryFlag.duplicateId)).toBe(true);
		expect(has(11, EntryFlag.orphan) && sk.parent[11]).toBe(-1);
		expect(has(12, EntryFlag.cycleCut) && sk.parent[12]).toBe(-1);
		expect(has(13, EntryFlag.syntheticId)).toBe(true);
		expect(sk.ids[13]).toMatch(/^~arbor:/);
		expect(sk.flags[9] & ~EntryFlag.duplicateId).toBe(0);
	});

	it("tokens come from assistant usage (totalTokens, else input + output) and compaction tokensBefore", () => {
		const f = writeSession([
			m("a", null, { role: "assistant", content: [], stopReason: "stop", usage: { input: 10, output: 5, totalTokens: 99 } }),
			m("b", "a", { role: "assistant", content: [], stopReason: "stop", usage: { input: 10, output: 5 } }),
			e("c", "b", "compaction", { summary: "s", tokensBefore: 1234 }),
			m("d", "c", { role: "user", content: "x" }),
		]);
		expect(Array.from(SessionManager.open(f).getSkeleton().tokens)).toEqual([99, 15, 1234, 0]);
	});

	it("times are ms since epoch, NaN when missing; parents are indices; leaf and resumeLeaf are the last entry", () => {
		const f = writeSession([e("a", null, "custom", { customType: "x" }), { type: "custom", customType: "y", id: "b", parentId: "a" }]);
		const sk = SessionManager.open(f).getSkeleton();
		expect(sk.time[0]).toBe(Date.parse(T));
		expect(Number.isNaN(sk.time[1])).toBe(true);
		expect(Array.from(sk.parent)).toEqual([-1, 0]);
		expect([sk.leaf, sk.resumeLeaf, sk.count]).toEqual([1, 1, 2]);
	});

	it("the leaf is the in-app leaf; resumeLeaf stays the last line", () => {
		const f = writeSession([e("a", null, "custom", { customType: "x" }), e("b", "a", "custom", { customType: "y" })]);
		const sm = SessionManager.open(f);
		sm.branch("a");
		expect([sm.getSkeleton().leaf, sm.getSkeleton().resumeLeaf]).toEqual([0, 1]);
		sm.resetLeaf();
		expect(sm.getSkeleton().leaf).toBe(-1);
	});

	it("a delta from the old count, applied to the old skeleton, equals the new skeleton", () => {
		const f = writeSession([m("u", null, { role: "user", content: "x" })]);
		const sm = SessionManager.open(f);
		const before = sm.getSkeleton();
		sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "hi" }], stopReason: "stop", usage: { totalTokens: 7 } } as never);
		sm.appendLabelChange("u", "first");
		const delta = sm.getSkeletonDelta(before.count);
		expect(delta.start).toBe(1);
		const merged = applySkeletonDelta(before, delta);
		const now = sm.getSkeleton();
		expect(merged.ids).toEqual(now.ids);
		expect(Array.from(merged.parent)).toEqual(Array.from(now.parent));
		expect(Array.from(merged.tokens)).toEqual([0, 7, 0]);
		expect(merged.labels).toEqual(now.labels);
		expect([merged.leaf, merged.resumeLeaf]).toEqual([now.leaf, now.resumeLeaf]);
	});

	it("indexOf maps ids to skeleton indices", () => {
		const f = writeSession([e("a", null, "custom", { customType: "x" }), e("b", "a", "custom", { customType: "y" })]);
		const sm = SessionManager.open(f);
		expect([sm.indexOf("a"), sm.indexOf("b"), sm.indexOf("zz")]).toEqual([0, 1, -1]);
	});
});
