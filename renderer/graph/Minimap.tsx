// Our own minimap: React Flow's <MiniMap> only knows mounted nodes, and we mount a culled few. This one
// draws the whole compressed graph once per layout and the viewport rectangle on top; click or drag in
// it to move the view.

import { memo, useCallback, useEffect, useMemo, useRef } from "react";
import { drawGraph, fitTransform, readColors, type DrawColors } from "./draw";
import type { GraphLayout, GraphModel } from "./model";
import { useGraphStore } from "./store";
import { useViewportTransform } from "./viewport";

export interface MinimapProps {
	model: GraphModel;
	layout: GraphLayout;
	/** Pane size in px. */
	paneWidth: number;
	paneHeight: number;
	/** Center the main view on a flow-space point. */
	onCenter(x: number, y: number): void;
	width?: number;
	height?: number;
	/** Flow-space rectangle of the card showing the leaf: the minimap moves to another corner rather than cover it. */
	leafRect?: Rect | null;
}

export interface Rect {
	x: number;
	y: number;
	w: number;
	h: number;
}
export type Corner = "bottom-right" | "bottom-left" | "top-left" | "top-right";
const CORNERS: Corner[] = ["bottom-right", "bottom-left", "top-left", "top-right"];
const EDGE = 10;
/** Top corners start below the minimap toggle (top right of the graph). */
const TOP = 36;
const CLEARANCE = 8;
/** Redraws of the whole graph come at most this often (ms): a burst of re-layouts is drawn once it settles. */
const REDRAW_MS = 250;
/** From this many nodes the picture is drawn a frame after the model changes, not in the same task. */
const DEFER_DRAW_NODES = 4000;

/** Where the minimap sits in the pane (px, top-left origin). */
export function cornerRect(c: Corner, paneW: number, paneH: number, w: number, h: number): Rect {
	const x = c.endsWith("right") ? paneW - EDGE - w : EDGE;
	// Bottom-left sits 16 px higher: the room React Flow's credit took there (the credit is hidden now and
	// given in About; the overview hint keeps the same bottom line).
	const y = c === "bottom-left" ? paneH - EDGE - 16 - h : c.startsWith("bottom") ? paneH - EDGE - h : TOP;
	return { x, y, w, h };
}

const hits = (a: Rect, b: Rect): boolean => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

const overlapArea = (a: Rect, b: Rect): number =>
	Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));

/**
 * The corner for the minimap: the current one while it leaves the leaf (screen rect, px) uncovered,
 * otherwise, of the corners that do, the one covering the least of the drawing (`content`, screen rect:
 * the rows view fills the left of the pane, so its lanes and kinds stay uncovered), the first in order
 * on a tie; when every corner would cover the leaf, the current one.
 */
export function chooseCorner(current: Corner, leaf: Rect | null, paneW: number, paneH: number, w: number, h: number, content: Rect | null = null): Corner {
	if (!leaf) return current;
	const around = { x: leaf.x - CLEARANCE, y: leaf.y - CLEARANCE, w: leaf.w + 2 * CLEARANCE, h: leaf.h + 2 * CLEARANCE };
	if (!hits(cornerRect(current, paneW, paneH, w, h), around)) return current;
	let best: Corner = current;
	let bestCover = Infinity;
	for (const c of CORNERS) {
		const r = cornerRect(c, paneW, paneH, w, h);
		if (hits(r, around)) continue;
		const cover = content ? overlapArea(r, content) : 0;
		if (cover < bestCover) {
			best = c;
			bestCover = cover;
		}
	}
	return best;
}

