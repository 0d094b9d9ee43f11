// Text and JSON forms of the visible tree: pi's drawing on a known shape, the leaf marker, the JSON tree
// (role only on messages, label only when set), and serializers that do not recurse (100k-deep chains).
import { describe, expect, it } from "vitest";
import { EntryKind as K } from "../skeleton";
import { buildTreeJson, labelTimeText, renderTreeLines, safeJson, writeJson, writeTreeJson } from "../tree-text";
import { computeTreeView } from "../tree-view";
import { chain, skeleton } from "./skeleton-builder";

const s = skeleton(
	[
		{ id: "r", parent: null },
		{ id: "a", parent: "r", kind: K.assistant },
		{ id: "b", parent: "a", label: "mark" },
		{ id: "c", parent: "b", kind: K.assistant },
		{ id: "d", parent: "c" },
		{ id: "e", parent: "c" },
		{ id: "f", parent: "a" },
		{ id: "g", parent: "f", kind: K.compaction },
	],
	"g",
);

const previews = (v: ReturnType<typeof computeTreeView>) => Array.from(v.rows, (i) => `text ${s.ids[i]}\nmore`);

describe("text form", () => {
	it("draws pi's gutters, connectors, active-path dots, labels and the leaf marker", () => {
		const v = computeTreeView(s);
		expect(renderTreeLines(v, previews(v))).toEqual([
			"• text r more",
			"• text a more",
			"├⊟ • text f more",
			"│     • text g more ← active", // first generation after a branch: +1 level
			"└⊟ [mark] text b more",
			"      text c more",
			"      ├─ text d more",
			"      └─ text e more",
		]);
	});
	it("shows folds in the connector and a ⊞ prefix on folded roots", () => {
		const v = computeTreeView(s, { folded: new Set([0, 2]) });
		expect(renderTreeLines(v, previews(v), { leafMarker: "" })).toEqual(["⊞ • text r more"]);
		const w = computeTreeView(s, { folded: new Set([2]) });
		expect(renderTreeLines(w, previews(w), { leafMarker: "" }).at(-1)).toBe("└⊞ [mark] text b more");
	});
	it("draws a cursor column when asked", () => {
		const v = computeTreeView(s);
		expect(renderTreeLines(v, previews(v), { cursorRow: 1 }).slice(0, 2)).toEqual(["  • text r more", "› • text a more"]);
	});
});

describe("JSON form", () => {
	it("nests the visible tree with role only on messages and label only when set", () => {
		const v = computeTreeView(s, { matches: new Set([0, 2, 7]) });
		expect(buildTreeJson(v)).toEqual({
			leafId: "g",
			shownLeafId: "g",
			roots: [
				{
					id: "r",
					type: "message",
					role: "user",
					children: [
						{ id: "g", type: "compaction", children: [] },
						{ id: "b", type: "message", role: "user", label: "mark", children: [] },
					],
				},
			],
		});
	});
	it("streams the same bytes as JSON.stringify of the built object", () => {
		for (const filter of ["default", "all", "user-only"] as const) {
			const v = computeTreeView(s, { filter });
			let out = "";
			writeTreeJson(v, (c) => {
				out += c;
			});
			expect(out).toBe(JSON.stringify(buildTreeJson(v)));
		}
	});
	it("uses the describer for real types and roles", () => {
		const v = computeTreeView(s, { matches: new Set([0]) });
		let out = "";
		writeTreeJson(
			v,
			(c) => {
				out += c;
			},
			() => ({ type: "future_type" }),
		);
		expect(JSON.parse(out)).toEqual({ leafId: "g", shownLeafId: "g", roots: [{ id: "r", type: "future_type", children: [] }] });
	});
	it("has a null leafId when there is no leaf", () => {
		const v = computeTreeView(s, { leaf: -1, matches: new Set([0]) });
		expect(buildTreeJson(v).leafId).toBeNull();
		expect(buildTreeJson(v).shownLeafId).toBeNull();
	});
	it("prints the session's leaf as leafId and the shown one as shownLeafId when they differ", () => {
		const v = computeTreeView(s);
		let out = "";
		writeTreeJson(v, (c) => (out += c), undefined, "usage-line");
		expect(out).toBe(JSON.stringify(buildTreeJson(v, undefined, "usage-line")));
		expect(JSON.parse(out)).toMatchObject({ leafId: "usage-line", shownLeafId: "g" });
	});
});

