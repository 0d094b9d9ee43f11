// Canvas drawing shared by the zoomed-out overview and the minimap: every node as a box or a dot and
// every edge as a line, in two batched paths (plain, active path) so tens of thousands draw in a frame.

import { GraphNodeKind, type GraphLayout, type GraphModel } from "./model";
import { queryRect, type SpatialIndex } from "./spatial";

export interface DrawColors {
	edge: string;
	active: string;
	node: string;
	user: string;
	segment: string;
	selected: string;
	leaf: string;
	match: string;
}

/** Colours from the graph's CSS variables (graph.css), so the canvas follows light/dark like the cards. */
export function readColors(el: Element): DrawColors {
	const cs = getComputedStyle(el);
	const v = (name: string, fallback: string): string => cs.getPropertyValue(name).trim() || fallback;
	return {
		edge: v("--arbor-graph-edge", "#9aa4b2"),
		active: v("--arbor-graph-active", "#2f6fed"),
		node: v("--arbor-graph-dot", "#7d8795"),
		user: v("--arbor-graph-user", "#1f9d74"),
		segment: v("--arbor-graph-segment", "#b6bec9"),
		selected: v("--arbor-graph-selected", "#f59e0b"),
		leaf: v("--arbor-graph-leaf", "#e5484d"),
		match: v("--arbor-graph-match", "#eab308"),
	};
}

export interface DrawInput {
	model: GraphModel;
	layout: GraphLayout;
	/** Entry kind per entry index (user cards get their own colour). */
	kind: Uint8Array;
	activePath: Uint8Array | null;
	selectedNode: number;
	leafNode: number;
	matches: ReadonlySet<number> | null;
	/** Flow -> canvas pixels: px = x * zoom + tx. */
	tx: number;
	ty: number;
	zoom: number;
	width: number;
	height: number;
	/** When given, only nodes in the canvas' view (plus their parents, for edges) are drawn. */
	index?: SpatialIndex;
	colors: DrawColors;
}

export function drawGraph(ctx: CanvasRenderingContext2D, d: DrawInput): void {
	const { model, layout, zoom, tx, ty } = d;
	ctx.clearRect(0, 0, d.width, d.height);
	let nodes: ArrayLike<number>;
	if (d.index) {
		nodes = queryRect(d.index, { x: -tx / zoom, y: -ty / zoom, w: d.width / zoom, h: d.height / zoom });
	} else {
		const all = new Int32Array(layout.n);
		for (let i = 0; i < layout.n; i++) all[i] = i;
		nodes = all;
	}
	const cx = (i: number): number => (layout.x[i] + layout.w[i] / 2) * zoom + tx;
	const cy = (i: number): number => (layout.y[i] + layout.h[i] / 2) * zoom + ty;
	const onPath = (g: number): boolean => d.activePath !== null && d.activePath[model.entry[g]] === 1;

	// Edges: each node draws the line to its parent (parents off-canvas included: the line enters the view).
	const plain = new Path2D();
	const active = new Path2D();
	for (let k = 0; k < nodes.length; k++) {
		const g = nodes[k];
		const p = model.parent[g];
		if (p < 0) continue;
		const path = onPath(g) && onPath(p) ? active : plain;
		path.moveTo(cx(p), cy(p));
		path.lineTo(cx(g), cy(g));
	}
	ctx.lineWidth = 1;
	ctx.strokeStyle = d.colors.edge;
	ctx.stroke(plain);
	ctx.lineWidth = 2;
	ctx.strokeStyle = d.colors.active;
	ctx.stroke(active);

	// Nodes: boxes when they are at least a few pixels wide, dots otherwise; one path per colour.
	const boxes = 240 * zoom >= 6;
	const r = Math.max(1.5, Math.min(4, 30 * zoom));
	const buckets = { match: new Path2D(), active: new Path2D(), segment: new Path2D(), user: new Path2D(), node: new Path2D() };
	for (let k = 0; k < nodes.length; k++) {
		const g = nodes[k];
		const e = model.entry[g];
		const kind = model.kind[g];
		const bucket =
			d.matches !== null && kind === GraphNodeKind.entry && d.matches.has(e) ? buckets.match
			: onPath(g) ? buckets.active
			: kind === GraphNodeKind.segment || kind === GraphNodeKind.foldStub ? buckets.segment
			: d.kind[e] === 0 ? buckets.user
			: buckets.node;
		if (boxes) bucket.rect(layout.x[g] * zoom + tx, layout.y[g] * zoom + ty, Math.max(1, layout.w[g] * zoom), Math.max(1, layout.h[g] * zoom));
		else bucket.rect(cx(g) - r / 2, cy(g) - r / 2, r, r);
	}
	for (const [name, path] of Object.entries(buckets) as [keyof typeof buckets, Path2D][]) {
		ctx.fillStyle = d.colors[name];
		ctx.fill(path);
	}
	for (const [g, color] of [[d.leafNode, d.colors.leaf], [d.selectedNode, d.colors.selected]] as const) {
		if (g < 0 || g >= layout.n) continue;
		ctx.strokeStyle = color;
		ctx.lineWidth = 2;
		ctx.beginPath();
		ctx.arc(cx(g), cy(g), Math.max(6, Math.min(40, layout.w[g] * zoom * 0.6)), 0, Math.PI * 2);
		ctx.stroke();
	}
}

/** Scale and offset that fit the whole layout into a w x h box with a margin. */
export function fitTransform(layout: GraphLayout, w: number, h: number, margin = 6): { zoom: number; tx: number; ty: number } {
	const gw = Math.max(1, layout.maxX - layout.minX);
	const gh = Math.max(1, layout.maxY - layout.minY);
	const zoom = Math.min((w - 2 * margin) / gw, (h - 2 * margin) / gh);
	const tx = (w - gw * zoom) / 2 - layout.minX * zoom;
	const ty = (h - gh * zoom) / 2 - layout.minY * zoom;
	return { zoom, tx, ty };
}
