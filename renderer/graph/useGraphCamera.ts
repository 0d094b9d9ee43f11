// The graph's camera hook: where the view goes. A new layout is installed (a new session opens on its
// saved viewport or the leaf; a re-layout keeps the selection where it was on screen), the controller
// behind the graph actions (fit, center an entry, zoom steps), reveal() and the zoom bounds.

import { useCallback, useEffect, useLayoutEffect, useMemo, useRef } from "react";
import type { ReactFlowInstance, Viewport } from "@xyflow/react";
import type { Skeleton } from "../../shared/skeleton";
import { viewRect } from "./cull";
import { nodeCenter, type Laid } from "./laid";
import { ROW } from "./model";
import { rowsX } from "./rowsFrame";
import type { GraphFlowNode } from "./nodes";
import type { EntryPoint } from "./props";
import { useGraphStore, type Graph, type GraphController } from "./store";
import { FAR_ZOOM, JUMP_MIN_ZOOM, MAX_ZOOM, READABLE_ZOOM } from "./zoom";

export interface CameraInput {
	graph: Graph;
	rf: ReactFlowInstance<GraphFlowNode>;
	laid: Laid | null;
	laidRef: React.MutableRefObject<Laid | null>;
	skeleton: Skeleton;
	sessionKey: string;
	selectedIndex: number;
	paneWidth: number;
	paneHeight: number;
	recull(v: Viewport): void;
	/** SessionGraphProps.openAt. */
	openAt?: () => EntryPoint | null;
}

export interface Camera {
	/** Move the view (animated when duration > 0), re-cull for the destination and remember it. */
	setViewport(next: Viewport, duration?: number): void;
	/** Center an entry (or its nearest drawn ancestor) of a layout. */
	centerOn(target: Laid, entry: number, zoom?: number, duration?: number): void;
	minZoom: number;
}

