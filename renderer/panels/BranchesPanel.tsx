// Branches panel: every leaf of the tree as a row — its last prompt, and its path's entries, tokens, cost,
// errors and last activity (shared/branches, one O(n) pass over the skeleton) — sortable, filterable by the
// words of its prompt or label, with Go to, Compare with leaf, Compare with sibling and Label. Answers
// "which branch cost the most" (or "where is the branch about X") without visiting each branch point.

import { useEffect, useMemo, useState } from "react";
import { type BranchRow, type BranchSort, computeBranches, sortBranches } from "../../shared/branches";
import { formatTokens } from "../../shared/rollup";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { labelsByIndex } from "../../shared/tree-view";
import { activeSkeleton } from "../store/selectors";
import { shorten } from "./session-name";

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
	const { run, reveal } = useServices();
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
	const words = useMemo(() => filter.toLowerCase().split(/\s+/).filter(Boolean), [filter]);
	const sorted = useMemo(() => {
		const all = sortBranches(rows, sort);
		if (words.length === 0 || !sk) return all;
		// Every word in the branch's last prompt or its leaf's label (the prompts load as they are asked for).
		return all.filter((r) => {
			const text = `${r.prompt >= 0 ? (previews?.get(r.prompt) ?? "") : ""} ${labels.get(r.leaf) ?? ""}`.toLowerCase();
			return words.every((w) => text.includes(w));
		});
	}, [rows, sort, words, previews, sk, labels]);
	useEffect(() => {
		// Filtering reads every branch's prompt, not only the rows on screen.
		const wanted = words.length === 0 ? [] : rows.map((r) => r.prompt).filter((i) => i >= 0 && previews?.get(i) === undefined);
		if (sessionId && wanted.length) void ensure(sessionId, wanted);
	}, [sessionId, words, rows, previews, ensure]);
	const page = sorted.slice(0, shown);
	const total = useMemo(() => rows.reduce((a, r) => a + r.cost, 0), [rows]);
	useEffect(() => {
		// The prompts of the rows on screen (previews are fetched in pages; the cache skips known ones).
		const wanted = sorted
			.slice(0, shown)
			.map((r) => r.prompt)
			.filter((i) => i >= 0 && previews?.get(i) === undefined);
		if (sessionId && wanted.length) void ensure(sessionId, wanted);
	}, [sessionId, sorted, shown, previews, ensure]);
	if (!sk) return null;
	const go = (r: BranchRow): void => reveal(sk.ids[r.leaf]);
	return (
		<div className="branches-panel" data-testid="branches-panel">
			<div className="branches-head">
				<span data-testid="branches-count">
					{words.length > 0 ? `${sorted.length.toLocaleString()} of ` : ""}
					{rows.length.toLocaleString()} branch{rows.length === 1 ? "" : "es"}
				</span>
				<input
					type="search"
					className="branches-filter"
					data-testid="branches-filter"
					placeholder="Filter by prompt or label"
					aria-label="Filter branches by the words of their prompt or label"
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
			<p className="muted branches-note">
				Each row is one leaf; its figures cover the path from the first entry to that leaf (shared entries count in every branch that holds them). Cost of every
				entry in the file: {money(total)}.
			</p>
			<ul className="branches-list">
				{page.map((r) => {
					const id = sk.ids[r.leaf];
					const text = r.prompt >= 0 ? previews?.get(r.prompt) : undefined;
					return (
						<li key={r.leaf} data-testid="branch-row" data-leaf-id={id} className={`${id === selectedId ? "selected" : ""}${r.active ? " active" : ""}`}>
							<button type="button" className="branch-main" title="Go to this branch's leaf" onClick={() => go(r)}>
								<span className="branch-prompt" data-testid="branch-prompt">
									{r.active && <span className="arbor-badge-inline">leaf</span>}
									{r.prompt < 0 ? "(no user message)" : text === undefined ? "user message…" : shorten(text, 90)}
								</span>
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
