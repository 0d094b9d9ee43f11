// Search bar: pi's token-AND search, or the full-text scope (tool arguments, paths, whole contents);
// both are answered by the main process, best match first (an exact phrase, then whole words). As in pi's
// /tree, Enter lands on the match: the card is selected, brought into view and takes the keyboard focus (a
// second Enter navigates). ↓ / ↑ (and F3 / Shift+F3, Shift+Enter) step through the matches without leaving
// the field. A "quoted phrase" matches the exact phrase (shared/preview queryTokens). The first match is
// selected as soon as an answer arrives.

import { useEffect, useMemo, useRef } from "react";
import { isVisible } from "../../shared/tree-view";
import { commandTitle, makeContext } from "../commands/registry";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { selectTreeView } from "../store/selectors";

const SHOWN_QUERY_CHARS = 10;

/** The query as the count area shows it while searching (the full text is in the title). */
function shortQuery(query: string): string {
	const q = query.trim();
	return q.length > SHOWN_QUERY_CHARS ? `${q.slice(0, SHOWN_QUERY_CHARS - 1)}…` : q;
}

export function SearchBar() {
	const { run, deps, registry } = useServices();
	// Button tooltips from the commands (Enter / Shift+Enter are the search box's own keys).
	const buttonTitle = (id: string, localKey: string): string => {
		const cmd = registry.get(id);
		return cmd ? commandTitle(cmd, makeContext(deps, { source: "button" }), [localKey]) : id;
	};
	const query = useApp((s) => s.search.query);
	const scope = useApp((s) => s.search.scope);
	const matches = useApp((s) => s.search.matches);
	const pending = useApp((s) => s.search.pending);
	const error = useApp((s) => s.search.error);
	const focusTick = useApp((s) => s.searchFocusTick);
	const tree = useApp(selectTreeView);
	const selectedId = useApp((s) => s.selectedId);
	const skeleton = tree?.skeleton ?? null;
	const input = useRef<HTMLInputElement>(null);

	useEffect(() => {
		if (focusTick > 0) {
			input.current?.focus();
			input.current?.select();
		}
	}, [focusTick]);

	const visible = useMemo(() => (tree ? matches.filter((i) => isVisible(tree, i)) : []), [tree, matches]);
	const position = useMemo(() => {
		if (!skeleton || !selectedId) return 0;
		const k = visible.findIndex((i) => skeleton.ids[i] === selectedId);
		return k + 1;
	}, [visible, skeleton, selectedId]);
	const hidden = matches.length - visible.length;
	const st = deps.store.getState;

	// A new answer shows its first match at once (selected and brought into view), unless the selection
	// already is a match. The count appears in the same frame.
	const shownFor = useRef<readonly number[] | null>(null);
	useEffect(() => {
		if (pending || query.trim() === "" || shownFor.current === matches) return;
		shownFor.current = matches;
		if (visible.length === 0 || position > 0) return;
		void run("search.next", { source: "keyboard" });
		// eslint-disable-next-line react-hooks/exhaustive-deps -- once per answer
	}, [matches, pending]);

	return (
		<div className="search-bar">
			<input
				ref={input}
				type="search"
				data-testid="search-input"
				placeholder='Search (/), "exact phrase"'
				aria-label="Search entries"
				value={query}
				onChange={(e) => st().setSearchQuery(e.target.value)}
				onKeyDown={(e) => {
					if (e.key === "Enter" && !e.shiftKey && !e.ctrlKey && !e.altKey) {
						e.preventDefault();
						void run("search.land", { source: "keyboard" });
					} else if ((e.key === "Enter" && e.shiftKey) || e.key === "ArrowUp" || e.key === "ArrowDown") {
						e.preventDefault();
						void run(e.key === "ArrowDown" ? "search.next" : "search.prev", { source: "keyboard" });
					}
				}}
			/>
			<label className="scope-toggle" title="Search whole contents, tool arguments and paths">
				<input
					type="checkbox"
					data-testid="search-scope-full"
					checked={scope === "full"}
					onChange={(e) => st().setSearchScope(e.target.checked ? "full" : "pi")}
					aria-label="Full text"
				/>
				<span className="narrow-hide">Full text</span>
			</label>
			{query.trim() !== "" && (
				<span className="search-count" data-testid="search-count">
					{pending ? (
						<span className="search-pending" title={`searching “${query.trim()}”…`}>
							<span className="spinner" aria-hidden /> searching “{shortQuery(query)}”…
						</span>
					) : error ? (
						<span className="error-text" title={error}>
							error
						</span>
					) : visible.length === 0 ? (
						"No matches"
					) : (
						`${position > 0 ? position : "–"}/${visible.length}`
					)}
					{!pending && hidden > 0 && <span className="muted"> (+{hidden} hidden)</span>}
				</span>
			)}
			<button
				type="button"
				data-testid="search-prev"
				title={buttonTitle("search.prev", "↑")}
				disabled={visible.length === 0}
				onClick={() => void run("search.prev", { source: "button" })}
			>
				↑
			</button>
			<button
				type="button"
				data-testid="search-next"
				title={buttonTitle("search.next", "↓")}
				disabled={visible.length === 0}
				onClick={() => void run("search.next", { source: "button" })}
			>
				↓
			</button>
		</div>
	);
}
