import { statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../index";
import { HEADER, msg, writeSession } from "./helpers";

function ids(nodes: { entry: { id?: string }; children: unknown[] }[]): unknown[] {
	return nodes.map((n) => [n.entry.id, ids(n.children as never)]);
}

describe("tree traversal", () => {
	it("getBranch walks from the leaf to the root, root first", () => {
		const f = writeSession([msg("a", null, "user", "hi"), msg("b", "a", "assistant", "yo"), msg("c", "b", "user", "more")]);
		const sm = SessionManager.open(f);
		expect(sm.getLeafId()).toBe("c");
		expect(sm.getBranch().map((e) => (e as { id: string }).id)).toEqual(["a", "b", "c"]);
		expect(sm.getBranch("b").map((e) => (e as { id: string }).id)).toEqual(["a", "b"]);
		expect(sm.getBranch("nope")).toEqual([]);
	});

	it("getTree sorts children oldest first and keeps roots in file order", () => {
		const a = msg("a", null, "user", "hi");
		const late = { ...msg("late", "a", "assistant", "late"), timestamp: "2026-06-01T00:00:00.000Z" };
		const early = { ...msg("early", "a", "assistant", "early"), timestamp: "2026-02-01T00:00:00.000Z" };
		const r2 = msg("r2", null, "user", "second root");
		const f = writeSession([a, late, early, r2]);
		const tree = SessionManager.open(f).getTree();
		expect(ids(tree)).toEqual([
			[
				"a",
				[
					["early", []],
					["late", []],
				],
			],
			["r2", []],
		]);
	});

	it("entries whose parent is missing, absent or themselves become roots", () => {
		const f = writeSession([
			msg("a", null, "user", "hi"),
			msg("orphan", "ghost", "user", "lost"),
			msg("self", "self", "user", "me"),
			{ type: "custom", customType: "x", id: "noparent", timestamp: "2026-01-01T00:00:00.000Z" },
		]);
		const sm = SessionManager.open(f);
		expect(sm.getTree().map((n) => (n.entry as { id: string }).id)).toEqual(["a", "orphan", "self", "noparent"]);
		expect(sm.getBranch("self").length).toBe(1);
	});

	it("getChildren returns direct children of an id", () => {
		const f = writeSession([msg("a", null, "user", "hi"), msg("b", "a", "assistant", "1"), msg("c", "a", "assistant", "2"), msg("d", "b", "user", "x")]);
		const sm = SessionManager.open(f);
		expect(sm.getChildren("a").map((e) => (e as { id: string }).id)).toEqual(["b", "c"]);
		expect(sm.getChildren("d")).toEqual([]);
	});

	it("branch validates the target and resetLeaf moves before the first entry", () => {
		const f = writeSession([msg("a", null, "user", "hi"), msg("b", "a", "assistant", "yo")]);
		const sm = SessionManager.open(f);
		sm.branch("a");
		expect(sm.getLeafId()).toBe("a");
		expect(() => sm.branch("zzz")).toThrow(/not found/);
		expect(() => sm.branch(null as unknown as string)).toThrow();
		sm.resetLeaf();
		expect(sm.getLeafId()).toBeNull();
		expect(sm.getBranch()).toEqual([]);
		expect(sm.buildSessionContext().messages).toEqual([]);
	});

	it("open reports read progress up to the file size", () => {
		const f = writeSession([msg("a", null, "user", "hi"), msg("b", "a", "assistant", "yo")]);
		const seen: [number, number][] = [];
		SessionManager.open(f, { onProgress: (done, total) => seen.push([done, total]) });
		expect(seen.length).toBeGreaterThan(0);
		const [done, total] = seen[seen.length - 1];
		expect(done).toBe(total);
		expect(total).toBe(statSync(f).size);
	});

	it("a 100k-deep chain is walked without recursion", () => {
		const recs: unknown[] = [];
		for (let i = 0; i < 100_000; i++)
			recs.push({ type: "custom", customType: "t", id: `e${i}`, parentId: i ? `e${i - 1}` : null, timestamp: HEADER.timestamp });
		const f = writeSession(recs);
		const sm = SessionManager.open(f);
		expect(sm.getBranch().length).toBe(100_000);
		let depth = 0;
		let node = sm.getTree()[0];
		while (node.children.length) {
			node = node.children[0];
			depth++;
		}
		expect(depth).toBe(99_999);
	});
});

describe("an entry whose id is the empty string", () => {
	it("is an ordinary id: getBranch walks to it and through it", async () => {
		const { mkdtempSync, writeFileSync } = await import("node:fs");
		const { tmpdir } = await import("node:os");
		const { join } = await import("node:path");
		const { SessionManager } = await import("../index");
		const file = join(mkdtempSync(join(tmpdir(), "arbor-empty-id-")), "s.jsonl");
		const lines = [
			{ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" },
			{ type: "message", id: "", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "first" } },
			{ type: "message", id: "b", parentId: "", timestamp: "2026-01-01T00:00:02.000Z", message: { role: "user", content: "second" } },
		];
		writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
		const sm = SessionManager.open(file);
		expect(sm.getBranch().map((e) => e.id)).toEqual(["", "b"]);
		expect(sm.getBranch("").map((e) => e.id)).toEqual([""]);
		expect(sm.getBranchIds("")).toEqual([""]);
	});
});