export const Minimap = memo(function Minimap({ model, layout, paneWidth, paneHeight, onCenter, width = 200, height = 140, leafRect = null }: MinimapProps) {
	const viewport = useViewportTransform();
	const base = useRef<HTMLCanvasElement>(null);
	const overlay = useRef<HTMLCanvasElement>(null);
	const skeleton = useGraphStore((s) => s.skeleton);
	const activePath = useGraphStore((s) => s.activePath);
	const fit = useMemo(() => fitTransform(layout, width, height), [layout, width, height]);
	// getComputedStyle forces a style recalculation: read the colours once per layout, not per pan frame.
	const colors = useRef<DrawColors | null>(null);

	// The picture is the graph's: redrawn at once when the model changes (a hidden branch, a filter, an
	// append). Redrawing 25k nodes costs tens of ms, so a burst of re-layouts (walking into segments with
	// the arrow keys re-lays out on every step, a fast-writing agent) is drawn at most every REDRAW_MS, the
	// last one always; never left on an older model while changes keep coming.
	const root = useRef<HTMLDivElement>(null);
	const lastDraw = useRef(-Infinity);
	useEffect(() => {
		const canvas = base.current;
		const ctx = canvas?.getContext("2d");
		if (!canvas || !ctx || !skeleton) return;
		const draw = (): void => {
			lastDraw.current = performance.now();
			const dpr = window.devicePixelRatio || 1;
			canvas.width = Math.round(width * dpr);
			canvas.height = Math.round(height * dpr);
			ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
			const leafNode = skeleton.leaf >= 0 && skeleton.leaf < model.nodeOfEntry.length ? model.nodeOfEntry[skeleton.leaf] : -1;
			colors.current = readColors(canvas);
			drawGraph(ctx, {
				model,
				layout,
				kind: skeleton.kind,
				activePath,
				matches: null,
				selectedNode: -1,
				leafNode,
				tx: fit.tx,
				ty: fit.ty,
				zoom: fit.zoom,
				width,
				height,
				colors: colors.current,
			});
			// What the picture shows, for tests: its node count (the graph's is on data-nodes too).
			root.current?.setAttribute("data-nodes", String(model.n));
		};
		const since = performance.now() - lastDraw.current;
		// A big picture (~35 ms for 90k rows) is drawn in a task of its own after the graph's new frame
		// is on screen, so that frame does not carry it too (bench:ui "filter switch").
		if (since >= REDRAW_MS && model.n < DEFER_DRAW_NODES) return draw();
		let t: ReturnType<typeof setTimeout> | undefined;
		const frame = requestAnimationFrame(() => {
			t = setTimeout(draw, Math.max(0, REDRAW_MS - (performance.now() - lastDraw.current)));
		});
		return () => {
			cancelAnimationFrame(frame);
			if (t !== undefined) clearTimeout(t);
		};
	}, [model, layout, skeleton, activePath, fit, width, height]);

	useEffect(() => {
		const canvas = overlay.current;
		const ctx = canvas?.getContext("2d");
		if (!canvas || !ctx) return;
		const dpr = window.devicePixelRatio || 1;
		if (canvas.width !== Math.round(width * dpr)) canvas.width = Math.round(width * dpr);
		if (canvas.height !== Math.round(height * dpr)) canvas.height = Math.round(height * dpr);
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.clearRect(0, 0, width, height);
		const z = viewport.zoom || 1;
		const x = (-viewport.x / z) * fit.zoom + fit.tx;
		const y = (-viewport.y / z) * fit.zoom + fit.ty;
		// A view much smaller than a minimap pixel still gets a visible box, centred where it is.
		const w = Math.max(8, (paneWidth / z) * fit.zoom);
		const h = Math.max(8, (paneHeight / z) * fit.zoom);
		const cx = x + ((paneWidth / z) * fit.zoom) / 2;
		const cy = y + ((paneHeight / z) * fit.zoom) / 2;
		const color = (colors.current ?? readColors(canvas)).selected;
		ctx.fillStyle = color;
		ctx.globalAlpha = 0.2;
		ctx.fillRect(cx - w / 2, cy - h / 2, w, h);
		ctx.globalAlpha = 1;
		ctx.strokeStyle = color;
		ctx.lineWidth = 1.5;
		ctx.strokeRect(cx - w / 2, cy - h / 2, w, h);
	}, [viewport, paneWidth, paneHeight, fit, width, height]);

	// Keep off the leaf: its card's screen rectangle against the minimap's corner, on every pan and zoom.
	const corner = useRef<Corner>("bottom-right");
	const z = viewport.zoom || 1;
	const leafScreen = leafRect ? { x: leafRect.x * z + viewport.x, y: leafRect.y * z + viewport.y, w: leafRect.w * z, h: leafRect.h * z } : null;
	const content = { x: layout.minX * z + viewport.x, y: layout.minY * z + viewport.y, w: (layout.maxX - layout.minX) * z, h: (layout.maxY - layout.minY) * z };
	corner.current = chooseCorner(corner.current, leafScreen, paneWidth, paneHeight, width, height, content);
	const at = cornerRect(corner.current, paneWidth, paneHeight, width, height);

	const dragging = useRef(false);
	const moveTo = useCallback(
		(ev: React.PointerEvent<HTMLDivElement>) => {
			const r = ev.currentTarget.getBoundingClientRect();
			onCenter((ev.clientX - r.left - fit.tx) / fit.zoom, (ev.clientY - r.top - fit.ty) / fit.zoom);
		},
		[fit, onCenter],
	);
	return (
		<div
			ref={root}
			className="arbor-minimap"
			data-testid="arbor-minimap"
			data-corner={corner.current}
			style={{ width, height, left: at.x, top: at.y, right: "auto", bottom: "auto" }}
			role="group"
			aria-label="Minimap: click or drag to move the view"
			onPointerDown={(ev) => {
				dragging.current = true;
				ev.currentTarget.setPointerCapture?.(ev.pointerId);
				moveTo(ev);
			}}
			onPointerMove={(ev) => dragging.current && moveTo(ev)}
			onPointerUp={() => {
				dragging.current = false;
			}}
		>
			<canvas ref={base} style={{ width, height }} />
			<canvas ref={overlay} style={{ width, height }} />
		</div>
	);
});
