// The graph's own zustand store: what only the graph cares about (expanded segments, dragged positions,
// viewports, per session for the life of the app) plus the render inputs the mounted node cards select
// from with narrow selectors, so a selection change re-renders two cards, not a thousand.
// The app store (renderer/store) keeps session, selection, filter, search and folds.
// One graph store per runtime (createGraph, built by renderer/runtime.ts next to the app store) and
// provided to the graph's components by GraphContext: two runtimes (tests, windows) never share it.

import { createContext, useContext } from "react";
import { createStore, type StoreApi } from "zustand/vanilla";
import { useStore } from "zustand";
import type { Skeleton, SkeletonLabel } from "../../shared/skeleton";
import { indexOfId } from "../store/selectors";
import { GraphNodeKind, type Direction, type GraphModel } from "./model";
import type { CardSources, EntryPoint } from "./props";

export interface XY {
	x: number;
	y: number;
}

export interface GraphViewport {
	x: number;
	y: number;
	zoom: number;
}

/** What the mounted SessionGraph implements; store actions delegate to it (no-ops while none is mounted). */
export interface GraphController {
	fit(): void;
	/** Center an entry (or the node that shows it); `zoom` defaults to keeping the current zoom (min 0.6). */
	centerOnEntry(entry: number, zoom?: number): void;
	zoomBy(factor: number): void;
	/** Where an entry (or the node that shows it) is on the pane now, null when not laid out. */
	pointOf(entry: number): EntryPoint | null;
}

export interface GraphState {
	// Render inputs, mirrored from SessionGraph's props.
	skeleton: Skeleton | null;
	model: GraphModel | null;
	activePath: Uint8Array | null;
	labelOf: ReadonlyMap<number, SkeletonLabel>;
	selected: number;
	matches: ReadonlySet<number> | null;
	abandoned: ReadonlySet<string> | null;
	preview: (index: number) => string | undefined;
	/** What cards show beyond the skeleton and previews (facts, usage, roll-ups, family) and do (open, reveal). */
	cards: CardSources;
	direction: Direction;

	// Per session (key = session id), kept while the app runs.
	sessionKey: string;
	/** Expanded segments by the id of their first entry. */
	expanded: Record<string, ReadonlySet<string>>;
	/** Dragged nodes: React Flow node id -> top-left. Cleared by relayout(). */
	positions: Record<string, ReadonlyMap<string, XY>>;
	viewports: Record<string, GraphViewport>;
	/** Entry to bring into view once the graph shows it (set by reveal()). */
	pendingReveal: number;
	/** The pending reveal centers the entry at a readable zoom even when it is already in view. */
	revealCenter: boolean;
	/** Entry to reveal once the next layout is installed (a filter change re-lays out the graph). */
	revealAfterLayout: number;

	controller: GraphController | null;
	/** aria-level per graph node of `model` (1 = root). */
	depth: Int32Array | null;
	/** The leaf badge was dropped on a card (entry index) or elsewhere (-1 = cancelled). */
	onLeafDrop: ((entry: number) => void) | null;
	/** A live pi holds the session: its in-memory leaf (entry index, -1 not in the file yet); null = file mode. */
	liveLeaf: number | null;
}

const NO_PREVIEW = (): undefined => undefined;
/** Without an app (the graph alone, in its tests): no facts, roll-ups or family badges. */
export const NO_CARDS: CardSources = {
	facts: () => undefined,
	requestFacts: () => undefined,
	usage: () => null,
	rollup: () => null,
	familyAt: () => undefined,
	openFile: () => undefined,
	reveal: () => undefined,
};
export const EMPTY_SET: ReadonlySet<string> = new Set();
export const EMPTY_MAP: ReadonlyMap<string, XY> = new Map();

export function initialGraphState(): GraphState {
	return {
		skeleton: null,
		model: null,
		activePath: null,
		labelOf: new Map(),
		selected: -1,
		matches: null,
		abandoned: null,
		preview: NO_PREVIEW,
		cards: NO_CARDS,
		direction: "TB",
		sessionKey: "",
		expanded: {},
		positions: {},
		viewports: {},
		pendingReveal: -1,
		revealCenter: false,
		revealAfterLayout: -1,
		controller: null,
		onLeafDrop: null,
		depth: null,
		liveLeaf: null,
	};
}

export type GraphStore = StoreApi<GraphState>;

/** A graph's store and the imperative actions over it (structurally renderer/commands' GraphControls, plus more). */
export interface Graph {
	store: GraphStore;
	actions: GraphActions;
}

export const GraphContext = createContext<Graph | null>(null);

/** The graph of the surrounding <GraphContext.Provider> (SessionGraph provides its own when none is given). */
export function useGraph(): Graph {
	const g = useContext(GraphContext);
	if (!g) throw new Error("GraphContext missing: render the graph inside <SessionGraph> or a GraphContext.Provider");
	return g;
}

export function useGraphStore<T>(selector: (s: GraphState) => T): T {
	return useStore(useGraph().store, selector);
}

export function positionsOf(s: GraphState): ReadonlyMap<string, XY> {
	return s.positions[s.sessionKey] ?? EMPTY_MAP;
}

/** reveal() runs on every arrow key and F3: the store's id map (one per ids array) answers it. */
function entryIndex(s: GraphState, entryId: string): number {
	return s.skeleton ? indexOfId(s.skeleton, entryId) : -1;
}

