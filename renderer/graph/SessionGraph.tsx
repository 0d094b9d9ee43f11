// renderer/graph: the session graph. Pure pipeline (compress.ts -> layout.ts -> spatial.ts -> cull.ts),
// the graph store (store.ts), node cards (nodes.tsx), canvas overview and minimap. See docs/graph.md.
//
// <SessionGraph> props (the app store owns session, selection, filter, search and folds):
//   sessionKey        dragged positions, expanded segments and the viewport are kept per key
//   skeleton          the session's Skeleton
//   view              the visible tree: a shared/tree-view TreeView (filter + folds applied), or
//                     { rows, visibleParent, folded?, activePath? }
//   selectedIndex     selected entry index (-1 none)
//   searchMatches     matching entry indices (null = no search): matches highlighted, the rest dimmed
//   abandonedPreview  entry ids a pending navigation would summarize (highlighted), or null
//   previews(i)       cached one-line preview of entry i (pi's row text), undefined while not loaded;
//                     pass a new function (or bump previewsVersion) when new pages arrive
//   requestPreviews   asked for the indices of mounted cards whose preview is missing
//   direction         "rows" (one line per entry, lanes: layoutRows.ts) | "TB" | "LR" (tidy tree)
//   onSelect(i), onActivate(i) (double-click), onContextMenu(i, clientX, clientY), onToggleFold(i)
//   focusTick         bump to move keyboard focus to the graph
// Imperative actions (fit, zoomToLeaf, reveal, expandSegment...) are the graph's `actions` (store.ts
// createGraph; the runtime builds one and provides it with GraphContext; without one SessionGraph makes its own).
//
// GraphInner composes one hook per job: useGraphModel (props -> store inputs, compressed model),
// useGraphLayout (positions), useCulling (mounted cards, level of detail), useGraphCamera (where the view
// goes: install, fit, reveal, zoom), useFlowElements (React Flow nodes and edges), useGraphInteraction.

