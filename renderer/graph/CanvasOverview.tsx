// The zoomed-out view (zoom < OVERVIEW_ZOOM): one <canvas> over the React Flow pane with every node as a
// dot or box, instead of thousands of DOM cards nobody could read at that size. React Flow keeps handling
// pan and zoom underneath (the canvas ignores pointer events).

import { memo, useEffect, useRef } from "react";
import { drawGraph, readColors } from "./draw";
import type { GraphLayout, GraphModel } from "./model";
import type { SpatialIndex } from "./spatial";
import { useGraphStore } from "./store";

export const OVERVIEW_ZOOM = 0.25;

export interface CanvasOverviewProps {
	model: GraphModel;
	layout: GraphLayout;
	index: SpatialIndex;
	viewport: { x: number; y: number; zoom: number };
	width: number;
	height: number;
}

export const CanvasOverview = memo(function CanvasOverview({ model, layout, index, viewport, width, height }: CanvasOverviewProps) {
	const ref = useRef<HTMLCanvasElement>(null);
	const skeleton = useGraphStore((s) => s.skeleton);
	const activePath = useGraphStore((s) => s.activePath);
	const selected = useGraphStore((s) => s.selected);
	const matches = useGraphStore((s) => s.matches);
	useEffect(() => {
		const canvas = ref.current;
		const ctx = canvas?.getContext("2d");
		if (!canvas || !ctx || !skeleton) return;
		const dpr = window.devicePixelRatio || 1;
		if (canvas.width !== Math.round(width * dpr)) canvas.width = Math.round(width * dpr);
		if (canvas.height !== Math.round(height * dpr)) canvas.height = Math.round(height * dpr);
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		const nodeOf = (e: number): number => (e >= 0 && e < model.nodeOfEntry.length ? model.nodeOfEntry[e] : -1);
		drawGraph(ctx, {
			model, layout, kind: skeleton.kind, activePath, matches,
			selectedNode: nodeOf(selected), leafNode: nodeOf(skeleton.leaf),
			tx: viewport.x, ty: viewport.y, zoom: viewport.zoom, width, height, index, colors: readColors(canvas),
		});
	}, [model, layout, index, viewport, width, height, skeleton, activePath, selected, matches]);
	return <canvas ref={ref} className="arbor-overview" data-testid="arbor-overview" style={{ width, height }} />;
});
