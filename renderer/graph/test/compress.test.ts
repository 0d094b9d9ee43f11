import { describe, expect, it } from "vitest";
import { EntryFlag, EntryKind } from "../../../shared/skeleton";
import { computeTreeView } from "../../../shared/tree-view";
import { buildGraphModel, entriesOfNode, expandSegments } from "../compress";
import { GraphNodeKind, type GraphModel } from "../model";
import { generateSkeleton, piDefaultVisible, skeletonOf, visibleTreeOf } from "./helpers";

const A = EntryKind.assistant;
const U = EntryKind.user;
const T = EntryKind.toolResult;

/** user -> 6 assistant/tool entries -> user -> assistant (leaf). */
function chain() {
	return skeletonOf([
		{ kind: U, parent: -1 },
		{ kind: A, parent: 0 },
		{ kind: T, parent: 1 },
		{ kind: A, parent: 2 },
		{ kind: T, parent: 3 },
		{ kind: A, parent: 4 },
		{ kind: T, parent: 5 },
		{ kind: U, parent: 6 },
		{ kind: A, parent: 7 },
	]);
}

function segmentsOf(m: GraphModel): number[] {
	const out: number[] = [];
	for (let g = 0; g < m.n; g++) if (m.kind[g] === GraphNodeKind.segment) out.push(g);
	return out;
}

describe("chain compression", () => {
	it("collapses a linear run between landmarks into one +N segment with a seg:<first>:<last> id", () => {
		const s = chain();
		const m = buildGraphModel(s, visibleTreeOf(s));
		expect(m.ids).toEqual(["e0", "seg:e1:e6", "e7", "e8"]);
		expect(m.count[1]).toBe(6);
		expect(Array.from(entriesOfNode(m, 1))).toEqual([1, 2, 3, 4, 5, 6]);
		expect(Array.from(m.parent)).toEqual([-1, 0, 1, 2]);
		for (let e = 1; e <= 6; e++) expect(m.nodeOfEntry[e]).toBe(1);
	});

	it("reveals a segment's entries once it is expanded (keyed by its first entry id)", () => {
		const s = chain();
		const m = buildGraphModel(s, visibleTreeOf(s), { expanded: new Set(["e1"]) });
		expect(m.ids).toEqual(["e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8"]);
		expect(segmentsOf(m)).toEqual([]);
	});

	it("never collapses a single entry into a +1 segment", () => {
		const s = skeletonOf([
			{ kind: U, parent: -1 },
			{ kind: A, parent: 0 },
			{ kind: U, parent: 1 },
		]);
		const m = buildGraphModel(s, visibleTreeOf(s));
		expect(m.ids).toEqual(["e0", "e1", "e2"]);
	});

	it("splits a run around a search match and around the selection", () => {
		const s = chain();
		const m = buildGraphModel(s, visibleTreeOf(s), { matches: new Set([3]), selected: 5 });
		expect(m.ids).toEqual(["e0", "seg:e1:e2", "e3", "e4", "e5", "e6", "e7", "e8"]);
	});

	it("keeps labelled entries, the resume leaf and compactions out of segments", () => {
		const s = skeletonOf(
			[
				{ kind: U, parent: -1 },
				{ kind: A, parent: 0 },
				{ kind: T, parent: 1 },
				{ kind: A, parent: 2 },
				{ kind: EntryKind.compaction, parent: 3 },
				{ kind: A, parent: 4 },
				{ kind: T, parent: 5 },
				{ kind: A, parent: 6 },
			],
			{ labels: [{ target: 2, label: "here", time: 0 }], resumeLeaf: 6, leaf: 7 },
		);
		const m = buildGraphModel(s, visibleTreeOf(s));
		expect(m.ids).toEqual(["e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7"]);
	});

	it("keeps branch points and branch ends as their own cards", () => {
		// 0 user -> 1 -> 2 -> 3 (branch point) -> {4 -> 5 -> 6, 7 -> 8 -> 9}
		const s = skeletonOf(
			[
				{ kind: U, parent: -1 },
				{ kind: A, parent: 0 },
				{ kind: T, parent: 1 },
				{ kind: A, parent: 2 },
				{ kind: T, parent: 3 },
				{ kind: A, parent: 4 },
				{ kind: T, parent: 5 },
				{ kind: T, parent: 3 },
				{ kind: A, parent: 7 },
				{ kind: T, parent: 8 },
			],
			{ leaf: 9, resumeLeaf: 9 },
		);
		const m = buildGraphModel(s, visibleTreeOf(s));
		// Active branch (7..9) first.
		expect(m.ids).toEqual(["e0", "seg:e1:e2", "e3", "seg:e7:e8", "e9", "seg:e4:e5", "e6"]);
		expect(m.childCount[m.ids.indexOf("e3")]).toBe(2);
	});

	it("gives entries that repeat an id (damaged files) unique node ids; the last one, which pi keeps, keeps the plain id", () => {
		const s = skeletonOf([
			{ kind: U, parent: -1, flags: EntryFlag.duplicateId },
			{ kind: U, parent: 0 },
			{ kind: U, parent: 1, flags: EntryFlag.duplicateId },
		]);
		s.ids[2] = "e0";
		const m = buildGraphModel(s, visibleTreeOf(s));
		expect(m.ids).toEqual(["dup:0:e0", "e1", "e0"]);
		expect(new Set(m.ids).size).toBe(3);
	});

	it("turns compression off when asked", () => {
		const s = chain();
		expect(buildGraphModel(s, visibleTreeOf(s), { compress: false }).n).toBe(9);
	});
});

