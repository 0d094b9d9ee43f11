import { describe, expect, it } from "vitest";
import { layoutRows, MAX_LANES } from "../layoutRows";
import { ROW } from "../model";

// Pre-order parents: 0 -> 1 -> 2 (leaf path), 1 -> 3 (a branch), 0 -> 4 -> 5 (another).
//   row 0: 0        lane 0
//   row 1: 1        lane 0
//   row 2: 2        lane 0
//   row 3: 3        lane 2 (leaves 1 at row 1, when lanes 0 and 1 are taken)
//   row 4: 4        lane 1 (leaves 0 at row 0: the first lane free there)
//   row 5: 5        lane 1
const parent = Int32Array.from([-1, 0, 1, 1, 0, 4]);

describe("rows layout", () => {
	it("puts every node on its own row in pre-order, first children in their parent's lane", () => {
		const l = layoutRows(parent);
		expect(Array.from(l.y)).toEqual([0, 1, 2, 3, 4, 5].map((r) => r * ROW.h));
		expect(Array.from(l.lane ?? [])).toEqual([0, 0, 0, 2, 1, 1]);
		expect(Array.from(l.laneCut ?? [])).toEqual([0, 0, 0, 0, 0, 0]);
	});

	it("starts each row's card after the lanes running past it", () => {
		const l = layoutRows(parent);
		// Rows 1-3 have lanes 0..2 open; rows 0, 4 and 5 lanes 0..1.
		expect(Array.from(l.x)).toEqual([2, 3, 3, 3, 2, 2].map((k) => k * ROW.lane + ROW.pad));
		// A straight chain has one lane.
		const chain = layoutRows(Int32Array.from([-1, 0, 1, 2]));
		expect(Array.from(chain.x)).toEqual([1, 1, 1, 1].map((k) => k * ROW.lane + ROW.pad));
	});

	it("gives branches leaving one point their own lanes, and reuses a lane once its branch has ended", () => {
		// Four children of 0: each later one leaves at row 0 and needs its own lane.
		const l = layoutRows(Int32Array.from([-1, 0, 0, 0, 3, 0]));
		expect(Array.from(l.lane ?? [])).toEqual([0, 0, 1, 2, 2, 3]);
		// 0 -> 1 ends at row 1, so lane 0 is free again when 3 branches to 5 at row 3.
		const m = layoutRows(Int32Array.from([-1, 0, 0, 2, 3, 3]));
		expect(Array.from(m.lane ?? [])).toEqual([0, 0, 1, 1, 1, 0]);
	});

	it("cuts branches beyond MAX_LANES instead of widening the gutter", () => {
		const n = MAX_LANES + 6;
		// A root with n - 1 children: all start at row 0.
		const star = Int32Array.from({ length: n }, (_, i) => (i === 0 ? -1 : 0));
		const l = layoutRows(star);
		const lanes = Array.from(l.lane ?? []);
		expect(Math.max(...lanes)).toBe(MAX_LANES - 1);
		// Lane 0 holds the root and its first child; 11 more branches get lanes 1..11, the rest are cut.
		expect(Array.from(l.laneCut ?? []).filter(Boolean).length).toBe(n - 2 - (MAX_LANES - 1));
		expect(Math.max(...Array.from(l.x))).toBe(MAX_LANES * ROW.lane + ROW.pad);
	});
});
