// computeRollups from the skeleton alone: the cost column, and pi 1.x `usage` / omp `model_usage` records
// billing the entry they hang under; a live delta carries the column so the roll-ups follow appends.
import { describe, expect, it } from "vitest";
import { billsParent, computeRollups, rollupAt } from "../rollup";
import { EntryKind, applySkeletonDelta, type SkeletonDelta } from "../skeleton";
import { skeleton } from "./skeleton-builder";

function costed() {
	const sk = skeleton([
		{ id: "u", parent: null },
		{ id: "a", parent: "u", kind: EntryKind.assistant },
		{ id: "w", parent: "a", kind: EntryKind.usage },
		{ id: "m", parent: "a", kind: EntryKind.modelUsage },
		{ id: "c", parent: "a", kind: EntryKind.compaction },
	]);
	sk.cost.set([0, 0.5, 0.25, 0.125, 2]);
	return sk;
}

describe("roll-ups from the skeleton's cost column", () => {
	it("hidden usage / model_usage records bill their parent; other carriers keep their own cost", () => {
		const r = computeRollups(costed());
		expect([0, 1, 2, 3, 4].map((i) => rollupAt(r, i).cost)).toEqual([2.875, 2.875, 0, 0, 2]);
		expect(billsParent(EntryKind.usage) && billsParent(EntryKind.modelUsage) && !billsParent(EntryKind.assistant)).toBe(true);
	});

	it("explicit inputs still override the column", () => {
		const sk = costed();
		expect(rollupAt(computeRollups(sk, { costs: [1, 0, 0, 0, 0] }), 0).cost).toBe(1);
		expect(rollupAt(computeRollups(sk, { attachToParent: () => false }), 2).cost).toBe(0.25);
	});

	it("a live delta carries the column: the roll-ups of the grown skeleton include the new costs", () => {
		const sk = costed();
		const d: SkeletonDelta = {
			start: 5,
			ids: ["a2", "w2"],
			parent: Int32Array.of(4, 5),
			kind: Uint8Array.of(EntryKind.assistant, EntryKind.usage),
			flags: new Uint16Array(2),
			time: Float64Array.of(Number.NaN, Number.NaN),
			tokens: new Float64Array(2),
			cost: Float64Array.of(1, 0.0625),
			labels: [],
			leaf: 5,
			resumeLeaf: 5,
		};
		const grown = applySkeletonDelta(sk, d);
		expect(Array.from(grown.cost)).toEqual([0, 0.5, 0.25, 0.125, 2, 1, 0.0625]);
		const r = computeRollups(grown);
		expect(rollupAt(r, 0).cost).toBe(2.875 + 1.0625);
		expect(rollupAt(r, 5).cost).toBe(1.0625);
	});
});
