// Session slice: the open sessions (summary + skeleton) and which one is active. Skeletons change only
// from API results and events (DESIGN.md "Act"), never from the renderer's own guesses.

import type { FilterMode, SearchScope, SessionSummary } from "../../shared/api";
import type { Skeleton } from "../../shared/skeleton";
import type { TreeViewMemo } from "./selectors";
import type { SliceCreator } from "./types";

export interface OpenSession {
	summary: SessionSummary;
	/** Null until getSkeleton answers. */
	skeleton: Skeleton | null;
	/** Selection to restore when the tab becomes active again. */
	lastSelectedId: string | null;
	/** The filter, folds and search the tab had when another became active (restored on its return). */
	lastView?: TabView;
	/** Leaf history availability as last reported by leafHistory (null = not asked yet: allowed). */
	canBack: boolean | null;
	canForward: boolean | null;
}

/** What a tab keeps of its view while another is active: switching tabs must not reset it (issue 38). */
export interface TabView {
	filter: FilterMode;
	folded: ReadonlySet<string>;
	query: string;
	scope: SearchScope;
}

/**
 * Memos of derived data, per session, owned by this store (not module globals): written by selectors
 * while they compute (never rendered, so never `set`), dropped when the session closes.
 */
export interface DerivedCaches {
	treeView: Map<string, TreeViewMemo>;
}

export interface SessionSlice {
	sessions: Record<string, OpenSession>;
	caches: DerivedCaches;
	/** Tab order. */
	order: string[];
	activeSessionId: string | null;
	/** True until the initial sessions were asked for. */
	booting: boolean;
	/** Add (or refresh) an opened session, fetch its skeleton and make it active. */
	addSession(summary: SessionSummary, opts?: { activate?: boolean }): Promise<void>;
	openPath(path: string): Promise<SessionSummary | null>;
	closeSession(sessionId: string): Promise<void>;
	setActive(sessionId: string): void;
	/** Fetch the skeleton again (reload, labels changed, a delta that did not fit). */
	refetchSkeleton(sessionId: string): Promise<void>;
	setSkeleton(sessionId: string, skeleton: Skeleton): void;
	setSummary(sessionId: string, summary: SessionSummary): void;
	removeSession(sessionId: string): void;
	/**
	 * Opens the host's launch sessions, or the library when there are none. `kept`: the tabs this page had open before a
	 * reload (in their order, and which was active), opened again beside the launch ones (issue 38: a reload closed them all).
	 */
	boot(kept?: KeptTabs): Promise<void>;
}

/** The tabs a page had open (paths in tab order, the active one's path), kept across a reload of the page. */
export interface KeptTabs {
	paths: string[];
	active: string | null;
}

