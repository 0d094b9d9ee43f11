// The path-only reader (path-reader.ts) against SessionManager: on every fixture and on adversarial files it
// either gives buildSessionContext's exact JSON (for the file's leaf and for other leaves) or hands the file
// back (ok: false) so the caller uses SessionManager. Clean files must take the fast path; files that would
// make SessionManager warn or read differently must not.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readPathContext, SessionManager } from "..";
import { fixtureCopy, fixtureNames, generated, HEADER, msg, tempDir, ts, writeSession } from "./helpers";

type Loose = Record<string, unknown>;

function full(file: string, leaf?: string): string {
	const sm = SessionManager.open(file);
	try {
		return JSON.stringify(sm.buildSessionContext(leaf ?? sm.getLeafId()));
	} finally {
		sm.close();
	}
}

/** Checks the reader against SessionManager; returns the reader's verdict ("fast" or its fallback reason). */
function same(file: string, leaf?: string): string {
	const r = readPathContext(file, leaf);
	if (!r.ok) return r.reason;
	expect(JSON.stringify(r.context)).toBe(full(file, leaf));
	if (leaf === undefined) {
		const sm = SessionManager.open(file);
		expect(r.leafId).toBe(sm.getLeafId());
		expect(r.entries).toBe(sm.getEntryCount());
		sm.close();
	}
	return "fast";
}

function lines(file: string): string[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((l) => l !== "");
}

function rewrite(file: string, name: string, edit: (ls: string[]) => string[], eol = "\n", finalEol = true): string {
	const out = join(tempDir(), name);
	const ls = edit(lines(file));
	writeFileSync(out, ls.join(eol) + (finalEol ? eol : ""));
	return out;
}

/** Ids on the path from the file's leaf to the root (SessionManager's view). */
function pathIds(file: string): string[] {
	const sm = SessionManager.open(file);
	try {
		return sm.getBranchIds();
	} finally {
		sm.close();
	}
}

const base = generated(600, "path-reader", ["--branch-every", "8", "--compaction-every", "90", "--custom-messages", "0.3"]);

describe("every fixture", () => {
	it.each(fixtureNames())("%s: same context as SessionManager (fast where the file is clean)", (name) => {
		const file = fixtureCopy(name);
		const verdict = same(file);
		// Legacy files (v1/v2), files without ids, the orphan fixture and a title line outside omp's slot shape
		// need SessionManager; the clean v3 ones do not.
		if (/v3-branch-compaction|statsuline/.test(name)) expect(verdict).toBe("fast");
		const sm = SessionManager.open(file);
		const ids = sm.getBranchIds();
		sm.close();
		for (const id of ids.filter((_, k) => k % 3 === 0)) same(file, id);
	});
});

