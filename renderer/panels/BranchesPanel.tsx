// Branches panel: every leaf of the tree as a row — its last prompt, and its path's entries, tokens, cost,
// errors and last activity (shared/branches, one O(n) pass over the skeleton) — sortable, filterable by the
// words of any user prompt or label on its path (useBranchFilter), with Go to, Compare with leaf, Compare
// with sibling and Label. Answers "which branch cost the most" (or "where is the branch about X") without
// visiting each branch point.

import { useEffect, useMemo, useState } from "react";
import { type BranchRow, type BranchSort, computeBranches, sortBranches } from "../../shared/branches";
import { EntryKind } from "../../shared/skeleton";
import { formatTokens } from "../../shared/rollup";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { labelsByIndex } from "../../shared/tree-view";
import { activeSkeleton } from "../store/selectors";
import { shorten } from "./session-name";
import { useBranchFilter } from "./useBranchFilter";

const PAGE = 100;

const SORTS: { id: BranchSort; label: string }[] = [
	{ id: "cost", label: "Most expensive first" },
	{ id: "newest", label: "Newest first" },
	{ id: "entries", label: "Longest first" },
	{ id: "errors", label: "Most errors first" },
];

export function money(c: number): string {
	return `$${c > 0 && c < 0.01 ? c.toFixed(4) : c.toFixed(2)}`;
}

function ago(ms: number): string {
	if (!Number.isFinite(ms)) return "no time";
	const d = Date.now() - ms;
	if (d < 60_000) return "just now";
	if (d < 3_600_000) return `${Math.round(d / 60_000)} min ago`;
	if (d < 172_800_000) return `${Math.round(d / 3_600_000)} h ago`;
	return new Date(ms).toLocaleDateString();
}

