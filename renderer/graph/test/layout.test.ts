import { describe, expect, it } from "vitest";
import { buildGraphModel } from "../compress";
import { computeGraphLayout } from "../layout";
import { GAP, GraphNodeKind, NODE_SIZE, type GraphLayout } from "../model";
import { generateSkeleton, piDefaultVisible, visibleTreeOf } from "./helpers";

function overlaps(l: GraphLayout, a: number, b: number): boolean {
	return l.x[a] < l.x[b] + l.w[b] && l.x[a] + l.w[a] > l.x[b] && l.y[a] < l.y[b] + l.h[b] && l.y[a] + l.h[a] > l.y[b];
}

describe("tidy-tree layout", () => {
	const s = generateSkeleton(3000, 3, 12);
	const m = buildGraphModel(s, visibleTreeOf(s, piDefaultVisible(s)));

	for (const dir of ["TB", "LR"] as const) {
		it(`places no two nodes on top of each other (${dir})`, () => {
			const l = computeGraphLayout(m, dir);
			// Group by level: only nodes sharing a depth band can touch.
			const byLevel = new Map<number, number[]>();
			for (let i = 0; i < l.n; i++) {
				const key = Math.round(dir === "TB" ? l.y[i] + l.h[i] / 2 : l.x[i] + l.w[i] / 2);
				const list = byLevel.get(key) ?? [];
				list.push(i);
				byLevel.set(key, list);
			}
			let pairs = 0;
			for (const list of byLevel.values()) {
				list.sort((a, b) => (dir === "TB" ? l.x[a] - l.x[b] : l.y[a] - l.y[b]));
				for (let k = 1; k < list.length; k++) {
					pairs++;
					expect(overlaps(l, list[k - 1], list[k])).toBe(false);
				}
			}
			expect(pairs).toBeGreaterThan(50);
		});

		it(`puts every child one level further than its parent (${dir})`, () => {
			const l = computeGraphLayout(m, dir);
			for (let i = 0; i < l.n; i++) {
				const p = m.parent[i];
				if (p < 0) continue;
				if (dir === "TB") expect(l.y[i] + l.h[i] / 2).toBeGreaterThan(l.y[p] + l.h[p]);
				else expect(l.x[i] + l.w[i] / 2).toBeGreaterThan(l.x[p] + l.w[p]);
			}
		});
	}

	it("keeps siblings in display order (active branch first = leftmost in TB)", () => {
		const l = computeGraphLayout(m, "TB");
		let checked = 0;
		for (let i = 1; i < l.n; i++) {
			for (let j = i + 1; j < l.n && j < i + 400; j++) {
				if (m.parent[j] === m.parent[i] && m.parent[i] >= 0) {
					expect(l.x[i]).toBeLessThan(l.x[j]);
					checked++;
					break;
				}
			}
		}
		expect(checked).toBeGreaterThan(10);
	});

	it("lays out several roots side by side and an empty graph as nothing", () => {
		const two = computeGraphLayout({ parent: Int32Array.from([-1, 0, -1]), kind: new Uint8Array(3) }, "TB");
		expect(two.y[0]).toBe(two.y[2]);
		expect(two.x[2]).toBeGreaterThanOrEqual(two.x[0] + two.w[0]);
		expect(computeGraphLayout({ parent: new Int32Array(0), kind: new Uint8Array(0) }, "LR").n).toBe(0);
	});

	it("bounds enclose every node", () => {
		const l = computeGraphLayout(m, "LR");
		for (let i = 0; i < l.n; i++) {
			expect(l.x[i]).toBeGreaterThanOrEqual(l.minX);
			expect(l.y[i] + l.h[i]).toBeLessThanOrEqual(l.maxY);
		}
	});

	it("puts a +N segment on its edge, between its parent's level and its child's, without a level of its own", () => {
		for (const dir of ["TB", "LR"] as const) {
			const l = computeGraphLayout(m, dir);
			let checked = 0;
			for (let g = 0; g < m.n; g++) {
				if (m.kind[g] !== GraphNodeKind.segment) continue;
				const p = m.parent[g];
				const c = m.parent.indexOf(g, g);
				expect(c).toBeGreaterThan(g);
				if (dir === "TB") {
					expect(l.y[g]).toBeGreaterThanOrEqual(l.y[p] + l.h[p]);
					expect(l.y[g] + l.h[g]).toBeLessThanOrEqual(l.y[c]);
					// One level apart: the child sits exactly one depth step below the parent.
					expect(l.y[c] - l.y[p]).toBeCloseTo(NODE_SIZE.entry.h + GAP.depthTB, 6);
				} else {
					expect(l.x[g]).toBeGreaterThanOrEqual(l.x[p] + l.w[p]);
					expect(l.x[g] + l.w[g]).toBeLessThanOrEqual(l.x[c]);
					expect(l.x[c] - l.x[p]).toBeCloseTo(NODE_SIZE.entry.w + GAP.depthLR, 6);
				}
				if (++checked > 300) break;
			}
			expect(checked).toBeGreaterThan(20);
		}
	});
});