describe("generated files", () => {
	it("a branchy file with compactions, branch summaries and custom messages: fast, every 7th leaf equal", () => {
		expect(same(base)).toBe("fast");
		const all = lines(base)
			.slice(1)
			.map((l) => (JSON.parse(l) as Loose).id as string);
		for (const id of all.filter((_, k) => k % 7 === 0)) expect(same(base, id)).toBe("fast");
	});
	it("CRLF line ends", () => {
		expect(same(rewrite(base, "crlf.jsonl", (ls) => ls, "\r\n"))).toBe("fast");
	});
	it("no newline after the last line", () => {
		expect(same(rewrite(base, "noeol.jsonl", (ls) => ls, "\n", false))).toBe("fast");
	});
	it("keys in other orders, spaces, nested id / type / parentId keys before the top-level ones", () => {
		const f = rewrite(base, "orders.jsonl", (ls) =>
			ls.map((l, k) => {
				if (k === 0) return l;
				const o = JSON.parse(l) as Loose;
				const { type, id, parentId, ...rest } = o;
				switch (k % 5) {
					case 0:
						return JSON.stringify({ ...rest, parentId, id, type });
					case 1:
						return JSON.stringify({ decoy: { id: "nope", parentId: "nope", type: "session" }, id, type, parentId, ...rest });
					case 2:
						return JSON.stringify(o, null, 1).replace(/\n/g, " ");
					case 3:
						return JSON.stringify({ id, parentId, type, ...rest });
					default:
						return l;
				}
			}),
		);
		expect(same(f)).toBe("fast");
		for (const id of pathIds(f).filter((_, k) => k % 5 === 0)) same(f, id);
	});
	it("escaped characters in ids and types", () => {
		const f = writeSession([
			msg('a"1', null, "user", "hi"),
			msg("b\\2", 'a"1', "assistant", "yo"),
			{ type: "thinking_level_change", id: "c\u00e93", parentId: "b\\2", timestamp: ts(), thinkingLevel: "high" },
			msg("d\n4", "c\u00e93", "user", "next"),
		]);
		expect(same(f)).toBe("fast");
		expect(same(f, "b\\2")).toBe("fast");
	});
	it("labels, context edits and a compaction on the path, a usage line last", () => {
		const recs: Loose[] = [
			{ type: "model_change", id: "m", parentId: null, timestamp: ts(), provider: "p", modelId: "x" },
			msg("u1", "m", "user", "one"),
			msg("a1", "u1", "assistant", "two"),
			{ type: "label", id: "l1", parentId: "a1", timestamp: ts(), targetId: "u1", label: "start" },
			msg("u2", "l1", "user", "three"),
			msg("a2", "u2", "assistant", "four"),
			{ type: "compaction", id: "c1", parentId: "a2", timestamp: ts(), summary: "sum", firstKeptEntryId: "u2", tokensBefore: 100 },
			msg("u3", "c1", "user", "five"),
			{ type: "context_edit", id: "e1", parentId: "u3", timestamp: ts(), targetId: "u2", edit: { type: "replace", content: "edited" } },
			msg("a3", "e1", "assistant", "six"),
			{ type: "usage", id: "z1", parentId: "a3", timestamp: ts(), usage: { input: 1, output: 2, totalTokens: 3 } },
		];
		const f = writeSession(recs);
		expect(same(f)).toBe("fast");
		for (const r of recs) expect(same(f, r.id as string)).toBe("fast");
	});
	it("an omp file with its fixed-width title slot", () => {
		const ls = lines(fixtureCopy("formic__omp-session-titleslot.jsonl"));
		const slot = { type: "title", v: 1, title: "Health tester", updatedAt: "2026-07-21T22:20:25.303Z", pad: "" };
		slot.pad = " ".repeat(255 - JSON.stringify(slot).length);
		const f = writeSession(ls.slice(1), { header: null });
		writeFileSync(f, `${JSON.stringify(slot)}\n${readFileSync(f, "utf8")}`);
		expect(same(f)).toBe("fast");
		const torn = writeSession(ls.slice(1), { header: null });
		writeFileSync(torn, `${JSON.stringify({ ...slot, pad: "" })}\n${readFileSync(torn, "utf8")}`);
		expect(same(torn)).toBe("title line not in omp's slot shape");
	});
});

