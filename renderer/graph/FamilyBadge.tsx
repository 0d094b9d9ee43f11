// The branch point of a family child, marked on the parent's graph (issue #12): the card of the entry a
// file was branched or forked at carries "branched → <child title>", which opens that child. The family
// is read once per opened file (getFamily: headers of the files in its folder and pi's / omp's folders).

import { useContext, useEffect, useSyncExternalStore } from "react";
import type { SessionFamily } from "../../shared/api";
import { type AppServices, ServicesContext } from "../commands/services";
import { useGraphStore, type GraphStore } from "./store";

export interface FamilyChild {
	path: string;
	title: string;
}

/** Children of `path` by the entry id of `path` they branched at. */
export function childrenByBranchPoint(family: SessionFamily, path: string): Map<string, FamilyChild[]> {
	const out = new Map<string, FamilyChild[]>();
	for (const m of family.members) {
		if (m.parentPath !== path || !m.branchedAtEntryId || m.outside) continue;
		const title = m.title || (m.path.split(/[\\/]/).pop() ?? m.path);
		const list = out.get(m.branchedAtEntryId);
		if (list) list.push({ path: m.path, title });
		else out.set(m.branchedAtEntryId, [{ path: m.path, title }]);
	}
	return out;
}

const NONE = new Map<string, FamilyChild[]>();
/** Re-read a file's family at most this often (a new fork appears without reopening the file). */
const STALE_MS = 15_000;
const cache = new Map<string, { at: number; children: Map<string, FamilyChild[]>; loading: boolean }>();
const listeners = new Set<() => void>();
let version = 0;

function notify(): void {
	version++;
	for (const l of listeners) l();
}

function subscribe(l: () => void): () => void {
	listeners.add(l);
	return () => listeners.delete(l);
}

function load(client: AppServices["client"], path: string): void {
	const had = cache.get(path);
	if (had && (had.loading || Date.now() - had.at < STALE_MS)) return;
	cache.set(path, { at: Date.now(), children: had?.children ?? NONE, loading: true });
	client.request("getFamily", { path }).then(
		(f) => {
			cache.set(path, { at: Date.now(), children: childrenByBranchPoint(f, path), loading: false });
			notify();
		},
		() => {
			// No family (an unreadable folder): no badge; tried again after STALE_MS.
			cache.set(path, { at: Date.now(), children: had?.children ?? NONE, loading: false });
		},
	);
}

/** "branched → <title>" on the card of entry `entry` when a family member branched there. */
export function FamilyBranchBadge({ entry }: { entry: number }) {
	const services = useContext(ServicesContext);
	const entryId = useGraphStore((s) => (s.skeleton && entry < s.skeleton.count ? s.skeleton.ids[entry] : null));
	const store = services?.deps.store;
	const path = useSyncExternalStore(
		(l) => store?.subscribe(l) ?? (() => undefined),
		() => {
			const st = store?.getState();
			return (st?.activeSessionId ? st.sessions[st.activeSessionId]?.summary.path : null) ?? null;
		},
	);
	useSyncExternalStore(subscribe, () => version);
	useEffect(() => {
		if (services && path) load(services.client, path);
	}, [services, path]);
	if (!services || !path || !entryId) return null;
	const children = cache.get(path)?.children.get(entryId);
	if (!children?.length) return null;
	return (
		<>
			{children.map((c) => (
				<button
					key={c.path}
					type="button"
					className="arbor-badge arbor-badge--family nodrag nopan"
					data-testid="family-branch-badge"
					title={`${c.path} was branched from this entry — open it`}
					onClick={(ev) => {
						ev.stopPropagation();
						void services.deps.store.getState().openPath(c.path);
					}}
				>
					branched → {c.title.length > 24 ? `${c.title.slice(0, 23)}…` : c.title}
				</button>
			))}
		</>
	);
}

/**
 * Reveal `entryId` once the graph shows session `sessionId` (laid out): right after opening a file the
 * graph still holds the previous session, whose skeleton may hold the same id (a fork copies the path).
 */
export function revealWhenShown(graphStore: GraphStore, reveal: (entryId: string) => void, sessionId: string, entryId: string): void {
	const shown = (): boolean => {
		const s = graphStore.getState();
		return s.sessionKey === sessionId && s.model !== null && s.skeleton !== null && s.skeleton.ids.includes(entryId);
	};
	if (shown()) {
		reveal(entryId);
		return;
	}
	const stop = graphStore.subscribe(() => {
		if (!shown()) return;
		stop();
		clearTimeout(timer);
		// After the graph's own first placement of the new session (centered on its leaf).
		setTimeout(() => reveal(entryId), 0);
	});
	const timer = setTimeout(stop, 15_000);
}
