// The graph's culling hook: which graph nodes are mounted as cards (the view plus a margin, within the
// mount budget) and the level of detail. Pan/zoom frames do not re-render SessionGraph: React Flow moves
// the pane itself; it only re-renders when the set of mounted nodes or the level of detail changes.

import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { ReactFlowInstance, Viewport } from "@xyflow/react";
import { cullNodes, viewRect } from "./cull";
import type { Laid } from "./laid";
import type { GraphFlowNode } from "./nodes";
import { EMPTY_MAP, useGraphStore, type Graph, type XY } from "./store";
import { CULL_MARGIN_PX, lodOf, type Lod } from "./zoom";

const NONE: number[] = [];

export interface CullingResult {
	/** The viewport the session opens on (its saved one, else the origin until the camera places it). */
	initialViewport: Viewport;
	lod: Lod;
	/** Mounted graph nodes, indices into `drawn`'s model. */
	mounted: number[];
	/**
	 * The layout `mounted` was culled for: the one to draw the cards and lanes with. Until the layout effect
	 * below has culled a new layout (before paint), it is the previous one.
	 */
	drawn: Laid | null;
	/** Dragged positions by graph node of `drawn`. */
	overrides: ReadonlyMap<number, XY>;
	/** Re-cull for a viewport (our own moves call it with their destination). */
	recull(v: Viewport): void;
	onMove(ev: unknown, next: Viewport): void;
	onMoveEnd(ev: unknown, next: Viewport): void;
}

export function useCulling(
	graph: Graph,
	rf: ReactFlowInstance<GraphFlowNode>,
	laid: Laid | null,
	sessionKey: string,
	paneWidth: number,
	paneHeight: number,
): CullingResult {
	const [initialViewport] = useState<Viewport>(() => graph.store.getState().viewports[sessionKey] ?? { x: 0, y: 0, zoom: 1 });
	const [lod, setLod] = useState<Lod>(() => lodOf(initialViewport.zoom, Infinity));
	// Graph node indices mean nothing in another layout: the list is kept with the layout it was culled
	// for, and the cards are drawn with that one (`drawn`) until the layout effect below has culled the
	// new layout, before paint. Drawing the old list against a new model (a filter switch) mounted
	// unrelated cards and lanes for one commit, or indices past the new model's end (NaN positions);
	// mounting nothing in between unmounted and remounted every card that stays in view.
	const [culled, setCulled] = useState<{ laid: Laid | null; list: number[] }>({ laid: null, list: NONE });
	const mountedRef = useRef<{ laid: Laid | null; list: number[] }>(culled);
	const positions = useGraphStore((s) => s.positions[sessionKey] ?? EMPTY_MAP);
	const overrides = useMemo(() => overridesIn(laid, positions), [positions, laid]);
	// The same for the layout drawn now (while a new one waits for its cull: the previous one).
	const drawnOverrides = useMemo(() => (culled.laid === laid ? overrides : overridesIn(culled.laid, positions)), [culled.laid, laid, overrides, positions]);
	const cullInputs = useRef({ laid, overrides, paneWidth, paneHeight });
	cullInputs.current = { laid, overrides, paneWidth, paneHeight };
	const recull = useCallback((v: Viewport) => {
		const { laid: l, overrides: o, paneWidth: w, paneHeight: h } = cullInputs.current;
		const nextLod = lodOf(v.zoom, l ? l.model.n : Infinity);
		setLod(nextLod);
		let next: number[] = [];
		if (l && nextLod !== "overview") {
			next = cullNodes(l.index, l.model, viewRect(v, w > 0 ? w : 800, h > 0 ? h : 600), { margin: CULL_MARGIN_PX / v.zoom, overrides: o });
		}
		const prev = mountedRef.current;
		if (prev.laid === l && prev.list.length === next.length && prev.list.every((g, k) => g === next[k])) return;
		mountedRef.current = { laid: l, list: next };
		setCulled(mountedRef.current);
	}, []);
	// Before paint: a new layout is never painted without its cards (the camera's own layout effect, which
	// runs after this one, may move the view and cull again; React renders both as one).
	useLayoutEffect(() => recull(rf.getViewport()), [laid, overrides, paneWidth, paneHeight, recull, rf]);

	const rafRef = useRef(0);
	const onMove = useCallback(
		(ev: unknown, next: Viewport) => {
			// No source event: one of our own animated moves (fit, reveal, zoom to leaf). setViewport already
			// mounted the destination; re-culling every frame of the flight would mount and drop up to a
			// thousand cards per frame along the way (F3 across a 100k session). onMoveEnd re-culls.
			if (ev === null || ev === undefined) return;
			cancelAnimationFrame(rafRef.current);
			rafRef.current = requestAnimationFrame(() => recull(next));
		},
		[recull],
	);
	const { saveViewport } = graph.actions;
	const onMoveEnd = useCallback(
		(_: unknown, next: Viewport) => {
			recull(next);
			saveViewport(next);
		},
		[recull, saveViewport],
	);
	useEffect(() => () => cancelAnimationFrame(rafRef.current), []);
	return { initialViewport, lod, mounted: culled.list, drawn: culled.laid, overrides: drawnOverrides, recull, onMove, onMoveEnd };
}

/** Dragged positions (by React Flow id) as graph nodes of a layout. */
function overridesIn(laid: Laid | null, positions: ReadonlyMap<string, XY>): Map<number, XY> {
	const out = new Map<number, XY>();
	if (!laid) return out;
	for (const [id, p] of positions) {
		const g = laid.nodeById(id);
		if (g !== undefined) out.set(g, p);
	}
	return out;
}
