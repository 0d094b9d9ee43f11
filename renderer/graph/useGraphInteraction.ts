// The graph's interaction hook: clicks, double clicks and context menus on cards, "+N" pills and fold
// stubs, a click in the overview, Enter / Space on the tree, keyboard focus on request, minimap moves,
// Ctrl+wheel zoom in the rows view.

import { useCallback, useEffect } from "react";
import type { NodeChange, NodeMouseHandler, ReactFlowInstance } from "@xyflow/react";
import type { Camera } from "./useGraphCamera";
import type { Laid } from "./laid";
import { GraphNodeKind } from "./model";
import type { GraphFlowNode } from "./nodes";
import type { SessionGraphProps } from "./props";
import { nearestNode } from "./spatial";
import { setSegmentExpanded, type Graph } from "./store";
import { MAX_ZOOM } from "./zoom";

export interface InteractionInput {
	graph: Graph;
	rf: ReactFlowInstance<GraphFlowNode>;
	props: SessionGraphProps;
	laid: Laid | null;
	overview: boolean;
	camera: Camera;
	paneWidth: number;
	paneHeight: number;
	containerRef: React.RefObject<HTMLDivElement | null>;
	treeRef: React.RefObject<HTMLDivElement | null>;
}

export function useGraphInteraction({ graph, rf, props, laid, overview, camera, paneWidth, paneHeight, containerRef, treeRef }: InteractionInput) {
	const { skeleton, sessionKey, selectedIndex, onSelect, onActivate, onContextMenu, onToggleFold } = props;
	const graphStore = graph.store;
	const { setNodePosition } = graph.actions;
	const { setViewport, centerOn } = camera;
	const onNodeClick: NodeMouseHandler<GraphFlowNode> = useCallback(
		(_ev, node) => {
			const { entry } = node.data;
			if (node.type === "streaming") return;
			if (node.type === "segment") setSegmentExpanded(graphStore, sessionKey, skeleton.ids[entry], true);
			else if (node.type === "foldStub") onToggleFold?.(entry);
			else onSelect(entry);
		},
		[graphStore, onSelect, onToggleFold, sessionKey, skeleton],
	);
	const onNodeDoubleClick: NodeMouseHandler<GraphFlowNode> = useCallback(
		(_ev, node) => {
			if (node.type === "entry") onActivate?.(node.data.entry);
		},
		[onActivate],
	);
	const onNodeContextMenu: NodeMouseHandler<GraphFlowNode> = useCallback(
		(ev, node) => {
			if (node.type !== "entry" || !onContextMenu) return;
			ev.preventDefault();
			onSelect(node.data.entry);
			onContextMenu(node.data.entry, ev.clientX, ev.clientY);
		},
		[onContextMenu, onSelect],
	);
	const onNodesChange = useCallback(
		(changes: NodeChange<GraphFlowNode>[]) => {
			for (const c of changes) if (c.type === "position" && c.position) setNodePosition(c.id, { x: c.position.x, y: c.position.y });
		},
		[setNodePosition],
	);
	// In the overview there are no cards to click: a click picks the nearest node and zooms in on it.
	const onPaneClick = useCallback(
		(ev: React.MouseEvent) => {
			if (!overview || !laid) return;
			const p = rf.screenToFlowPosition({ x: ev.clientX, y: ev.clientY });
			const g = nearestNode(laid.index, p.x, p.y, 24 / Math.max(rf.getViewport().zoom, 1e-4));
			if (g < 0) return;
			if (laid.model.kind[g] === GraphNodeKind.entry) onSelect(laid.model.entry[g]);
			centerOn(laid, laid.model.entry[g], 0.8, 250);
		},
		// eslint-disable-next-line react-hooks/exhaustive-deps -- centerOn is recreated each render
		[overview, laid, rf, onSelect],
	);
	const onKeyDown = useCallback(
		(ev: React.KeyboardEvent) => {
			// Only what React Flow cannot know: Enter on the graph navigates to the selection. After a click
			// the focus sits on React Flow's node element inside the container, so accept any target in it
			// except text fields (the inline label editor).
			const t = ev.target as HTMLElement;
			const inText = t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable;
			// Enter / Space on a focused "+N" pill or "+N hidden" stub opens it.
			if ((ev.key === "Enter" || ev.key === " ") && !ev.ctrlKey && !ev.altKey && !ev.metaKey) {
				const pill = t.closest?.<HTMLElement>('[data-testid="arbor-segment"], [data-testid="arbor-fold-stub"]');
				const entry = Number(pill?.dataset.entry ?? -1);
				if (pill && entry >= 0) {
					ev.preventDefault();
					ev.stopPropagation();
					if (pill.dataset.testid === "arbor-segment") setSegmentExpanded(graphStore, sessionKey, skeleton.ids[entry], true);
					else onToggleFold?.(entry);
					treeRef.current?.focus();
					return;
				}
			}
			if (
				ev.key === "Enter" &&
				!ev.ctrlKey &&
				!ev.altKey &&
				!ev.metaKey &&
				!ev.shiftKey &&
				!inText &&
				selectedIndex >= 0 &&
				onActivate &&
				containerRef.current?.contains(t)
			) {
				ev.preventDefault();
				onActivate(selectedIndex);
			}
		},
		[graphStore, onActivate, selectedIndex, sessionKey, skeleton, onToggleFold, containerRef, treeRef],
	);
	useEffect(() => {
		if (props.focusTick) treeRef.current?.focus();
	}, [props.focusTick, treeRef]);

	// Rows are a list: Ctrl+wheel (a trackpad pinch sends the same) zooms it about the row under the pointer
	// with the lanes kept at the left edge, as a list zooms. React Flow's own pinch zoom holds the pointer's
	// x still too, which near the right edge threw the lane column off the pane's left edge. Same step per
	// wheel notch as React Flow's.
	const rows = laid?.layout.direction === "rows";
	const { minZoom } = camera;
	useEffect(() => {
		const el = containerRef.current;
		if (!el || !rows) return;
		const onWheel = (ev: WheelEvent): void => {
			const pane = ev.ctrlKey && ev.target instanceof Element ? ev.target.closest(".react-flow__renderer") : null;
			if (!pane) return;
			ev.preventDefault();
			ev.stopPropagation();
			const cur = rf.getViewport();
			const step = -ev.deltaY * (ev.deltaMode === 1 ? 0.05 : ev.deltaMode ? 1 : 0.002) * 10;
			const zoom = Math.min(MAX_ZOOM, Math.max(minZoom, cur.zoom * 2 ** step));
			const py = ev.clientY - pane.getBoundingClientRect().top;
			setViewport({ x: cur.x, y: py - ((py - cur.y) / cur.zoom) * zoom, zoom });
		};
		el.addEventListener("wheel", onWheel, { capture: true, passive: false });
		return () => el.removeEventListener("wheel", onWheel, { capture: true });
	}, [rows, rf, minZoom, setViewport, containerRef]);

	const onMinimapCenter = useCallback(
		(x: number, y: number) => {
			const cur = rf.getViewport();
			setViewport({ x: (paneWidth || 800) / 2 - x * cur.zoom, y: (paneHeight || 600) / 2 - y * cur.zoom, zoom: cur.zoom });
		},
		[rf, setViewport, paneWidth, paneHeight],
	);
	return { onNodeClick, onNodeDoubleClick, onNodeContextMenu, onNodesChange, onPaneClick, onKeyDown, onMinimapCenter };
}
