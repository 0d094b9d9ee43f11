// The Branches panel's filter rule (shared/branches.ts): a branch is found by a user prompt or a label
// anywhere on its path from the first entry to its leaf, and shows the match nearest its leaf.
import { describe, expect, it } from "vitest";
import { computeBranches, nearestMarkedOnPath, promptOrLabelMatches } from "../branches";
import { EntryKind } from "../skeleton";
import { labelsByIndex } from "../tree-view";
import { skeleton } from "./skeleton-builder";

//  u0 "plan the auth refactor"
//  ├─ a1 (label "auth work") ─ u2 "write tests" ─ a3            branch A
//  │                        └─ u4 "rename the module" ─ a5       branch B (a5 labelled "keep this")
//  └─ a6                                                         branch C
const sk = skeleton([
	{ id: "u0", parent: null },
	{ id: "a1", parent: "u0", kind: EntryKind.assistant, label: "auth work" },
	{ id: "u2", parent: "a1" },
	{ id: "a3", parent: "u2", kind: EntryKind.assistant },
	{ id: "u4", parent: "a1" },
	{ id: "a5", parent: "u4", kind: EntryKind.assistant, label: "keep this" },
	{ id: "a6", parent: "u0", kind: EntryKind.assistant },
]);
const labels = labelsByIndex(sk);
const at = (id: string): number => sk.ids.indexOf(id);
/** Leaves found by the search hits for `query`, each with the id of the match shown for it. */
function found(hits: string[], query: string): Record<string, string> {
	const near = nearestMarkedOnPath(sk, promptOrLabelMatches(sk, hits.map(at), labels, query));
	const out: Record<string, string> = {};
	for (const r of computeBranches(sk)) if (near[r.leaf] >= 0) out[sk.ids[r.leaf]] = sk.ids[near[r.leaf]];
	return out;
}

describe("Branches filter (any prompt or label on the path)", () => {
	it("finds every branch below a matching first prompt, not only branches whose last prompt matches", () => {
		expect(found(["u0"], "refactor")).toEqual({ a3: "u0", a5: "u0", a6: "u0" });
	});

	it("finds only the branches through a prompt typed below a fork", () => {
		expect(found(["u4"], "rename")).toEqual({ a5: "u4" });
	});

	it("shows the match nearest the leaf when several prompts on the path match", () => {
		expect(found(["u0", "u2"], "the")).toEqual({ a3: "u2", a5: "u0", a6: "u0" });
	});

	it("ignores hits that are not user prompts (an assistant answer holding the words)", () => {
		expect(found(["a3", "a6"], "tests")).toEqual({});
	});

	it("matches a label on the leaf or higher up the path, every word in it", () => {
		expect(found([], "keep")).toEqual({ a5: "a5" });
		expect(found([], "auth work")).toEqual({ a3: "a1", a5: "a1" });
		expect(found([], '"work auth"')).toEqual({});
		expect(found([], "auth keep")).toEqual({});
	});

	it("finds nothing for an empty query or no hits", () => {
		expect(found([], "")).toEqual({});
		expect(found([], "nothing")).toEqual({});
	});
});
