// View slice: what the user looks at — filter mode, search, folds, selection, the abandoned-segment
// highlight. Filter/search changes keep the selection or fall back to its nearest visible ancestor
// (pi's tree-selector rule, ../shared/notes/PEERS.md (d) "Selection stability").

import { ArborRequestError, FILTER_MODES, type FilterMode, type SearchScope } from "../../shared/api";
import { activeSkeleton, indexOfId, selectTreeView } from "./selectors";
import { initialSelection, isVisible, keepSelection } from "../../shared/tree-view";
import type { SliceCreator } from "./types";
import type { TabView } from "./session";
import { errorText } from "../../shared/guards";
import { partIndices } from "../../shared/first-skeleton";

export interface SearchState {
	query: string;
	scope: SearchScope;
	/** Matching entry indices, ascending (as the main process answers). */
	matches: number[];
	/** True while a request is in flight. */
	pending: boolean;
	error: string | null;
}

export interface ViewSlice {
	filter: FilterMode;
	folded: ReadonlySet<string>;
	selectedId: string | null;
	/** The selection before the current one ("Compare siblings" starts from the child you came from). */
	previousSelectedId: string | null;
	search: SearchState;
	/** Entry ids a pending navigation would summarize (highlighted on the graph), or null. */
	abandoned: ReadonlySet<string> | null;
	/** Bumped to ask the search input / graph to take keyboard focus. */
	searchFocusTick: number;
	graphFocusTick: number;
	/** Bumped to move keyboard focus to the composer (after navigating to a user message). */
	composerFocusTick: number;
	/** Which side panel shows: the selected entry, the model context at it, or the label list. */
	panel: SidePanel;

	setPanel(panel: SidePanel): void;
	select(id: string | null): void;
	setFilter(mode: FilterMode): void;
	/** pi's Ctrl+T/U/L/A: the mode, or back to default when it is already on. */
	toggleFilter(mode: FilterMode): void;
	cycleFilter(direction: 1 | -1): void;
	setSearchQuery(query: string): void;
	setSearchScope(scope: SearchScope): void;
	/** `retry`: ask once more when the main process stopped this search for a newer one from elsewhere. */
	runSearch(retry?: boolean): Promise<void>;
	clearSearch(): void;
	/** Select the next/previous visible match after the selection (wraps). */
	stepMatch(direction: 1 | -1): void;
	/** Keep the selection when it is a shown match, else select the best shown match (pi's Enter lands there). */
	landOnMatch(): void;
	toggleFold(id: string): void;
	setFolded(id: string, folded: boolean): void;
	setAbandoned(ids: readonly string[] | null): void;
	focusSearch(): void;
	focusGraph(): void;
	focusComposer(): void;
	/**
	 * A session became active: selection restored or put on the leaf. A tab seen before gets back the filter, folds
	 * and search it had (`view`); a new one starts from the settings' filter with no search or folds.
	 */
	resetView(selectedId: string | null, view?: TabView): void;
	/** After the visible tree changed: keep the selection or move it to its nearest visible ancestor. */
	reconcileSelection(): void;
}

export type SidePanel = "inspector" | "context" | "labels" | "branches";

const EMPTY_SEARCH: SearchState = { query: "", scope: "pi", matches: [], pending: false, error: null };
/** Typing pause before a search is asked (the search bar, the Branches panel's filter). */
export const SEARCH_DEBOUNCE_MS = 120;