describe("no recursion", () => {
	it("handles a 100,000-entry chain: view, JSON tree, streamed and generic serialization", () => {
		const deep = chain(100_000);
		const v = computeTreeView(deep);
		expect(v.rows.length).toBe(100_000);
		let out = "";
		writeTreeJson(v, (c) => {
			out += c;
		});
		let again = "";
		writeJson(buildTreeJson(v), (c) => {
			again += c;
		});
		expect(again).toBe(out);
		expect(out.startsWith('{"leafId":"e99999","shownLeafId":"e99999","roots":[{"id":"e0","type":"message","role":"user","children":[{"id":"e1"')).toBe(true);
		expect(out.endsWith("]}]}".repeat(3) + "]}")).toBe(true);
		let depth = 0;
		let node = (JSON.parse(out) as { roots: { children: unknown[] }[] }).roots[0];
		while (node.children.length > 0) {
			node = node.children[0] as typeof node;
			depth++;
		}
		expect(depth).toBe(99_999);
	});
	it("writeJson matches JSON.stringify on ordinary values", () => {
		const values: unknown[] = [
			{ a: 1, b: [1, "x", null, undefined, () => 1, true], c: undefined, d: { e: Number.NaN, f: -0, g: 1.5e300 }, 'q"k': "é\n\u2028" },
			[],
			{},
			"s",
			3,
			null,
			[[[]]],
			{ t: new Date(0) },
			{ nested: [{ x: [{}] }] },
		];
		for (const value of values) {
			let out = "";
			writeJson(value, (c) => {
				out += c;
			});
			expect(out).toBe(JSON.stringify(value));
		}
	});
});

describe("label times (pi's Shift+T)", () => {
	const now = new Date(2026, 10, 30, 9, 5);
	it("formats today, this year and older times like pi", () => {
		expect(labelTimeText(new Date(2026, 10, 30, 7, 3).getTime(), now)).toBe("07:03");
		expect(labelTimeText(new Date(2026, 1, 4, 23, 59).getTime(), now)).toBe("2/4 23:59");
		expect(labelTimeText(new Date(2024, 0, 9, 0, 0).getTime(), now)).toBe("24/1/9 00:00");
		expect(labelTimeText(Number.NaN, now)).toBe("");
	});
	it("shows the time after the label when asked", () => {
		const t = skeleton([{ id: "r", parent: null, label: "mark" }]);
		t.labels[0].time = new Date(2026, 10, 30, 8, 0).getTime();
		const v = computeTreeView(t);
		expect(renderTreeLines(v, ["user: x"], { labelTimes: true, now })).toEqual(["• [mark] 08:00 user: x ← active"]);
		expect(renderTreeLines(v, ["user: x"])).toEqual(["• [mark] user: x ← active"]);
	});
});

describe("safeJson: JSON text of an untrusted value", () => {
	it("gives JSON.stringify's bytes for ordinary values, undefined where it gives undefined", () => {
		for (const v of [{ a: [1, "x", null, { b: true }] }, "s", 3, null, [undefined, () => 1], { u: undefined }]) expect(safeJson(v)).toBe(JSON.stringify(v));
		expect(safeJson(undefined)).toBeUndefined();
	});

	it("serializes an array nested 20,000 deep where JSON.stringify overflows the stack", () => {
		let v: unknown = [];
		for (let i = 0; i < 20000; i++) v = [v];
		expect(() => JSON.stringify(v)).toThrow(RangeError);
		expect(safeJson({ deep: v })).toBe(`{"deep":${"[".repeat(20001)}${"]".repeat(20001)}}`);
	});
});

