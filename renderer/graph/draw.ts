// Canvas drawing shared by the zoomed-out overview and the minimap: every node as a box or a dot and
// every edge as a line, in two batched paths (plain, active path) so tens of thousands draw in a frame.

import { GraphNodeKind, ROW, type GraphLayout, type GraphModel } from "./model";
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
	/** Overview text (user-message landmarks and labels) and the plate behind it. */
	text: string;
	plate: string;
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
		text: v("--arbor-graph-text", "#1d2430"),
		plate: v("--arbor-graph-card", "#ffffff"),
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
	/**
	 * Landmark text (the zoomed-out overview): labels and the first words of user messages drawn as
	 * readable 11 px text next to their node, skipping any that would overlap text already placed.
	 */
	text?: LandmarkText;
}

export interface LandmarkText {
	labelOf: ReadonlyMap<number, { label: string }>;
	/** One-line preview of an entry (pi's row text), undefined while not loaded. */
	preview(entry: number): string | undefined;
}

/** What drawGraph drew as text, so callers can ask for missing previews and tests can check it. */
export interface DrawResult {
	/** Text items drawn. */
	texts: number;
	/** User-message entries in view whose preview was not loaded yet (drawn as "user"). */
	missing: number[];
}

const TEXT_PX = 11;
const ROW_PX = 16;
const CELL_PX = 8;
const MAX_TEXTS = 400;
const MAX_CHARS = 36;

export function drawGraph(ctx: CanvasRenderingContext2D, d: DrawInput): DrawResult {
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
	// The rows view is drawn as its branch graph: each node on its lane, each link down its child's lane.
	const lane = layout.lane;
	// Zoomed far out its lanes would merge into one line: they keep at least 6 px between them.
	const laneStep = Math.max(6, ROW.lane * zoom);
	const cx = lane ? (i: number): number => tx + (lane[i] + 0.5) * laneStep : (i: number): number => (layout.x[i] + layout.w[i] / 2) * zoom + tx;
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
		// A rows-view branch without a lane of its own (layoutRows.ts MAX_LANES): no line across the rows.
		if (layout.laneCut && layout.laneCut[g] === 1) continue;
		// Rows view: a chain's links (consecutive rows in one lane) are drawn below as one line per run.
		if (lane && p === g - 1 && lane[p] === lane[g]) continue;
		path.moveTo(cx(p), cy(p));
		if (lane && lane[p] !== lane[g]) path.lineTo(cx(g), cy(p) + ROW.h * zoom);
		path.lineTo(cx(g), cy(g));
	}
	if (lane) {
		// Runs of consecutive rows in one lane, split where the active path ends: one line each instead
		// of one per row (a 100k session's minimap would otherwise draw ~88k sub-pixel links).
		let from = 0;
		for (let g = 1; g <= layout.n; g++) {
			const cont = g < layout.n && model.parent[g] === g - 1 && lane[g] === lane[g - 1] && onPath(g) === onPath(g - 1);
			if (cont) continue;
			if (g - 1 > from) {
				const path = onPath(from) && onPath(g - 1) ? active : plain;
				path.moveTo(cx(from), cy(from));
				path.lineTo(cx(from), cy(g - 1));
			}
			// A run that ends in a link to the next row (active path -> rest of the chain) keeps it.
			if (g < layout.n && model.parent[g] === g - 1 && lane[g] === lane[g - 1]) {
				plain.moveTo(cx(g - 1), cy(g - 1));
				plain.lineTo(cx(g), cy(g));
			}
			from = g;
		}
	}
	ctx.lineWidth = 1;
	ctx.strokeStyle = d.colors.edge;
	ctx.stroke(plain);
	ctx.lineWidth = 2;
	ctx.strokeStyle = d.colors.active;
	ctx.stroke(active);

	// Nodes: boxes when they are at least a few pixels wide, dots otherwise; one path per colour.
	const boxes = !lane && 240 * zoom >= 6;
	const r = Math.max(1.5, Math.min(4, 30 * zoom));
	const buckets = { match: new Path2D(), active: new Path2D(), segment: new Path2D(), user: new Path2D(), node: new Path2D() };
	const bits = { match: 1, active: 2, segment: 4, user: 8, node: 16 };
	// A dot drawn where one of the same colour already is changes no pixel: one per pixel cell and colour.
	const gw = Math.max(1, Math.ceil(d.width));
	const gh = Math.max(1, Math.ceil(d.height));
	const drawn = boxes ? null : new Uint8Array(gw * gh);
	for (let k = 0; k < nodes.length; k++) {
		const g = nodes[k];
		const e = model.entry[g];
		const kind = model.kind[g];
		const name: keyof typeof buckets =
			d.matches !== null && kind === GraphNodeKind.entry && d.matches.has(e)
				? "match"
				: onPath(g)
					? "active"
					: kind === GraphNodeKind.segment || kind === GraphNodeKind.foldStub
						? "segment"
						: d.kind[e] === 0
							? "user"
							: "node";
		const bucket = buckets[name];
		if (drawn) {
			const px = Math.floor(cx(g));
			const py = Math.floor(cy(g));
			if (px >= 0 && py >= 0 && px < gw && py < gh) {
				const cell = py * gw + px;
				if (drawn[cell] & bits[name]) continue;
				drawn[cell] |= bits[name];
			}
		}
		if (boxes) bucket.rect(layout.x[g] * zoom + tx, layout.y[g] * zoom + ty, Math.max(1, layout.w[g] * zoom), Math.max(1, layout.h[g] * zoom));
		else bucket.rect(cx(g) - r / 2, cy(g) - r / 2, r, r);
	}
	for (const [name, path] of Object.entries(buckets) as [keyof typeof buckets, Path2D][]) {
		ctx.fillStyle = d.colors[name];
		ctx.fill(path);
	}
	for (const [g, color] of [
		[d.leafNode, d.colors.leaf],
		[d.selectedNode, d.colors.selected],
	] as const) {
		if (g < 0 || g >= layout.n) continue;
		ctx.strokeStyle = color;
		ctx.lineWidth = 2;
		ctx.beginPath();
		ctx.arc(cx(g), cy(g), Math.max(6, Math.min(lane ? 8 : 40, layout.w[g] * zoom * 0.6)), 0, Math.PI * 2);
		ctx.stroke();
	}
	return d.text ? drawLandmarks(ctx, d, nodes, cx, cy, onPath) : { texts: 0, missing: [] };
}

