// Derived data for the active session: memoized on the store's immutable pieces so a search keystroke
// or a dialog change does not recompute the visible tree of 100k entries.

import type { Skeleton } from "../../shared/skeleton";
import { computeTreeView, type TreeView } from "../../shared/tree-view";
import type { OpenSession } from "./session";
import type { AppState } from "./types";

export function activeSession(s: Pick<AppState, "sessions" | "activeSessionId">): OpenSession | null {
	return s.activeSessionId ? (s.sessions[s.activeSessionId] ?? null) : null;
}

export function activeSkeleton(s: Pick<AppState, "sessions" | "activeSessionId">): Skeleton | null {
	return activeSession(s)?.skeleton ?? null;
}

const idIndexCache = new WeakMap<readonly string[], Map<string, number>>();
const idIndexQueued = new WeakSet<readonly string[]>();
/** Ids arrays at least this long get their map built in slices between tasks (a 100k map costs ~40 ms). */
const DEFER_ID_INDEX = 20_000;
const ID_INDEX_SLICE = 10_000;

function buildIdIndex(ids: readonly string[]): Map<string, number> {
	const m = new Map<string, number>();
	// Duplicate ids: pi keeps the last one, so later indices overwrite earlier ones.
	for (let i = 0; i < ids.length; i++) m.set(ids[i], i);
	idIndexCache.set(ids, m);
	return m;
}

/** The map of a big ids array, built a slice per task and installed once whole. */
function buildIdIndexLater(ids: readonly string[]): void {
	const m = new Map<string, number>();
	let at = 0;
	const slice = (): void => {
		if (idIndexCache.has(ids)) return;
		const end = Math.min(ids.length, at + ID_INDEX_SLICE);
		for (; at < end; at++) m.set(ids[at], at);
		if (at < ids.length) setTimeout(slice, 0);
		else idIndexCache.set(ids, m);
	};
	setTimeout(slice, 0);
}

/**
 * Entry index of an id (-1 when absent). The map is built once per ids array: a leaf move makes a new
 * skeleton object around the same ids, so a 100k map is not rebuilt on every move (only when entries come).
 * A big array's map is built in slices after the lookup, which scans meanwhile: the selection's index is
 * asked for in the very render that first shows a big skeleton, where building the map at once held the
 * whole graph back by 40 ms (more on a busy machine).
 */
export function indexOfId(sk: Pick<Skeleton, "ids">, id: string): number {
	const m = idIndexCache.get(sk.ids);
	if (m) return m.get(id) ?? -1;
	const ids = sk.ids;
	if (ids.length < DEFER_ID_INDEX) return buildIdIndex(ids).get(id) ?? -1;
	if (!idIndexQueued.has(ids)) {
		idIndexQueued.add(ids);
		buildIdIndexLater(ids);
	}
	return ids.lastIndexOf(id);
}

export function leafId(sk: Skeleton): string | null {
	return sk.leaf >= 0 ? (sk.ids[sk.leaf] ?? null) : null;
}

/** Folded ids as entry indices (what shared/tree-view takes). */
export function foldedIndices(sk: Skeleton, folded: ReadonlySet<string>): Set<number> {
	const out = new Set<number>();
	for (const id of folded) {
		const i = indexOfId(sk, id);
		if (i >= 0) out.add(i);
	}
	return out;
}

const NO_HIDDEN: readonly string[] = [];

/** "Hide branch" ids of the active session's file (Arbor's settings, never the session file). */
export function hiddenBranchIds(s: Pick<AppState, "sessions" | "activeSessionId" | "settings">): readonly string[] {
	const path = activeSession(s)?.summary.path;
	return (path ? s.settings?.hiddenBranches?.[path] : undefined) ?? NO_HIDDEN;
}

/** The last visible tree computed for a session, and what it was computed from (kept in the store's `caches`). */
export interface TreeViewMemo {
	sk: Skeleton;
	filter: string;
	folded: ReadonlySet<string>;
	hidden: readonly string[];
	view: TreeView;
}

/** pi's visible tree for the active session (filter + folds + hidden branches; search highlights instead of hiding). */
export function selectTreeView(s: AppState): TreeView | null {
	const id = s.activeSessionId;
	const sk = activeSkeleton(s);
	if (!sk || !id) return null;
	const hidden = hiddenBranchIds(s);
	const memo = s.caches.treeView.get(id);
	// A leaf move makes a new skeleton object: the view depends on the leaf (the active path), so it is new too.
	if (memo && memo.sk === sk && memo.filter === s.filter && memo.folded === s.folded && memo.hidden === hidden) return memo.view;
	const view = computeTreeView(sk, {
		filter: s.filter,
		folded: foldedIndices(sk, s.folded),
		hidden: hidden.length > 0 ? foldedIndices(sk, new Set(hidden)) : null,
		leaf: sk.leaf,
	});
	s.caches.treeView.set(id, { sk, filter: s.filter, folded: s.folded, hidden, view });
	return view;
}

/** Index of the selected entry in the active skeleton, -1 when none. */
export function selectedIndex(s: AppState): number {
	const sk = activeSkeleton(s);
	return sk && s.selectedId ? indexOfId(sk, s.selectedId) : -1;
}

/** A session's composer draft (default: the active session's). */
export function draftOf(s: Pick<AppState, "drafts" | "activeSessionId">, sessionId?: string | null): string {
	const id = sessionId ?? s.activeSessionId;
	return id ? (s.drafts[id] ?? "") : "";
}
