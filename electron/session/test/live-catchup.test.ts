// The live view while another writer appends, driven step by step: the file is written in controlled
// pieces (a partial line, then its rest; a line landing between a catch-up's stat and its read, or between
// Arbor's catch-up and its own append) through the manager's probe seam, never with sleeps. After each
// step the incrementally maintained view must equal a fresh open of the same bytes.
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { type CatchUpTrace, SessionManager } from "../index";
import { cleanupTempDirs, writeTempFile } from "./helpers/files";
import { userMessage } from "./helpers/messages";

afterAll(cleanupTempDirs);

const header = { type: "session", version: 3, id: "live", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
const ts = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const msg = (id: string, parentId: string | null, s: number) => ({
	type: "message",
	id,
	parentId,
	timestamp: ts(s),
	message: { role: "user", content: `text of ${id}`, timestamp: s },
});
const line = (o: unknown) => `${JSON.stringify(o)}\n`;
const jsonl = (os: unknown[]) => os.map(line).join("");
const base = [header, msg("a", null, 1), msg("b", "a", 2), msg("c", "b", 3)];

/** What a view shows, entry by entry in file order (ids, parent ids, flags), plus labels and the resume point. */
function viewOf(sm: SessionManager) {
	const k = sm.getSkeleton();
	return {
		ids: k.ids,
		parents: Array.from(k.parent, (p) => (p < 0 ? null : k.ids[p])),
		flags: Array.from(k.flags),
		labels: k.labels.map((l) => [k.ids[l.target], l.label]),
		resume: k.resumeLeaf < 0 ? null : k.ids[k.resumeLeaf],
	};
}

function expectSameAsReload(sm: SessionManager, file: string, lazy?: boolean): void {
	const fresh = SessionManager.open(file, { lazy });
	expect(viewOf(sm)).toEqual(viewOf(fresh));
	fresh.close();
}

describe.each([false, true])("catch-up driven step by step (lazy %s)", (lazy) => {
	it("a line landing between a catch-up's stat and its read is left to the next catch-up and read in order", () => {
		const file = writeTempFile(jsonl(base));
		const traces: CatchUpTrace[] = [];
		let land: string | undefined = line(msg("e", "d", 5));
		const sm = SessionManager.open(file, {
			lazy,
			probe: {
				afterStat: () => {
					if (land) appendFileSync(file, land);
					land = undefined;
				},
				trace: (t) => traces.push(t),
			},
		});
		appendFileSync(file, line(msg("d", "c", 4)));
		const sizeWithD = jsonl([...base, msg("d", "c", 4)]).length;
		expect(sm.catchUp()).toEqual({ kind: "appended", count: 1 });
		// The read stopped where the stat was: "e" is not half-indexed, and the trace says so.
		expect(traces.at(-1)).toMatchObject({ op: "catch-up", from: jsonl(base).length, statSize: sizeWithD, to: sizeWithD, result: "appended" });
		expect(sm.getEntry("e")).toBeUndefined();
		expect(sm.catchUp()).toEqual({ kind: "appended", count: 1 });
		expectSameAsReload(sm, file, lazy);
		expect(sm.getLeafId()).toBe("e");
		sm.close();
	});

	it("a line written in two parts, cut at every byte: after each catch-up the view equals a reload", () => {
		const full = line(msg("d", "c", 4));
		for (let cut = 1; cut < full.length; cut++) {
			const file = writeTempFile(jsonl(base));
			const sm = SessionManager.open(file, { lazy });
			appendFileSync(file, full.slice(0, cut));
			sm.catchUp();
			// Only the whole object (cut just before its "\n") may be indexed; a reload reads the same.
			expect(sm.getEntry("d") !== undefined, `cut ${cut}`).toBe(cut === full.length - 1);
			expectSameAsReload(sm, file, lazy);
			appendFileSync(file, full.slice(cut));
			sm.catchUp();
			expectSameAsReload(sm, file, lazy);
			expect(sm.getLeafId(), `cut ${cut}`).toBe("d");
			sm.close();
		}
	});

	it("the rest of a partial line landing between stat and read: indexed once, whole, in order", () => {
		const full = line(msg("d", "c", 4));
		const file = writeTempFile(jsonl(base));
		let land: string | undefined;
		const sm = SessionManager.open(file, {
			lazy,
			probe: {
				afterStat: () => {
					if (land) appendFileSync(file, land);
					land = undefined;
				},
			},
		});
		appendFileSync(file, full.slice(0, 30));
		land = `${full.slice(30)}${line(msg("e", "d", 5))}`;
		sm.catchUp();
		expect(sm.getEntry("d")).toBeUndefined();
		sm.catchUp();
		expectSameAsReload(sm, file, lazy);
		expect(sm.getEntries().map((e) => e.id)).toEqual(["a", "b", "c", "d", "e"]);
		sm.close();
	});

	it("an entry whose parent is written after it is linked when the parent arrives, as a reload links it", () => {
		const file = writeTempFile(jsonl(base));
		const sm = SessionManager.open(file, { lazy });
		appendFileSync(file, line(msg("late-child", "x", 4)));
		sm.catchUp();
		expect(viewOf(sm).parents.at(-1)).toBeNull();
		const g = sm.getGeneration();
		appendFileSync(file, line(msg("x", "c", 5)));
		sm.catchUp();
		expectSameAsReload(sm, file, lazy);
		expect(sm.getTree()[0]?.entry.id).toBe("a");
		// The earlier entry changed: a holder of the skeleton plus deltas must refetch.
		expect(sm.getGeneration()).not.toBe(g);
		sm.close();
	});

	it("a re-used id appended later re-points earlier links and bumps the generation; a plain append does not", () => {
		const file = writeTempFile(jsonl(base));
		const sm = SessionManager.open(file, { lazy });
		const g = sm.getGeneration();
		appendFileSync(file, line(msg("d", "c", 4)));
		sm.catchUp();
		expect(sm.getGeneration()).toBe(g);
		appendFileSync(file, line(msg("b", "a", 6)));
		sm.catchUp();
		expectSameAsReload(sm, file, lazy);
		expect(sm.getGeneration()).not.toBe(g);
		sm.close();
	});

	it("a bookkeeping label that races another writer keeps the in-app leaf where the user put it", () => {
		const file = writeTempFile(jsonl(base));
		let land: string | undefined;
		const sm = SessionManager.open(file, {
			lazy,
			probe: {
				afterStat: () => {
					if (land) appendFileSync(file, land);
					land = undefined;
				},
			},
		});
		sm.branch("b");
		land = line(msg("pi1", "c", 4));
		const label = sm.appendLabelChange("a", "checkpoint", { atResume: true });
		expect(sm.getEntry(label)?.parentId).toBe("c");
		expect(sm.getLeafId()).toBe("b");
		expectSameAsReload(sm, file, lazy);
		sm.close();
	});

	it("another writer's line landing between Arbor's catch-up and its own append: Arbor's entry sits after it, as in the file", () => {
		const file = writeTempFile(jsonl(base));
		const traces: CatchUpTrace[] = [];
		let land: string | undefined;
		const sm = SessionManager.open(file, {
			lazy,
			probe: {
				afterStat: () => {
					if (land) appendFileSync(file, land);
					land = undefined;
				},
				trace: (t) => traces.push(t),
			},
		});
		land = line(msg("pi1", "c", 4));
		const g = sm.getGeneration();
		const mine = sm.appendMessage(userMessage("mine"));
		expect(traces.find((t) => t.op === "append")).toMatchObject({ op: "append", raced: true, id: mine });
		// No further catch-up: the view right after the write already matches the file.
		expectSameAsReload(sm, file, lazy);
		expect(sm.getEntries().map((e) => e.id)).toEqual(["a", "b", "c", "pi1", mine]);
		expect(sm.getLeafId()).toBe(mine);
		expect(sm.getEntry(mine)?.parentId).toBe("c");
		// Read back in place, not reloaded: entries already handed out are unchanged.
		expect(sm.getGeneration()).toBe(g);
		expect(traces.filter((t) => t.op !== "append" && t.result === "reloaded")).toEqual([]);
		expect(sm.catchUp()).toEqual({ kind: "none" });
		sm.close();
	});
});

describe.each([false, true])("two writers, each appending after its own catch-up (lazy %s)", (lazy) => {
	// The interleaving the reliability run's "torn" section found: Arbor's catch-up reads another writer's
	// line while it is still being written (a 1 MB write becomes visible page by page), so the file seems to
	// end without a newline; the other writer then finishes its line, and Arbor's append must not "close" a
	// line that is already closed. Deciding from the catch-up's view wrote "\n" + line: an empty line.
	it("a line still being written when Arbor catches up, finished before Arbor's append: no empty line, every line JSON", () => {
		const other = line(msg("pi1", "c", 4));
		const file = writeTempFile(jsonl(base));
		let rest: string | undefined;
		const sm = SessionManager.open(file, {
			lazy,
			probe: {
				trace: (t) => {
					if (rest && t.op === "before-write") appendFileSync(file, rest);
					rest = undefined;
				},
			},
		});
		appendFileSync(file, other.slice(0, 40));
		rest = other.slice(40);
		const mine = sm.appendMessage(userMessage("mine"));
		const lines = readFileSync(file, "utf8").split("\n");
		expect(lines.at(-1)).toBe("");
		for (const [i, l] of lines.slice(0, -1).entries()) expect(() => JSON.parse(l), `line ${i + 1}: ${JSON.stringify(l.slice(0, 40))}`).not.toThrow();
		expectSameAsReload(sm, file, lazy);
		expect(sm.getEntries().map((e) => e.id)).toEqual(["a", "b", "c", "pi1", mine]);
		expect(sm.getLeafId()).toBe(mine);
		expect(sm.getEntry(mine)?.parentId).toBe("c");
		sm.close();
	});

	it("a torn line another writer left for good is still closed with a newline before Arbor's line", () => {
		const file = writeTempFile(`${jsonl(base)}{"type":"message","id":"torn"`);
		const sm = SessionManager.open(file, { lazy });
		const mine = sm.appendMessage(userMessage("mine"));
		const text = readFileSync(file, "utf8");
		expect(text.endsWith(`{"type":"message","id":"torn"\n${JSON.stringify(sm.getEntry(mine))}\n`)).toBe(true);
		expectSameAsReload(sm, file, lazy);
		sm.close();
	});
});