describe("files that need SessionManager", () => {
	const path = pathIds(base);
	const mid = path[Math.floor(path.length / 2)];
	it("a duplicate id whose later line is invalid", () => {
		const f = rewrite(base, "dup-invalid.jsonl", (ls) => [
			...ls.slice(0, -1),
			`{"type":"message","id":"${mid}","parentId":null,"message":{"role":"user"}`,
			ls[ls.length - 1],
		]);
		expect(same(f)).not.toBe("fast");
	});
	it("a duplicate id whose later line is valid", () => {
		const f = rewrite(base, "dup-valid.jsonl", (ls) => {
			const o = JSON.parse(ls[5]) as Loose;
			return [...ls, JSON.stringify({ ...o, id: mid })];
		});
		expect(same(f)).toBe("duplicate id");
	});
	it("an invalid line on the path", () => {
		const f = rewrite(base, "bad-path.jsonl", (ls) => ls.map((l) => (l.includes(`"id":"${mid}"`) ? l.replace(/"content"/, '"content') : l)));
		expect(same(f)).not.toBe("fast");
	});
	it("a repeated top-level key later in a path line", () => {
		const f = rewrite(base, "repeated-key.jsonl", (ls) => ls.map((l) => (l.includes(`"id":"${mid}"`) ? `${l.slice(0, -1)},"parentId":null}` : l)));
		expect(same(f)).toBe("path line parentId differs");
	});
	it("a torn last line", () => {
		const f = rewrite(base, "torn.jsonl", (ls) => [...ls, ls[ls.length - 1].slice(0, 40)], "\n", false);
		expect(same(f)).not.toBe("fast");
	});
	it("a torn line in the middle (glued to the next record)", () => {
		const f = rewrite(base, "glued.jsonl", (ls) => [...ls.slice(0, 20), ls[20].slice(0, 50) + ls[21], ...ls.slice(22)]);
		expect(same(f)).not.toBe("fast");
	});
	it("a line that is not JSON in the middle, off the path: same context, the reader does not look", () => {
		const f = rewrite(base, "junk.jsonl", (ls) => [...ls.slice(0, 3), "{not json}", ...ls.slice(3)]);
		same(f);
	});
	it("an orphan, a self-parent and a loop", () => {
		const orphan = writeSession([msg("a", null, "user", "x"), msg("b", "zz", "assistant", "y"), msg("c", "a", "user", "z")]);
		expect(same(orphan)).toBe("parent not in the file");
		const self = writeSession([msg("a", null, "user", "x"), msg("b", "b", "assistant", "y"), msg("c", "a", "user", "z")]);
		expect(same(self)).toBe("entry is its own parent");
		const loop = writeSession([msg("a", null, "user", "x"), msg("b", "c", "assistant", "y"), msg("c", "b", "user", "z"), msg("d", "a", "user", "w")]);
		expect(same(loop)).toBe("parent loop");
	});
	it("an entry without id, an extra header, a legacy header, a BOM, invalid UTF-8, no header, an empty file", () => {
		expect(
			same(writeSession([msg("a", null, "user", "x"), { type: "message", parentId: "a", timestamp: ts(), message: { role: "user", content: "y" } }])),
		).toBe("entry without id");
		expect(same(writeSession([msg("a", null, "user", "x"), HEADER, msg("b", "a", "user", "y")]))).toBe("extra header line");
		expect(same(writeSession([msg("a", null, "user", "x")], { header: { ...HEADER, version: 2 } }))).toBe("legacy version");
		const bom = writeSession([msg("a", null, "user", "x")]);
		writeFileSync(bom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(bom)]));
		expect(same(bom)).toBe("byte-order mark");
		const bad = writeSession([msg("a", null, "user", "x")]);
		writeFileSync(bad, Buffer.concat([readFileSync(bad), Buffer.from('{"type":"message","id":"b","parentId":"a","x":"\xff"}\n', "latin1")]));
		expect(same(bad)).toBe("bytes that are not UTF-8");
		expect(same(writeSession([msg("a", null, "user", "x")], { header: null }))).toBe("no session header");
		expect(same(writeSession([], { raw: "" }))).toBe("empty file");
	});
	it("ids whose hashes collide: parents resolved by their bytes (regression: the 1M bench file fell back)", () => {
		// "id43zx" and "idbpad" have the same 32-bit FNV-1a hash.
		const f = writeSession([
			msg("id43zx", null, "user", "root"),
			msg("idbpad", "id43zx", "assistant", "child"),
			msg("other", "id43zx", "assistant", "sibling"),
			msg("leaf", "idbpad", "user", "under the colliding id"),
		]);
		expect(same(f)).toBe("fast");
		const orphan = writeSession([msg("id43zx", null, "user", "root"), msg("x", "idbpad", "assistant", "parent missing")]);
		expect(same(orphan)).toBe("parent not in the file");
	});
	it("a leaf that is not in the file", () => {
		expect(same(base, "no-such-entry")).toBe("leaf not in the file");
	});
});
