// Compare across session files, through the real router and services on real fork files in temp folders: forks
// written by Arbor's tries (Arbor's createBranchedSession) and by pi 1.6's own SessionManager copy the original's
// path with the same ids, so the common ancestor is the fork entry; each side holds only what its file added. Paths
// pass the path policy; the one-session form is unchanged; no file is written.

import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { alignTurns, type CompareView, finalAnswer, sharedPrefix, sideFacts, sideTurns } from "../../../shared/compare";
import type { SessionEntry } from "../../../shared/entries";
import { createRouter } from "../../api/router";
import { SessionManager } from "../../session";
import { Pi16SessionManager } from "../../session/test/helpers/pi16";
import { assistant, header, user, writeSession } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";

const sha = (f: string) => createHash("sha256").update(fs.readFileSync(f)).digest("hex");
let t: TestServices | undefined;
afterEach(() => t?.services.dispose());

const usage = (cost: number) => ({
	input: 100,
	output: 20,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 120,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
});

/** A source session: u1 → a1 (labelled) → u2 → a2 (branch A, the fork point) and a1 → u3 → a3 (branch B). */
function source(dir: string): string {
	const label = { type: "label", id: "l1", parentId: "a2", timestamp: "2025-12-31T23:00:00.000Z", targetId: "a1", label: "setup" } as unknown as SessionEntry;
	return writeSession(
		dir,
		[
			user("u1", null, "Set up the notes project"),
			assistant("a1", "u1", "The notes project is set up."),
			user("u2", "a1", "Plan branch A"),
			assistant("a2", "u2", "Branch A answer."),
			label,
			user("u3", "a1", "Plan branch B"),
			assistant("a3", "u3", "Branch B answer."),
		],
		"source.jsonl",
		header("sess-src", dir),
	);
}

/** Append one turn (a prompt, a write tool call, the answer) under the file's last line, as a try's pi would. */
function appendTurn(file: string, tag: string, answer: string, cost: number): string[] {
	const lines = readLines(file);
	const last = lines.at(-1)!.id as string;
	const prompt = user(`${tag}-u`, last, `Try ${tag}`);
	const call = { ...assistant(`${tag}-call`, `${tag}-u`, "", [{ name: "write", args: { path: `${tag}.txt`, content: "x" } }]) } as SessionEntry & {
		message: Record<string, unknown>;
	};
	call.message.usage = usage(cost);
	const final = assistant(`${tag}-a`, `${tag}-r`, answer) as SessionEntry & { message: Record<string, unknown> };
	final.message.usage = usage(cost);
	const result = {
		type: "message",
		id: `${tag}-r`,
		parentId: `${tag}-call`,
		timestamp: new Date(Date.parse(call.timestamp ?? "") + 500).toISOString(),
		message: { role: "toolResult", toolCallId: `${tag}-call-call0`, toolName: "write", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 0 },
	};
	const entries = [prompt, call, result, final];
	fs.appendFileSync(file, entries.map((e) => `${JSON.stringify(e)}\n`).join(""));
	return entries.map((e) => (e as { id: string }).id);
}

/** Two forks of `src` at a2 as Arbor's tries make them (same folder, adopt: false), each with its own turn. */
function arborForks(src: string): [string, string] {
	const sm = SessionManager.open(src);
	try {
		return [sm.createBranchedSession("a2", { adopt: false })!, sm.createBranchedSession("a2", { adopt: false })!];
	} finally {
		sm.close();
	}
}

async function setup() {
	t = makeServices();
	const src = source(t.dir);
	const router = createRouter({ services: t.services as never, log: () => {} });
	return { router, src };
}

const ok = (r: { ok: boolean }): CompareView => {
	if (!r.ok) throw new Error(JSON.stringify(r));
	return (r as unknown as { result: CompareView }).result;
};

