// renderer/panels: the app's panes (graph pane, inspector, context, labels, composer, toolbar parts,
// status bar, banners). The graph area: feeds renderer/graph's <SessionGraph> from the app store (visible tree, selection,
// search matches, abandoned preview, preview texts) and turns its clicks into store actions / commands.

import { memo, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { SessionGraph } from "../graph/SessionGraph";
import { HiddenBranches } from "../compare/HiddenBranches";
import { createGraph, GraphContext, useGraph, type Graph } from "../graph/store";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { activeSkeleton, indexOfId, selectedIndex, selectTreeView } from "../store/selectors";
import { streamCards, type StreamCard } from "../graph/streaming";
import type { CardSources } from "../graph/props";
import { subtreeRollupText } from "../store/rollups";
import { firstSkeletonKey } from "../store/session";
import type { Skeleton } from "../../shared/skeleton";
import { kindStyle } from "../graph/cards";
import { shorten } from "./session-name";
import { useTriesCards } from "../tries/cards";
import { usePartHandOver } from "./held-part";
import { warmLayoutWorker } from "../graph/layoutRunner";

/** Polite live region: what the selection moved to, and where the leaf went (screen readers). */
function GraphAnnouncer() {
	const sessionId = useApp((s) => s.activeSessionId);
	const sk = useApp(activeSkeleton);
	const sel = useApp(selectedIndex);
	const leaf = sk?.leaf ?? -1;
	const map = useApp((s) => (s.activeSessionId ? s.previews[s.activeSessionId] : undefined));
	const ensure = useApp((s) => s.ensurePreviews);
	const lastLeaf = useRef<{ session: string | null; leaf: number }>({ session: null, leaf: -1 });
	const [text, setText] = useState("");
	useEffect(() => {
		if (sessionId && sel >= 0 && !map?.has(sel)) void ensure(sessionId, [sel]);
		if (sessionId && leaf >= 0 && !map?.has(leaf)) void ensure(sessionId, [leaf]);
	}, [sessionId, sel, leaf, map, ensure]);
	useEffect(() => {
		if (!sk) return;
		const say = (i: number): string => `${kindStyle(sk.kind[i]).title}${map?.has(i) ? `: ${shorten(map.get(i) ?? "", 80)}` : ""}`;
		const prev = lastLeaf.current;
		lastLeaf.current = { session: sessionId, leaf };
		if (prev.session === sessionId && prev.leaf !== leaf && leaf >= 0) setText(`Leaf moved to ${say(leaf)}`);
		else if (sel >= 0) setText(`${say(sel)}${sel === leaf ? " (leaf)" : ""}`);
	}, [sk, sel, leaf, map, sessionId]);
	return (
		<div className="sr-only" aria-live="polite" role="status" data-testid="graph-announcer">
			{text}
		</div>
	);
}

const NO_MATCHES = null;
/** The first skeleton's graph: its props stay the same while the whole one is prepared (no re-render then). */
const PartGraph = memo(SessionGraph);

export function GraphPane() {
	const { run, deps, reveal } = useServices();
	const sessionId = useApp((s) => s.activeSessionId);
	const skeleton = useApp(activeSkeleton);
	const tree = useApp(selectTreeView);
	const selected = useApp(selectedIndex);
	const query = useApp((s) => s.search.query);
	const matches = useApp((s) => s.search.matches);
	const abandoned = useApp((s) => s.abandoned);
	const previewMap = useApp((s) => (s.activeSessionId ? s.previews[s.activeSessionId] : undefined));
	const direction = useApp((s) => s.settings?.layoutDirection ?? "rows");
	const focusTick = useApp((s) => s.graphFocusTick);
	const { liveLeaf, streaming } = useLiveGraph(sessionId, skeleton);
	const st = deps.store.getState;
	const graph = useGraph();

	// A filter change keeps the selected entry in view (it may have moved far in the new layout).
	const filter = useApp((s) => s.filter);
	const lastFilter = useRef(filter);
	useEffect(() => {
		if (lastFilter.current === filter) return;
		lastFilter.current = filter;
		const id = st().selectedId;
		if (!id) return;
		graph.actions.revealAfterLayout(id);
	}, [filter, st, graph]);

	const previews = useCallback((i: number) => previewMap?.get(i), [previewMap]);
	const requestPreviews = useCallback(
		(indices: number[]) => {
			if (sessionId) void st().ensurePreviews(sessionId, indices);
		},
		[sessionId, st],
	);
	const searchMatches = useMemo(() => (query.trim() === "" ? NO_MATCHES : matches), [query, matches]);
	const handlers = useEntryHandlers(skeleton, liveLeaf);
	const selectedId = useApp((s) => s.selectedId);
	const [partGraph] = useState<Graph>(createGraph);
	const { held, retired, wholeDrawn, partLayer, wholeLayer } = usePartHandOver(sessionId, skeleton, tree, previews);
	const part = held && held.sessionId === sessionId ? held : null;
	const shownPart = part ?? (retired && retired.sessionId === sessionId ? retired : null);
	// While the part is on screen, the whole graph's usage roll-ups and family wait (their answers are
	// worked on in the renderer's thread, which lays out the whole graph then).
	const cards = useCardSources(sessionId, skeleton, reveal, part === null);
	const partCards = useCardSources(sessionId, shownPart?.skeleton ?? null, reveal, false);
	const partHandlers = useEntryHandlers(shownPart?.skeleton ?? null, null);
	// Once the whole skeleton is in, the store's texts are by file index (the part's carried over, and the
	// pages the whole graph's cards ask for): the part's cards read them through its file indices.
	const partSkeleton = shownPart?.skeleton;
	const partPreviews = useMemo(() => {
		const at = partSkeleton?.first?.fileIndex;
		if (!at || skeleton?.first !== undefined) return shownPart?.previews;
		return (k: number) => (k >= 0 && k < at.length ? previewMap?.get(at[k]) : undefined);
	}, [partSkeleton, skeleton, shownPart, previewMap]);
	// The whole skeleton's layout (a worker's job at this size) follows the part: its worker starts now.
	const isPart = skeleton?.first !== undefined;
	useEffect(() => {
		if (isPart) warmLayoutWorker();
	}, [isPart]);
	const toggleView = useCallback(() => void st().updateSettings({ layoutDirection: direction === "rows" ? "TB" : "rows" }), [st, direction]);

	if (!sessionId || !skeleton || !tree) {
		return (
			<div className="graph-empty" data-testid="graph-loading">
				{sessionId ? "Loading session…" : ""}
			</div>
		);
	}
	if (tree.rows.length === 0) {
		return (
			<div className="graph-empty" data-testid="graph-empty">
				{skeleton.count === 0 ? (
					"This session has no entries yet."
				) : filter === "default" ? (
					// A file branched from its first user message holds only settings lines (model, thinking level).
					<p>
						This session has no messages yet: its {skeleton.count === 1 ? "one entry is a settings line" : `${skeleton.count} entries are settings lines`}{" "}
						(model, thinking level, labels…), which the default filter hides. Type the first message below, or{" "}
						<button type="button" className="link" onClick={() => void run("filter.all", { source: "button" })}>
							show all entries
						</button>
						.
					</p>
				) : (
					<p>
						No entries match this filter (0 of {skeleton.count.toLocaleString()}).{" "}
						<button type="button" className="link" onClick={() => void run("filter.default", { source: "button" })}>
							Back to the default filter
						</button>{" "}
						(Ctrl+D).
					</p>
				)}
			</div>
		);
	}
	// Progressive open (docs/session-core.md): the first skeleton's graph stays on screen until the whole
	// one's is drawn underneath, then one commit swaps them.
	const hasWhole = skeleton.first === undefined;
	const openAt = () => {
		if (!part) return null;
		const id = st().selectedId ?? part.skeleton.ids[part.skeleton.leaf] ?? null;
		const at = id ? partGraph.store.getState().controller?.pointOf(indexOfId(part.skeleton, id)) : null;
		const entry = id ? indexOfId(skeleton, id) : -1;
		return at && entry >= 0 ? { ...at, entry } : null;
	};
	return (
		<div className="graph-pane" data-testid="graph">
			<GraphAnnouncer />
			<HiddenBranches />
			{shownPart && (
				<div className={`graph-layer${part ? "" : " is-retired"}`} aria-hidden={part ? undefined : true} inert={part ? undefined : true} ref={partLayer}>
					<GraphContext.Provider value={partGraph}>
						<PartGraph
							// A first skeleton is drawn as its own graph: the whole one's indices, layout and view differ.
							sessionKey={firstSkeletonKey(sessionId)}
							skeleton={shownPart.skeleton}
							view={shownPart.view}
							selectedIndex={hasWhole ? (selectedId ? indexOfId(shownPart.skeleton, selectedId) : -1) : selected}
							searchMatches={hasWhole ? NO_MATCHES : searchMatches}
							abandonedPreview={abandoned}
							previews={partPreviews ?? shownPart.previews}
							requestPreviews={hasWhole ? undefined : requestPreviews}
							cards={partCards}
							direction={direction}
							{...partHandlers}
							focusTick={focusTick}
							onToggleView={toggleView}
						/>
					</GraphContext.Provider>
				</div>
			)}
			{hasWhole && (
				// While the part is shown, the whole graph is laid out and its cards measured here, unseen.
				<div className={`graph-layer${part ? " is-preparing" : ""}`} aria-hidden={part ? true : undefined} inert={part ? true : undefined} ref={wholeLayer}>
					<SessionGraph
						sessionKey={sessionId}
						skeleton={skeleton}
						view={tree}
						selectedIndex={selected}
						searchMatches={searchMatches}
						abandonedPreview={abandoned}
						previews={previews}
						requestPreviews={requestPreviews}
						cards={cards}
						direction={direction}
						{...handlers}
						focusTick={focusTick}
						liveLeaf={liveLeaf}
						streaming={streaming}
						onToggleView={toggleView}
						onDrawn={part ? wholeDrawn : undefined}
						openAt={part ? openAt : undefined}
					/>
				</div>
			)}
		</div>
	);
}

/** Select, navigate, menu, leaf drop and fold for the cards of one skeleton's graph (its indices -> entry ids). */
function useEntryHandlers(skeleton: Skeleton | null, liveLeaf: number | null) {
	const { run, deps } = useServices();
	const st = deps.store.getState;
	const idOf = useCallback((i: number) => (skeleton && i >= 0 && i < skeleton.count ? skeleton.ids[i] : null), [skeleton]);
	const onSelect = useCallback((i: number) => st().select(idOf(i)), [st, idOf]);
	const onActivate = useCallback(
		(i: number) => {
			const id = idOf(i);
			if (id) void run("navigate.here", { targetId: id, source: "button" });
		},
		[run, idOf],
	);
	const onContextMenu = useCallback(
		(i: number, x: number, y: number) => {
			const id = idOf(i);
			if (!id) return;
			st().select(id);
			st().openContextMenu({ entryId: id, x, y });
		},
		[st, idOf],
	);
	// Drag to steer: the leaf badge dropped on a card asks to navigate there (the dialog Enter opens).
	const onLeafDrop = useCallback(
		(i: number) => {
			const id = idOf(i);
			if (!id) {
				st().toast("info", "Leaf not moved: drop the badge on a card to move the leaf there");
				return;
			}
			if (skeleton && i === (liveLeaf ?? skeleton.leaf)) return;
			st().select(id);
			void run("navigate.here", { targetId: id, source: "button" });
		},
		[run, idOf, st, skeleton, liveLeaf],
	);
	const onToggleFold = useCallback(
		(i: number) => {
			const id = idOf(i);
			if (id) st().toggleFold(id);
		},
		[st, idOf],
	);
	return { onSelect, onActivate, onContextMenu, onLeafDrop, onToggleFold };
}

const NO_STREAMS: StreamCard[] = [];

/** What the cards show beyond skeleton and previews (facts, usage, roll-ups, family), from the store's caches. */
/** `load`: ask the host for the usage roll-ups and the family (a first skeleton never does). */
function useCardSources(sessionId: string | null, skeleton: Skeleton | null, reveal: (entryId: string) => void, load: boolean): CardSources {
	const facts = useApp((s) => (sessionId ? s.cardFacts[sessionId] : undefined));
	const usage = useApp((s) => (sessionId ? s.usageRollups[sessionId] : undefined));
	const path = useApp((s) => (sessionId ? (s.sessions[sessionId]?.summary.path ?? null) : null));
	const family = useApp((s) => (path ? s.familyChildren[path] : undefined));
	const ensureFacts = useApp((s) => s.ensureCardFacts);
	const ensureUsage = useApp((s) => s.ensureUsageRollups);
	const ensureFamily = useApp((s) => s.ensureFamily);
	const openPath = useApp((s) => s.openPath);
	const count = skeleton?.count ?? 0;
	// A first skeleton (shared/first-skeleton.ts): its indices are not the file's, so its cards wait for the
	// whole skeleton for their facts and roll-ups.
	const part = skeleton?.first !== undefined;
	useEffect(() => {
		if (sessionId && load && !part) ensureUsage(sessionId, count);
	}, [sessionId, count, part, load, ensureUsage]);
	// Asked once the whole skeleton is in: the host's family scan (0.4-0.6 s on a folder of big sessions)
	// runs on its one thread, and asked at once it held back the whole skeleton's 4 MB frame.
	const whole = skeleton !== null && !part && load;
	useEffect(() => {
		if (path && whole) ensureFamily(path);
	}, [path, count, whole, ensureFamily]);
	return useMemo(
		() => ({
			facts: (i) => (part ? undefined : facts?.get(i)),
			requestFacts: (i) => {
				if (sessionId && !part) ensureFacts(sessionId, [i]);
			},
			usage: (i) => (part ? null : (usage?.byAnchor.get(i) ?? null)),
			rollup: (i) => subtreeRollupText(skeleton, i),
			familyAt: (id) => family?.get(id),
			openFile: (p) => void openPath(p),
			reveal,
		}),
		[sessionId, skeleton, part, facts, usage, family, ensureFacts, openPath, reveal],
	);
}

/** A live pi's leaf (the session's one leaf, kept on pi's while live; null in file mode) and its streaming cards, for the graph. */
function useLiveGraph(sessionId: string | null, skeleton: Skeleton | null): { liveLeaf: number | null; streaming: StreamCard[] } {
	const live = useApp((s) => (sessionId ? s.live[sessionId] : undefined));
	const streams = live?.streams;
	const liveLeaf = live && skeleton ? skeleton.leaf : null;
	const fromLive = useMemo(() => (streams && skeleton && streams.length > 0 ? streamCards(skeleton, streams) : NO_STREAMS), [streams, skeleton]);
	// Tries started from this session stream under their entry too (renderer/tries/cards.ts).
	const path = useApp((s) => (sessionId ? (s.sessions[sessionId]?.summary.path ?? null) : null));
	const tryCards = useTriesCards(path, skeleton);
	const streaming = useMemo(() => (tryCards.length === 0 ? fromLive : [...fromLive, ...tryCards]), [fromLive, tryCards]);
	return { liveLeaf, streaming };
}
