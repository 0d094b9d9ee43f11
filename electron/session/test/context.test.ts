// buildSessionContext must give pi's exact output; each case is compared with pi's own SessionManager.
import { copyFileSync } from "node:fs";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../../../shared/entries";
import { kindOf } from "../../../shared/skeleton";
import { buildContextFromPath } from "../context";
import { SessionManager } from "../index";
import { pi16Module } from "./helpers/pi16";
import { msg, tempDir, ts, writeSession } from "./helpers";

function piContext(file: string, leaf?: string | null): string {
	const copy = `${tempDir()}/pi.jsonl`;
	copyFileSync(file, copy);
	const pi = PiSessionManager.open(copy);
	if (leaf === null) pi.resetLeaf();
	else if (leaf !== undefined) pi.branch(leaf);
	return JSON.stringify(pi.buildSessionContext());
}

function ours(file: string, leaf?: string | null): string {
	return JSON.stringify(SessionManager.open(file).buildSessionContext(leaf));
}

const settings = (id: string, parentId: string | null, type: string, extra: Record<string, unknown>) => ({ type, id, parentId, timestamp: ts(), ...extra });

describe("buildSessionContext", () => {
	it("takes the latest thinking level and model on the path; assistant messages set the model too", () => {
		const f = writeSession([
			settings("t1", null, "thinking_level_change", { thinkingLevel: "high" }),
			settings("m1", "t1", "model_change", { provider: "p1", modelId: "first" }),
			msg("u", "m1", "user", "hi"),
			msg("a", "u", "assistant", "answer", { provider: "p2", model: "from-assistant" }),
			settings("m2", "a", "model_change", { provider: "p3", modelId: "later" }),
			settings("off", "u", "thinking_level_change", { thinkingLevel: "low" }),
		]);
		const ctx = SessionManager.open(f).buildSessionContext("m2");
		expect(ctx.model).toEqual({ provider: "p3", modelId: "later" });
		expect(ctx.thinkingLevel).toBe("high");
		expect(JSON.stringify(ctx)).toBe(piContext(f, "m2"));
		expect(ours(f, "a")).toBe(piContext(f, "a"));
		expect(ours(f, "off")).toBe(piContext(f, "off"));
	});

	it("the latest compaction on the path emits its summary, then kept entries from firstKeptEntryId, then later ones", () => {
		const f = writeSession([
			msg("u1", null, "user", "one"),
			msg("a1", "u1", "assistant", "1"),
			msg("u2", "a1", "user", "two"),
			msg("a2", "u2", "assistant", "2"),
			settings("c1", "a2", "compaction", { summary: "early", firstKeptEntryId: "u2", tokensBefore: 100 }),
			msg("u3", "c1", "user", "three"),
			settings("c2", "u3", "compaction", { summary: "late", firstKeptEntryId: "a2", tokensBefore: 200 }),
			msg("u4", "c2", "user", "four"),
		]);
		const ctx = SessionManager.open(f).buildSessionContext();
		expect(ctx.messages.map((m) => m.role)).toEqual(["compactionSummary", "assistant", "user", "user"]);
		expect(ctx.messages[0]).toMatchObject({ summary: "late", tokensBefore: 200 });
		expect(ours(f)).toBe(piContext(f));
	});

	it("a firstKeptEntryId that is not on the path keeps nothing before the compaction", () => {
		const f = writeSession([
			msg("u1", null, "user", "one"),
			msg("side", "u1", "assistant", "side"),
			msg("a1", "u1", "assistant", "main"),
			settings("c", "a1", "compaction", { summary: "s", firstKeptEntryId: "side", tokensBefore: 5 }),
			msg("u2", "c", "user", "after"),
		]);
		expect(
			SessionManager.open(f)
				.buildSessionContext()
				.messages.map((m) => m.role),
		).toEqual(["compactionSummary", "user"]);
		expect(ours(f)).toBe(piContext(f));
	});

	it("branch summaries (non-empty) and custom_message entries become pi's message shapes; custom entries do not", () => {
		const f = writeSession([
			msg("u1", null, "user", "one"),
			settings("bs", "u1", "branch_summary", { fromId: "u1", summary: "went elsewhere" }),
			settings("empty", "bs", "branch_summary", { fromId: "bs", summary: "" }),
			{
				type: "custom_message",
				customType: "ext",
				content: [{ type: "text", text: "injected" }],
				display: false,
				details: { k: 1 },
				id: "cm",
				parentId: "empty",
				timestamp: ts(),
			},
			{ type: "custom", customType: "state", data: { x: 1 }, id: "cu", parentId: "cm", timestamp: ts() },
			settings("fut", "cu", "future_thing", { anything: true }),
		]);
		const ctx = SessionManager.open(f).buildSessionContext();
		expect(ctx.messages.map((m) => m.role)).toEqual(["user", "branchSummary", "custom"]);
		expect(ctx.messages[1]).toEqual({ role: "branchSummary", summary: "went elsewhere", fromId: "u1", timestamp: expect.any(Number) });
		expect(Object.keys(ctx.messages[2])).toEqual(["role", "customType", "content", "display", "details", "timestamp"]);
		expect(ours(f)).toBe(piContext(f));
	});

	it("an explicit null leaf gives an empty context; an unknown leaf id falls back to the last entry", () => {
		const f = writeSession([msg("u1", null, "user", "one"), msg("a1", "u1", "assistant", "1")]);
		const sm = SessionManager.open(f);
		expect(sm.buildSessionContext(null)).toEqual({ messages: [], thinkingLevel: "off", model: null });
		expect(JSON.stringify(sm.buildSessionContext("missing"))).toBe(piContext(f));
		expect(ours(f, null)).toBe(piContext(f, null));
	});

	it("the in-memory leaf decides when no leaf is given", () => {
		const f = writeSession([msg("u1", null, "user", "one"), msg("a1", "u1", "assistant", "1"), msg("u2", "a1", "user", "two")]);
		const sm = SessionManager.open(f);
		sm.branch("u1");
		expect(sm.buildSessionContext().messages.length).toBe(1);
		expect(JSON.stringify(sm.buildSessionContext())).toBe(piContext(f, "u1"));
	});
});

