// Rows layout: the session as a list, one row per node in pi's display order (pre-order, the active
// branch first), with the branches drawn as lanes on the left, the way a git history graph draws
// commits. Pre-order puts the root-to-leaf path in consecutive rows, so the active path reads as one
// straight lane and every branch leaves it sideways at its branch point.
//
// Lanes: a node that starts a lane (a root, or any child but the first) holds its lane from its parent's
// row down to the end of its first-child chain; the first child continues its parent's lane. A chain's
// rows are consecutive (a first child is the next row), so the only long line of a lane is its branch-off,
// from the branch point down past the rows of the earlier branches. Lanes are given greedily in order of
// start (interval colouring), so a finished lane is reused. At most MAX_LANES lanes are drawn: a big
// session has hundreds of branches open at once below its active path (a 100k-entry one: ~700), and a
// gutter that wide would push the text off screen (omp's tree has that bug). A branch that finds no free
// lane is drawn in the last column with a cut branch-off (a stub at both ends, `laneCut`).
// A row's card starts right after the lanes that run past it. Linear in rows × MAX_LANES.

import { ROW, type GraphLayout } from "./model";

export const MAX_LANES = 12;

export function layoutRows(parent: Int32Array): GraphLayout {
	const n = parent.length;
	const x = new Float64Array(n);
	const y = new Float64Array(n);
	const w = new Float32Array(n).fill(ROW.w);
	const h = new Float32Array(n).fill(ROW.card);
	const lane = new Int32Array(n);
	const laneCut = new Uint8Array(n);
	if (n === 0) return { n, x, y, w, h, lane, laneCut, direction: "rows", minX: 0, minY: 0, maxX: 0, maxY: 0 };

	// Pre-order: a node's first child, when it has one, is the very next node.
	const isFirst = (i: number): boolean => i > 0 && parent[i] === i - 1;
	const chainEnd = new Int32Array(n);
	for (let i = n - 1; i >= 0; i--) chainEnd[i] = i + 1 < n && isFirst(i + 1) ? chainEnd[i + 1] : i;
	// Lane starters, by the row their lane starts on (the branch point), then in row order.
	const start = new Int32Array(n);
	let count = 0;
	for (let i = 0; i < n; i++) {
		if (isFirst(i)) continue;
		const p = parent[i];
		start[i] = p >= 0 && p < i ? p : i;
		count++;
	}
	const starters = new Int32Array(count);
	for (let i = 0, k = 0; i < n; i++) if (!isFirst(i)) starters[k++] = i;
	starters.sort((a, b) => start[a] - start[b] || a - b);

	const laneEnd = new Int32Array(MAX_LANES).fill(-1);
	// widest[r]: the last lane column in use on row r (its card starts after it).
	const widest = new Int32Array(n);
	for (let k = 0; k < count; k++) {
		const s = starters[k];
		let l = 0;
		while (l < MAX_LANES && laneEnd[l] >= start[s]) l++;
		if (l === MAX_LANES) {
			l = MAX_LANES - 1;
			laneCut[s] = 1;
			for (let r = s; r <= chainEnd[s]; r++) if (widest[r] < l) widest[r] = l;
		} else {
			laneEnd[l] = chainEnd[s];
			for (let r = start[s]; r <= chainEnd[s]; r++) if (widest[r] < l) widest[r] = l;
		}
		lane[s] = l;
	}
	for (let i = 1; i < n; i++) if (isFirst(i)) lane[i] = lane[i - 1];

	let maxX = 0;
	for (let i = 0; i < n; i++) {
		x[i] = (widest[i] + 1) * ROW.lane + ROW.pad;
		y[i] = i * ROW.h;
		if (x[i] + ROW.w > maxX) maxX = x[i] + ROW.w;
	}
	return { n, x, y, w, h, lane, laneCut, direction: "rows", minX: 0, minY: 0, maxX, maxY: (n - 1) * ROW.h + ROW.card };
}

/** Centre of a node's lane dot (flow coordinates). */
export const laneX = (lane: number): number => lane * ROW.lane + ROW.lane / 2;
export const rowY = (row: number): number => row * ROW.h + ROW.card / 2;