import "@xyflow/react/dist/style.css";
import "./graph.css";
import { useContext, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { ReactFlow, ReactFlowProvider, useReactFlow, useStore as useFlowStore } from "@xyflow/react";
import { CanvasOverview } from "./CanvasOverview";
import { nodeAt } from "./laid";
import { Minimap } from "./Minimap";
import { RowLanes } from "./RowLanes";
import { rowEnd, rowsExtent } from "./rowsFrame";
import { GraphNodeKind } from "./model";
import { nodeTypes, type GraphFlowNode } from "./nodes";
import { createGraph, GraphContext, type Graph } from "./store";
import { streamElements } from "./streaming";
import { treeItemId } from "./treeitem";
import { useCulling } from "./useCulling";
import { useFlowElements } from "./useFlowElements";
import { useGraphCamera } from "./useGraphCamera";
import { useGraphInteraction } from "./useGraphInteraction";
import { useGraphLayout } from "./useGraphLayout";
import { useGraphModel } from "./useGraphModel";
import type { SessionGraphProps } from "./props";
import { MAX_ZOOM } from "./zoom";

export type { SessionGraphProps } from "./props";

const HIDE_BUILTIN_ATTRIBUTION = { hideAttribution: true };
/** React Flow's default texts ("press delete to remove") describe editing this graph cannot do. */
const ARIA_LABELS = {
	"node.a11yDescription.default": "An entry of the session. Arrow keys move through the tree, Enter navigates here, Shift+F10 opens its menu.",
	"node.a11yDescription.keyboardDisabled": "An entry of the session. Arrow keys move through the tree, Enter navigates here, Shift+F10 opens its menu.",
	"edge.a11yDescription.default": "A parent-child link between two entries.",
};

/**
 * React Flow marks its wrapper role="application" (after the props it passes on, so no prop overrides it),
 * which would sit between the tree and its items. Removed once, when the wrapper mounts: React sets an
 * attribute again only when its value changes, and this one never does.
 */
function dropApplicationRole(el: HTMLDivElement | null): void {
	el?.removeAttribute("role");
}

/** A row's text uses the pane's width instead of a fixed 560 px (nodes.tsx rowStyle; rowsFrame.ts rowEnd). */
function rowEndStyle(paneWidth: number): React.CSSProperties {
	return { "--arbor-row-end": `${rowEnd(paneWidth)}px` } as React.CSSProperties;
}

/**
 * Calls `onDrawn` once the current layout is drawn and every mounted card is measured: React Flow hides a
 * card (visibility: hidden) until its size is known, so before that the pane can show no card at all.
 */
function useDrawnSignal(onDrawn: (() => void) | undefined, installed: boolean, nodes: readonly GraphFlowNode[]): void {
	const measured = useFlowStore((s) => {
		if (!onDrawn || !installed) return false;
		// React Flow takes the nodes prop in an effect: until then its lookup holds the previous ones (or none).
		for (const node of nodes) {
			const n = s.nodeLookup.get(node.id);
			if (!n || n.measured.width === undefined || n.measured.height === undefined) return false;
		}
		return true;
	});
	// Before paint: the swap it leads to is drawn in the same frame as the measured cards.
	useLayoutEffect(() => {
		if (measured) onDrawn?.();
	}, [measured, onDrawn]);
}

export function SessionGraph(props: SessionGraphProps): React.JSX.Element {
	const provided = useContext(GraphContext);
	const [own] = useState<Graph>(createGraph);
	const graph = provided ?? own;
	return (
		<GraphContext.Provider value={graph}>
			<ReactFlowProvider>
				<GraphInner {...props} graph={graph} />
			</ReactFlowProvider>
		</GraphContext.Provider>
	);
}

function GraphInner(props: SessionGraphProps & { graph: Graph }): React.JSX.Element {
	const { graph, skeleton, sessionKey, selectedIndex } = props;
	const direction = props.direction ?? "TB";
	const rf = useReactFlow<GraphFlowNode>();
	const paneWidth = useFlowStore((s) => s.width);
	const paneHeight = useFlowStore((s) => s.height);
	const containerRef = useRef<HTMLDivElement>(null);
	const treeRef = useRef<HTMLDivElement>(null);

	const { model, activePath } = useGraphModel(graph, props);
	const { laid, laidRef } = useGraphLayout(model, direction, sessionKey);
	const { initialViewport, lod, mounted, drawn, overrides, recull, onMove, onMoveEnd } = useCulling(graph, rf, laid, sessionKey, paneWidth, paneHeight);
	const camera = useGraphCamera({ graph, rf, laid, laidRef, skeleton, sessionKey, selectedIndex, paneWidth, paneHeight, recull, openAt: props.openAt });
	const { minZoom, setViewport } = camera;
	// The rows list cannot be panned or zoomed past its left or right edge (rowsFrame.ts).
	const extent = useMemo(() => (laid && direction === "rows" && paneWidth > 0 ? rowsExtent(laid.layout, paneWidth) : undefined), [laid, direction, paneWidth]);

	const overview = lod === "overview";
	const [minimapOpen, setMinimapOpen] = useState(true);
	const leafRect = useMemo(() => {
		if (!drawn || !skeleton) return null;
		const g = nodeAt(drawn, skeleton.leaf, skeleton);
		if (g < 0) return null;
		const o = overrides.get(g);
		return { x: o ? o.x : drawn.layout.x[g], y: o ? o.y : drawn.layout.y[g], w: drawn.layout.w[g], h: drawn.layout.h[g] };
	}, [drawn, skeleton, overrides]);

	// The cards and lanes are drawn with the layout their mounted list was culled for (useCulling).
	const { nodes: entryNodes, edges: entryEdges } = useFlowElements({
		laid: drawn,
		mounted,
		overrides,
		direction,
		activePath,
		previews: props.previews,
		requestPreviews: props.requestPreviews,
	});
	const { streaming } = props;
	const extra = useMemo(
		() => streamElements(drawn, skeleton, streaming, overrides, direction, new Set(mounted)),
		[drawn, skeleton, streaming, overrides, direction, mounted],
	);
	const { nodes, edges } = useMemo(
		() =>
			extra.nodes.length === 0 ? { nodes: entryNodes, edges: entryEdges } : { nodes: [...entryNodes, ...extra.nodes], edges: [...entryEdges, ...extra.edges] },
		[extra, entryNodes, entryEdges],
	);
	// A message pi starts streaming comes into view once (as pi's terminal scrolls to it); later updates
	// leave the camera alone, so the user can look elsewhere while pi works.
	const shownStreams = useRef(new Set<string>());
	useEffect(() => {
		for (const n of extra.nodes) {
			if (shownStreams.current.has(n.id)) continue;
			shownStreams.current.add(n.id);
			const { x, y, zoom } = rf.getViewport();
			const w = (n.width ?? 0) * zoom;
			const h = (n.height ?? 0) * zoom;
			const sx = n.position.x * zoom + x;
			const sy = n.position.y * zoom + y;
			if (paneWidth > 0 && (sx < 0 || sy < 0 || sx + w > paneWidth || sy + h > paneHeight)) {
				const cx = n.position.x + (n.width ?? 0) / 2;
				const cy = n.position.y + (n.height ?? 0) / 2;
				setViewport({ x: paneWidth / 2 - cx * zoom, y: paneHeight / 2 - cy * zoom, zoom }, 300);
			}
		}
	}, [extra, rf, paneWidth, paneHeight, setViewport]);
	useDrawnSignal(props.onDrawn, drawn !== null && drawn === laid, nodes);
	const { onNodeClick, onNodeDoubleClick, onNodeContextMenu, onNodesChange, onPaneClick, onKeyDown, onMinimapCenter } = useGraphInteraction({
		graph,
		rf,
		props,
		laid,
		overview,
		camera,
		paneWidth,
		paneHeight,
		containerRef,
		treeRef,
	});

	// Closed "+N" segments in the whole graph, not just the mounted ones: e2e specs wait on this number,
	// because what is mounted depends on the viewport (culling) and says nothing about expansion.
	const segments = useMemo(() => {
		if (!laid) return 0;
		let c = 0;
		for (let g = 0; g < laid.model.n; g++) if (laid.model.kind[g] === GraphNodeKind.segment) c++;
		return c;
	}, [laid]);
	// The rows view keeps one line per entry at every zoom (it has no room for the compact cards' big font).
	const zoomClass = lod === "far" && direction !== "rows" ? " arbor-graph--far" : "";
	// aria-activedescendant: the selected card, when it is mounted (roving focus without moving DOM focus).
	const activeDescendant =
		selectedIndex >= 0 &&
		selectedIndex < skeleton.count &&
		drawn &&
		drawn.model.nodeOfEntry[selectedIndex] >= 0 &&
		drawn.model.kind[drawn.model.nodeOfEntry[selectedIndex]] === GraphNodeKind.entry &&
		mounted.includes(drawn.model.nodeOfEntry[selectedIndex])
			? treeItemId(drawn.model.ids[drawn.model.nodeOfEntry[selectedIndex]])
			: undefined;
	return (
		<div
			ref={containerRef}
			className={`arbor-graph arbor-graph--${direction}${zoomClass}`}
			style={direction === "rows" && paneWidth > 0 ? rowEndStyle(paneWidth) : undefined}
			onKeyDown={onKeyDown}
			data-testid="arbor-graph"
			data-mounted={entryNodes.length}
			data-nodes={laid ? laid.model.n : 0}
			data-first-skeleton={skeleton.first ? "" : undefined}
			data-segments={segments}
			data-extent={laid ? `${laid.layout.minX} ${laid.layout.minY} ${laid.layout.maxX} ${laid.layout.maxY}` : undefined}
		>
			{/* One tab stop: the tree holds focus and points at the selected card (aria-activedescendant). */}
			<div
				ref={treeRef}
				className="arbor-tree"
				tabIndex={0}
				role="tree"
				aria-label="Session tree"
				aria-activedescendant={activeDescendant}
				data-testid="arbor-tree"
			>
				<ReactFlow<GraphFlowNode>
					ref={dropApplicationRole}
					nodes={nodes}
					edges={edges}
					nodeTypes={nodeTypes}
					onNodesChange={onNodesChange}
					onNodeClick={onNodeClick}
					onNodeDoubleClick={onNodeDoubleClick}
					onNodeContextMenu={onNodeContextMenu}
					onPaneClick={onPaneClick}
					onMove={onMove}
					onMoveEnd={onMoveEnd}
					defaultViewport={initialViewport}
					minZoom={minZoom}
					maxZoom={MAX_ZOOM}
					translateExtent={extent}
					nodesDraggable={false}
					nodesFocusable={false}
					edgesFocusable={false}
					autoPanOnNodeDrag={false}
					ariaLabelConfig={ARIA_LABELS}
					nodesConnectable={false}
					elementsSelectable={false}
					zoomOnDoubleClick={false}
					// Rows are a list: the wheel scrolls it and Ctrl+wheel (or a pinch) zooms, as in any list view.
					// The tree of cards keeps wheel-to-zoom, like other canvas graphs.
					panOnScroll={direction === "rows"}
					deleteKeyCode={null}
					selectionKeyCode={null}
					multiSelectionKeyCode={null}
					disableKeyboardA11y
					onlyRenderVisibleElements={false}
					proOptions={HIDE_BUILTIN_ATTRIBUTION}
				>
					{drawn && !overview && direction === "rows" && <RowLanes model={drawn.model} layout={drawn.layout} mounted={mounted} />}
				</ReactFlow>
			</div>
			{overview && laid && paneWidth > 0 && (
				<CanvasOverview
					model={laid.model}
					layout={laid.layout}
					index={laid.index}
					width={paneWidth}
					height={paneHeight}
					requestPreviews={props.requestPreviews}
				/>
			)}
			{props.onToggleView && (
				<button
					type="button"
					className="arbor-view-toggle"
					data-testid="view-toggle"
					title={direction === "rows" ? "Show the session as a tree of cards (Ctrl+Shift+E)" : "Show the session as rows, one line per entry (Ctrl+Shift+E)"}
					onClick={props.onToggleView}
				>
					{direction === "rows" ? "Tree view" : "Rows view"}
				</button>
			)}
			{overview && (
				<div className="arbor-overview-hint" data-testid="overview-hint" role="status">
					Overview: every entry of this filter. Click an entry, press Ctrl+G (leaf) or zoom in (Ctrl+=) for readable {direction === "rows" ? "rows" : "cards"}.
				</div>
			)}
			{(props.showMinimap ?? true) && laid && laid.layout.n > 0 && (
				<>
					{minimapOpen && (
						<Minimap model={laid.model} layout={laid.layout} paneWidth={paneWidth} paneHeight={paneHeight} onCenter={onMinimapCenter} leafRect={leafRect} />
					)}
					<button
						type="button"
						className={`arbor-minimap-toggle${minimapOpen ? " is-open" : ""}`}
						data-testid="minimap-toggle"
						aria-pressed={minimapOpen}
						title={minimapOpen ? "Hide the minimap" : "Show the minimap"}
						onClick={() => setMinimapOpen((o) => !o)}
					>
						{minimapOpen ? "▾ Minimap" : "▸ Minimap"}
					</button>
				</>
			)}
		</div>
	);
}
