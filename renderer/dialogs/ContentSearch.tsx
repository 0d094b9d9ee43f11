// The library's search over the contents of every session (searchAllSessions through Arbor's index),
// shown under the title matches: results grouped by session with their matching entries; clicking an
// entry opens the session with that card selected and in view (found by its line when the file gives it
// no id). While the index builds, its progress is shown and the results refresh as files are indexed.

import { visibleText } from "../../shared/visible-text";
import { Shown } from "../graph/Shown";
import { useEffect, useRef, useState } from "react";
import type { CrossSearchResult, CrossSearchSession } from "../../shared/api";
import { useServices } from "../commands/services";
import { revealWhenShown } from "../graph/FamilyBadge";
import { useGraph } from "../graph/store";
import { useApp } from "../store";
import { errorText } from "../store/dialogs";

export function ContentSearch({ query }: { query: string }) {
	const { client, reveal } = useServices();
	const graph = useGraph();
	const openPath = useApp((s) => s.openPath);
	const [result, setResult] = useState<CrossSearchResult | null>(null);
	const [error, setError] = useState<string | null>(null);
	const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
	const [tick, setTick] = useState(0);
	// The query the dialog shows now: an answer is kept when it is for this query, even when a refresh (the
	// index grew) was asked after it. Dropping answers on a refresh showed nothing while the index kept
	// announcing work (issue 38).
	const shown = useRef("");
	// Answers of one query arrive in the order asked; a late older one never replaces a newer one.
	const asked = useRef(0);
	const applied = useRef(0);

	useEffect(
		() =>
			client.onEvent((e) => {
				if (e.type !== "search_index") return;
				setProgress(e.phase === "done" ? null : { done: e.filesDone, total: e.filesTotal });
				if (e.phase === "done" || e.filesDone % 200 === 0) setTick((t) => t + 1);
			}),
		[client],
	);

	useEffect(() => {
		const q = query.trim();
		shown.current = q;
		if (q.length < 2) {
			setResult(null);
			return;
		}
		const timer = setTimeout(() => {
			const n = ++asked.current;
			client.request("searchAllSessions", { query: q, limit: 30 }).then(
				(r) => {
					if (shown.current !== q || n < applied.current) return;
					applied.current = n;
					setResult(r);
					setError(null);
				},
				(err: unknown) => shown.current === q && setError(errorText(err)),
			);
		}, 200);
		return () => clearTimeout(timer);
	}, [client, query, tick]);

	if (query.trim().length < 2) return null;
	const open = async (path: string, hit: CrossSearchSession["matches"][number] | undefined): Promise<void> => {
		const s = await openPath(path);
		if (!s || !hit) return;
		// A hit without an id (an id-less or v1 file): the id Arbor gave the entry on that line.
		const id =
			hit.entryId ?? (hit.line !== undefined ? await client.request("entryAtLine", { sessionId: s.sessionId, line: hit.line }).catch(() => null) : null);
		if (id) revealWhenShown(graph.store, reveal, s.sessionId, id);
	};
	return (
		<section data-testid="content-search">
			<h3>In session contents</h3>
			{progress && (
				<p className="muted" data-testid="content-search-progress">
					<span className="spinner" /> Indexing sessions: {progress.done.toLocaleString()} of {progress.total.toLocaleString()} files…
				</p>
			)}
			{error && <p className="error-text">{error}</p>}
			{result && result.sessions.length === 0 && !result.partial && <p className="muted">No entry of any session contains “{result.query}”.</p>}
			<ul className="pick-list">
				{result?.sessions.map((s) => (
					<li key={s.path} data-testid="content-search-session">
						<button type="button" title={visibleText(s.path)} onClick={() => void open(s.path, s.matches[0])}>
							<span className="library-title">
								<Shown text={s.title || s.path.split(/[\\/]/).pop() || ""} />
							</span>
							<span className="muted">
								{s.matchingBlocks > s.matchCount ? `${s.matchCount}+` : s.matchCount} matching entr{s.matchCount === 1 ? "y" : "ies"} ·{" "}
								<span className="mono">{s.path}</span>
							</span>
						</button>
						<ul className="content-search-matches">
							{s.matches.map((m, i) => (
								<li key={`${m.entryId ?? "x"}-${i}`}>
									<button type="button" data-testid="content-search-match" data-entry-id={m.entryId ?? ""} onClick={() => void open(s.path, m)}>
										<span className="muted">{m.kind}</span> <Shown text={m.snippet} />
									</button>
								</li>
							))}
						</ul>
					</li>
				))}
			</ul>
		</section>
	);
}