describe("compareBranches across files", () => {
	it("two of Arbor's forks: the fork entry is the common ancestor, each side holds its own turn (facts, prompts, answer diff); no file written", async () => {
		const { router, src } = await setup();
		const [f1, f2] = arborForks(src);
		// The forks copy the path root → a2 with the same ids, then re-create the label on it (a new id per fork).
		expect(
			readLines(f1)
				.slice(1, 5)
				.map((e) => e.id),
		).toEqual(["u1", "a1", "u2", "a2"]);
		expect(readLines(f1)[0]).toMatchObject({ parentSession: src });
		const one = appendTurn(f1, "one", "I wrote one file for you.", 0.01);
		const two = appendTurn(f2, "two", "I wrote two files for you.", 0.03);
		const labelOf = (f: string) => readLines(f)[5]!;
		expect(labelOf(f1)).toMatchObject({ type: "label", targetId: "a1" });
		await router.allowPath(f1);
		await router.allowPath(f2);
		const before = [sha(src), sha(f1), sha(f2)];

		const v = ok(await router.handle("compareBranches", { a: { path: f1 }, b: { path: f2 } }));
		expect(v.commonAncestorId).toBe("a2");
		expect(v.a.entries).toEqual([labelOf(f1).id, ...one]);
		expect(v.b.entries).toEqual([labelOf(f2).id, ...two]);
		expect(v.a.leafId).toBe("one-a");
		expect(v.b.leafId).toBe("two-a");
		expect(v.a.files).toEqual({ read: [], edited: [], written: ["one.txt"] });
		expect(v.b.files.written).toEqual(["two.txt"]);
		expect(v.a.cost).toBeCloseTo(0.02);
		expect(v.b.cost).toBeCloseTo(0.06);
		expect(v.a.tokens.total).toBe(240);
		// Each side's own time (prompt to answer, 2 s apart), not the time since the original's entry (or the old
		// timestamp its copied label keeps).
		expect([v.a.durationMs, v.b.durationMs]).toEqual([2000, 2000]);
		expect(v.rows).toEqual([
			{
				a: { promptId: "one-u", prompt: "Try one", answerId: "one-a", answer: "I wrote one file for you." },
				b: { promptId: "two-u", prompt: "Try two", answerId: "two-a", answer: "I wrote two files for you." },
			},
		]);
		expect(v.answerDiff.filter((p) => p.removed).map((p) => p.value.trim())).toEqual(["one file"]);
		expect(v.answerDiff.filter((p) => p.added).map((p) => p.value.trim())).toEqual(["two files"]);
		// An explicit leaf on a side: the fork point itself leaves that side empty.
		const atFork = ok(await router.handle("compareBranches", { a: { path: f1, leafId: "a2" }, b: { path: f2 } }));
		expect(atFork).toMatchObject({ commonAncestorId: "a2", a: { leafId: "a2", entries: [] } });
		expect([sha(src), sha(f1), sha(f2)]).toEqual(before);
		// Neither fork was opened as a session of its own.
		expect(t!.of("session_loaded")).toHaveLength(0);
	});

	it("a fork written by pi 1.6's own SessionManager against the original's other branch and against Arbor's fork", async () => {
		const { router, src } = await setup();
		const pi = Pi16SessionManager.open(src);
		const piFork = pi.createBranchedSession("a2")!;
		expect(
			readLines(piFork)
				.slice(1, 5)
				.map((e) => e.id),
		).toEqual(["u1", "a1", "u2", "a2"]);
		const piTurn = appendTurn(piFork, "pi", "pi's fork answer.", 0.02);
		const [arborFork] = arborForks(src);
		appendTurn(arborFork, "arbor", "Arbor's fork answer.", 0.02);
		await router.allowPath(src);
		const open = (await router.handle("openSession", { path: src })) as { ok: true; result: { sessionId: string } };
		await router.allowPath(piFork);
		await router.allowPath(arborFork);

		// The original's branch B (open in the app) against pi's fork of branch A: they part after a1.
		const vb = ok(await router.handle("compareBranches", { a: { path: src, leafId: "a3" }, b: { path: piFork } }));
		expect(vb.commonAncestorId).toBe("a1");
		expect(vb.a.entries).toEqual(["u3", "a3"]);
		expect(vb.b.entries.slice(0, 2)).toEqual(["u2", "a2"]);
		expect(vb.b.entries.slice(-4)).toEqual(piTurn);
		expect(vb.rows.map((r) => [r.a?.prompt ?? null, r.b?.prompt ?? null])).toEqual([
			["Plan branch B", "Plan branch A"],
			[null, "Try pi"],
		]);
		// pi's fork against Arbor's: the same ancestor by id, whichever wrote the fork.
		const va = ok(await router.handle("compareBranches", { a: { path: piFork }, b: { path: arborFork } }));
		expect(va.commonAncestorId).toBe("a2");
		expect(va.finalAnswer).toEqual({ a: { id: "pi-a", text: "pi's fork answer." }, b: { id: "arbor-a", text: "Arbor's fork answer." } });
		// The one-session form still answers as before.
		const same = ok(await router.handle("compareBranches", { sessionId: open.result.sessionId, a: "a2", b: "a3" }));
		expect(same).toMatchObject({ commonAncestorId: "a1", a: { entries: ["u2", "a2"] }, b: { entries: ["u3", "a3"] } });
	});

	it("refuses a file outside the path policy, a missing leaf, a missing file and mixed forms", async () => {
		const { router, src } = await setup();
		const [f1, f2] = arborForks(src);
		await router.allowPath(f1);
		// f2 was never allowed: forbidden, and its bytes are never read into an answer.
		expect(await router.handle("compareBranches", { a: { path: f1 }, b: { path: f2 } })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect(await router.handle("compareBranches", { a: { path: f1 }, b: { path: "relative.jsonl" } })).toMatchObject({
			ok: false,
			error: { code: "forbidden" },
		});
		await router.allowPath(f2);
		expect(await router.handle("compareBranches", { a: { path: f1, leafId: "nope" }, b: { path: f2 } })).toMatchObject({
			ok: false,
			error: { code: "not_found", message: expect.stringContaining(`no entry "nope" in ${f1}`) },
		});
		const gone = path.join(path.dirname(f1), "gone.jsonl");
		await router.allowPath(gone);
		expect(await router.handle("compareBranches", { a: { path: f1 }, b: { path: gone } })).toMatchObject({ ok: false, error: { code: "not_found" } });
		expect(await router.handle("compareBranches", { sessionId: "s", a: { path: f1 }, b: { path: f2 } })).toMatchObject({
			ok: false,
			error: { code: "bad_request" },
		});
		expect(await router.handle("compareBranches", { a: { path: f1, extra: 1 }, b: { path: f2 } })).toMatchObject({ ok: false, error: { code: "bad_request" } });
	});
});

// compare's own rules (shared/compare.ts), each on several cases: what a side's facts count, which calls name
// files, which turn an answer belongs to, and how two sides line up.
describe("compare's rules on entries", () => {
	let n = 0;
	const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`;
	const msg = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
		({ type: "message", id: `m${++n}`, parentId: null, timestamp: at(n % 60), message, ...extra }) as unknown as SessionEntry;
	const call = (name: string, args: unknown, id = `c${n + 1}`) => msg({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }] });
	const result = (toolCallId: unknown, isError: unknown) => msg({ role: "toolResult", toolCallId, toolName: "x", content: "r", isError });

	it("sharedPrefix: the length of the common start, on both sides of each end", () => {
		expect(sharedPrefix([], [])).toBe(0);
		expect(sharedPrefix(["a"], [])).toBe(0);
		expect(sharedPrefix([], ["a"])).toBe(0);
		expect(sharedPrefix(["a", "b"], ["a", "b"])).toBe(2);
		expect(sharedPrefix(["a", "b", "c"], ["a", "b"])).toBe(2);
		expect(sharedPrefix(["a", "b"], ["a", "b", "c"])).toBe(2);
		expect(sharedPrefix(["a", "x", "c"], ["a", "y", "c"])).toBe(1);
		expect(sharedPrefix(["x"], ["y"])).toBe(0);
	});

	it("tokens and cost: assistant usage, compaction and usage entries count; user usage and bad numbers do not", () => {
		const u = (input: unknown, extra: Record<string, unknown> = {}) => ({ input, output: 2, cacheRead: 3, cacheWrite: 4, cost: { total: 0.5 }, ...extra });
		const f = sideFacts([
			msg({ role: "assistant", content: "a", usage: u(1) }),
			msg({ role: "assistant", content: "b", usage: u(10, { totalTokens: 100 }) }),
			{
				type: "compaction",
				id: "k",
				parentId: null,
				timestamp: at(1),
				summary: "s",
				firstKeptEntryId: "x",
				tokensBefore: 1,
				usage: u(1000),
			} as unknown as SessionEntry,
			{ type: "usage", id: "us", parentId: null, timestamp: at(2), usage: u(Number.NaN, { cost: { total: "x" } }) } as unknown as SessionEntry,
			msg({ role: "user", content: "u", usage: u(5000) }),
			{ type: "label", id: "l", parentId: null, timestamp: at(3), usage: u(7000) } as unknown as SessionEntry,
			msg({ role: "assistant", content: "c", usage: "not a record" }),
			msg({ role: "assistant", content: "d", usage: u(Infinity, { totalTokens: Infinity, cost: 3 }) }),
		]);
		expect(f.tokens).toEqual({ input: 1011, output: 10, cacheRead: 15, cacheWrite: 20, total: 10 + 100 + 1009 + 9 + 9 });
		expect(f.cost).toBeCloseTo(1.5);
	});

	it("errors and aborts: error and aborted stops, failed tool results, non-zero and cancelled bash", () => {
		const f = sideFacts([
			msg({ role: "assistant", content: "x", stopReason: "error" }),
			msg({ role: "assistant", content: "x", stopReason: "aborted" }),
			msg({ role: "assistant", content: "x", stopReason: "stop" }),
			result("c1", true),
			result("c2", false),
			result("c3", "true"),
			msg({ role: "bashExecution", command: "x", output: "", exitCode: 1 }),
			msg({ role: "bashExecution", command: "x", output: "", exitCode: 0 }),
			msg({ role: "bashExecution", command: "x", output: "", exitCode: "1" }),
			msg({ role: "bashExecution", command: "x", output: "", exitCode: 0, cancelled: true }),
			msg({ role: "bashExecution", command: "x", output: "", cancelled: "true" }),
		]);
		expect(f.errors).toBe(3);
		expect(f.aborts).toBe(2);
	});

	it("files: read, edit (all four names, any case) and write calls by path, file_path or filePath; sorted, once each", () => {
		const f = sideFacts([
			call("read", { path: "b.ts" }),
			call("Read", { file_path: "a.ts" }),
			call("read", { path: "b.ts" }),
			call("edit", { filePath: "e1" }),
			call("multiedit", { path: "e2" }),
			call("multi_edit", { path: "e3" }),
			call("APPLY_PATCH", { path: "e4" }),
			call("write", { path: "w" }),
			call("bash", { path: "not a file tool" }),
			call("read", { path: "   " }),
			call("read", { path: 5, file_path: "fallback" }),
			call("read", "not a record"),
			call("write", {}),
		]);
		expect(f.files).toEqual({ read: ["a.ts", "b.ts", "fallback"], edited: ["e1", "e2", "e3", "e4"], written: ["w"] });
	});

	it("a call whose result on the side failed names no file; a call without an id is kept", () => {
		const f = sideFacts([
			call("write", { path: "failed" }, "id1"),
			result("id1", true),
			call("write", { path: "ok" }, "id2"),
			result("id2", false),
			call("read", { path: "no-id" }, undefined as unknown as string),
			msg({ role: "assistant", content: [{ type: "toolCall", name: "read", arguments: { path: "id-not-string" }, id: 7 }] }),
			result("", true),
			msg({
				role: "assistant",
				content: [
					{ type: "text", name: "read", arguments: { path: "text" } },
					{ type: "toolCall", name: 3, arguments: { path: "x" } },
				],
			}),
		]);
		expect(f.files).toEqual({ read: ["id-not-string", "no-id"], edited: [], written: ["ok"] });
	});

	it("first and last time: the earliest and latest valid timestamps, in any order; none gives NaN", () => {
		const t = (timestamp: unknown) => ({ type: "label", id: "x", parentId: null, timestamp }) as unknown as SessionEntry;
		const f = sideFacts([t(at(5)), t(at(2)), t("not a date"), t(at(9)), t(at(3)), t(Date.parse(at(1))), t(null)]);
		expect(f.firstTime).toBe(Date.parse(at(1)));
		expect(f.lastTime).toBe(Date.parse(at(9)));
		const none = sideFacts([t("x"), t(undefined)]);
		expect(none.firstTime).toBeNaN();
		expect(none.lastTime).toBeNaN();
		const one = sideFacts([t(at(4))]);
		expect([one.firstTime, one.lastTime]).toEqual([Date.parse(at(4)), Date.parse(at(4))]);
	});

	it("turns: each prompt with the last non-blank answer before the next prompt; answers before any prompt are no turn", () => {
		const entries = [
			msg({ role: "assistant", content: "before any prompt" }),
			msg({ role: "user", content: "p1" }),
			msg({ role: "assistant", content: "first" }),
			msg({ role: "assistant", content: "second" }),
			msg({ role: "assistant", content: "   " }),
			msg({ role: "user", content: [{ type: "text", text: "p2" }] }),
			msg({ role: "toolResult", content: "r" }),
			msg({ role: "user", content: "p3" }),
			msg({ role: "assistant", content: "third" }),
		];
		const ids = entries.map((e) => (e as { id: string }).id);
		expect(sideTurns(entries)).toEqual([
			{ promptId: ids[1], prompt: "p1", answerId: ids[3], answer: "second" },
			{ promptId: ids[5], prompt: "p2", answerId: null, answer: "" },
			{ promptId: ids[7], prompt: "p3", answerId: ids[8], answer: "third" },
		]);
		expect(sideTurns([])).toEqual([]);
	});

	it("final answer: the last non-blank assistant text, looking past blank ones and other roles; none gives null", () => {
		const a = msg({ role: "assistant", content: "answer" });
		const entries = [msg({ role: "assistant", content: "old" }), a, msg({ role: "assistant", content: " " }), msg({ role: "user", content: "later prompt" })];
		expect(finalAnswer(entries)).toEqual({ id: (a as { id: string }).id, text: "answer" });
		expect(finalAnswer([msg({ role: "user", content: "x" })])).toEqual({ id: null, text: "" });
		expect(finalAnswer([])).toEqual({ id: null, text: "" });
		const first = msg({ role: "assistant", content: "only" });
		expect(finalAnswer([first])).toEqual({ id: (first as { id: string }).id, text: "only" });
	});

	it("rows: prompt k of a next to prompt k of b, the longer side's extra prompts against nothing", () => {
		const turn = (p: string) => ({ promptId: p, prompt: p, answerId: null, answer: "" });
		expect(alignTurns([turn("a1"), turn("a2")], [turn("b1")])).toEqual([
			{ a: turn("a1"), b: turn("b1") },
			{ a: turn("a2"), b: null },
		]);
		expect(alignTurns([], [turn("b1"), turn("b2")])).toEqual([
			{ a: null, b: turn("b1") },
			{ a: null, b: turn("b2") },
		]);
		expect(alignTurns([], [])).toEqual([]);
	});
});