describe("safeJson and writeJson on deep and hostile values", () => {
	const deepObject = (n: number): unknown => {
		let v: unknown = {};
		for (let i = 0; i < n; i++) v = { k: v, u: undefined, f: () => 1 };
		return v;
	};

	it("a deep object skips undefined and function members exactly as JSON.stringify would, at every level", () => {
		expect(safeJson(deepObject(20000))).toBe(`${'{"k":'.repeat(20000)}{}${"}".repeat(20000)}`);
		expect(safeJson(deepObject(3))).toBe(JSON.stringify(deepObject(3)));
	});

	it("deep arrays with holes, undefined, functions, symbols and non-finite numbers inside: null in their place", () => {
		const inner = [undefined, () => 1, Symbol("s"), Number.NaN, Infinity, -Infinity, 1, "x", false, true, null];
		let v: unknown = inner;
		for (let i = 0; i < 20000; i++) v = [v, 2];
		const expected = `${"[".repeat(20000)}[null,null,null,null,null,null,1,"x",false,true,null]${",2]".repeat(20000)}`;
		expect(safeJson(v)).toBe(expected);
		// An object member that is a symbol is skipped; toJSON is honoured deep down, in objects and arrays.
		let w: unknown = { d: new Date(0), s: Symbol("x"), j: { toJSON: () => "J" } };
		for (let i = 0; i < 20000; i++) w = [w];
		expect(safeJson(w)).toBe(`${"[".repeat(20000)}{"d":"1970-01-01T00:00:00.000Z","j":"J"}${"]".repeat(20000)}`);
		let x: unknown = [new Date(0), { toJSON: () => undefined }];
		for (let i = 0; i < 20000; i++) x = [x];
		expect(safeJson(x)).toBe(`${"[".repeat(20001)}"1970-01-01T00:00:00.000Z",null${"]".repeat(20001)}`);
	});

	it("a member whose toJSON gives undefined is skipped; the comma rule holds around skipped members", () => {
		let v: unknown = { a: { toJSON: () => undefined }, b: 1, c: undefined, d: 2 };
		for (let i = 0; i < 20000; i++) v = [v];
		expect(safeJson(v)).toBe(`${"[".repeat(20000)}{"b":1,"d":2}${"]".repeat(20000)}`);
		let only: unknown = { a: undefined };
		for (let i = 0; i < 20000; i++) only = [only, {}];
		expect(safeJson(only)).toBe(`${"[".repeat(20000)}{}${",{}]".repeat(20000)}`);
	});

	it("a cycle or a BigInt is an unreadable value, shallow or deep; the same object twice side by side is no cycle", () => {
		const cyc: Record<string, unknown> = {};
		cyc.self = cyc;
		expect(safeJson(cyc)).toBe("[unreadable value]");
		expect(safeJson({ n: 1n })).toBe("[unreadable value]");
		let deepCycle: unknown = cyc;
		for (let i = 0; i < 20000; i++) deepCycle = [deepCycle];
		expect(safeJson(deepCycle)).toBe("[unreadable value]");
		let deepBig: unknown = [1n];
		for (let i = 0; i < 20000; i++) deepBig = [deepBig];
		expect(safeJson(deepBig)).toBe("[unreadable value]");
		const shared = { a: 1 };
		let twice: unknown = [shared, shared, { x: shared, y: shared }];
		for (let i = 0; i < 20000; i++) twice = [twice];
		expect(safeJson(twice)).toBe(`${"[".repeat(20001)}{"a":1},{"a":1},{"x":{"a":1},"y":{"a":1}}${"]".repeat(20001)}`);
	});

	it("writeJson hands its text over in chunks of about 64 KiB, the last one flushed, with nothing lost", () => {
		const big = Array.from({ length: 30_000 }, (_, i) => ({ i, s: "xx" }));
		const chunks: string[] = [];
		writeJson(big, (c) => chunks.push(c));
		expect(chunks.join("")).toBe(JSON.stringify(big));
		expect(chunks.length).toBeGreaterThan(5);
		for (const c of chunks.slice(0, -1)) {
			expect(c.length).toBeGreaterThanOrEqual(65536);
			expect(c.length).toBeLessThan(65536 + 64);
		}
		const small: string[] = [];
		writeJson({ a: 1 }, (c) => small.push(c));
		expect(small).toEqual(['{"a":1}']);
		const nothing: string[] = [];
		writeJson(undefined, (c) => nothing.push(c));
		writeJson(
			() => 1,
			(c) => nothing.push(c),
		);
		writeJson(Symbol("s"), (c) => nothing.push(c));
		expect(nothing).toEqual([]);
	});

	it("top-level scalars and keys that need escaping", () => {
		for (const v of ['a"b\\c\n', 0, -0, 1e21, Number.NaN, true, false, null, { 'k"\n': "v", "": [] }, [undefined]]) {
			let out = "";
			writeJson(v, (c) => (out += c));
			expect(out, String(v)).toBe(JSON.stringify(v));
		}
	});
});