describe("folds", () => {
	it("drops a folded entry's visible descendants and hangs a +N hidden stub under it", () => {
		const s = chain();
		const m = buildGraphModel(s, visibleTreeOf(s), { folds: new Set(["e0"]) });
		expect(m.ids).toEqual(["e0", "fold:e0"]);
		expect(m.kind[1]).toBe(GraphNodeKind.foldStub);
		expect(m.count[1]).toBe(8);
		expect(m.parent[1]).toBe(0);
		expect(m.nodeOfEntry[8]).toBe(-1);
	});

	it("counts nested folds once, at the outermost fold", () => {
		const s = chain();
		const m = buildGraphModel(s, visibleTreeOf(s), { folds: new Set(["e0", "e7"]) });
		expect(m.ids).toEqual(["e0", "fold:e0"]);
		expect(m.count[1]).toBe(8);
	});

	it("ignores a fold on an entry without visible children", () => {
		const s = chain();
		const m = buildGraphModel(s, visibleTreeOf(s), { folds: new Set(["e8"]) });
		expect(m.ids).not.toContain("fold:e8");
	});
});

describe("compression invariants on a generated 20k-entry session", () => {
	const s = generateSkeleton(20_000, 7);
	const tree = visibleTreeOf(s, piDefaultVisible(s));
	const matches = new Set<number>();
	for (let i = 0; i < s.count; i += 997) if (piDefaultVisible(s)(i)) matches.add(i);
	const selected = tree.rows[Math.floor(tree.rows.length / 2)];
	const m = buildGraphModel(s, tree, { matches, selected });

	it("draws every visible entry exactly once", () => {
		const seen = new Int32Array(s.count);
		for (let g = 0; g < m.n; g++) {
			if (m.kind[g] === GraphNodeKind.foldStub) continue;
			for (const e of Array.from(entriesOfNode(m, g))) seen[e]++;
		}
		const wrong = Array.from(tree.rows).filter((e) => seen[e] !== 1);
		expect(wrong).toEqual([]);
		expect(seen.reduce((a, b) => a + b, 0)).toBe(tree.rows.length);
	});

	it("never hides the leaf, the resume leaf, branch points, labels, user messages, matches or the selection", () => {
		const visibleChildren = new Int32Array(s.count);
		for (const e of Array.from(tree.rows)) if (tree.visibleParent[e] >= 0) visibleChildren[tree.visibleParent[e]]++;
		const mustShow = new Set<number>([s.leaf, s.resumeLeaf, selected, ...matches, ...s.labels.map((l) => l.target)]);
		for (const e of Array.from(tree.rows)) {
			if (s.kind[e] === EntryKind.user || visibleChildren[e] >= 2) mustShow.add(e);
		}
		expect(mustShow.size).toBeGreaterThan(100);
		for (const e of mustShow) {
			const g = m.nodeOfEntry[e];
			expect(g).toBeGreaterThanOrEqual(0);
			expect(m.kind[g]).toBe(GraphNodeKind.entry);
			expect(m.ids[g]).toBe(s.ids[e]);
		}
	});

	it("compresses substantially and keeps parents before children", () => {
		expect(m.n).toBeLessThan(tree.rows.length * 0.6);
		for (let g = 0; g < m.n; g++) expect(m.parent[g]).toBeLessThan(g);
		expect(new Set(m.ids).size).toBe(m.n);
	});
});

