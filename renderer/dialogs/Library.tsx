// Session library: the sessions in pi's and omp's folders (listSessions), grouped by project, newest
// first, searchable; recent files; "Open file…" (Electron) and drag-and-drop of a .jsonl.

import { visibleText } from "../../shared/visible-text";
import { Shown } from "../graph/Shown";
import { useEffect, useMemo, useRef, useState } from "react";
import type { SessionListItem } from "../../shared/api";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { errorText } from "../store/dialogs";
import { ContentSearch } from "./ContentSearch";
import { Modal } from "./Modal";

const MAX_RECENT_SHOWN = 5;

/** A recent file's name: its session name or first message when the library lists it, else the file name. */
function recentName(path: string, items: SessionListItem[] | null): string {
	const it = items?.find((x) => x.path === path);
	const text = it?.title || it?.firstUserMessage;
	if (text) return text.length > 80 ? `${text.slice(0, 79)}…` : text;
	return path.split(/[\\/]/).pop() || path;
}

function relTime(ms: number): string {
	const d = Date.now() - ms;
	if (d < 60_000) return "just now";
	if (d < 3_600_000) return `${Math.round(d / 60_000)} min ago`;
	if (d < 86_400_000) return `${Math.round(d / 3_600_000)} h ago`;
	return new Date(ms).toLocaleDateString();
}