describe("the compaction found by id (pi 1.6's buildContextEntries)", () => {
	// pi 1.6 finds the latest compaction's place on the path by id: the first path entry with that id, whatever
	// its type; kept entries are taken before that place and everything after it follows. A file opened by
	// SessionManager never puts one id twice on a path (parent links and the leaf resolve through the id map,
	// later entry wins), so the rule is pinned on the path function both SessionManager and the path-only
	// reader build on, against pi 1.6's own buildSessionContext walking the same path.
	it("an earlier path entry with the compaction's id: kept entries end before it, as in pi 1.6", () => {
		const entries = [
			msg("a", null, "user", "root"),
			msg("x", "a", "user", "same id as the compaction"),
			msg("m", "x", "assistant", "between"),
			settings("x", "m", "compaction", { summary: "summary", firstKeptEntryId: "a", tokensBefore: 7 }),
		] as unknown as SessionEntry[];
		// pi: the map sends "x" to the message; the leaf is the compaction (its last entry, no leaf id given).
		const byId = new Map<string, SessionEntry>(entries.map((e) => [String(e.id), e]));
		byId.set("x", entries[1]);
		const pi = pi16Module.buildSessionContext(entries as never, undefined, byId as never);
		const path = [0, 1, 2, 3];
		const src = {
			kind: Uint8Array.from(entries.map((e) => kindOf(e as unknown as Record<string, unknown>))),
			ids: entries.map((e) => String(e.id)),
			entryAt: (i: number) => entries[i],
		};
		const ctx = buildContextFromPath(src, path);
		const text = (m: object) => {
			if ("summary" in m) return m.summary;
			const content = (m as { content: string | { text: string }[] }).content;
			return typeof content === "string" ? content : content[0].text;
		};
		// Not "same id as the compaction": it lies before the compaction's place, and the compaction itself comes
		// again after "between" (an older compaction kept in the range contributes nothing).
		expect(ctx.messages.map(text)).toEqual(["summary", "root", "between"]);
		expect(JSON.stringify(ctx)).toBe(JSON.stringify(pi));
	});
});
