// The visibility pipeline on hand-built skeletons: tool-only hiding, each filter mode, search, folds and
// re-parenting to the nearest visible ancestor (../shared/notes/PEERS.md (d)).
import { describe, expect, it } from "vitest";
import { EntryKind as K } from "../skeleton";
import { computeTreeView, parentOf, childrenOf } from "../tree-view";
import { skeleton } from "./skeleton-builder";

const ids = (v: ReturnType<typeof computeTreeView>) => Array.from(v.rows, (i) => v.skeleton.ids[i]);

// u1 -> model -> a1(tool-only) -> tr1 -> a2 -> label -> custom -> u2 -> thinking -> info -> bash -> a3(tool-only, leaf)
const linear = skeleton([
	{ id: "u1", parent: null, kind: K.user },
	{ id: "mc", parent: "u1", kind: K.modelChange },
	{ id: "a1", parent: "mc", kind: K.assistant, toolOnly: true },
	{ id: "tr1", parent: "a1", kind: K.toolResult },
	{ id: "a2", parent: "tr1", kind: K.assistant, label: "good" },
	{ id: "lb", parent: "a2", kind: K.label },
	{ id: "cu", parent: "lb", kind: K.custom },
	{ id: "u2", parent: "cu", kind: K.user },
	{ id: "th", parent: "u2", kind: K.thinkingLevelChange },
	{ id: "si", parent: "th", kind: K.sessionInfo },
	{ id: "bx", parent: "si", kind: K.bashExecution },
	{ id: "cm", parent: "bx", kind: K.customMessage },
	{ id: "a3", parent: "cm", kind: K.assistant, toolOnly: true },
]);

describe("filter modes", () => {
	it("default hides the settings types label, custom, model_change, thinking_level_change, session_info", () => {
		expect(ids(computeTreeView(linear, { filter: "default" }))).toEqual(["u1", "tr1", "a2", "u2", "bx", "cm", "a3"]);
	});
	it("no-tools is default minus toolResult messages (bashExecution stays)", () => {
		expect(ids(computeTreeView(linear, { filter: "no-tools" }))).toEqual(["u1", "a2", "u2", "bx", "cm", "a3"]);
	});
	it("user-only keeps only user messages (the leaf is not exempt)", () => {
		expect(ids(computeTreeView(linear, { filter: "user-only" }))).toEqual(["u1", "u2"]);
	});
	it("labeled-only keeps entries with a resolved label", () => {
		expect(ids(computeTreeView(linear, { filter: "labeled-only" }))).toEqual(["a2"]);
	});
	it("all shows every entry except tool-only assistant turns", () => {
		expect(ids(computeTreeView(linear, { filter: "all" }))).toEqual(["u1", "mc", "tr1", "a2", "lb", "cu", "u2", "th", "si", "bx", "cm", "a3"]);
	});
	it("a tool-only assistant turn is hidden in every mode unless it is the leaf", () => {
		const notLeaf = skeleton([
			{ id: "u", parent: null },
			{ id: "a", parent: "u", kind: K.assistant, toolOnly: true, label: "x" },
			{ id: "r", parent: "a", kind: K.toolResult },
		]);
		for (const filter of ["default", "no-tools", "labeled-only", "all"] as const) {
			expect(ids(computeTreeView(notLeaf, { filter }))).not.toContain("a");
		}
		expect(ids(computeTreeView(notLeaf, { filter: "all", leaf: 1 }))).toContain("a");
	});
	it("the leaf is still subject to the filter and the search", () => {
		expect(ids(computeTreeView(linear, { filter: "user-only" }))).not.toContain("a3");
		expect(ids(computeTreeView(linear, { matches: new Set([0]) }))).toEqual(["u1"]);
	});
});

describe("search matches", () => {
	it("keeps only matching entries that also pass the filter", () => {
		const matches = new Set([0, 1, 4, 7]); // u1, mc (hidden by default), a2, u2
		expect(ids(computeTreeView(linear, { matches }))).toEqual(["u1", "a2", "u2"]);
		expect(ids(computeTreeView(linear, { filter: "all", matches }))).toEqual(["u1", "mc", "a2", "u2"]);
	});
	it("accepts a byte mask as well as a Set, and null means no search", () => {
		const mask = new Uint8Array(linear.count);
		mask[7] = 1;
		expect(ids(computeTreeView(linear, { matches: mask }))).toEqual(["u2"]);
		expect(ids(computeTreeView(linear, { matches: null }))).toHaveLength(7);
	});
	it("an empty match set shows nothing", () => {
		expect(computeTreeView(linear, { matches: new Set() }).rows.length).toBe(0);
	});
});

