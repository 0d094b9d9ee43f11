import { describe, expect, it } from "vitest";
import { layoutRows } from "../layoutRows";
import { rowsExtent, rowsX, ROWS_INSET } from "../rowsFrame";

// A branchy little tree: its widest row starts after three lanes.
const layout = layoutRows(Int32Array.from([-1, 0, 1, 1, 0, 4]));

describe("rows frame (where the list sits sideways)", () => {
	it("at zoom 1 on a pane wider than a row, puts the lanes ROWS_INSET from the left edge whatever the lanes' width", () => {
		expect(rowsX(layout, 1400, 1)).toBeCloseTo(ROWS_INSET);
		const wide = layoutRows(Int32Array.from([-1, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
		expect(rowsX(wide, 1400, 1)).toBeCloseTo(ROWS_INSET);
	});

	it("zoomed in, shows the list from its left edge (the lanes never left of the pane)", () => {
		for (const zoom of [1.25, 2, 4]) {
			const x = rowsX(layout, 1400, zoom);
			expect(x).toBeCloseTo(ROWS_INSET * zoom);
			expect(x + layout.minX * zoom).toBeGreaterThanOrEqual(0);
		}
	});

	it("zoomed out, centres the list, which is narrower than the pane", () => {
		const [[left], [right]] = rowsExtent(layout, 1400);
		const x = rowsX(layout, 1400, 0.5);
		const leftGap = x + left * 0.5;
		const rightGap = 1400 - (x + right * 0.5);
		expect(leftGap).toBeGreaterThan(0);
		expect(leftGap).toBeCloseTo(rightGap);
	});

	it("on a pane narrower than a row, starts at the lanes and leaves the rest to a sideways scroll", () => {
		const [[left], [right]] = rowsExtent(layout, 400);
		expect(right - left).toBeGreaterThan(400);
		expect(rowsX(layout, 400, 1)).toBeCloseTo(ROWS_INSET);
	});

	it("is unbounded up and down (the list scrolls through every row)", () => {
		const [[, top], [, bottom]] = rowsExtent(layout, 1400);
		expect(top).toBe(-Infinity);
		expect(bottom).toBe(Infinity);
	});
});
