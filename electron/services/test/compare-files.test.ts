// Compare across session files, through the real router and services on real fork files in temp folders: forks
// written by Arbor's tries (Arbor's createBranchedSession) and by pi 1.6's own SessionManager copy the original's
// path with the same ids, so the common ancestor is the fork entry; each side holds only what its file added. Paths
// pass the path policy; the one-session form is unchanged; no file is written.

import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CompareView } from "../../../shared/compare";
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
