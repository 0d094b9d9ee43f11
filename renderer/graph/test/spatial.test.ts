import { describe, expect, it } from "vitest";
import { buildGraphModel } from "../compress";
import { cullNodes, MOUNT_BUDGET, viewRect } from "../cull";
import { computeGraphLayout } from "../layout";
import type { GraphLayout, Rect } from "../model";
import { buildSpatialIndex, nearestNode, queryRect } from "../spatial";
import { generateSkeleton, piDefaultVisible, visibleTreeOf } from "./helpers";

function brute(l: GraphLayout, r: Rect): number[] {
	const out: number[] = [];
	for (let i = 0; i < l.n; i++) {
		if (l.x[i] < r.x + r.w && l.x[i] + l.w[i] > r.x && l.y[i] < r.y + r.h && l.y[i] + l.h[i] > r.y) out.push(i);
	}
	return out;
}

describe("spatial index", () => {
	const s = generateSkeleton(5000, 11, 15);
	const m = buildGraphModel(s, visibleTreeOf(s, piDefaultVisible(s)));
	const l = computeGraphLayout(m, "TB");
	const index = buildSpatialIndex(l, 300);

	it("answers rectangle queries exactly like a full scan, each node once", () => {
		let seed = 5;
		const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
		for (let q = 0; q < 60; q++) {
			const r = {
				x: l.minX + rand() * (l.maxX - l.minX) - 500,
				y: l.minY + rand() * (l.maxY - l.minY) - 500,
				w: 50 + rand() * 5000,
				h: 50 + rand() * 3000,
			};
			const got = queryRect(index, r).sort((a, b) => a - b);
			expect(got).toEqual(brute(l, r));
		}
	});

	it("finds nothing outside the drawing", () => {
		expect(queryRect(index, { x: l.maxX + 10, y: l.maxY + 10, w: 100, h: 100 })).toEqual([]);
		expect(queryRect(index, { x: l.minX - 1000, y: l.minY - 1000, w: 10, h: 10 })).toEqual([]);
	});

	it("finds the node under or nearest to a point", () => {
		const i = Math.floor(l.n / 3);
		expect(nearestNode(index, l.x[i] + 3, l.y[i] + 3, 50)).toBe(i);
		expect(nearestNode(index, l.maxX + 10_000, l.maxY + 10_000, 50)).toBe(-1);
	});
});

describe("culling", () => {
	const s = generateSkeleton(100_000, 1);
	const m = buildGraphModel(s, visibleTreeOf(s, piDefaultVisible(s)));
	const l = computeGraphLayout(m, "TB");
	const index = buildSpatialIndex(l);

	it("mounts at most 1,000 nodes of a 100k-entry session even when the view shows everything", () => {
		expect(m.n).toBeGreaterThan(MOUNT_BUDGET * 5);
		const all = { x: l.minX, y: l.minY, w: l.maxX - l.minX, h: l.maxY - l.minY };
		const mounted = cullNodes(index, m, all);
		expect(mounted.length).toBeLessThanOrEqual(MOUNT_BUDGET);
		expect(mounted.length).toBeGreaterThan(MOUNT_BUDGET * 0.8);
	});

	it("mounts what a 1920x1080 view at zoom 0.25 shows around the leaf, plus off-screen parents and children", () => {
		const leafNode = m.nodeOfEntry[s.leaf];
		const vp = { x: -(l.x[leafNode] * 0.25) + 960, y: -(l.y[leafNode] * 0.25) + 540, zoom: 0.25 };
		const view = viewRect(vp, 1920, 1080);
		const mounted = cullNodes(index, m, view);
		const inView = brute(l, view);
		expect(mounted.length).toBeLessThanOrEqual(MOUNT_BUDGET);
		expect(mounted).toContain(leafNode);
		for (const i of inView) expect(mounted).toContain(i);
		for (const i of mounted) if (!inView.includes(i)) expect(inView.some((c) => m.parent[c] === i || m.parent[i] === c)).toBe(true);
	});

	it("mounts both ends of every edge that touches the view, so no edge stops at the culling margin", () => {
		// A view whose bottom edge cuts through the tree: children just below it must be mounted too.
		const leafNode = m.nodeOfEntry[s.leaf];
		for (const margin of [0, 40]) {
			const view = { x: l.x[leafNode] - 800, y: l.y[leafNode] - 1200, w: 1600, h: 1000 };
			const mounted = new Set(cullNodes(index, m, view, { margin }));
			const touching = new Set(brute(l, { x: view.x - margin, y: view.y - margin, w: view.w + 2 * margin, h: view.h + 2 * margin }));
			let cut = 0;
			for (let g = 0; g < m.n; g++) {
				const p = m.parent[g];
				if (p >= 0 && (touching.has(g) || touching.has(p)) && !(mounted.has(g) && mounted.has(p))) cut++;
			}
			expect(cut).toBe(0);
			const below = brute(l, { x: view.x - margin, y: view.y + view.h + margin, w: view.w + 2 * margin, h: 400 }).filter(
				(g) => !touching.has(g) && touching.has(m.parent[g]),
			);
			expect(below.length).toBeGreaterThan(0);
			for (const g of below) expect(mounted.has(g)).toBe(true);
		}
	});

	it("follows a dragged node to where it was dropped", () => {
		const view = { x: l.maxX + 5000, y: l.minY, w: 1000, h: 1000 };
		expect(cullNodes(index, m, view)).toEqual([]);
		const mounted = cullNodes(index, m, view, { overrides: new Map([[42, { x: view.x + 10, y: view.y + 10 }]]) });
		expect(mounted).toContain(42);
	});
});
