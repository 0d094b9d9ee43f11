// The graph's model hook: SessionGraph's props -> the graph store's render inputs (the cards select from
// them) and the visible tree -> the compressed graph model (compress.ts), patched when segments open.

import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { Skeleton, SkeletonLabel } from "../../shared/skeleton";
import { activePathMask } from "../../shared/tree-view";
import { buildGraphModel, expandSegments } from "./compress";
import { GraphNodeKind, type GraphModel, type GraphTreeInput } from "./model";
import type { SessionGraphProps } from "./props";
import { EMPTY_SET, NO_CARDS, setSegmentExpanded, useGraphStore, type Graph } from "./store";

/** Models this big are rebuilt a frame after a filter or search change (smaller ones take a few ms). */
const DEFER_REBUILD_NODES = 4000;

export interface GraphModelResult {
	model: GraphModel;
	activePath: Uint8Array;
}

export function useGraphModel(graph: Graph, props: SessionGraphProps): GraphModelResult {
	const { skeleton, view, sessionKey, selectedIndex } = props;
	const liveLeaf = props.liveLeaf ?? null;
	const direction = props.direction ?? "TB";
	const graphStore = graph.store;

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
			skeleton,
			activePath,
			labelOf,
			selected: selectedIndex,
			matches,
			abandoned: props.abandonedPreview ?? null,
			preview: props.previews,
			cards: props.cards ?? NO_CARDS,
			direction,
			sessionKey,
			liveLeaf,
		});
	}, [
		graphStore,
		skeleton,
		activePath,
		labelOf,
		selectedIndex,
		matches,
		props.abandonedPreview,
		props.previews,
		props.previewsVersion,
		props.cards,
		direction,
		sessionKey,
		liveLeaf,
	]);

	const { onLeafDrop } = props;
	useEffect(() => {
		graphStore.setState({ onLeafDrop: onLeafDrop ?? null });
		return () => {
			if (graphStore.getState().onLeafDrop === (onLeafDrop ?? null)) graphStore.setState({ onLeafDrop: null });
		};
	}, [graphStore, onLeafDrop]);

	// ---- model: visible tree -> compressed graph
	const expanded = useGraphStore((s) => s.expanded[sessionKey] ?? EMPTY_SET);
	// The rows view lists every entry, as pi's /tree does: a "+N" pill would take a row of its own there.
	const compress = (props.compress ?? true) && direction !== "rows";
	// Opening segments (a click, or the selection walking into one) patches the previous model; only a
	// new skeleton, view, search or a collapse re-runs compression over the whole visible tree.
	const modelMemo = useRef<{
		skeleton: Skeleton;
		view: GraphTreeInput;
		matches: ReadonlySet<number> | null;
		compress: boolean;
		liveLeaf: number | null;
		expanded: ReadonlySet<string>;
		model: GraphModel;
	} | null>(null);
	// A filter switch or a new search on a big session rebuilds a model of up to ~90k nodes (tens of ms)
	// right after the visible tree was recomputed in the click's own task. The rebuild waits for the next
	// frame, so no frame carries both (bench:ui "filter switch"): the old model stays on screen one frame.
	const [rebuildTick, setRebuildTick] = useState(0);
	const deferred = useRef(false);
	const allowRebuild = useRef(false);
	const model = useMemo(() => {
		const prev = modelMemo.current;
		let next: GraphModel;
		if (
			prev &&
			!allowRebuild.current &&
			prev.skeleton === skeleton &&
			prev.model.n >= DEFER_REBUILD_NODES &&
			(prev.view !== view || prev.matches !== matches || prev.compress !== compress)
		) {
			deferred.current = true;
			return prev.model;
		}
		allowRebuild.current = false;
		deferred.current = false;
		if (
			prev &&
			prev.skeleton === skeleton &&
			prev.view === view &&
			prev.matches === matches &&
			prev.compress === compress &&
			prev.liveLeaf === liveLeaf &&
			containsAll(expanded, prev.expanded)
		) {
			const added = new Set<string>();
			for (const id of expanded) if (!prev.expanded.has(id)) added.add(id);
			next = added.size > 0 ? expandSegments(skeleton, prev.model, added) : prev.model;
		} else {
			next = buildGraphModel(skeleton, view, { expanded, matches, compress, liveLeaf: liveLeaf ?? -1 });
		}
		modelMemo.current = { skeleton, view, matches, compress, liveLeaf, expanded, model: next };
		return next;
		// eslint-disable-next-line react-hooks/exhaustive-deps -- rebuildTick re-runs a deferred rebuild
	}, [skeleton, view, expanded, matches, compress, liveLeaf, rebuildTick]);
	useEffect(() => {
		if (!deferred.current) return;
		let timer: ReturnType<typeof setTimeout> | undefined;
		// After the next paint: a frame callback, then a task.
		const frame = requestAnimationFrame(() => {
			timer = setTimeout(() => {
				allowRebuild.current = true;
				setRebuildTick((t) => t + 1);
			}, 0);
		});
		return () => {
			cancelAnimationFrame(frame);
			if (timer !== undefined) clearTimeout(timer);
		};
	}, [skeleton, view, expanded, matches, compress]);

	// The selection is never left inside a "+N": its segment opens (and stays open while the user walks it).
	useEffect(() => {
		if (selectedIndex < 0 || selectedIndex >= model.nodeOfEntry.length) return;
		const g = model.nodeOfEntry[selectedIndex];
		if (g >= 0 && model.kind[g] === GraphNodeKind.segment) setSegmentExpanded(graphStore, sessionKey, skeleton.ids[model.entry[g]], true);
	}, [graphStore, model, selectedIndex, sessionKey, skeleton]);

	return { model, activePath };
}

function containsAll(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
	if (a.size < b.size) return false;
	for (const x of b) if (!a.has(x)) return false;
	return true;
}