export const createSessionSlice: SliceCreator<SessionSlice> = (set, get, client) => ({
	sessions: {},
	caches: { treeView: new Map() },
	order: [],
	activeSessionId: null,
	booting: true,

	async addSession(summary, opts) {
		const id = summary.sessionId;
		const activate = opts?.activate ?? true;
		set((s) => {
			const existing = s.sessions[id];
			return {
				sessions: {
					...s.sessions,
					[id]: existing ? { ...existing, summary } : { summary, skeleton: null, lastSelectedId: null, canBack: null, canForward: null },
				},
				order: s.order.includes(id) ? s.order : [...s.order, id],
			};
		});
		if (activate) get().setActive(id);
		get().liveFromSummary(summary);
		await get().refetchSkeleton(id);
	},

	async openPath(path) {
		try {
			const summary = await client.request("openSession", { path });
			await get().addSession(summary);
			get().rememberRecent(path);
			get().closeDialog("library");
			return summary;
		} catch (err) {
			get().reportError(err, `Could not open ${path}`);
			return null;
		}
	},

	async closeSession(sessionId) {
		try {
			await client.request("closeSession", { sessionId });
		} catch (err) {
			get().reportError(err);
		}
		get().removeSession(sessionId);
	},

	removeSession(sessionId) {
		set((s) => {
			if (!s.sessions[sessionId]) return {};
			const sessions = { ...s.sessions };
			delete sessions[sessionId];
			const order = s.order.filter((x) => x !== sessionId);
			const activeSessionId = s.activeSessionId === sessionId ? (order[order.length - 1] ?? null) : s.activeSessionId;
			const drafts = { ...s.drafts };
			delete drafts[sessionId];
			const live = { ...s.live };
			delete live[sessionId];
			return { sessions, order, activeSessionId, drafts, live };
		});
		get().dropPreviews(sessionId);
		get().dropCardData(sessionId);
		get().caches.treeView.delete(sessionId);
		const active = get().activeSessionId;
		if (active) get().setActive(active);
	},

	setActive(sessionId) {
		const s = get();
		const target = s.sessions[sessionId];
		if (!target) return;
		const prev = s.activeSessionId;
		if (prev && prev !== sessionId && s.sessions[prev]) {
			const lastView: TabView = { filter: s.filter, folded: s.folded, query: s.search.query, scope: s.search.scope };
			set((st) => ({ sessions: { ...st.sessions, [prev]: { ...st.sessions[prev], lastSelectedId: st.selectedId, lastView } } }));
		}
		if (prev !== sessionId) {
			set({ activeSessionId: sessionId });
			get().resetView(target.lastSelectedId, target.lastView);
		}
	},

	async refetchSkeleton(sessionId) {
		try {
			// A session not drawn yet: a big one's first skeleton (docs/session-core.md "Progressive open")
			// is drawn while the whole one is on its way; both are asked at once.
			const fresh = get().sessions[sessionId]?.skeleton === null;
			const first = fresh ? client.request("getFirstSkeleton", { sessionId }) : null;
			const whole = client.request("getSkeleton", { sessionId });
			const part = first ? await first.catch(() => null) : null;
			if (part && get().sessions[sessionId]?.skeleton === null) {
				set((s) => {
					const cur = s.sessions[sessionId];
					return cur ? { sessions: { ...s.sessions, [sessionId]: { ...cur, skeleton: part } } } : {};
				});
				if (get().activeSessionId === sessionId) get().reconcileSelection();
				// Let the part reach the screen before the whole one's view, layout and minimap take the thread.
				await afterPaint();
				const sk = await whole;
				// Another fetch (a live delta that did not fit the part) may have put a newer whole one in meanwhile.
				if (get().sessions[sessionId]?.skeleton === part) get().setSkeleton(sessionId, sk);
				return;
			}
			get().setSkeleton(sessionId, await whole);
		} catch (err) {
			get().reportError(err);
		}
	},

	setSkeleton(sessionId, skeleton) {
		const was = get().sessions[sessionId]?.skeleton;
		const replacesPart = was?.first !== undefined;
		set((s) => {
			const cur = s.sessions[sessionId];
			if (!cur) return {};
			return { sessions: { ...s.sessions, [sessionId]: { ...cur, skeleton } } };
		});
		if (replacesPart) {
			// The part's previews and search matches are keyed by its own indices.
			if (was) get().adoptPartPreviews(sessionId, was);
			if (get().activeSessionId === sessionId && get().search.query.trim() !== "") void get().runSearch();
		}
		if (get().activeSessionId === sessionId) get().reconcileSelection();
		get().pruneStreams(sessionId);
	},

	setSummary(sessionId, summary) {
		set((s) => {
			const cur = s.sessions[sessionId];
			if (!cur) return {};
			return { sessions: { ...s.sessions, [sessionId]: { ...cur, summary } } };
		});
		get().liveFromSummary(summary);
	},

	async boot(kept) {
		// Asked at once: the host has the launch files open already; the sessions are added after the settings.
		const asked = client.request("getInitialSessions", {});
		asked.catch(() => {}); // awaited below; a failure is reported there
		await get().loadSettings();
		let initial: SessionSummary[] = [];
		try {
			initial = await asked;
		} catch (err) {
			get().reportError(err);
		}
		set({ booting: false });
		const keptPaths = kept?.paths ?? [];
		if (initial.length === 0 && keptPaths.length === 0) {
			get().openDialog({ kind: "library" });
			return;
		}
		// The kept tabs in their order (a launch session among them keeps its place), then launch sessions not kept.
		const byPath = new Map(initial.flatMap((s) => (s.path ? [[s.path, s] as const] : [])));
		const tabs: (SessionSummary | string)[] = [...keptPaths.map((p) => byPath.get(p) ?? p), ...initial.filter((s) => !s.path || !keptPaths.includes(s.path))];
		for (const [i, tab] of tabs.entries()) {
			if (typeof tab !== "string") await get().addSession(tab, { activate: i === 0 });
			else {
				// A kept path the host no longer opens (moved, or a new host's path policy) is reported and skipped.
				try {
					await get().addSession(await client.request("openSession", { path: tab }), { activate: i === 0 });
				} catch (err) {
					get().reportError(err, `Could not open ${tab} again`);
				}
			}
		}
		const active = kept?.active ? Object.values(get().sessions).find((s) => s.summary.path === kept.active) : undefined;
		if (active) get().setActive(active.summary.sessionId);
		if (get().order.length === 0) get().openDialog({ kind: "library" });
	},
});

/**
 * Resolves after the next frame was painted (at once where there are no frames: tests, a hidden page). The
 * store's subscribers render in a microtask, so the part is in that frame; waiting a second frame only
 * delayed the whole graph.
 */
function afterPaint(): Promise<void> {
	if (typeof requestAnimationFrame !== "function" || (typeof document !== "undefined" && document.hidden)) return Promise.resolve();
	return new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 0)));
}

/** The graph key a session's first skeleton is drawn under (its own positions, layout and viewport). */
export function firstSkeletonKey(sessionId: string): string {
	return `${sessionId}#first`;
}
