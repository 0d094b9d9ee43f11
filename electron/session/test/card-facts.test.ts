// Card facts (shared/card-facts.ts) through SessionManager: what cards, the inspector and the context panel
// need for pi 1.6 system messages, context edits, usage lines (rolled up into their parent) and omp records.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EntryKind } from "../../../shared/skeleton";
import { writePi16Session } from "../../../shared/test/pi16-writer";
import { SessionManager } from "../index";
import { cleanupTempDirs, jsonl, tempDir, writeTempFile } from "./helpers/files";

afterAll(cleanupTempDirs);

const T = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const h = { type: "session", version: 3, id: "s", timestamp: T(0), cwd: "/p" };
const usage = (total: number, cost: number) => ({ input: total - 1, output: 1, cacheRead: 5, cacheWrite: 0, totalTokens: total, cost: { total: cost } });

describe("card facts", () => {
	const file = writeTempFile(
		jsonl([
			h,
			{
				type: "message",
				id: "sys",
				parentId: null,
				timestamp: T(1),
				message: {
					role: "system",
					content: "You are pi",
					sections: { env: "<env/>", skills: "<s/>" },
					toolsAdded: [{ name: "read" }, { name: "bash" }],
					timestamp: 0,
				},
			},
			{ type: "message", id: "u", parentId: "sys", timestamp: T(2), message: { role: "user", content: "hi", timestamp: 2 } },
			{
				type: "message",
				id: "a",
				parentId: "u",
				timestamp: T(3),
				message: {
					role: "assistant",
					content: [{ type: "text", text: "hello" }],
					provider: "p",
					model: "m",
					responseModel: "m-2026",
					usage: usage(100, 0.01),
					stopReason: "stop",
					timestamp: 3,
				},
			},
			{ type: "usage", id: "w1", parentId: "a", timestamp: T(4), kind: "cache_warm", provider: "p", model: "m", usage: usage(50, 0.001), note: "idle" },
			{ type: "usage", id: "w2", parentId: "w1", timestamp: T(5), kind: "cache_warm", provider: "p", model: "m", usage: usage(60, 0.002) },
			{
				type: "message",
				id: "sys2",
				parentId: "w2",
				timestamp: T(6),
				message: { role: "system", content: "", sections: { skills: null, mcp: "<m/>" }, toolsRemoved: [{ name: "bash" }], timestamp: 6 },
			},
			{ type: "context_edit", id: "ce", parentId: "sys2", timestamp: T(7), targetId: "u", replacement: { content: [{ type: "text", text: "hi (edited)" }] } },
			{ type: "context_edit", id: "co", parentId: "ce", timestamp: T(8), targetId: "a", replacement: null },
			{
				type: "compaction",
				id: "c",
				parentId: "co",
				timestamp: T(9),
				summary: "sum",
				firstKeptEntryId: "c",
				tokensBefore: 9000,
				usage: usage(300, 0.03),
				systemMessage: { role: "system", content: "You are pi", timestamp: 9 },
			},
			{ type: "mode_change", id: "md", parentId: "c", timestamp: T(10), mode: "plan" },
			{
				type: "model_usage",
				id: "mu",
				parentId: "md",
				timestamp: T(11),
				purpose: "title",
				api: "x",
				provider: "p",
				model: "tiny",
				usage: usage(20, 0.0001),
				stopReason: "stop",
			},
		]),
		"cards.jsonl",
		"cards",
	);

	it("system, context edit, usage, compaction, omp records", () => {
		const sm = SessionManager.open(file);
		const f = sm.getCardFacts([0, 2, 5, 3, 5, 6, 7, 8, 9, 99]);
		expect(f[0]).toMatchObject({
			kind: EntryKind.system,
			role: "system",
			text: "[system]",
			system: {
				sectionsSet: 2,
				sectionsRemoved: 0,
				toolsAdded: 2,
				toolsRemoved: 0,
				sectionNames: ["env", "skills"],
				toolsAddedNames: ["read", "bash"],
				contentPreview: "You are pi",
			},
		});
		expect(f[1]).toMatchObject({
			kind: EntryKind.assistant,
			usage: { tokens: 100, cost: 0.01 },
			assistant: { stopReason: "stop", responseModel: "m-2026", model: "m" },
		});
		expect(f[2]).toMatchObject({ kind: EntryKind.system, system: { sectionsSet: 1, sectionsRemoved: 1, toolsRemovedNames: ["bash"] } });
		expect(f[3]).toMatchObject({ kind: EntryKind.usage, text: "", usage: { tokens: 50, cost: 0.001 }, usageLine: { kind: "cache_warm", note: "idle" } });
		expect(f[4]).toMatchObject({ kind: EntryKind.system });
		expect(f[5]).toMatchObject({
			kind: EntryKind.contextEdit,
			text: "[context replace: u]",
			contextEdit: { targetId: "u", mode: "replace", replacementText: "hi (edited)" },
		});
		expect(f[6]).toMatchObject({ kind: EntryKind.contextEdit, contextEdit: { targetId: "a", mode: "omit", replacementText: "" } });
		expect(f[7]).toMatchObject({
			kind: EntryKind.compaction,
			usage: { tokens: 300 },
			compaction: { keepsNothing: true, hasSystemCheckpoint: true, tokensBefore: 9000 },
		});
		expect(f[8]).toMatchObject({ kind: EntryKind.modeChange, omp: { type: "mode_change", summary: "mode: plan" } });
		expect(f[9]).toBeNull();
		sm.close();
	});

	it("usage lines roll up into the entry they hang under", () => {
		const sm = SessionManager.open(file);
		const r = sm.getUsageRollup();
		const id = (i: number) => sm.idAt(i);
		expect(r.map((x) => [id(x.anchor), x.lines, x.tokens, Number(x.cost.toFixed(4))])).toEqual([
			["a", 2, 110, 0.003],
			["md", 1, 20, 0.0001],
		]);
		sm.close();
	});

	it("on a pi 1.6.0-written session every usage line is counted once", () => {
		const f = writePi16Session(join(tempDir("cards-pi16"), "s"), { seed: 3, turns: 200 });
		const sm = SessionManager.open(f);
		const sk = sm.getSkeleton();
		const usageLines = Array.from(sk.kind).filter((k) => k === EntryKind.usage).length;
		expect(sm.getUsageRollup().reduce((s, x) => s + x.lines, 0)).toBe(usageLines);
		sm.close();
	});
});
