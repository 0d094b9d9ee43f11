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
//   direction         "TB" | "LR"
//   onSelect(i), onActivate(i) (double-click), onContextMenu(i, clientX, clientY), onToggleFold(i)
//   focusTick         bump to move keyboard focus to the graph
// Imperative actions (fit, zoomToLeaf, reveal, expandSegment...) are `graphActions` in store.ts.

import "@xyflow/react/dist/style.css";
import "./graph.css";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import {
	ReactFlow,
	ReactFlowProvider,
	Position,
	useReactFlow,
	useStore as useFlowStore,
	type Edge,
	type NodeChange,
	type NodeHandle,
	type NodeMouseHandler,
	type Viewport,
} from "@xyflow/react";
import type { Skeleton, SkeletonLabel } from "../../shared/skeleton";
import { activePathMask } from "../../shared/tree-view";
import { CanvasOverview, OVERVIEW_ZOOM } from "./CanvasOverview";
import { buildGraphModel, expandSegments } from "./compress";
import { cullNodes, MOUNT_BUDGET, viewRect } from "./cull";
import { createLayoutRunner } from "./layoutRunner";
import { Minimap } from "./Minimap";
import { GraphNodeKind, type Direction, type GraphLayout, type GraphModel, type GraphTreeInput } from "./model";
import { nodeTypes, type GraphFlowNode } from "./nodes";
import { treeItemId } from "./treeitem";
import { buildSpatialIndex, nearestNode, type SpatialIndex } from "./spatial";
import { EMPTY_MAP, EMPTY_SET, graphActions, graphStore, setSegmentExpanded, useGraphStore, type GraphController, type XY } from "./store";

export interface SessionGraphProps {
	sessionKey: string;
	skeleton: Skeleton;
	view: GraphTreeInput & { activePath?: Uint8Array };
	selectedIndex: number;
	searchMatches?: readonly number[] | ReadonlySet<number> | null;
	abandonedPreview?: ReadonlySet<string> | null;
	previews: (index: number) => string | undefined;
	previewsVersion?: number;
	requestPreviews?: (indices: number[]) => void;
	direction?: Direction;
	/** Collapse linear chains into "+N" segments (default true). */
	compress?: boolean;
	showMinimap?: boolean;
	onSelect(index: number): void;
	onActivate?(index: number): void;
	onContextMenu?(index: number, clientX: number, clientY: number): void;
	onToggleFold?(index: number): void;
	/** The leaf badge was dragged onto a card (entry index), or dropped elsewhere (-1: cancelled). */
	onLeafDrop?(index: number): void;
	focusTick?: number;
}

/** Mounted, laid-out state: the model and the positions computed for it always travel together. */
interface Laid {
	model: GraphModel;
	layout: GraphLayout;
	index: SpatialIndex;
	/** React Flow id -> graph node; built on first use (only dragged positions need it). */
	nodeById(id: string): number | undefined;
	/** Session it was computed for: another session's layout is never drawn with this one's skeleton. */
	key: string;
}

const KIND_TYPE = ["entry", "segment", "foldStub"] as const;
const NO_ROLEDESCRIPTION = { "aria-roledescription": undefined };
// Edges are drawn lines inside the tree, not content: no role, no "Edge from <hex> to <hex>" label.
const NO_EDGE_LABEL = { "aria-roledescription": undefined, "aria-label": undefined } as Edge["domAttributes"];
const HIDE_BUILTIN_ATTRIBUTION = { hideAttribution: true };
/** React Flow's default texts ("press delete to remove") describe editing this graph cannot do. */
const ARIA_LABELS = {
	"node.a11yDescription.default": "An entry of the session. Arrow keys move through the tree, Enter navigates here, Shift+F10 opens its menu.",
	"node.a11yDescription.keyboardDisabled": "An entry of the session. Arrow keys move through the tree, Enter navigates here, Shift+F10 opens its menu.",
	"edge.a11yDescription.default": "A parent-child link between two entries.",
};
/** Level of detail: cards with text, cards without text (unreadable anyway), canvas overview. */
type Lod = "near" | "far" | "overview";
const FAR_ZOOM = 0.6;
/** Fit on a big session: the leaf's neighbourhood at this zoom (compact one-line cards, ~12 px text). */
const BIG_FIT_ZOOM = 0.5;
/** Below this zoom even the compact cards' text is too small: jumps (search, reveal) zoom back in. */
const JUMP_MIN_ZOOM = 0.35;
/**
 * Graphs up to this many nodes stay cards at any zoom: they mount whole within the budget, and a few
 * hundred small boxes show the tree better than the overview's dots (a 40-entry session with every
 * segment open only fits the pane below the overview zoom).
 */