/** Single-line landmark text: `[label] first words` (either part may be absent). */
export function landmarkText(preview: string | undefined, label: string | undefined, user: boolean): string {
	let body = "";
	if (user) {
		const words =
			(preview ?? "user")
				.replace(/^user:\s*/, "")
				.replace(/\s+/g, " ")
				.trim() || "user";
		body = words.length > MAX_CHARS ? `${words.slice(0, MAX_CHARS - 1).trimEnd()}…` : words;
	}
	return label !== undefined ? `[${label}]${body ? ` ${body}` : ""}` : body;
}

function drawLandmarks(
	ctx: CanvasRenderingContext2D,
	d: DrawInput,
	nodes: ArrayLike<number>,
	cx: (g: number) => number,
	cy: (g: number) => number,
	onPath: (g: number) => boolean,
): DrawResult {
	const { model } = d;
	const text = d.text as LandmarkText;
	// Candidates: labels first, then the leaf, then user messages on the active path, then other user messages.
	const ranked: [number, number][] = [];
	for (let k = 0; k < nodes.length; k++) {
		const g = nodes[k];
		if (model.kind[g] !== GraphNodeKind.entry) continue;
		const e = model.entry[g];
		const labelled = text.labelOf.has(e);
		const user = d.kind[e] === 0;
		if (!labelled && !user) continue;
		const x = cx(g);
		const y = cy(g);
		if (x < -200 || y < -ROW_PX || x > d.width || y > d.height + ROW_PX) continue;
		ranked.push([g, labelled ? 0 : g === d.leafNode ? 1 : onPath(g) ? 2 : 3]);
	}
	ranked.sort((a, b) => a[1] - b[1] || model.entry[a[0]] - model.entry[b[0]]);
	const cols = Math.max(1, Math.ceil(d.width / CELL_PX));
	const rows = Math.max(1, Math.ceil(d.height / CELL_PX));
	const used = new Uint8Array(cols * rows);
	const free = (c0: number, r0: number, c1: number, r1: number, mark: boolean): boolean => {
		for (let r = Math.max(0, r0); r <= Math.min(rows - 1, r1); r++)
			for (let c = Math.max(0, c0); c <= Math.min(cols - 1, c1); c++) {
				if (mark) used[r * cols + c] = 1;
				else if (used[r * cols + c]) return false;
			}
		return true;
	};
	ctx.font = `${TEXT_PX}px system-ui, sans-serif`;
	ctx.textBaseline = "middle";
	let texts = 0;
	const missing: number[] = [];
	for (const [g] of ranked) {
		if (texts >= MAX_TEXTS) break;
		const e = model.entry[g];
		const user = d.kind[e] === 0;
		const preview = text.preview(e);
		if (user && preview === undefined) missing.push(e);
		const label = text.labelOf.get(e)?.label;
		const s = landmarkText(preview, label, user);
		// Measured in the font it is drawn in: a per-character estimate ran short for bold labels and wide
		// letters, and neighbouring landmarks overlapped.
		const font = `${label !== undefined ? "600 " : ""}${TEXT_PX}px system-ui, sans-serif`;
		ctx.font = font;
		const w = ctx.measureText(s).width + 6;
		const x = cx(g) + 7;
		const y = cy(g);
		const c0 = Math.floor(x / CELL_PX);
		const r0 = Math.floor((y - ROW_PX / 2) / CELL_PX);
		const c1 = Math.floor((x + w) / CELL_PX);
		const r1 = Math.floor((y + ROW_PX / 2 - 1) / CELL_PX);
		if (!free(c0, r0, c1, r1, false)) continue;
		free(c0, r0, c1, r1, true);
		ctx.globalAlpha = 0.85;
		ctx.fillStyle = d.colors.plate;
		ctx.fillRect(x - 2, y - ROW_PX / 2 + 1, w, ROW_PX - 2);
		ctx.globalAlpha = 1;
		ctx.fillStyle = d.colors.text;
		ctx.font = font;
		ctx.fillText(s, x + 1, y);
		texts++;
	}
	return { texts, missing };
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