// r -> a -> {b -> c(hidden custom) -> d, e -> f}
const branchy = skeleton([
	{ id: "r", parent: null },
	{ id: "a", parent: "r" },
	{ id: "b", parent: "a" },
	{ id: "c", parent: "b", kind: K.custom },
	{ id: "d", parent: "c" },
	{ id: "e", parent: "a" },
	{ id: "f", parent: "e" },
]);

describe("re-parenting", () => {
	it("a visible node hangs under its nearest visible ancestor, through hidden ones", () => {
		const v = computeTreeView(branchy, { leaf: 6 });
		expect(parentOf(v, 4)).toBe(2); // d -> b (c hidden)
		const u = computeTreeView(branchy, { filter: "user-only", matches: new Set([0, 4, 6]), leaf: 6 });
		expect(ids(u)).toEqual(["r", "f", "d"]);
		expect(parentOf(u, 6)).toBe(0);
		expect(Array.from(childrenOf(u, 0))).toEqual([6, 4]); // active branch (f) first, then d
	});
	it("with the root hidden, its visible descendants become roots", () => {
		const v = computeTreeView(branchy, { matches: new Set([2, 5]), leaf: 6 });
		expect(Array.from(v.roots)).toEqual([5, 2]);
		expect(v.multipleRoots).toBe(true);
	});
});

describe("folds", () => {
	it("drop every descendant of a folded node, following real parent links through hidden nodes", () => {
		const v = computeTreeView(branchy, { folded: new Set([2]), leaf: 6 });
		expect(ids(v)).toEqual(["r", "a", "e", "f", "b"]);
		// c is hidden by the filter, yet d (under c under folded b) is still dropped.
		const w = computeTreeView(branchy, { folded: new Set([3]), filter: "default", leaf: 6 });
		expect(ids(w)).not.toContain("d");
	});
	it("the folded node itself stays visible", () => {
		expect(ids(computeTreeView(branchy, { folded: new Set([5]), leaf: 4 }))).toEqual(["r", "a", "b", "d", "e"]);
	});
});

describe("hostile skeletons", () => {
	it("a parent cycle that was not cut does not hang: its entries are not reachable from a root, so not shown", () => {
		const s = skeleton(
			[
				{ id: "r", parent: null },
				{ id: "x", parent: "y" },
				{ id: "y", parent: "x" },
				{ id: "z", parent: "r" },
			],
			"x",
		);
		const v = computeTreeView(s, { filter: "all" });
		expect(ids(v)).toEqual(["r", "z"]);
		expect(Array.from(v.activePath)).toEqual([0, 1, 1, 0]);
	});
	it("an out-of-range parent index makes the entry a root", () => {
		const s = skeleton([
			{ id: "r", parent: null },
			{ id: "a", parent: "r" },
		]);
		s.parent[1] = 99;
		expect(Array.from(computeTreeView(s).roots)).toEqual([1, 0]); // the leaf's root first
	});
});

describe("hidden branches (Hide branch)", () => {
	// u -> a -> u2 (leaf); a -> x -> y (abandoned); u -> z (abandoned)
	const tree = skeleton([
		{ id: "u", parent: null },
		{ id: "a", parent: "u", kind: K.assistant },
		{ id: "u2", parent: "a" },
		{ id: "x", parent: "a" },
		{ id: "y", parent: "x", kind: K.assistant },
		{ id: "z", parent: "u" },
	]);
	const leafAt = tree.ids.indexOf("u2");
	const at = (id: string) => tree.ids.indexOf(id);
	it("leaves the hidden entry and its whole subtree out and reports the head", () => {
		const v = computeTreeView(tree, { leaf: leafAt, hidden: new Set([at("x")]) });
		expect(ids(v)).toEqual(["u", "a", "u2", "z"]);
		expect(Array.from(v.hiddenBranches)).toEqual([at("x")]);
		expect(childrenOf(v, at("a")).length).toBe(1);
	});
	it("never hides an entry on the active path, so the leaf stays visible", () => {
		const v = computeTreeView(tree, { leaf: leafAt, hidden: new Set([at("a"), at("u2"), at("z")]) });
		expect(ids(v)).toEqual(["u", "a", "u2", "x", "y"]);
		expect(Array.from(v.hiddenBranches)).toEqual([at("z")]);
	});
	it("without hidden branches the view is unchanged and reports none", () => {
		expect(ids(computeTreeView(tree, { leaf: leafAt }))).toEqual(["u", "a", "u2", "x", "y", "z"]);
		expect(computeTreeView(tree, { leaf: leafAt }).hiddenBranches.length).toBe(0);
	});
});