const SMALL_GRAPH = MOUNT_BUDGET / 2;
const lodOf = (zoom: number, nodes: number): Lod =>
	zoom < OVERVIEW_ZOOM && nodes > SMALL_GRAPH ? "overview" : zoom < FAR_ZOOM ? "far" : "near";
const MAX_ZOOM = 2;
/** Lowest zoom at which card text is comfortably readable: jumps (search, Go to leaf) never land below it. */
const READABLE_ZOOM = 0.75;
/** Extra flow-space margin (in screen px) mounted around the view so short pans show no gaps. */
const CULL_MARGIN_PX = 160;

export function SessionGraph(props: SessionGraphProps): React.JSX.Element {
	return (
		<ReactFlowProvider>
			<GraphInner {...props} />
		</ReactFlowProvider>
	);
}

function GraphInner(props: SessionGraphProps): React.JSX.Element {
	const { skeleton, view, sessionKey, selectedIndex } = props;
	const direction = props.direction ?? "TB";
	const rf = useReactFlow<GraphFlowNode>();
	const paneWidth = useFlowStore((s) => s.width);
	const paneHeight = useFlowStore((s) => s.height);
	const containerRef = useRef<HTMLDivElement>(null);
	const treeRef = useRef<HTMLDivElement>(null);

	const matches = useMemo<ReadonlySet<number> | null>(() => {
		const m = props.searchMatches;
		if (m === null || m === undefined) return null;
		return m instanceof Set ? m : new Set(m as readonly number[]);
	}, [props.searchMatches]);
	const activePath = useMemo(() => view.activePath ?? activePathMask(skeleton, skeleton.leaf), [view, skeleton]);
	const labelOf = useMemo(() => {
		const m = new Map<number, SkeletonLabel>();
		for (const l of skeleton.labels) m.set(l.target, l);
		return m;
	}, [skeleton]);

	// Render inputs for the node cards (they select narrowly from the graph store).
	useLayoutEffect(() => {
		graphStore.setState({
			skeleton, activePath, labelOf, selected: selectedIndex, matches,
			abandoned: props.abandonedPreview ?? null, preview: props.previews, direction, sessionKey,
		});
	}, [skeleton, activePath, labelOf, selectedIndex, matches, props.abandonedPreview, props.previews, props.previewsVersion, direction, sessionKey]);

	const { onLeafDrop } = props;
	useEffect(() => {
		graphStore.setState({ onLeafDrop: onLeafDrop ?? null });
		return () => {
			if (graphStore.getState().onLeafDrop === (onLeafDrop ?? null)) graphStore.setState({ onLeafDrop: null });
		};
	}, [onLeafDrop]);

	// ---- model: visible tree -> compressed graph
	const expanded = useGraphStore((s) => s.expanded[sessionKey] ?? EMPTY_SET);
	const compress = props.compress ?? true;
	// Opening segments (a click, or the selection walking into one) patches the previous model; only a
	// new skeleton, view, search or a collapse re-runs compression over the whole visible tree.
	const modelMemo = useRef<{ skeleton: Skeleton; view: GraphTreeInput; matches: ReadonlySet<number> | null; compress: boolean; expanded: ReadonlySet<string>; model: GraphModel } | null>(null);
	const model = useMemo(() => {
		const prev = modelMemo.current;
		let next: GraphModel;
		if (prev && prev.skeleton === skeleton && prev.view === view && prev.matches === matches && prev.compress === compress && containsAll(expanded, prev.expanded)) {
			const added = new Set<string>();
			for (const id of expanded) if (!prev.expanded.has(id)) added.add(id);
			next = added.size > 0 ? expandSegments(skeleton, prev.model, added) : prev.model;
		} else {
			next = buildGraphModel(skeleton, view, { expanded, matches, compress });
		}
		modelMemo.current = { skeleton, view, matches, compress, expanded, model: next };
		return next;
	}, [skeleton, view, expanded, matches, compress]);

	// The selection is never left inside a "+N": its segment opens (and stays open while the user walks it).
	useEffect(() => {
		if (selectedIndex < 0 || selectedIndex >= model.nodeOfEntry.length) return;
		const g = model.nodeOfEntry[selectedIndex];
		if (g >= 0 && model.kind[g] === GraphNodeKind.segment) setSegmentExpanded(sessionKey, skeleton.ids[model.entry[g]], true);
	}, [model, selectedIndex, sessionKey, skeleton]);

	// ---- layout (worker for big graphs); unchanged structure reuses the previous positions
	const runner = useMemo(() => createLayoutRunner(), []);
	useEffect(() => () => runner.dispose(), [runner]);
	const [laidState, setLaid] = useState<Laid | null>(null);
	const laid = laidState !== null && laidState.key === sessionKey ? laidState : null;
	const laidRef = useRef<Laid | null>(null);
	const layoutSeq = useRef(0);
	useEffect(() => {
		const seq = ++layoutSeq.current;
		const prev = laidRef.current;
		const install = (layout: GraphLayout, index: SpatialIndex): void => {
			if (seq !== layoutSeq.current) return;
			setLaid({ model, layout, index, nodeById: lazyIdIndex(model), key: sessionKey });
		};
		if (prev && prev.layout.direction === direction && sameStructure(prev.model, model)) {
			install(prev.layout, prev.index);
			return;
		}
		void runner.run({ parent: model.parent, kind: model.kind, direction }).then((layout) => install(layout, buildSpatialIndex(layout)));
	}, [model, direction, runner, sessionKey]);

	// ---- viewport and culling. Pan/zoom frames do not re-render this component: React Flow moves the
	// pane itself; we only re-render when the set of mounted nodes or the level of detail changes.
	const [initialViewport] = useState<Viewport>(() => graphStore.getState().viewports[sessionKey] ?? { x: 0, y: 0, zoom: 1 });
	const [lod, setLod] = useState<Lod>(() => lodOf(initialViewport.zoom, Infinity));
	const [mounted, setMounted] = useState<number[]>([]);
	const mountedRef = useRef<number[]>([]);
	const positions = useGraphStore((s) => s.positions[sessionKey] ?? EMPTY_MAP);
	const overrides = useMemo(() => {
		const out = new Map<number, XY>();
		if (!laid) return out;
		for (const [id, p] of positions) {
			const g = laid.nodeById(id);
			if (g !== undefined) out.set(g, p);
		}
		return out;
	}, [positions, laid]);
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
		if (prev.length === next.length && prev.every((g, k) => g === next[k])) return;
		mountedRef.current = next;
		setMounted(next);
	}, []);
	useEffect(() => recull(rf.getViewport()), [laid, overrides, paneWidth, paneHeight, recull, rf]);

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
	const onMoveEnd = useCallback(
		(_: unknown, next: Viewport) => {
			recull(next);
			graphActions.saveViewport(next);
		},
		[recull],
	);
	useEffect(() => () => cancelAnimationFrame(rafRef.current), []);

	// Where the last animated move is going: a zoom step taken while one is still running starts from its
	// target, so quick repeated zooms (keys, buttons) compound instead of each restarting from wherever the
	// animation happens to be (on a busy machine: barely started).
	const animTarget = useRef<{ vp: Viewport; until: number } | null>(null);
	const setViewport = useCallback(
		(next: Viewport, duration = 0) => {
			animTarget.current = duration > 0 ? { vp: next, until: performance.now() + duration } : null;
			void rf.setViewport(next, duration > 0 ? { duration } : undefined);
			recull(next);
			graphActions.saveViewport(next);
		},
		[rf, recull],
	);

	const minZoom = useMemo(() => {
		if (!laid || paneWidth <= 0) return 0.05;
		const l = laid.layout;
		const fit = Math.min(paneWidth / Math.max(1, l.maxX - l.minX), paneHeight / Math.max(1, l.maxY - l.minY));
		return Math.max(0.0002, Math.min(0.1, fit * 0.5));
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
			const saved = graphStore.getState().viewports[sessionKey];
			if (saved) setViewport(saved);
			else centerOn(laid, skeleton.leaf >= 0 ? skeleton.leaf : 0, 1);
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

	// Tree depth of every graph node (aria-level), for the cards.
	useLayoutEffect(() => {
		if (!laid) return;
		const m = laid.model;
		const depth = new Int32Array(m.n);
		for (let g = 0; g < m.n; g++) depth[g] = m.parent[g] >= 0 ? depth[m.parent[g]] + 1 : 1;
		graphStore.setState({ depth });
	}, [laid]);

	// ---- controller for graphActions
	const controllerDeps = useRef({ laid, paneWidth, paneHeight, minZoom });
	controllerDeps.current = { laid, paneWidth, paneHeight, minZoom };
	useEffect(() => {
		const controller: GraphController = {
			fit() {
				const { laid: l, paneWidth: w, paneHeight: h, minZoom: mz } = controllerDeps.current;
				if (!l || l.layout.n === 0) return;
				const { minX, minY, maxX, maxY } = l.layout;
				const pw = w > 0 ? w : 800;
				const ph = h > 0 ? h : 600;
				const z = Math.max(mz, Math.min(1, (pw * 0.92) / Math.max(1, maxX - minX), (ph * 0.92) / Math.max(1, maxY - minY)));
				// A big session fitted whole is a thin strip of dots: Fit shows the neighbourhood of the leaf
				// at the lowest zoom that still draws text instead (the overview stays a zoom-out away).
				if (z < BIG_FIT_ZOOM && l.model.n > SMALL_GRAPH) {
					const sk = graphStore.getState().skeleton;
					const c = nodeCenter(l, sk && sk.leaf >= 0 ? sk.leaf : 0, sk ?? undefined);
					if (c) {
						setViewport({ x: pw / 2 - c.x * BIG_FIT_ZOOM, y: ph / 2 - c.y * BIG_FIT_ZOOM, zoom: BIG_FIT_ZOOM }, 200);
						return;
					}
				}
				setViewport({ x: pw / 2 - ((minX + maxX) / 2) * z, y: ph / 2 - ((minY + maxY) / 2) * z, zoom: z }, 200);
			},
			centerOnEntry(entry, zoom) {
				const l = controllerDeps.current.laid;
				if (l) centerOn(l, entry, zoom, 200);
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
		};
		graphStore.setState({ controller });
		return () => {
			if (graphStore.getState().controller === controller) graphStore.setState({ controller: null });
		};
		// eslint-disable-next-line react-hooks/exhaustive-deps -- the controller reads fresh values through refs
	}, [rf, setViewport]);

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
		// Jumps land where card text is legible: from below JUMP_MIN_ZOOM they zoom in to READABLE_ZOOM.
		if (force || !inside || cur.zoom < JUMP_MIN_ZOOM) centerOn(laid, pendingReveal, cur.zoom < JUMP_MIN_ZOOM || force ? Math.max(cur.zoom, READABLE_ZOOM) : cur.zoom, 200);
		// eslint-disable-next-line react-hooks/exhaustive-deps -- centerOn is recreated each render
	}, [pendingReveal, laid]);

	const overview = lod === "overview";
	const [minimapOpen, setMinimapOpen] = useState(true);
	const leafRect = useMemo(() => {
		if (!laid || !skeleton) return null;
		const g = nodeAt(laid, skeleton.leaf, skeleton);
		if (g < 0) return null;
		const o = overrides.get(g);
		return { x: o ? o.x : laid.layout.x[g], y: o ? o.y : laid.layout.y[g], w: laid.layout.w[g], h: laid.layout.h[g] };
	}, [laid, skeleton, overrides]);

	// ---- React Flow nodes and edges for the mounted set. Node objects are kept by id across layouts and
	// reused while their position, size and data are unchanged, so after a re-layout (a segment opened,
	// an append) React Flow and the memoized cards only redo the nodes that actually moved.
	const nodeCache = useRef<Map<string, GraphFlowNode>>(new Map());
	const nodes = useMemo(() => {
		if (!laid) return [];
		const cache = nodeCache.current;
		const next = new Map<string, GraphFlowNode>();
		const out = mounted.map((g) => {
			const fresh = makeNode(laid, g, overrides.get(g), direction);
			const old = cache.get(fresh.id);
			const node = old && sameNode(old, fresh) ? old : fresh;
			next.set(node.id, node);
			return node;
		});
		nodeCache.current = next;
		return out;
	}, [laid, mounted, overrides, direction]);

	const edges = useMemo(() => {
		if (!laid) return [];
		const { model: m } = laid;
		const inSet = new Set(mounted);
		const out: Edge[] = [];
		for (const g of mounted) {
			const p = m.parent[g];
			if (p < 0 || !inSet.has(p)) continue;
			const active = activePath[m.entry[g]] === 1 && activePath[m.entry[p]] === 1 && m.kind[g] !== GraphNodeKind.foldStub;
			out.push({ id: `e:${m.ids[g]}`, source: m.ids[p], target: m.ids[g], className: active ? "arbor-edge is-active" : "arbor-edge", selectable: false, focusable: false, ariaRole: "none", domAttributes: NO_EDGE_LABEL });
		}
		return out;
	}, [laid, mounted, activePath]);

	// ---- previews for the mounted cards
	const { previews, requestPreviews } = props;
	useEffect(() => {
		if (!requestPreviews || !laid || mounted.length === 0) return;
		const t = setTimeout(() => {
			const missing: number[] = [];
			for (const g of mounted) if (laid.model.kind[g] === GraphNodeKind.entry && previews(laid.model.entry[g]) === undefined) missing.push(laid.model.entry[g]);
			if (missing.length > 0) requestPreviews(missing);
		}, 30);
		return () => clearTimeout(t);
	}, [mounted, laid, previews, requestPreviews]);

	// ---- interaction
	const { onSelect, onActivate, onContextMenu, onToggleFold } = props;
	const onNodeClick: NodeMouseHandler<GraphFlowNode> = useCallback(
		(_ev, node) => {
			const { entry } = node.data;
			if (node.type === "segment") setSegmentExpanded(sessionKey, skeleton.ids[entry], true);
			else if (node.type === "foldStub") onToggleFold?.(entry);
			else onSelect(entry);
		},
		[onSelect, onToggleFold, sessionKey, skeleton],
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
			for (const c of changes) if (c.type === "position" && c.position) graphActions.setNodePosition(c.id, { x: c.position.x, y: c.position.y });
		},
		[],
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
					if (pill.dataset.testid === "arbor-segment") setSegmentExpanded(sessionKey, skeleton.ids[entry], true);
					else onToggleFold?.(entry);
					treeRef.current?.focus();
					return;
				}
			}
			if (ev.key === "Enter" && !ev.ctrlKey && !ev.altKey && !ev.metaKey && !ev.shiftKey && !inText && selectedIndex >= 0 && onActivate && containerRef.current?.contains(t)) {
				ev.preventDefault();
				onActivate(selectedIndex);
			}
		},
		[onActivate, selectedIndex, sessionKey, skeleton, onToggleFold],
	);
	useEffect(() => {
		if (props.focusTick) treeRef.current?.focus();
	}, [props.focusTick]);

	const onMinimapCenter = useCallback(
		(x: number, y: number) => {
			const cur = rf.getViewport();
			setViewport({ x: (paneWidth || 800) / 2 - x * cur.zoom, y: (paneHeight || 600) / 2 - y * cur.zoom, zoom: cur.zoom });
		},
		[rf, setViewport, paneWidth, paneHeight],
	);

	// Closed "+N" segments in the whole graph, not just the mounted ones: e2e specs wait on this number,
	// because what is mounted depends on the viewport (culling) and says nothing about expansion.
	const segments = useMemo(() => {
		if (!laid) return 0;
		let c = 0;
		for (let g = 0; g < laid.model.n; g++) if (laid.model.kind[g] === GraphNodeKind.segment) c++;
		return c;
	}, [laid]);
	const zoomClass = lod === "far" ? " arbor-graph--far" : "";
	// aria-activedescendant: the selected card, when it is mounted (roving focus without moving DOM focus).
	const activeDescendant = selectedIndex >= 0 && selectedIndex < skeleton.count && laid && laid.model.nodeOfEntry[selectedIndex] >= 0
		&& laid.model.kind[laid.model.nodeOfEntry[selectedIndex]] === GraphNodeKind.entry && mounted.includes(laid.model.nodeOfEntry[selectedIndex])
		? treeItemId(laid.model.ids[laid.model.nodeOfEntry[selectedIndex]])
		: undefined;
	// React Flow marks its wrapper role="application", which would sit between the tree and its items.
	useEffect(() => {
		treeRef.current?.querySelector(".react-flow")?.removeAttribute("role");
	});
	return (
		<div
			ref={containerRef}
			className={`arbor-graph arbor-graph--${direction}${zoomClass}`}
			onKeyDown={onKeyDown}
			data-testid="arbor-graph"
			data-mounted={nodes.length}
			data-segments={segments}
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
					nodesDraggable={false}
					nodesFocusable={false}
					edgesFocusable={false}
					autoPanOnNodeDrag={false}
					ariaLabelConfig={ARIA_LABELS}
					nodesConnectable={false}
					elementsSelectable={false}
					zoomOnDoubleClick={false}
					deleteKeyCode={null}
					selectionKeyCode={null}
					multiSelectionKeyCode={null}
					disableKeyboardA11y
					onlyRenderVisibleElements={false}
					proOptions={HIDE_BUILTIN_ATTRIBUTION}
				/>
			</div>
			{/* React Flow's credit, outside the tree and readable in both colour schemes. */}
			<a className="arbor-attribution" href="https://reactflow.dev" target="_blank" rel="noreferrer">React Flow</a>
			{overview && laid && paneWidth > 0 && (
				<CanvasOverview model={laid.model} layout={laid.layout} index={laid.index} width={paneWidth} height={paneHeight} requestPreviews={props.requestPreviews} />
			)}
			{(props.showMinimap ?? true) && laid && laid.layout.n > 0 && (
				<>
					{minimapOpen && <Minimap model={laid.model} layout={laid.layout} paneWidth={paneWidth} paneHeight={paneHeight} onCenter={onMinimapCenter} leafRect={leafRect} />}
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

function lazyIdIndex(model: GraphModel): (id: string) => number | undefined {
	let map: Map<string, number> | null = null;
	return (id) => {
		if (!map) {
			map = new Map();
			for (let g = 0; g < model.n; g++) map.set(model.ids[g], g);
		}
		return map.get(id);
	};
}

function containsAll(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
	if (a.size < b.size) return false;
	for (const x of b) if (!a.has(x)) return false;
	return true;
}

/** Same parents and node kinds in the same order: the previous positions still fit (ids may differ). */
function sameStructure(a: GraphModel, b: GraphModel): boolean {
	if (a.n !== b.n) return false;
	for (let i = 0; i < a.n; i++) if (a.parent[i] !== b.parent[i] || a.kind[i] !== b.kind[i]) return false;
	return true;
}

/** Graph node showing an entry, or its nearest drawn ancestor (-1 if none). */
function nodeAt(l: Laid, entry: number, s: Skeleton): number {
	let e = entry;
	for (let guard = 0; e >= 0 && e < l.model.nodeOfEntry.length && guard < 1_000_000; guard++) {
		const g = l.model.nodeOfEntry[e];
		if (g >= 0) return g;
		e = s.parent[e];
	}
	return -1;
}

/** Center of the node showing an entry; an entry not drawn (hidden, folded) falls back to its nearest drawn ancestor. */
function nodeCenter(l: Laid, entry: number, s?: Skeleton): XY | null {
	let e = entry;
	for (let guard = 0; e >= 0 && e < l.model.nodeOfEntry.length && guard < 1_000_000; guard++) {
		const g = l.model.nodeOfEntry[e];
		if (g >= 0) return { x: l.layout.x[g] + l.layout.w[g] / 2, y: l.layout.y[g] + l.layout.h[g] / 2 };
		if (!s) return null;
		e = s.parent[e];
	}
	return null;
}

function sameNode(a: GraphFlowNode, b: GraphFlowNode): boolean {
	return a.type === b.type && a.position.x === b.position.x && a.position.y === b.position.y && a.width === b.width && a.height === b.height
		&& a.data.entry === b.data.entry && a.data.count === b.data.count && a.handles?.[0]?.position === b.handles?.[0]?.position;
}

function makeNode(l: Laid, g: number, override: XY | undefined, direction: Direction): GraphFlowNode {
	const { model: m, layout } = l;
	const w = layout.w[g];
	const h = layout.h[g];
	const kind = m.kind[g];
	const tb = direction === "TB";
	// Handles given up front: edges draw without waiting for DOM measurement of each card.
	const handles: NodeHandle[] = [
		tb ? { type: "target", position: Position.Top, x: w / 2, y: 0, width: 1, height: 1 } : { type: "target", position: Position.Left, x: 0, y: h / 2, width: 1, height: 1 },
	];
	if (kind !== GraphNodeKind.foldStub) {
		handles.push(tb ? { type: "source", position: Position.Bottom, x: w / 2, y: h - 1, width: 1, height: 1 } : { type: "source", position: Position.Right, x: w - 1, y: h / 2, width: 1, height: 1 });
	}
	return {
		id: m.ids[g],
		type: KIND_TYPE[kind] ?? "entry",
		position: override ?? { x: layout.x[g], y: layout.y[g] },
		data: { entry: m.entry[g], count: kind === GraphNodeKind.entry ? m.childCount[g] : m.count[g] },
		width: w,
		height: h,
		measured: { width: w, height: h },
		handles,
		// Card dragging moved a card and nothing else (and xyflow's auto-pan could outlive an aborted drag):
		// off. Steering by drag uses the leaf badge (nodes.tsx startLeafDrag).
		draggable: false,
		selectable: false,
		connectable: false,
		deletable: false,
		focusable: false,
		// The graph is one WAI-ARIA tree: the cards inside are its treeitems, the wrapper adds nothing.
		ariaRole: "none",
		domAttributes: NO_ROLEDESCRIPTION,
	};
}
