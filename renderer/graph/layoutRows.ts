// Rows layout: the session as a list, one row per node in pi's display order (pre-order, the active
// branch first), with the branches drawn as lanes on the left, the way a git history graph draws
// commits. Pre-order puts the root-to-leaf path in consecutive rows, so the active path reads as one
// straight lane and every branch leaves it sideways at its branch point.
//
// Lanes: a node that starts a lane (a root, or any child but the first) holds its lane from its parent's
// row down to the end of its first-child chain; the first child continues its parent's lane. Lanes are
// given greedily in order of start (interval colouring), so a finished lane is reused and the gutter
// only grows with the branches open at once. A row's card starts right after the lanes that run past it.

import { ROW, type GraphLayout } from "./model";

export function layoutRows(parent: Int32Array): GraphLayout {
	const n = parent.length;
	const x = new Float64Array(n);
	const y = new Float64Array(n);
	const w = new Float32Array(n).fill(ROW.w);
	const h = new Float32Array(n).fill(ROW.card);
	const lane = new Int32Array(n);
	if (n === 0) return { n, x, y, w, h, lane, direction: "rows", minX: 0, minY: 0, maxX: 0, maxY: 0 };

	// Pre-order: a node's first child, when it has one, is the very next node.
	const chainEnd = new Int32Array(n);
	for (let i = n - 1; i >= 0; i--) chainEnd[i] = i + 1 < n && parent[i + 1] === i ? chainEnd[i + 1] : i;
	// Lane starters and the row their lane starts on.
	const starters: number[] = [];
	const start = new Int32Array(n);
	for (let i = 0; i < n; i++) {
		const p = parent[i];
		const first = p >= 0 && p === i - 1;
		if (first) continue;
		start[i] = p >= 0 && p < i ? p : i;
		starters.push(i);
	}
	starters.sort((a, b) => start[a] - start[b] || a - b);
	const laneEnd: number[] = [];
	for (const s of starters) {
		let l = 0;
		while (l < laneEnd.length && laneEnd[l] >= start[s]) l++;
		laneEnd[l] = chainEnd[s];
		lane[s] = l;
	}
	for (let i = 0; i < n; i++) if (parent[i] === i - 1 && i > 0) lane[i] = lane[i - 1];

	// Widest lane running past each row (a difference array of lane ranges would lose the max).
	const widest = new Int32Array(n);
	for (const s of starters) {
		const l = lane[s];
		for (let r = start[s]; r <= chainEnd[s]; r++) if (widest[r] < l) widest[r] = l;
	}

	let maxX = 0;
	for (let i = 0; i < n; i++) {
		x[i] = (widest[i] + 1) * ROW.lane + ROW.pad;
		y[i] = i * ROW.h;
		if (x[i] + ROW.w > maxX) maxX = x[i] + ROW.w;
	}
	return { n, x, y, w, h, lane, direction: "rows", minX: 0, minY: 0, maxX, maxY: (n - 1) * ROW.h + ROW.card };
}

/** Centre of a node's lane dot (flow coordinates). */
export const laneX = (lane: number): number => lane * ROW.lane + ROW.lane / 2;
export const rowY = (row: number): number => row * ROW.h + ROW.card / 2;