export const createViewSlice: SliceCreator<ViewSlice> = (set, get, client) => {
	let searchSeq = 0;
	let searchTimer: ReturnType<typeof setTimeout> | null = null;

	const scheduleSearch = (): void => {
		if (searchTimer) clearTimeout(searchTimer);
		searchTimer = setTimeout(() => {
			searchTimer = null;
			void get().runSearch();
		}, SEARCH_DEBOUNCE_MS);
	};

	return {
		filter: "default",
		folded: new Set(),
		selectedId: null,
		previousSelectedId: null,
		search: EMPTY_SEARCH,
		abandoned: null,
		searchFocusTick: 0,
		graphFocusTick: 0,
		composerFocusTick: 0,
		panel: "inspector",

		setPanel(panel) {
			set({ panel });
		},

		select(id) {
			const cur = get().selectedId;
			if (cur !== id) set({ selectedId: id, previousSelectedId: cur });
		},

		setFilter(mode) {
			if (get().filter === mode) return;
			// pi clears every fold on a filter or search change.
			set({ filter: mode, folded: new Set() });
			get().reconcileSelection();
			// While searching, the new filter lands on a match it shows (not on the old match's ancestor).
			if (get().search.query.trim() !== "") get().landOnMatch();
		},

		toggleFilter(mode) {
			get().setFilter(get().filter === mode ? "default" : mode);
		},

		cycleFilter(direction) {
			const i = FILTER_MODES.indexOf(get().filter);
			const n = FILTER_MODES.length;
			get().setFilter(FILTER_MODES[(i + direction + n) % n]);
		},

		setSearchQuery(query) {
			// Pending from the first keystroke: the count shown must never be the previous query's. pi's tree
			// selector clears every fold whenever the search text changes (typing, Backspace, Escape), so a match
			// inside a folded branch is never left hidden.
			const changed = query !== get().search.query;
			set((s) => ({ search: { ...s.search, query, pending: query.trim() !== "" }, ...(changed ? { folded: new Set<string>() } : {}) }));
			if (query.trim() === "") {
				searchSeq++;
				if (searchTimer) clearTimeout(searchTimer);
				set((s) => ({ search: { ...s.search, matches: [], pending: false, error: null } }));
				return;
			}
			scheduleSearch();
		},

		setSearchScope(scope) {
			// Arbor's own control (pi has one scope): a new scope is a new set of matches, so folds clear as they do
			// when the search text changes.
			const searching = get().search.query.trim() !== "" && scope !== get().search.scope;
			set((s) => ({ search: { ...s.search, scope }, ...(searching ? { folded: new Set<string>() } : {}) }));
			if (get().search.query.trim() !== "") void get().runSearch();
		},

		async runSearch(retry = true) {
			const { activeSessionId, search } = get();
			const query = search.query;
			if (!activeSessionId || query.trim() === "") {
				if (search.pending) set((s) => ({ search: { ...s.search, pending: false } }));
				return;
			}
			const seq = ++searchSeq;
			set((s) => ({ search: { ...s.search, pending: true, error: null } }));
			try {
				const found = await client.request("search", { sessionId: activeSessionId, query, scope: search.scope });
				// Matches are file-order indices; a first skeleton holds some of them (the whole one asks again).
				const matches = partIndices(get().sessions[activeSessionId]?.skeleton, found);
				// A newer keystroke already asked again: this answer is stale.
				if (seq !== searchSeq) return;
				set((s) => ({ search: { ...s.search, matches, pending: false } }));
			} catch (err) {
				if (seq !== searchSeq) return;
				// The main process stops a search when a newer one for the same session arrives; that newer one
				// came from elsewhere (another window on this session), so this query is simply asked again.
				if (err instanceof ArborRequestError && err.code === "cancelled" && retry) return get().runSearch(false);
				set((s) => ({ search: { ...s.search, matches: [], pending: false, error: errorText(err) } }));
			}
		},

		clearSearch() {
			searchSeq++;
			if (searchTimer) clearTimeout(searchTimer);
			// Escape on a search clears the folds too (pi); with no search text there is nothing to clear.
			const hadQuery = get().search.query !== "";
			set({ search: { ...EMPTY_SEARCH, scope: get().search.scope }, ...(hadQuery ? { folded: new Set<string>() } : {}) });
		},

		stepMatch(direction) {
			// Matches come best first (an exact phrase, then whole words); the steps follow that order.
			const state = get();
			const sk = activeSkeleton(state);
			const tree = selectTreeView(state);
			if (!sk || !tree) return;
			const visible = state.search.matches.filter((i) => isVisible(tree, i));
			if (visible.length === 0) return;
			const k = state.selectedId ? visible.indexOf(indexOfId(sk, state.selectedId)) : -1;
			const n = visible.length;
			const next = k < 0 ? (direction === 1 ? 0 : n - 1) : (k + direction + n) % n;
			set({ selectedId: sk.ids[visible[next]] });
		},

		landOnMatch() {
			const state = get();
			const sk = activeSkeleton(state);
			const tree = selectTreeView(state);
			if (!sk || !tree) return;
			const cur = state.selectedId ? indexOfId(sk, state.selectedId) : -1;
			const { matches } = state.search;
			const visible = matches.filter((i) => isVisible(tree, i));
			if (visible.includes(cur) || matches.length === 0) return;
			// No shown match: the best one's nearest shown ancestor (the card it hangs under).
			const to = visible.length > 0 ? visible[0] : keepSelection(tree, matches[0]);
			if (to >= 0) set({ selectedId: sk.ids[to] });
		},

		toggleFold(id) {
			get().setFolded(id, !get().folded.has(id));
		},

		setFolded(id, folded) {
			const cur = get().folded;
			if (cur.has(id) === folded) return;
			const next = new Set(cur);
			if (folded) next.add(id);
			else next.delete(id);
			set({ folded: next });
			get().reconcileSelection();
		},

		setAbandoned(ids) {
			set({ abandoned: ids ? new Set(ids) : null });
		},

		focusSearch() {
			set((s) => ({ searchFocusTick: s.searchFocusTick + 1 }));
		},

		focusGraph() {
			set((s) => ({ graphFocusTick: s.graphFocusTick + 1 }));
		},

		focusComposer() {
			set((s) => ({ composerFocusTick: s.composerFocusTick + 1 }));
		},

		resetView(selectedId, view) {
			searchSeq++;
			if (searchTimer) clearTimeout(searchTimer);
			set((s) => ({
				selectedId,
				folded: view?.folded ?? new Set(),
				abandoned: null,
				search: { ...EMPTY_SEARCH, scope: view?.scope ?? s.search.scope, query: view?.query ?? "", pending: (view?.query ?? "").trim() !== "" },
				filter: view?.filter ?? s.settings?.treeFilterMode ?? s.filter,
			}));
			// The matches are asked again: the session may have grown while its tab was in the background.
			if (get().search.pending) void get().runSearch();
			get().reconcileSelection();
		},

		reconcileSelection() {
			const state = get();
			const sk = activeSkeleton(state);
			const tree = selectTreeView(state);
			if (!sk || !tree) return;
			const cur = state.selectedId ? indexOfId(sk, state.selectedId) : -1;
			// pi opens on the leaf (else its nearest visible ancestor, else the last row).
			const found = cur >= 0 ? keepSelection(tree, cur) : initialSelection(tree);
			const id = found >= 0 ? sk.ids[found] : null;
			// An empty result keeps the previous selection so it comes back when the filter is relaxed.
			if (id === null && state.selectedId !== null) return;
			if (id !== state.selectedId) set({ selectedId: id });
		},
	};
};
