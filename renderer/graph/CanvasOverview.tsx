// The zoomed-out view (a big graph below the zoom where card text reads, zoom.ts lodOf): one <canvas> over the React Flow pane with every node as a
// dot or box, instead of thousands of DOM cards nobody could read at that size. React Flow keeps handling
// pan and zoom underneath (the canvas ignores pointer events).
//
// Drawing 25k nodes per frame is too slow for smooth panning, so the graph is drawn once into a tile
// three views wide and high; pan frames copy from it, zoom frames scale it until the zoom settles.

import { memo, useEffect, useRef, useState } from "react";
import { drawGraph, readColors } from "./draw";
import type { GraphLayout, GraphModel } from "./model";
import type { SpatialIndex } from "./spatial";
import { useGraphStore } from "./store";
import { useViewportTransform } from "./viewport";

const MAX_TILE_PX = 4096;
const SETTLE_MS = 120;

export interface CanvasOverviewProps {
	model: GraphModel;
	layout: GraphLayout;
	index: SpatialIndex;
	width: number;
	height: number;
	/** Ask for previews of user messages in view whose landmark text is not loaded yet. */
	requestPreviews?: (indices: number[]) => void;
}

interface Tile {
	canvas: HTMLCanvasElement;
	/** Zoom it was drawn at, and the flow-space rectangle it covers. */
	zoom: number;
	fx: number;
	fy: number;
	fw: number;
	fh: number;
	inputs: unknown[];
}

export const CanvasOverview = memo(function CanvasOverview({ model, layout, index, width, height, requestPreviews }: CanvasOverviewProps) {
	const ref = useRef<HTMLCanvasElement>(null);
	const viewport = useViewportTransform();
	const skeleton = useGraphStore((s) => s.skeleton);
	const activePath = useGraphStore((s) => s.activePath);
	const selected = useGraphStore((s) => s.selected);
	const matches = useGraphStore((s) => s.matches);
	const labelOf = useGraphStore((s) => s.labelOf);
	const preview = useGraphStore((s) => s.preview);
	const [texts, setTexts] = useState(0);
	const asked = useRef<Set<number>>(new Set());
	const askedFor = useRef<readonly string[] | null>(null);
	const tile = useRef<Tile | null>(null);
	const settleTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
	const redrawRef = useRef<(force: boolean) => void>(() => {});

	redrawRef.current = (force: boolean) => {
		const canvas = ref.current;
		const ctx = canvas?.getContext("2d");
		if (!canvas || !ctx || !skeleton) return;
		const dpr = window.devicePixelRatio || 1;
		if (canvas.width !== Math.round(width * dpr)) canvas.width = Math.round(width * dpr);
		if (canvas.height !== Math.round(height * dpr)) canvas.height = Math.round(height * dpr);
		const { x: vx, y: vy, zoom } = viewport;
		const inputs = [model, layout, skeleton, activePath, selected, matches, labelOf, preview, dpr];
		const view = { x: -vx / zoom, y: -vy / zoom, w: width / zoom, h: height / zoom };
		let t = tile.current;
		const fresh = t !== null && t.inputs.length === inputs.length && t.inputs.every((v, k) => v === inputs[k]);
		const ratio = t ? zoom / t.zoom : 0;
		const covers = t !== null && view.x >= t.fx && view.y >= t.fy && view.x + view.w <= t.fx + t.fw && view.y + view.h <= t.fy + t.fh;
		if (force || !fresh || !covers || ratio < 0.5 || ratio > 2) {
			t = drawTile(t?.canvas ?? document.createElement("canvas"), view, zoom, dpr, inputs);
			tile.current = t;
		} else if (ratio !== 1) {
			if (settleTimer.current) clearTimeout(settleTimer.current);
			settleTimer.current = setTimeout(() => redrawRef.current(true), SETTLE_MS);
		}
		if (!t) return;
		ctx.setTransform(1, 0, 0, 1, 0, 0);
		ctx.clearRect(0, 0, canvas.width, canvas.height);
		ctx.drawImage(t.canvas, (t.fx * zoom + vx) * dpr, (t.fy * zoom + vy) * dpr, t.fw * zoom * dpr, t.fh * zoom * dpr);
	};

	function drawTile(
		target: HTMLCanvasElement,
		view: { x: number; y: number; w: number; h: number },
		zoom: number,
		dpr: number,
		inputs: unknown[],
	): Tile | null {
		const sk = skeleton;
		const tctx = target.getContext("2d");
		if (!sk || !tctx) return null;
		const fw = Math.min(view.w * 3, MAX_TILE_PX / zoom / dpr);
		const fh = Math.min(view.h * 3, MAX_TILE_PX / zoom / dpr);
		const fx = view.x + view.w / 2 - fw / 2;
		const fy = view.y + view.h / 2 - fh / 2;
		const pw = Math.max(1, Math.round(fw * zoom));
		const ph = Math.max(1, Math.round(fh * zoom));
		target.width = Math.round(pw * dpr);
		target.height = Math.round(ph * dpr);
		tctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		const nodeOf = (e: number): number => (e >= 0 && e < model.nodeOfEntry.length ? model.nodeOfEntry[e] : -1);
		const drawn = drawGraph(tctx, {
			model,
			layout,
			kind: sk.kind,
			activePath,
			matches,
			selectedNode: nodeOf(selected),
			leafNode: nodeOf(sk.leaf),
			tx: -fx * zoom,
			ty: -fy * zoom,
			zoom,
			width: pw,
			height: ph,
			index,
			colors: readColors(ref.current ?? target),
			text: { labelOf, preview },
		});
		setTexts(drawn.texts);
		// Landmarks whose words are not loaded yet are drawn as "user"; ask once for their previews.
		if (askedFor.current !== sk.ids) {
			askedFor.current = sk.ids;
			asked.current = new Set();
		}
		const ask = drawn.missing.filter((e) => !asked.current.has(e)).slice(0, 200);
		if (ask.length > 0 && requestPreviews) {
			for (const e of ask) asked.current.add(e);
			requestPreviews(ask);
		}
		return { canvas: target, zoom, fx, fy, fw, fh, inputs };
	}

	useEffect(() => redrawRef.current(false));
	useEffect(
		() => () => {
			if (settleTimer.current) clearTimeout(settleTimer.current);
		},
		[],
	);
	return <canvas ref={ref} className="arbor-overview" data-testid="arbor-overview" data-texts={texts} style={{ width, height }} />;
});