describe("with shared/tree-view as input", () => {
	it("takes a TreeView as is and shows its folds as +N hidden stubs", () => {
		const s = chain();
		const view = computeTreeView(s, { filter: "all", folded: new Set([7]) });
		const m = buildGraphModel(s, view);
		expect(m.ids).toEqual(["e0", "seg:e1:e6", "e7", "fold:e7"]);
		expect(m.count[3]).toBe(1);
	});

	it("re-parents across entries the filter hides (user-only keeps the two turns linked)", () => {
		const s = chain();
		const m = buildGraphModel(s, computeTreeView(s, { filter: "user-only" }));
		expect(m.ids).toEqual(["e0", "e7"]);
		expect(m.parent[1]).toBe(0);
	});
});

describe("opening segments in place", () => {
	/** Everything a consumer reads, with segment members resolved (segMembers may keep unread slots). */
	const view = (m: GraphModel) => ({
		n: m.n,
		kind: Array.from(m.kind),
		entry: Array.from(m.entry),
		count: Array.from(m.count),
		parent: Array.from(m.parent),
		ids: m.ids,
		nodeOfEntry: Array.from(m.nodeOfEntry),
		childCount: Array.from(m.childCount),
		members: segmentsOf(m).map((g) => Array.from(entriesOfNode(m, g))),
	});

	it("gives exactly the model a full rebuild with the larger expanded set gives", () => {
		const s = generateSkeleton(6000, 21);
		const tree = visibleTreeOf(s, piDefaultVisible(s));
		const base = buildGraphModel(s, tree);
		const segs = segmentsOf(base);
		expect(segs.length).toBeGreaterThan(20);
		// First, last, a few in between, and an id that starts no segment (changes nothing).
		const pick = [segs[0], segs[5], segs[Math.floor(segs.length / 2)], segs[segs.length - 1]];
		const ids = new Set(pick.map((g) => s.ids[base.entry[g]]));
		ids.add(s.ids[s.leaf]);
		const patched = expandSegments(s, base, ids);
		expect(view(patched)).toEqual(view(buildGraphModel(s, tree, { expanded: ids })));
		expect(segmentsOf(patched).length).toBe(segs.length - pick.length);
		// Patching a patched model again (one more segment) still equals the full rebuild.
		const more = new Set([s.ids[base.entry[segs[3]]]]);
		const twice = expandSegments(s, patched, more);
		expect(view(twice)).toEqual(view(buildGraphModel(s, tree, { expanded: new Set([...ids, ...more]) })));
	});

	it("returns the same model when no segment starts at the given ids", () => {
		const s = chain();
		const m = buildGraphModel(s, visibleTreeOf(s));
		expect(expandSegments(s, m, new Set(["e3", "nope"]))).toBe(m);
	});

	it("opens every segment starting at a repeated id, as the full rebuild does", () => {
		// Two chains whose first entries share an id (a damaged file).
		const s = skeletonOf([
			{ kind: U, parent: -1 },
			{ kind: A, parent: 0 },
			{ kind: T, parent: 1 },
			{ kind: U, parent: 2 },
			{ kind: A, parent: 3, flags: EntryFlag.duplicateId },
			{ kind: T, parent: 4 },
			{ kind: U, parent: 5 },
			{ kind: A, parent: 6, flags: EntryFlag.duplicateId },
			{ kind: T, parent: 7 },
			{ kind: U, parent: 8 },
		]);
		s.ids[7] = s.ids[4];
		const tree = visibleTreeOf(s);
		const base = buildGraphModel(s, tree);
		const ids = new Set([s.ids[4]]);
		expect(view(expandSegments(s, base, ids))).toEqual(view(buildGraphModel(s, tree, { expanded: ids })));
	});
});
