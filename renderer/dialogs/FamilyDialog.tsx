// The session family: the files linked to the active one by their headers (pi /fork, omp /fork and
// /branch, Arbor's branch-to-file), drawn as a small tree graph of files: an elbow edge from parent to child
// labelled with the parent's entry the child branched at and when. Opening a member keeps the dialog one command (or status-bar click) away.

import { useEffect, useState } from "react";
import type { FamilyMember, SessionFamily } from "../../shared/api";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { errorText } from "../store/dialogs";
import { revealWhenShown } from "../graph/FamilyBadge";
import { useGraph } from "../graph/store";
import { shorten } from "../panels/session-name";
import { Modal } from "./Modal";

function depthOf(members: readonly FamilyMember[]): Map<string, number> {
	const depth = new Map<string, number>();
	for (const m of members) depth.set(m.path, m.parentPath ? (depth.get(m.parentPath) ?? 0) + 1 : 0);
	return depth;
}

function fileName(p: string): string {
	return p.split(/[\\/]/).pop() ?? p;
}

export function FamilyDialog({ path }: { path: string }) {
	const { client, reveal } = useServices();
	const graph = useGraph();
	const openPath = useApp((s) => s.openPath);
	const close = useApp((s) => s.closeDialog);
	const [family, setFamily] = useState<SessionFamily | null>(null);
	const [error, setError] = useState<string | null>(null);

	useEffect(() => {
		let live = true;
		client.request("getFamily", { path }).then(
			(f) => live && setFamily(f),
			(err: unknown) => live && setError(errorText(err)),
		);
		return () => {
			live = false;
		};
	}, [client, path]);

	const open = async (p: string, entryId: string | null): Promise<void> => {
		close("family");
		const s = await openPath(p);
		// The branch point is selected and brought into view: its card carries the "branched →" badge.
		if (s && entryId) revealWhenShown(graph.store, reveal, s.sessionId, entryId);
	};
	const depth = family ? depthOf(family.members) : new Map<string, number>();
	const byPath = new Map((family?.members ?? []).map((m) => [m.path, m]));

	return (
		<Modal title="Session family" testId="family" wide onClose={() => close("family")}>
			<p className="muted">
				Files linked by <span className="mono">parentSession</span>: who branched from whom, at which entry, when.
			</p>
			{error && <p className="error-text">{error}</p>}
			{!family && !error && (
				<p className="muted">
					<span className="spinner" /> Reading headers…
				</p>
			)}
			{family && family.members.length === 1 && (
				<p className="muted" data-testid="family-alone">
					No other file branched from or into this one.
				</p>
			)}
			{/* A small tree graph: one card per file, an elbow edge from its parent labelled with the parent's entry it branched at and when. */}
			<ul className="family-graph" aria-label="Files of this session family">
				{family?.members.map((m) => {
					const d = depth.get(m.path) ?? 0;
					const current = m.path === path;
					const parent = m.parentPath ? byPath.get(m.parentPath) : undefined;
					const parentTitle = m.parentPath ? (parent?.title ? `“${parent.title}”` : fileName(m.parentPath)) : "";
					return (
						<li key={m.path} className="family-node" style={{ marginLeft: `${d * 40}px` }} data-testid="family-member" data-depth={d}>
							{m.parentPath && (
								<div className="family-edge muted family-branch-point">
									<span aria-hidden="true">↳ </span>
									{m.branchedAtEntryId ? (
										<>
											branched from {parentTitle} at{" "}
											<button
												type="button"
												className={m.branchedAtText ? "link" : "link mono"}
												data-testid="family-branch-point"
												title={`Open the parent at this entry (${m.branchedAtEntryId})`}
												onClick={() => void open(m.parentPath as string, m.branchedAtEntryId)}
											>
												{m.branchedAtText ? `“${shorten(m.branchedAtText, 60)}”` : m.branchedAtEntryId}
											</button>
										</>
									) : parent?.outside ? (
										<>branched from {parentTitle}</>
									) : (
										<>started empty from {parentTitle} (no entries copied)</>
									)}
								</div>
							)}
							{m.outside ? (
								// Named by a header, outside what was opened or served: shown as existing, never read or opened.
								<div className="family-card outside" data-testid="family-outside" title={m.path}>
									<span className="library-title">{fileName(m.path)}</span>
									<span className="muted">outside the files and folders you opened or served: not read, and not opened from here</span>
								</div>
							) : (
								<button
									type="button"
									className={`family-card${current ? " current" : ""}`}
									data-testid="family-open"
									aria-current={current ? "true" : undefined}
									title={m.path}
									onClick={() => void open(m.path, null)}
								>
									{/* Forks share their parent's first messages: each card is named by its own first message after
									    the fork (or its title), with its date, so two forks never read alike. */}
									<span className="library-title" data-testid="family-first-prompt">
										{m.title
											? shorten(m.title, 80)
											: m.firstPrompt
												? `“${shorten(m.firstPrompt, 80)}”`
												: m.parentPath
													? "(no message of its own yet)"
													: fileName(m.path)}
										{current ? " (this file)" : ""}
									</span>
									<span className="muted">
										{m.title && m.firstPrompt ? `“${shorten(m.firstPrompt, 60)}” · ` : ""}
										{(m.entries ?? 0).toLocaleString()} entries{m.createdAt ? ` · ${new Date(m.createdAt).toLocaleString()}` : ""} ·{" "}
										<span className="mono">{fileName(m.path)}</span>
									</span>
								</button>
							)}
						</li>
					);
				})}
			</ul>
		</Modal>
	);
}