function sizeText(n: number): string {
	if (n < 1024) return `${n} B`;
	if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
	return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** Group by project, projects ordered by their newest session, sessions newest first. */
export function groupSessions(items: readonly SessionListItem[], query: string): { project: string; items: SessionListItem[] }[] {
	const tokens = query.toLowerCase().split(/\s+/).filter(Boolean);
	const matches = (it: SessionListItem): boolean => {
		const hay = `${it.project} ${it.title ?? ""} ${it.firstUserMessage ?? ""} ${it.path}`.toLowerCase();
		return tokens.every((t) => hay.includes(t));
	};
	const groups = new Map<string, SessionListItem[]>();
	for (const it of items) {
		if (!matches(it)) continue;
		const g = groups.get(it.project);
		if (g) g.push(it);
		else groups.set(it.project, [it]);
	}
	const out = [...groups.entries()].map(([project, list]) => ({ project, items: list.sort((a, b) => b.modifiedMs - a.modifiedMs) }));
	out.sort((a, b) => b.items[0].modifiedMs - a.items[0].modifiedMs);
	return out;
}

export function Library() {
	const { client, run } = useServices();
	const openPath = useApp((s) => s.openPath);
	const recent = useApp((s) => s.settings?.recentFiles ?? []);
	const hasSession = useApp((s) => s.activeSessionId !== null);
	const close = useApp((s) => s.closeDialog);
	const openDialog = useApp((s) => s.openDialog);
	const [items, setItems] = useState<SessionListItem[] | null>(null);
	const [error, setError] = useState<string | null>(null);
	const [query, setQuery] = useState("");
	const listRef = useRef<HTMLDivElement>(null);
	// Opening a big file takes a while (the main process also reports `progress`): say which one.
	const [opening, setOpening] = useState<string | null>(null);
	const open = (path: string): void => {
		setOpening(path);
		void openPath(path).finally(() => setOpening(null));
	};

	useEffect(() => {
		let live = true;
		// "≈" counts of big files are refined in the background: apply each exact count as it arrives
		// (kept until the list itself has arrived), when it is for the file as listed (same size and mtime).
		const exact = new Map<string, { entryCount: number; size: number; mtimeMs: number }>();
		const refine = (list: SessionListItem[]): SessionListItem[] => {
			let changed = false;
			const next = list.map((it) => {
				const c = exact.get(it.path);
				if (it.entryCountExact || !c || c.size !== it.size || c.mtimeMs !== it.mtimeMs) return it;
				changed = true;
				return { ...it, entryCount: c.entryCount, entryCountExact: true };
			});
			return changed ? next : list;
		};
		const off = client.onEvent((e) => {
			if (e.type !== "library_counts") return;
			for (const c of e.counts) exact.set(c.path, c);
			if (live) setItems((list) => (list ? refine(list) : list));
		});
		client.request("listSessions", {}).then(
			(list) => live && setItems(refine(list)),
			(err: unknown) => live && setError(errorText(err)),
		);
		return () => {
			live = false;
			off();
		};
	}, [client]);

	const groups = useMemo(() => groupSessions(items ?? [], query), [items, query]);

	// Arrow keys move between the result buttons; ArrowUp on the first goes back to the search field.
	const onListKey = (e: React.KeyboardEvent<HTMLDivElement>): void => {
		if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
		const buttons = Array.from(
			listRef.current?.querySelectorAll<HTMLButtonElement>('[data-testid="library-recent-item"], [data-testid="library-item"]:not(:disabled)') ?? [],
		);
		const i = buttons.indexOf(document.activeElement as HTMLButtonElement);
		if (i < 0) return;
		e.preventDefault();
		if (e.key === "ArrowDown") buttons[Math.min(buttons.length - 1, i + 1)]?.focus();
		else if (i === 0) listRef.current?.querySelector<HTMLInputElement>('[data-testid="library-search"]')?.focus();
		else buttons[i - 1]?.focus();
	};

	return (
		<Modal title="Session library" testId="library" wide onClose={() => hasSession && close("library")}>
			<div ref={listRef} onKeyDown={onListKey}>
				<div className="library-actions">
					<input
						autoFocus
						data-testid="library-search"
						aria-label="Search sessions"
						value={query}
						placeholder="Search sessions"
						onChange={(e) => setQuery(e.target.value)}
						onKeyDown={(e) => {
							// ArrowDown enters the results (the first session, else the first recent file); Enter opens
							// that one. Handled here only: the list's own handler would move on to the second result.
							if (e.key !== "ArrowDown" && e.key !== "Enter") return;
							e.stopPropagation();
							const first = listRef.current?.querySelector<HTMLButtonElement>(
								'[data-testid="library-item"]:not(:disabled), [data-testid="library-recent-item"]',
							);
							if (!first) return;
							e.preventDefault();
							if (e.key === "ArrowDown") first.focus();
							else first.click();
						}}
					/>
					{client.host === "electron" && (
						<button type="button" data-testid="library-open-file" onClick={() => void run("file.open", { source: "button" })}>
							Open file…
						</button>
					)}
				</div>
				<p className="muted">Drop a .jsonl session file anywhere in the window to open it.</p>
				{opening && (
					<p data-testid="library-opening">
						<span className="spinner" /> Opening <span className="mono">{opening}</span>…
					</p>
				)}
				{recent.length > 0 && query === "" && (
					// A few recent files in a bounded box: they never push the folder's sessions out of view.
					<section className="library-recent">
						<h3>Recent</h3>
						<ul className="pick-list">
							{recent.slice(0, MAX_RECENT_SHOWN).map((p) => (
								<li key={p}>
									<button type="button" data-testid="library-recent-item" title={visibleText(p)} onClick={() => open(p)}>
										<span className="library-title">
											<Shown text={recentName(p, items)} />
										</span>
										<span className="muted mono">{p}</span>
									</button>
								</li>
							))}
						</ul>
					</section>
				)}
				{error && <p className="error-text">{error}</p>}
				{!items && !error && (
					<p className="muted">
						<span className="spinner" /> Looking for sessions…
					</p>
				)}
				{items && groups.length === 0 && <p className="muted">No sessions found{query ? " by title or path" : " in pi's or omp's session folders"}.</p>}
				<ContentSearch query={query} />
				<div className="library-groups">
					{groups.map((g) => (
						<section key={g.project} data-testid="library-project">
							<h3 className="mono">
								<Shown text={g.project} />
							</h3>
							<ul className="pick-list">
								{g.items.map((it) => (
									<li key={it.path}>
										<button
											type="button"
											data-testid="library-item"
											className={it.error ? "disabled" : ""}
											disabled={!!it.error}
											title={visibleText(it.error ?? it.path)}
											onClick={() => open(it.path)}
										>
											<span className="library-title">
												<Shown text={it.title || it.firstUserMessage || it.path.split(/[\\/]/).pop() || ""} />
											</span>
											<span className="muted library-meta">
												{relTime(it.modifiedMs)} · {it.entryCountExact ? "" : "≈ "}
												{it.entryCount.toLocaleString()} entries · {sizeText(it.size)} · {it.source}
											</span>
											{it.error && <span className="error-text">{it.error}</span>}
										</button>
										{!it.error && (
											<button
												type="button"
												className="link library-family"
												data-testid="library-item-family"
												title="Files branched from or into this one"
												onClick={() => openDialog({ kind: "family", path: it.path })}
											>
												family
											</button>
										)}
									</li>
								))}
							</ul>
						</section>
					))}
				</div>
			</div>
		</Modal>
	);
}
