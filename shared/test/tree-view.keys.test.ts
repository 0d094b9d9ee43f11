// Keyboard helpers over the visible tree: parent / first child / siblings, foldable, pi's Ctrl/Alt+← and
// Ctrl/Alt+→, branch-point and label jumps, row stepping, and selection fallback.
import { describe, expect, it } from "vitest";
import { EntryKind as K } from "../skeleton";
import {
	computeTreeView,
	firstChildOf,
	foldOrUp,
	initialSelection,
	isFoldable,
	keepSelection,
	nextBranchPoint,
	nextLabelled,
	parentOf,
	segmentStart,
	siblingOf,
	unfoldOrDown,
} from "../tree-view";
import { skeleton } from "./skeleton-builder";

// 0 r -> 1 a -> {2 b -> 3 c -> {4 d, 5 e}, 6 f -> 7 g}; leaf g. Display: r a f g b c d e
const s = skeleton(
	[
		{ id: "r", parent: null },
		{ id: "a", parent: "r" },
		{ id: "b", parent: "a", label: "mark" },
		{ id: "c", parent: "b" },
		{ id: "d", parent: "c" },
		{ id: "e", parent: "c", label: "end" },
		{ id: "f", parent: "a" },
		{ id: "g", parent: "f" },
	],
	"g",
);
const v = computeTreeView(s);

describe("structure moves", () => {
	it("parent, first child and siblings follow the visible tree in display order", () => {
		expect(Array.from(v.rows, (i) => s.ids[i]).join(" ")).toBe("r a f g b c d e");
		expect(parentOf(v, 3)).toBe(2);
		expect(parentOf(v, 0)).toBe(-1);
		expect(firstChildOf(v, 1)).toBe(6); // active branch first
		expect(siblingOf(v, 6, 1)).toBe(2);
		expect(siblingOf(v, 2, -1)).toBe(6);
		expect(siblingOf(v, 2, 1)).toBe(-1);
		expect(firstChildOf(v, 7)).toBe(-1);
	});
});

describe("folding keys", () => {
	it("foldable = has visible children and is a root or starts a segment", () => {
		expect(isFoldable(v, 0)).toBe(true); // root
		expect(isFoldable(v, 1)).toBe(false); // only child of r
		expect(isFoldable(v, 6)).toBe(true); // f starts a segment under a
		expect(isFoldable(v, 3)).toBe(false); // c: single child of b
		expect(isFoldable(v, 4)).toBe(false); // d: no children
	});
	it("Ctrl+← folds a foldable node, else jumps to the segment start above", () => {
		expect(foldOrUp(v, 6)).toEqual({ kind: "fold", index: 6 });
		expect(foldOrUp(v, 3)).toEqual({ kind: "select", index: 2 }); // c -> b (b's parent branches)
		expect(foldOrUp(v, 2)).toEqual({ kind: "fold", index: 2 });
		expect(foldOrUp(v, 5)).toEqual({ kind: "select", index: 2 }); // e -> b: e itself is a segment start but not an ancestor
		expect(foldOrUp(v, 1)).toEqual({ kind: "select", index: 0 }); // no segment start above: the root
		const folded = computeTreeView(s, { folded: new Set([6]) });
		expect(foldOrUp(folded, 6)).toEqual({ kind: "select", index: 0 });
	});
	it("Ctrl+→ unfolds a folded node, else follows first children to a branch end or a branch's first child", () => {
		const folded = computeTreeView(s, { folded: new Set([2]) });
		expect(unfoldOrDown(folded, 2)).toEqual({ kind: "unfold", index: 2 });
		expect(unfoldOrDown(v, 0)).toEqual({ kind: "select", index: 6 }); // r -> a branches -> first child f
		expect(unfoldOrDown(v, 6)).toEqual({ kind: "select", index: 7 }); // f -> g (end)
		expect(unfoldOrDown(v, 2)).toEqual({ kind: "select", index: 4 }); // b -> c branches -> d
		expect(segmentStart(v, 7, "down")).toBe(7);
	});
});

describe("jumps", () => {
	it("next/previous branch point in display order, without wrap", () => {
		expect(nextBranchPoint(v, 0, 1)).toBe(1);
		expect(nextBranchPoint(v, 1, 1)).toBe(3);
		expect(nextBranchPoint(v, 3, 1)).toBe(-1);
		expect(nextBranchPoint(v, 3, -1)).toBe(1);
	});
	it("next/previous labelled entry in display order", () => {
		expect(nextLabelled(v, 0, 1)).toBe(2);
		expect(nextLabelled(v, 2, 1)).toBe(5);
		expect(nextLabelled(v, 5, 1)).toBe(-1);
		expect(nextLabelled(v, 5, -1)).toBe(2);
		// From "nowhere" (-1): the first / last labelled row, for wrap-around.
		expect(nextLabelled(v, -1, 1)).toBe(2);
		expect(nextLabelled(v, -1, -1)).toBe(5);
	});
});

describe("selection", () => {
	it("opens on the leaf, else its nearest visible ancestor, else the last row", () => {
		expect(initialSelection(v)).toBe(7);
		const users = skeleton(
			[
				{ id: "u", parent: null },
				{ id: "a", parent: "u", kind: K.assistant },
				{ id: "x", parent: null, kind: K.custom },
				{ id: "y", parent: "x", kind: K.custom },
			],
			"a",
		);
		expect(initialSelection(computeTreeView(users, { filter: "user-only" }))).toBe(0);
		const leafUnderHidden = computeTreeView(users, { filter: "default", leaf: 3 });
		expect(initialSelection(leafUnderHidden)).toBe(1); // no visible ancestor of y: last row
	});
	it("keeps the selected entry or falls back to its nearest visible ancestor", () => {
		const w = computeTreeView(s, { matches: new Set([0, 1, 2]) });
		expect(keepSelection(w, 2)).toBe(2);
		expect(keepSelection(w, 4)).toBe(2);
		expect(keepSelection(computeTreeView(s, { matches: new Set() }), 4)).toBe(-1);
	});
});