export function useGraphCamera({ graph, rf, laid, laidRef, skeleton, sessionKey, selectedIndex, paneWidth, paneHeight, recull, openAt }: CameraInput): Camera {
	const graphStore = graph.store;
	const { saveViewport } = graph.actions;
	// Where the last animated move is going: a zoom step taken while one is still running starts from its
	// target, so quick repeated zooms (keys, buttons) compound instead of each restarting from wherever the
	// animation happens to be (on a busy machine: barely started).
	const animTarget = useRef<{ vp: Viewport; until: number } | null>(null);
	const paneWidthRef = useRef(paneWidth);
	paneWidthRef.current = paneWidth;
	const setViewport = useCallback(
		(to: Viewport, duration = 0) => {
			// Rows are a list: every move scrolls it up or down and leaves it sideways where the pane's pan
			// limits hold it (rowsFrame.ts), whatever x the move computed.
			const l = laidRef.current?.layout;
			const next = l?.direction === "rows" ? { ...to, x: rowsX(l, paneWidthRef.current > 0 ? paneWidthRef.current : 800, to.zoom) } : to;
			animTarget.current = duration > 0 ? { vp: next, until: performance.now() + duration } : null;
			void rf.setViewport(next, duration > 0 ? { duration } : undefined);
			recull(next);
			saveViewport(next);
		},
		[rf, recull, saveViewport, laidRef],
	);

	const minZoom = useMemo(() => {
		if (!laid || paneWidth <= 0) return 0.05;
		const l = laid.layout;
		const fit = Math.min(paneWidth / Math.max(1, l.maxX - l.minX), paneHeight / Math.max(1, l.maxY - l.minY));
		// Rounded down to a power of two: most re-layouts (a filter switch, an append) keep the same bound,
		// and a new one makes React Flow re-run every mounted node's store selectors.
		const half = fit * 0.5;
		return Math.max(0.0002, half >= 0.1 ? 0.1 : 2 ** Math.floor(Math.log2(half)));
	}, [laid, paneWidth, paneHeight]);

	// Install a new layout: a new session starts on its saved viewport or the leaf; a re-layout of the same
	// session keeps the anchor (selection, else leaf) where it was on screen, so live appends do not jump.
	const shownKey = useRef<string | null>(null);
	useLayoutEffect(() => {
		const prev = laidRef.current;
		laidRef.current = laid;
		if (!laid) return;
		graphStore.setState({ model: laid.model });
		if (shownKey.current !== sessionKey) {
			shownKey.current = sessionKey;
			const at = openAt?.();
			if (at && placeAt(laid, at)) return;
			const saved = graphStore.getState().viewports[sessionKey];
			if (saved) setViewport(saved);
			else openOn(laid);
			return;
		}
		// Another view (rows <-> tree): the old viewport points at nothing in the new drawing. The
		// selection is centred at zoom 1; without one, the view opens as a session does.
		if (prev && prev.layout.direction !== laid.layout.direction) {
			if (selectedIndex >= 0) centerOn(laid, selectedIndex, 1);
			else openOn(laid);
			return;
		}
		// A reveal asked for the next layout (filter change) runs now, against the positions just installed.
		const after = graphStore.getState().revealAfterLayout;
		if (after >= 0 && prev && prev.model !== laid.model) graphStore.setState({ revealAfterLayout: -1, pendingReveal: after, revealCenter: false });
		if (!prev || prev.layout === laid.layout) return;
		const anchor = selectedIndex >= 0 ? selectedIndex : skeleton.leaf;
		const a = nodeCenter(prev, anchor);
		const b = nodeCenter(laid, anchor);
		if (a && b && (a.x !== b.x || a.y !== b.y)) {
			const cur = rf.getViewport();
			setViewport({ x: cur.x - (b.x - a.x) * cur.zoom, y: cur.y - (b.y - a.y) * cur.zoom, zoom: cur.zoom });
		}
		// eslint-disable-next-line react-hooks/exhaustive-deps -- runs when a layout is installed
	}, [laid]);

	function centerOn(target: Laid, entry: number, zoom?: number, duration = 0): void {
		const c = nodeCenter(target, entry, skeleton);
		if (!c) return;
		const z = zoom ?? Math.max(rf.getViewport().zoom, 0.6);
		const w = paneWidth > 0 ? paneWidth : 800;
		const h = paneHeight > 0 ? paneHeight : 600;
		setViewport({ x: w / 2 - c.x * z, y: h / 2 - c.y * z, zoom: z }, duration);
	}

	// An entry where another drawing of the session shows it (the first skeleton's graph handing over to the
	// whole one): same pane point, same zoom. The rows view keeps its lanes at the left edge.
	function placeAt(target: Laid, at: EntryPoint): boolean {
		const c = nodeCenter(target, at.entry, skeleton);
		if (!c) return false;
		const x = target.layout.direction === "rows" ? 8 - target.layout.minX * at.zoom : at.x - c.x * at.zoom;
		setViewport({ x, y: at.y - c.y * at.zoom, zoom: at.zoom });
		return true;
	}

	// A session opens on its recent past. The rows view (the default) reads at zoom 1: the lanes at the
	// left edge, the leaf's row low in the pane so the rows above it (its path back toward the root, and
	// the lanes of the branches leaving that path) fill it, never scrolled past the last row. The tidy
	// tree centres the leaf at zoom 1.
	function openOn(target: Laid): void {
		const l = target.layout;
		const leaf = skeleton.leaf >= 0 ? skeleton.leaf : 0;
		if (l.direction !== "rows") return centerOn(target, leaf, 1);
		const h = paneHeight > 0 ? paneHeight : 600;
		const c = nodeCenter(target, leaf, skeleton);
		if (!c) return;
		const y = Math.min(12, Math.max(h - 3 * ROW.h - c.y, h - 12 - l.maxY));
		setViewport({ x: 0, y, zoom: 1 });
	}

	// A resized pane moves the list's right edge (rows end at the pane's edge): keep the rows framed.
	useEffect(() => {
		const l = laidRef.current?.layout;
		if (l?.direction !== "rows" || paneWidth <= 0) return;
		const cur = rf.getViewport();
		if (Math.abs(cur.x - rowsX(l, paneWidth, cur.zoom)) > 0.5) setViewport(cur);
	}, [paneWidth, rf, setViewport, laidRef]);

	// Tree depth of every graph node (aria-level), for the cards (computed with the layout).
	useLayoutEffect(() => {
		if (laid) graphStore.setState({ depth: laid.depth });
	}, [graphStore, laid]);

	// ---- controller for the graph actions
	const controllerDeps = useRef({ laid, paneWidth, paneHeight, minZoom, centerOn, skeleton });
	controllerDeps.current = { laid, paneWidth, paneHeight, minZoom, centerOn, skeleton };
	useEffect(() => {
		const controller: GraphController = {
			fit() {
				const { laid: l, paneWidth: w, paneHeight: h, minZoom: mz } = controllerDeps.current;
				if (!l || l.layout.n === 0) return;
				const { minX, minY, maxX, maxY } = l.layout;
				const pw = w > 0 ? w : 800;
				const ph = h > 0 ? h : 600;
				// Everything the filter shows, whole. On a big graph that zoom is below readable card text, so it
				// draws as the overview (zoom.ts lodOf), which says how to get back to cards.
				const z = Math.max(mz, Math.min(1, (pw * 0.92) / Math.max(1, maxX - minX), (ph * 0.92) / Math.max(1, maxY - minY)));
				setViewport({ x: pw / 2 - ((minX + maxX) / 2) * z, y: ph / 2 - ((minY + maxY) / 2) * z, zoom: z }, 200);
			},
			centerOnEntry(entry, zoom) {
				const { laid: l, centerOn: center } = controllerDeps.current;
				if (l) center(l, entry, zoom, 200);
			},
			zoomBy(factor) {
				const t = animTarget.current;
				const cur = t && performance.now() < t.until ? t.vp : rf.getViewport();
				const { paneWidth: w, paneHeight: h, minZoom: mz } = controllerDeps.current;
				const z = Math.min(MAX_ZOOM, Math.max(mz, cur.zoom * factor));
				const cx = (w > 0 ? w : 800) / 2;
				const cy = (h > 0 ? h : 600) / 2;
				setViewport({ x: cx - ((cx - cur.x) / cur.zoom) * z, y: cy - ((cy - cur.y) / cur.zoom) * z, zoom: z }, 150);
			},
			pointOf(entry) {
				const l = laidRef.current;
				const c = l ? nodeCenter(l, entry, controllerDeps.current.skeleton) : null;
				if (!c) return null;
				const v = rf.getViewport();
				return { entry, x: v.x + c.x * v.zoom, y: v.y + c.y * v.zoom, zoom: v.zoom };
			},
		};
		graphStore.setState({ controller });
		return () => {
			if (graphStore.getState().controller === controller) graphStore.setState({ controller: null });
		};
	}, [graphStore, rf, setViewport, laidRef]);

	// reveal(): bring an entry into view once the layout shows it (keeps the zoom when it is already visible).
	const pendingReveal = useGraphStore((s) => s.pendingReveal);
	useEffect(() => {
		if (pendingReveal < 0 || !laid) return;
		const c = nodeCenter(laid, pendingReveal, skeleton);
		if (!c) return;
		const force = graphStore.getState().revealCenter;
		graphStore.setState({ pendingReveal: -1, revealCenter: false });
		const cur = rf.getViewport();
		const r = viewRect(cur, paneWidth || 800, paneHeight || 600);
		const inside = c.x > r.x + 40 / cur.zoom && c.x < r.x + r.w - 40 / cur.zoom && c.y > r.y + 30 / cur.zoom && c.y < r.y + r.h - 30 / cur.zoom;
		// Jumps land where card text is legible: from below JUMP_MIN_ZOOM they zoom in to READABLE_ZOOM (the
		// rows view keeps its 12 px text, so it needs zoom 1).
		const rows = laid.layout.direction === "rows";
		const jumpMin = rows ? FAR_ZOOM : JUMP_MIN_ZOOM;
		if (force || !inside || cur.zoom < jumpMin)
			centerOn(laid, pendingReveal, cur.zoom < jumpMin || force ? Math.max(cur.zoom, rows ? 1 : READABLE_ZOOM) : cur.zoom, 200);
		// eslint-disable-next-line react-hooks/exhaustive-deps -- centerOn is recreated each render
	}, [pendingReveal, laid]);

	return { setViewport, centerOn, minZoom };
}