/** Graph node showing an entry (itself or its "+N" segment), -1 when not drawn. */
function nodeOf(s: GraphState, entry: number): number {
	return s.model && entry >= 0 && entry < s.model.nodeOfEntry.length ? s.model.nodeOfEntry[entry] : -1;
}

/** Expand or collapse a segment (by its first entry id) of a session. */
export function setSegmentExpanded(store: GraphStore, sessionKey: string, firstId: string, on: boolean): void {
	const s = store.getState();
	const cur = s.expanded[sessionKey] ?? EMPTY_SET;
	if (cur.has(firstId) === on) return;
	const next = new Set(cur);
	if (on) next.add(firstId);
	else next.delete(firstId);
	store.setState({ expanded: { ...s.expanded, [sessionKey]: next } });
}

/** A new graph store with its actions (one per runtime). */
export function createGraph(): Graph {
	const store = createStore<GraphState>()(() => initialGraphState());
	return { store, actions: graphActionsOf(store) };
}

/**
 * Imperative graph actions for the command registry, menus and tests. Structurally compatible with
 * renderer/commands' GraphControls, plus a few more.
 */
function graphActionsOf(graphStore: GraphStore) {
	const setExpanded = (firstId: string, on: boolean): void => setSegmentExpanded(graphStore, graphStore.getState().sessionKey, firstId, on);
	const graphActions = {
		fit(): void {
			graphStore.getState().controller?.fit();
		},
		zoomToLeaf(): void {
			const s = graphStore.getState();
			if (s.skeleton && s.skeleton.leaf >= 0) s.controller?.centerOnEntry(s.skeleton.leaf, 1);
		},
		zoomToSelection(): void {
			const s = graphStore.getState();
			if (s.selected >= 0) s.controller?.centerOnEntry(s.selected, 1);
		},
		zoomIn(): void {
			graphStore.getState().controller?.zoomBy(1.25);
		},
		zoomOut(): void {
			graphStore.getState().controller?.zoomBy(0.8);
		},
		/** Bring an entry into view (after the next layout if it is not drawn yet); expands its segment. */
		reveal(entryId: string): void {
			const s = graphStore.getState();
			const e = entryIndex(s, entryId);
			if (e < 0) return;
			graphActions.expandSegment(entryId);
			graphStore.setState({ pendingReveal: e, revealCenter: false });
		},
		/** Reveal an entry once the graph has laid out its next view (after a filter change). */
		revealAfterLayout(entryId: string): void {
			const s = graphStore.getState();
			const e = entryIndex(s, entryId);
			if (e >= 0) graphStore.setState({ revealAfterLayout: e });
		},
		zoomToEntry(entryId: string): void {
			const s = graphStore.getState();
			const e = entryIndex(s, entryId);
			if (e < 0) return;
			graphActions.expandSegment(entryId);
			graphStore.setState({ pendingReveal: e, revealCenter: true });
		},
		/** Expand the "+N" segment holding this entry; false when it is not inside one. */
		expandSegment(entryId: string): boolean {
			const s = graphStore.getState();
			const g = nodeOf(s, entryIndex(s, entryId));
			if (g < 0 || !s.model || !s.skeleton || s.model.kind[g] !== GraphNodeKind.segment) return false;
			setExpanded(s.skeleton.ids[s.model.entry[g]], true);
			return true;
		},
		/** True when the entry is hidden inside a "+N" segment. */
		inSegment(entryId: string): boolean {
			const s = graphStore.getState();
			const g = nodeOf(s, entryIndex(s, entryId));
			return g >= 0 && s.model !== null && s.model.kind[g] === GraphNodeKind.segment;
		},
		/** Collapse a segment again, given the id of its first entry. */
		collapseSegment(firstEntryId: string): void {
			setExpanded(firstEntryId, false);
		},
		/** Collapse every expanded segment of the current session. */
		collapseAll(): void {
			const s = graphStore.getState();
			graphStore.setState({ expanded: { ...s.expanded, [s.sessionKey]: EMPTY_SET } });
		},
		/** Re-layout: forget dragged positions of the current session. */
		relayout(): void {
			const s = graphStore.getState();
			graphStore.setState({ positions: { ...s.positions, [s.sessionKey]: EMPTY_MAP } });
		},
		setNodePosition(nodeId: string, pos: XY): void {
			const s = graphStore.getState();
			const next = new Map(positionsOf(s));
			next.set(nodeId, pos);
			graphStore.setState({ positions: { ...s.positions, [s.sessionKey]: next } });
		},
		saveViewport(vp: GraphViewport): void {
			const s = graphStore.getState();
			if (!s.sessionKey) return;
			graphStore.setState({ viewports: { ...s.viewports, [s.sessionKey]: vp } });
		},
		/** Forget everything kept for a closed session. */
		forgetSession(sessionKey: string): void {
			const s = graphStore.getState();
			const drop = <T>(r: Record<string, T>): Record<string, T> => {
				const out = { ...r };
				delete out[sessionKey];
				return out;
			};
			graphStore.setState({ expanded: drop(s.expanded), positions: drop(s.positions), viewports: drop(s.viewports) });
		},
	};
	return graphActions;
}

export type GraphActions = ReturnType<typeof graphActionsOf>;
