// Display order of the visible tree: children oldest first (stable by file order, NaN times keep file
// order), roots in file order, and pi's rule that the branch holding the leaf goes first at every level.
import { describe, expect, it } from "vitest";
import { activePathMask, computeTreeView, countBranchPoints, fullPreorder, treeBase, treeShape } from "../tree-view";
import { skeleton } from "./skeleton-builder";

const ids = (v: ReturnType<typeof computeTreeView>) => Array.from(v.rows, (i) => v.skeleton.ids[i]);

describe("children order", () => {
	it("sorts siblings by timestamp, oldest first, ties in file order", () => {
		const s = skeleton(
			[
				{ id: "r", parent: null, t: 0 },
				{ id: "late", parent: "r", t: 30 },
				{ id: "early", parent: "r", t: 10 },
				{ id: "tieA", parent: "r", t: 20 },
				{ id: "tieB", parent: "r", t: 20 },
			],
			null,
		);
		const base = treeBase(s);
		expect(Array.from(base.children.subarray(base.childStart[0], base.childStart[1]), (i) => s.ids[i])).toEqual(["early", "tieA", "tieB", "late"]);
	});
	it("an entry without a usable time stays right after the sibling before it in file order", () => {
		const s = skeleton(
			[
				{ id: "r", parent: null, t: 0 },
				{ id: "b", parent: "r", t: 20 },
				{ id: "nan", parent: "r", t: Number.NaN },
				{ id: "a", parent: "r", t: 10 },
			],
			null,
		);
		const base = treeBase(s);
		expect(Array.from(base.children.subarray(base.childStart[0], base.childStart[1]), (i) => s.ids[i])).toEqual(["a", "b", "nan"]);
		const allNaN = skeleton(
			[
				{ id: "r", parent: null, t: 0 },
				{ id: "x", parent: "r", t: Number.NaN },
				{ id: "y", parent: "r", t: Number.NaN },
			],
			null,
		);
		expect(ids(computeTreeView(allNaN, { leaf: -1 }))).toEqual(["r", "x", "y"]);
	});
	it("keeps roots in file order, orphans included", () => {
		const s = skeleton(
			[
				{ id: "r2", parent: null, t: 50 },
				{ id: "orphan", parent: "missing", t: 1 },
				{ id: "r1", parent: null, t: 0 },
			],
			null,
		);
		expect(Array.from(treeBase(s).roots, (i) => s.ids[i])).toEqual(["r2", "orphan", "r1"]);
	});
});

describe("active branch first", () => {
	const s = skeleton(
		[
			{ id: "r", parent: null },
			{ id: "old", parent: "r" },
			{ id: "mid", parent: "r" },
			{ id: "new", parent: "r" },
			{ id: "mid2", parent: "mid" },
			{ id: "root2", parent: null },
		],
		"mid2",
	);
	it("puts the child whose subtree holds the leaf first and keeps the others in time order", () => {
		expect(ids(computeTreeView(s))).toEqual(["r", "mid", "mid2", "old", "new", "root2"]);
	});
	it("applies to roots too", () => {
		expect(ids(computeTreeView(s, { leaf: 5 }))).toEqual(["root2", "r", "old", "mid", "mid2", "new"]);
	});
	it("marks the active path from the leaf up to its root", () => {
		const mask = activePathMask(s, 4);
		expect(Array.from(mask)).toEqual([1, 0, 1, 0, 1, 0]);
		expect(Array.from(activePathMask(s, -1))).toEqual([0, 0, 0, 0, 0, 0]);
	});
	it("full pre-order visits every entry once", () => {
		expect(Array.from(fullPreorder(s, activePathMask(s, 4))).sort()).toEqual([0, 1, 2, 3, 4, 5]);
	});
});

describe("tree shape", () => {
	it("counts branch points, depth, leaves and roots", () => {
		const s = skeleton([
			{ id: "r", parent: null },
			{ id: "a", parent: "r" },
			{ id: "b", parent: "r" },
			{ id: "c", parent: "b" },
			{ id: "x", parent: null },
		]);
		expect(countBranchPoints(s)).toBe(1);
		expect(treeShape(s)).toEqual({ maxDepth: 3, leaves: 3, roots: 2 });
	});
});
