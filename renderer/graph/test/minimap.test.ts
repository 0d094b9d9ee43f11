// The minimap keeps off the leaf (issue #11): it leaves its corner when the leaf's card would sit under it.
import { describe, expect, it } from "vitest";
import { chooseCorner, cornerRect } from "../Minimap";

describe("minimap corner", () => {
	const W = 1000;
	const H = 700;
	it("stays bottom-right while the leaf is elsewhere", () => {
		expect(chooseCorner("bottom-right", { x: 400, y: 300, w: 240, h: 80 }, W, H, 200, 140)).toBe("bottom-right");
		expect(chooseCorner("bottom-right", null, W, H, 200, 140)).toBe("bottom-right");
	});
	it("moves to the next free corner when the leaf would be covered, and stays there", () => {
		const leaf = { x: 850, y: 600, w: 120, h: 60 };
		const c = chooseCorner("bottom-right", leaf, W, H, 200, 140);
		expect(c).toBe("bottom-left");
		expect(chooseCorner(c, { x: 500, y: 300, w: 100, h: 50 }, W, H, 200, 140)).toBe("bottom-left");
		// A leaf at the bottom-left sends it back to the (now free) bottom-right; a wide leaf row to the top-left.
		expect(chooseCorner(c, { x: 20, y: 620, w: 100, h: 50 }, W, H, 200, 140)).toBe("bottom-right");
		expect(chooseCorner(c, { x: 20, y: 620, w: 960, h: 50 }, W, H, 200, 140)).toBe("top-left");
	});
	it("of the free corners, takes the one covering the least of the drawing", () => {
		// The rows view at 1280×720: rows fill the left 750 px of an 860 px pane, the leaf row near the bottom.
		const rows = { x: 8, y: -2000, w: 740, h: 4000 };
		const leafRow = { x: 185, y: 520, w: 560, h: 22 };
		expect(chooseCorner("bottom-right", leafRow, 860, 640, 200, 140)).toBe("top-left");
		expect(chooseCorner("bottom-right", leafRow, 860, 640, 200, 140, rows)).toBe("top-right");
		// Ties keep the corners' order.
		expect(chooseCorner("bottom-right", leafRow, 860, 640, 200, 140, { x: 0, y: 0, w: 1, h: 1 })).toBe("top-left");
	});
	it("counts a clearance around the leaf and keeps its corner when all would cover it", () => {
		const r = cornerRect("bottom-right", W, H, 200, 140);
		expect(chooseCorner("bottom-right", { x: r.x - 5 - 100, y: r.y, w: 100, h: 20 }, W, H, 200, 140)).not.toBe("bottom-right");
		expect(chooseCorner("bottom-right", { x: 0, y: 0, w: W, h: H }, W, H, 200, 140)).toBe("bottom-right");
	});
});