export function BranchesPanel() {
	const { run, reveal, client } = useServices();
	const sessionId = useApp((s) => s.activeSessionId);
	const sk = useApp(activeSkeleton);
	const selectedId = useApp((s) => s.selectedId);
	const previews = useApp((s) => (sessionId ? s.previews[sessionId] : undefined));
	const ensure = useApp((s) => s.ensurePreviews);
	const [sort, setSort] = useState<BranchSort>("cost");
	const [shown, setShown] = useState(PAGE);
	const [filter, setFilter] = useState("");
	const rows = useMemo(() => (sk ? computeBranches(sk) : []), [sk]);
	const labels = useMemo(() => (sk ? labelsByIndex(sk) : new Map<number, string>()), [sk]);
	const found = useBranchFilter(client, sessionId, sk, labels, filter);
	const filtering = filter.trim() !== "";
	const sorted = useMemo(() => {
		const all = sortBranches(rows, sort);
		if (!filtering) return all;
		// A branch is listed when a user prompt or a label on its path holds the words (none until the search answers).
		const match = found.match;
		return match ? all.filter((r) => match[r.leaf] >= 0) : [];
	}, [rows, sort, filtering, found.match]);
	/** The match shown under a row: the one nearest its leaf, when it is not the row's own (last) prompt. */
	const matchOf = (r: BranchRow): number => {
		const m = found.match ? found.match[r.leaf] : -1;
		return m === r.prompt ? -1 : m;
	};
	const page = sorted.slice(0, shown);
	const total = useMemo(() => rows.reduce((a, r) => a + r.cost, 0), [rows]);
	useEffect(() => {
		// The prompts of the rows on screen and the matches shown under them (previews are fetched in pages;
		// the cache skips known ones).
		const wanted: number[] = [];
		for (const r of sorted.slice(0, shown)) {
			const m = found.match ? found.match[r.leaf] : -1;
			for (const i of [r.prompt, m]) if (i >= 0 && sk?.kind[i] === EntryKind.user && previews?.get(i) === undefined) wanted.push(i);
		}
		if (sessionId && wanted.length) void ensure(sessionId, wanted);
	}, [sessionId, sorted, shown, previews, ensure, found.match, sk]);
	if (!sk) return null;
	const go = (r: BranchRow): void => reveal(sk.ids[r.leaf]);
	return (
		<div className="branches-panel" data-testid="branches-panel">
			<div className="branches-head">
				<span data-testid="branches-count" aria-busy={found.pending}>
					{filtering ? (found.pending ? "searching… " : `${sorted.length.toLocaleString()} of `) : ""}
					{rows.length.toLocaleString()} branch{rows.length === 1 ? "" : "es"}
				</span>
				<input
					type="search"
					className="branches-filter"
					data-testid="branches-filter"
					placeholder="Filter by prompt or label"
					title="Branches with a user prompt or a label holding these words anywhere on their path (quote a phrase)"
					aria-label="Filter branches by the words of any prompt or label on their path"
					value={filter}
					onChange={(e) => {
						setFilter(e.target.value);
						setShown(PAGE);
					}}
				/>
				<label className="branches-sort">
					<span className="sr-only">Sort branches</span>
					<select data-testid="branches-sort" value={sort} onChange={(e) => setSort(e.target.value as BranchSort)}>
						{SORTS.map((s) => (
							<option key={s.id} value={s.id}>
								{s.label}
							</option>
						))}
					</select>
				</label>
			</div>
			{found.error && (
				<p className="error-text" data-testid="branches-filter-error">
					The filter could not search this session: {found.error}
				</p>
			)}
			<p className="muted branches-note">
				Each row is one leaf; its figures cover the path from the first entry to that leaf (shared entries count in every branch that holds them). Cost of every
				entry in the file: {money(total)}.
			</p>
			<ul className="branches-list">
				{page.map((r) => {
					const id = sk.ids[r.leaf];
					const text = r.prompt >= 0 ? previews?.get(r.prompt) : undefined;
					const m = matchOf(r);
					const matchText = m < 0 ? undefined : sk.kind[m] === EntryKind.user ? previews?.get(m) : undefined;
					return (
						<li key={r.leaf} data-testid="branch-row" data-leaf-id={id} className={`${id === selectedId ? "selected" : ""}${r.active ? " active" : ""}`}>
							<button type="button" className="branch-main" title="Go to this branch's leaf" onClick={() => go(r)}>
								<span className="branch-prompt" data-testid="branch-prompt">
									{r.active && <span className="arbor-badge-inline">leaf</span>}
									{r.prompt < 0 ? "(no user message)" : text === undefined ? "user message…" : shorten(text, 90)}
								</span>
								{m >= 0 && (
									<span className="branch-match muted" data-testid="branch-match" data-entry-id={sk.ids[m]}>
										{sk.kind[m] === EntryKind.user
											? `earlier prompt: ${matchText === undefined ? "user message…" : shorten(matchText, 80)}`
											: `label: ${labels.get(m) ?? ""}`}
									</span>
								)}
								<span className="branch-figures muted" data-testid="branch-figures">
									{r.entries.toLocaleString()} entries · {formatTokens(r.tokens)} tok · <b data-testid="branch-cost">{money(r.cost)}</b>
									{r.errors > 0 && <span className="error-text"> · {r.errors} err</span>} · {ago(r.last)}
								</span>
							</button>
							<span className="branch-actions">
								<button type="button" data-testid="branch-go" onClick={() => go(r)}>
									Go to
								</button>
								<button
									type="button"
									data-testid="branch-compare"
									disabled={r.active || sk.leaf < 0}
									title={r.active ? "This is the leaf" : "Compare this branch with the leaf's"}
									onClick={() => void run("compare.withLeaf", { source: "button", targetId: id })}
								>
									Compare with leaf
								</button>
								<button
									type="button"
									data-testid="branch-compare-sibling"
									disabled={rows.length < 2}
									title="Compare this branch with its sibling at the fork above it (whole branches)"
									onClick={() => void run("compare.withSibling", { source: "button", targetId: id })}
								>
									Compare with sibling
								</button>
								<button
									type="button"
									data-testid="branch-label"
									onClick={() => {
										go(r);
										void run("label.edit", { source: "button", targetId: id });
									}}
								>
									Label
								</button>
							</span>
						</li>
					);
				})}
			</ul>
			{sorted.length > shown && (
				<button type="button" data-testid="branches-more" onClick={() => setShown((n) => n + PAGE * 5)}>
					Show more ({(sorted.length - shown).toLocaleString()} left)
				</button>
			)}
		</div>
	);
}
