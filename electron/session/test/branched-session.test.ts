// createBranchedSession: a new file holding the root→leaf path, copied byte for byte, labels re-added at
// the end, and (unlike pi) no orphans where a label entry sat mid-path.
import { copyFileSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../index";
import { fixtureCopy, generated, msg, tempDir, ts, writeSession } from "./helpers";

const label = (id: string, parentId: string, targetId: string, text: string) => ({ type: "label", id, parentId, timestamp: ts(), targetId, label: text });

function piLoad(file: string) {
	const copy = join(tempDir(), "pi.jsonl");
	copyFileSync(file, copy);
	return PiSessionManager.open(copy);
}

describe("createBranchedSession", () => {
	it("writes a new file in the same folder with the path, a fresh header naming the old file, and switches to it", () => {
		const f = writeSession([
			msg("a", null, "user", "hi"),
			msg("b", "a", "assistant", "yo"),
			msg("c", "b", "user", "more"),
			msg("d", "a", "assistant", "other"),
		]);
		const oldLines = readFileSync(f, "utf8").split("\n");
		const sm = SessionManager.open(f);
		const oldId = sm.getSessionId();
		const out = sm.createBranchedSession("c") as string;
		expect(dirname(out)).toBe(dirname(f));
		expect(out).toMatch(/_[0-9a-f-]{36}\.jsonl$/);
		expect(sm.getSessionFile()).toBe(out);
		expect(sm.getSessionId()).not.toBe(oldId);
		const l = readFileSync(out, "utf8").split("\n");
		const header = JSON.parse(l[0]);
		expect(header).toMatchObject({ type: "session", version: 3, id: sm.getSessionId(), cwd: HEADER_CWD, parentSession: f });
		expect(Object.keys(header)).toEqual(["type", "version", "id", "timestamp", "cwd", "parentSession"]);
		// Copied lines are the original bytes.
		expect(l.slice(1, 4)).toEqual(oldLines.slice(1, 4));
		expect(l.length).toBe(5);
		expect(sm.getLeafId()).toBe("c");
		expect(sm.getEntry("d")).toBeUndefined();
		expect(readdirSync(dirname(f)).length).toBe(2);
	});

	it("drops label entries from the path, re-parents what hung under them, and re-adds labels after the last entry", () => {
		const f = writeSession([
			msg("a", null, "user", "hi"),
			msg("b", "a", "assistant", "yo"),
			label("l1", "b", "a", "start"),
			msg("c", "l1", "user", "after label"),
			label("l2", "c", "c", "here"),
			label("l3", "l2", "b", "tmp"),
			label("l4", "l3", "b", ""),
		]);
		const sm = SessionManager.open(f);
		const out = sm.createBranchedSession("l4") as string;
		const recs = readFileSync(out, "utf8")
			.trimEnd()
			.split("\n")
			.slice(1)
			.map((x) => JSON.parse(x));
		expect(recs.map((r) => r.type)).toEqual(["message", "message", "message", "label", "label"]);
		expect(recs[2]).toMatchObject({ id: "c", parentId: "b" });
		expect(recs[3]).toMatchObject({ type: "label", parentId: "c", targetId: "a", label: "start" });
		expect(recs[4]).toMatchObject({ type: "label", parentId: recs[3].id, targetId: "c", label: "here" });
		const pi = piLoad(out);
		expect(pi.getTree().length).toBe(1);
		expect(pi.getLabel("a")).toBe("start");
		expect(pi.buildSessionContext().messages.length).toBe(3);
	});

	it("the new file loads in pi with the same context as the branch had", () => {
		const f = fixtureCopy("formic__pi-v3-branch-compaction.jsonl");
		const sm = SessionManager.open(f);
		const leaf = sm.getLeafId() as string;
		const before = JSON.stringify(sm.buildSessionContext(leaf));
		const out = sm.createBranchedSession(leaf) as string;
		expect(JSON.stringify(piLoad(out).buildSessionContext())).toBe(before);
		expect(JSON.stringify(sm.buildSessionContext())).toBe(before);
	});

	it("a legacy file branches into a proper v3 file (migrated entries, not pi's unmigrated copy)", () => {
		const f = fixtureCopy("pi-mono__large-session.v1.jsonl");
		const sm = SessionManager.open(f);
		const before = JSON.stringify(sm.buildSessionContext());
		const out = sm.createBranchedSession(sm.getLeafId() as string) as string;
		expect(readFileSync(f, "utf8").split("\n")[0]).not.toContain('"version":3');
		expect(JSON.stringify(piLoad(out).buildSessionContext())).toBe(before);
	});

	it("in memory: replaces the entries with the path and returns undefined", () => {
		const sm = SessionManager.inMemory("/p");
		const a = sm.appendMessage({ role: "user", content: "a", timestamp: 1 });
		const b = sm.appendMessage({ role: "user", content: "b", timestamp: 2 });
		sm.branch(a);
		sm.appendMessage({ role: "user", content: "c", timestamp: 3 });
		expect(sm.createBranchedSession(b)).toBeUndefined();
		expect(sm.getEntries().map((e) => (e as { id: string }).id)).toEqual([a, b]);
		expect(sm.getLeafId()).toBe(b);
	});

	it("an unknown id throws and writes nothing", () => {
		const f = writeSession([msg("a", null, "user", "hi")]);
		const sm = SessionManager.open(f);
		expect(() => sm.createBranchedSession("nope")).toThrow(/not found/);
		expect(readdirSync(dirname(f)).length).toBe(1);
		expect(sm.getSessionFile()).toBe(f);
	});

	it("from a large lazily loaded file the copy is byte-identical to the source lines", () => {
		const f = generated(600, "br1", ["--branch-every", "0"]);
		const sm = SessionManager.open(f, { lazy: true });
		const src = readFileSync(f, "utf8").trimEnd().split("\n");
		const leaf = sm.getSkeleton().ids[400];
		const pathIds = new Set(sm.getBranchIds(leaf));
		const out = sm.createBranchedSession(leaf) as string;
		const copied = readFileSync(out, "utf8").trimEnd().split("\n").slice(1);
		const srcById = new Map(src.slice(1).map((l) => [JSON.parse(l).id as string, l]));
		for (const l of copied) {
			const o = JSON.parse(l);
			if (o.type === "label") continue;
			expect(pathIds.has(o.id)).toBe(true);
			if (srcById.get(o.id) !== l) expect(JSON.parse(srcById.get(o.id) as string).parentId).not.toBe(o.parentId);
		}
	});
});

const HEADER_CWD = "/work/p";
