// Culling: which graph nodes get a React component right now. React Flow slows to a crawl past ~2k
// mounted nodes (TOOLCHAIN.md "Measured scale"), so we mount only what the viewport shows, capped.

import type { GraphLayout, GraphModel, Rect } from "./model";
import { queryRect, type SpatialIndex } from "./spatial";

export const MOUNT_BUDGET = 1000;

export interface CullOptions {
	/** Hard cap on mounted nodes. */
	budget?: number;
	/** Extra flow-space margin around the view so panning does not show empty edges first. */
	margin?: number;
	/** Dragged nodes (graph node -> top-left) that no longer sit where the index thinks. */
	overrides?: ReadonlyMap<number, { x: number; y: number }>;
}

/** Flow-space rectangle shown by a React Flow viewport of the given pixel size. */
export function viewRect(vp: { x: number; y: number; zoom: number }, width: number, height: number): Rect {
	const z = vp.zoom > 0 ? vp.zoom : 1;
	return { x: -vp.x / z, y: -vp.y / z, w: width / z, h: height / z };
}

/**
 * Graph nodes to mount, ascending (pre-order). Nearest-to-centre nodes win when the view holds more than
 * the budget; then the parents and children of those nodes are added (within the budget), so every
 * edge with one end in view is drawn whole.
 */
export function cullNodes(index: SpatialIndex, model: GraphModel, view: Rect, opts: CullOptions = {}): number[] {
	const budget = opts.budget ?? MOUNT_BUDGET;
	const margin = opts.margin ?? 0;
	const rect: Rect = { x: view.x - margin, y: view.y - margin, w: view.w + 2 * margin, h: view.h + 2 * margin };
	const layout = index.layout;
	let found = queryRect(index, rect);
	if (opts.overrides && opts.overrides.size > 0) found = applyOverrides(found, layout, rect, opts.overrides);

	const inView = Math.floor(budget * 0.85);
	if (found.length > inView) {
		const cx = view.x + view.w / 2;
		const cy = view.y + view.h / 2;
		const dist = (i: number): number => {
			const dx = layout.x[i] + layout.w[i] / 2 - cx;
			const dy = layout.y[i] + layout.h[i] / 2 - cy;
			return dx * dx + dy * dy;
		};
		found.sort((a, b) => dist(a) - dist(b));
		found.length = inView;
	}
	// Both ends of every edge that touches the view: off-screen parents first (edges entering from
	// above), then off-screen children, so an edge leaving the view is drawn to its real end instead of
	// stopping at the last mounted card (the tree would look cut while panning).
	const mounted = new Set(found);
	for (const i of found) {
		if (mounted.size >= budget) break;
		const p = model.parent[i];
		if (p >= 0 && !mounted.has(p)) mounted.add(p);
	}
	const kids = childIndex(model);
	for (const i of found) {
		for (let k = kids.start[i]; k < kids.start[i + 1] && mounted.size < budget; k++) mounted.add(kids.list[k]);
		if (mounted.size >= budget) break;
	}
	return Array.from(mounted).sort((a, b) => a - b);
}

/** Children of every graph node, CSR: the children of g are list[start[g] .. start[g + 1]], in order. */
export interface ChildIndex {
	start: Int32Array;
	list: Int32Array;
}

const childIndexes = new WeakMap<GraphModel, ChildIndex>();

export function buildChildIndex(parent: Int32Array): ChildIndex {
	const n = parent.length;
	const start = new Int32Array(n + 1);
	for (let g = 0; g < n; g++) if (parent[g] >= 0) start[parent[g] + 1]++;
	for (let g = 0; g < n; g++) start[g + 1] += start[g];
	const fill = start.slice(0, n);
	const list = new Int32Array(start[n]);
	for (let g = 0; g < n; g++) if (parent[g] >= 0) list[fill[parent[g]]++] = g;
	return { start, list };
}

/** The child index of a model built elsewhere (the layout worker), so the first cull does not build it. */
export function adoptChildIndex(model: GraphModel, c: ChildIndex): void {
	if (c.start.length === model.n + 1) childIndexes.set(model, c);
}

/** Children of every graph node, built once per model (unless the layout worker sent it). */
function childIndex(model: GraphModel): ChildIndex {
	let c = childIndexes.get(model);
	if (c) return c;
	c = buildChildIndex(model.parent);
	childIndexes.set(model, c);
	return c;
}

function applyOverrides(found: number[], layout: GraphLayout, r: Rect, overrides: ReadonlyMap<number, { x: number; y: number }>): number[] {
	const out = found.filter((i) => !overrides.has(i));
	for (const [i, p] of overrides) {
		if (i >= layout.n) continue;
		if (p.x < r.x + r.w && p.x + layout.w[i] > r.x && p.y < r.y + r.h && p.y + layout.h[i] > r.y) out.push(i);
	}
	return out;
}
