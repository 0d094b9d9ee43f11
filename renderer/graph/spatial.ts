// A uniform-grid spatial index over laid-out node boxes: answers "which nodes touch this rectangle" in
// time proportional to the answer, which is what culling needs on every pan/zoom frame.

import type { GraphLayout, Rect } from "./model";

export interface SpatialIndex {
	cell: number;
	cols: number;
	rows: number;
	originX: number;
	originY: number;
	/** CSR buckets: nodes of cell c are items[start[c] .. start[c+1]]. */
	start: Int32Array;
	items: Int32Array;
	/** Per-node visit stamp so a node spanning several cells is reported once per query. */
	stamp: Uint32Array;
	generation: number;
	layout: GraphLayout;
}

/** Keep the grid at most ~2 cells per node (memory) and cells at least as large as a card (few duplicates). */
export function buildSpatialIndex(layout: GraphLayout, minCell = 512): SpatialIndex {
	const { n } = layout;
	const width = Math.max(1, layout.maxX - layout.minX);
	const height = Math.max(1, layout.maxY - layout.minY);
	let cell = minCell;
	const maxCells = Math.max(64, 2 * n);
	while (Math.ceil(width / cell) * Math.ceil(height / cell) > maxCells) cell *= 2;
	const cols = Math.max(1, Math.ceil(width / cell));
	const rows = Math.max(1, Math.ceil(height / cell));
	const originX = n > 0 ? layout.minX : 0;
	const originY = n > 0 ? layout.minY : 0;
	// Cell span per node, computed once (no per-node allocation: this runs on every re-layout of 25k nodes).
	const c0 = new Int32Array(n);
	const r0 = new Int32Array(n);
	const c1 = new Int32Array(n);
	const r1 = new Int32Array(n);
	const start = new Int32Array(cols * rows + 1);
	for (let i = 0; i < n; i++) {
		c0[i] = clamp(Math.floor((layout.x[i] - originX) / cell), 0, cols - 1);
		r0[i] = clamp(Math.floor((layout.y[i] - originY) / cell), 0, rows - 1);
		c1[i] = clamp(Math.floor((layout.x[i] + layout.w[i] - originX) / cell), 0, cols - 1);
		r1[i] = clamp(Math.floor((layout.y[i] + layout.h[i] - originY) / cell), 0, rows - 1);
		for (let r = r0[i]; r <= r1[i]; r++) for (let c = c0[i]; c <= c1[i]; c++) start[r * cols + c + 1]++;
	}
	for (let c = 0; c < cols * rows; c++) start[c + 1] += start[c];
	const fill = start.slice(0, cols * rows);
	const items = new Int32Array(start[cols * rows]);
	for (let i = 0; i < n; i++) {
		for (let r = r0[i]; r <= r1[i]; r++) for (let c = c0[i]; c <= c1[i]; c++) items[fill[r * cols + c]++] = i;
	}
	return { cell, cols, rows, originX, originY, start, items, stamp: new Uint32Array(n), generation: 0, layout };
}

/** Nodes whose box intersects `rect` (flow coordinates), each once, in no particular order. */
export function queryRect(index: SpatialIndex, rect: Rect, out: number[] = []): number[] {
	const { cell, cols, rows, originX, originY, start, items, stamp, layout } = index;
	if (layout.n === 0) return out;
	index.generation = (index.generation + 1) >>> 0;
	if (index.generation === 0) {
		stamp.fill(0);
		index.generation = 1;
	}
	const g = index.generation;
	const c0 = clamp(Math.floor((rect.x - originX) / cell), 0, cols - 1);
	const r0 = clamp(Math.floor((rect.y - originY) / cell), 0, rows - 1);
	const c1 = clamp(Math.floor((rect.x + rect.w - originX) / cell), 0, cols - 1);
	const r1 = clamp(Math.floor((rect.y + rect.h - originY) / cell), 0, rows - 1);
	if (rect.x + rect.w < originX || rect.y + rect.h < originY) return out;
	for (let r = r0; r <= r1; r++) {
		for (let c = c0; c <= c1; c++) {
			const cellIdx = r * cols + c;
			for (let k = start[cellIdx]; k < start[cellIdx + 1]; k++) {
				const i = items[k];
				if (stamp[i] === g) continue;
				stamp[i] = g;
				if (intersects(layout, i, rect)) out.push(i);
			}
		}
	}
	return out;
}

/** The node nearest to a point (for clicks on the canvas overview), or -1 beyond `maxDist`. */
export function nearestNode(index: SpatialIndex, px: number, py: number, maxDist: number): number {
	const found = queryRect(index, { x: px - maxDist, y: py - maxDist, w: 2 * maxDist, h: 2 * maxDist });
	const { layout } = index;
	let best = -1;
	let bestD = maxDist * maxDist;
	for (const i of found) {
		const dx = Math.max(layout.x[i] - px, 0, px - (layout.x[i] + layout.w[i]));
		const dy = Math.max(layout.y[i] - py, 0, py - (layout.y[i] + layout.h[i]));
		const d = dx * dx + dy * dy;
		if (d <= bestD) {
			bestD = d;
			best = i;
		}
	}
	return best;
}

function intersects(l: GraphLayout, i: number, r: Rect): boolean {
	return l.x[i] < r.x + r.w && l.x[i] + l.w[i] > r.x && l.y[i] < r.y + r.h && l.y[i] + l.h[i] > r.y;
}

function clamp(v: number, lo: number, hi: number): number {
	return v < lo ? lo : v > hi ? hi : v;
}
