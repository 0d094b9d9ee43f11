// The compare view: the common ancestor, then each side from there — prompts side by side (aligned by
// turn), files read / edited / written, tokens, cost, duration, errors and aborts, and a word diff of the
// final answers. From here: navigate to either side, branch either to a new file, label either leaf.
// Across files (two tries, or any two forks) each side is a session file: the same view, plus what the caller
// adds (the tries' worktree diffs and Keep), and "Open" instead of the one-session actions.
// Session text is rendered as plain text nodes only (never HTML).

import { type ReactNode, useEffect, useState } from "react";
import type { CompareSide, CompareView } from "../../shared/compare";
import { formatSpan, formatTokens, rollupAt, type SubtreeRollup } from "../../shared/rollup";
import { EntryKind, type Skeleton } from "../../shared/skeleton";
import { shorten } from "../panels/session-name";
import { useServices } from "../commands/services";
import { Modal } from "../dialogs/Modal";
import { useApp } from "../store";
import { errorText } from "../store/dialogs";
import type { CompareFiles } from "../store/dialogs";
import { activeSession, activeSkeleton, indexOfId } from "../store/selectors";
import { branchEnd, childToward, childrenOf, firstPromptUnder } from "./branches";
import { rollupsOf } from "../store/rollups";
import "./compare.css";

type Loaded = { key: string; view: CompareView } | { key: string; error: string } | null;

/** The entry right after the common ancestor on a side's path (the root of that side's subtree), -1 if none. */
function sideRoot(sk: Skeleton, ancestorId: string | null, leafId: string): number {
	const leaf = indexOfId(sk, leafId);
	if (leaf < 0) return -1;
	if (ancestorId === null) {
		let i = leaf;
		while (sk.parent[i] >= 0) i = sk.parent[i];
		return i;
	}
	return childToward(sk, indexOfId(sk, ancestorId), leaf);
}

function SideFacts({
	name,
	side,
	aborts,
	title,
	subtree,
	file,
}: {
	name: "A" | "B";
	side: CompareSide;
	aborts: number;
	title: string;
	subtree: { rollup: SubtreeRollup; branches: number } | null;
	file?: string;
}) {
	return (
		<div className="cmp-facts" data-testid={`compare-facts-${name.toLowerCase()}`} data-leaf-id={side.leafId}>
			<div className="cmp-facts-head" title={`leaf ${side.leafId}`}>
				<span className="cmp-side-badge">{name}</span> <span data-testid={`compare-side-name-${name.toLowerCase()}`}>{title}</span>
			</div>
			{file && (
				<p className="cmp-file mono muted" title={file} data-testid={`compare-side-file-${name.toLowerCase()}`}>
					{file.split(/[\\/]/).pop()}
				</p>
			)}
			<p className="cmp-covers muted">Path: from after the common ancestor to this side&apos;s leaf (one branch).</p>
			<dl>
				<dt>Entries</dt>
				<dd data-testid={`compare-path-entries-${name.toLowerCase()}`}>{side.entries.length}</dd>
				<dt>Tokens</dt>
				<dd title={`input ${side.tokens.input}, output ${side.tokens.output}, cache read ${side.tokens.cacheRead}, cache write ${side.tokens.cacheWrite}`}>
					{formatTokens(side.tokens.total)}
				</dd>
				<dt>Cost</dt>
				<dd>${side.cost.toFixed(4)}</dd>
				<dt>Duration</dt>
				<dd>{side.durationMs === null ? "–" : formatSpan(side.durationMs)}</dd>
				<dt>Errors</dt>
				<dd className={side.errors > 0 ? "error-text" : undefined}>
					{side.errors}
					{aborts > 0 ? ` · ${aborts} aborted` : ""}
				</dd>
				{(["read", "edited", "written"] as const).map((k) => (
					<FilesRow key={k} name={k} files={side.files[k]} />
				))}
			</dl>
			{subtree && (
				<p className="cmp-subtree" data-testid={`compare-subtree-${name.toLowerCase()}`}>
					<span className="muted">
						Whole subtree ({subtree.branches === 1 ? "this branch only" : `all ${subtree.branches} branches under it`}, as the inspector shows it):
					</span>{" "}
					<span data-testid={`compare-subtree-figures-${name.toLowerCase()}`}>
						{subtree.rollup.entries} entries · {formatTokens(subtree.rollup.tokens)} tok · ${subtree.rollup.cost.toFixed(2)}
						{subtree.rollup.errors > 0 ? ` · ${subtree.rollup.errors} err` : ""}
					</span>
				</p>
			)}
		</div>
	);
}

function FilesRow({ name, files }: { name: string; files: string[] }) {
	return (
		<>
			<dt>{name[0].toUpperCase() + name.slice(1)}</dt>
			<dd className="mono cmp-files">{files.length === 0 ? "–" : files.map((f) => <div key={f}>{f}</div>)}</dd>
		</>
	);
}

type CompareDialogProps =
	| { a: string; b: string; siblingsOf?: string }
	/** Across files; `extra`: a section after the answers (one scroll area), `actions`: buttons of the bottom row. */
	| { files: CompareFiles; extra?: ReactNode; actions?: ReactNode };

export function CompareDialog(props: CompareDialogProps) {
	const files = "files" in props ? props.files : undefined;
	const a = files ? "" : (props as { a: string }).a;
	const b = files ? "" : (props as { b: string }).b;
	const siblingsOf = files ? undefined : (props as { siblingsOf?: string }).siblingsOf;
	const { client, deps } = useServices();
	const sessionId = useApp((s) => s.activeSessionId);
	const activePath = useApp((s) => activeSession(s)?.summary.path ?? null);
	// Across files, the open tab's graph names entries only when it is one of the files compared or their source.
	const ownGraph = !files || (activePath !== null && [files.a.path, files.b.path, files.source].includes(activePath));
	const activeSk = useApp(activeSkeleton);
	const sk = ownGraph ? activeSk : null;
	const [pick, setPick] = useState<[string, string]>([a, b]);
	const [loaded, setLoaded] = useState<Loaded>(null);
	const kids = sk && siblingsOf ? childrenOf(sk, indexOfId(sk, siblingsOf)).map((k) => sk.ids[k]) : [];
	const previews = useApp((s) => (sessionId ? s.previews[sessionId] : undefined));
	const ensure = useApp((s) => s.ensurePreviews);
	// Branches are named by their prompt (the first user message under the child, or the side's root).
	const promptOf = (id: string): number => (sk ? firstPromptUnder(sk, indexOfId(sk, id), EntryKind.user) : -1);
	const nameOf = (id: string): string => {
		const p = promptOf(id);
		const text = p >= 0 ? previews?.get(p) : undefined;
		return p < 0 ? "(no user message)" : text === undefined ? "user message…" : shorten(text, 60);
	};
	// Siblings: each side runs from the chosen child down to the latest entry of its branch.
	const endOf = (id: string): string => (sk && siblingsOf ? sk.ids[branchEnd(sk, indexOfId(sk, id))] : id);
	const idA = endOf(pick[0]);
	const idB = endOf(pick[1]);
	const key = files ? JSON.stringify([files.a, files.b]) : `${idA}|${idB}`;

	useEffect(() => {
		if (!files && !sessionId) return;
		let live = true;
		const sides = files ? { a: files.a, b: files.b } : { sessionId: sessionId!, a: idA, b: idB };
		client.request("compareBranches", sides).then(
			(view) => live && setLoaded({ key, view }),
			(err: unknown) => live && setLoaded({ key, error: errorText(err) }),
		);
		return () => {
			live = false;
		};
		// eslint-disable-next-line react-hooks/exhaustive-deps -- `key` stands for `files`
	}, [client, sessionId, idA, idB, key]);

	const st = deps.store.getState();
	const act = (fn: () => void) => () => {
		st.closeDialog("compare");
		fn();
	};
	const view = loaded && loaded.key === key && "view" in loaded ? loaded.view : null;
	const roots =
		view && sk && !files ? ([sideRoot(sk, view.commonAncestorId, view.a.leafId), sideRoot(sk, view.commonAncestorId, view.b.leafId)] as const) : null;
	const subtreeOf = (root: number): { rollup: SubtreeRollup; branches: number } | null => {
		if (!sk || root < 0) return null;
		const r = rollupsOf(sk);
		let leaves = 0;
		const inSub = new Uint8Array(sk.count);
		inSub[root] = 1;
		const hasKids = new Uint8Array(sk.count);
		for (let j = root + 1; j < sk.count; j++) {
			const p = sk.parent[j];
			if (p >= 0 && inSub[p] && sk.kind[j] !== EntryKind.usage && sk.kind[j] !== EntryKind.modelUsage) {
				inSub[j] = 1;
				hasKids[p] = 1;
			}
		}
		for (let j = root; j < sk.count; j++) if (inSub[j] && !hasKids[j]) leaves++;
		return { rollup: rollupAt(r, root), branches: leaves };
	};
	/** An entry by its own text ("assistant: Found it…"), for the branch point and the common ancestor. */
	const entryText = (id: string | null): string => {
		const i = sk && id ? indexOfId(sk, id) : -1;
		if (!sk || i < 0) return id ?? "";
		const text = previews?.get(i);
		return text === undefined ? "…" : text.trim() === "" ? "(no text)" : shorten(text, 60);
	};
	const own = [siblingsOf ?? null, view?.commonAncestorId ?? null]
		.map((id) => (sk && id ? indexOfId(sk, id) : -1))
		.filter((i) => i >= 0 && previews?.get(i) === undefined);
	const wanted = [
		...own,
		...[...kids, ...(roots ? roots.filter((x) => x >= 0).map((x) => sk!.ids[x]) : [])].map(promptOf).filter((p) => p >= 0 && previews?.get(p) === undefined),
	];
	const wantKey = wanted.join(",");
	useEffect(() => {
		if (sessionId && wantKey) void ensure(sessionId, wantKey.split(",").map(Number));
	}, [sessionId, wantKey, ensure]);
	const lastPrompt = (side: "a" | "b") =>
		view?.rows
			.map((r) => r[side])
			.filter((t) => t !== null)
			.at(-1)?.promptId ?? null;

	return (
		<Modal title={files ? `Compare ${files.names[0]} and ${files.names[1]}` : "Compare branches"} testId="compare-dialog" wide>
			{siblingsOf && kids.length >= 2 && (
				<div className="cmp-pick" data-testid="compare-siblings">
					{kids.length} branches from <span title={siblingsOf}>“{entryText(siblingsOf)}”</span>:
					{([0, 1] as const).map((k) => (
						<select
							key={k}
							aria-label={`side ${k === 0 ? "A" : "B"}`}
							data-testid={`compare-pick-${k === 0 ? "a" : "b"}`}
							value={pick[k]}
							onChange={(e) => setPick(k === 0 ? [e.target.value, pick[1]] : [pick[0], e.target.value])}
						>
							{kids.map((id, n) => (
								<option key={id} value={id}>{`${n + 1}. ${nameOf(id)}`}</option>
							))}
						</select>
					))}
				</div>
			)}
			{!loaded || loaded.key !== key ? (
				<p className="muted">Comparing…</p>
			) : "error" in loaded ? (
				<p className="error-text" data-testid="compare-error">
					{loaded.error}
				</p>
			) : (
				view && (
					<div className="cmp" data-testid="compare-view">
						<p className="cmp-ancestor" data-testid="compare-ancestor" data-entry-id={view.commonAncestorId ?? ""}>
							Common ancestor:{" "}
							<span title={view.commonAncestorId ?? undefined}>
								{view.commonAncestorId ? `“${entryText(view.commonAncestorId)}”` : "none (separate roots)"}
							</span>
						</p>
						<div className="cmp-grid">
							{(["a", "b"] as const).map((s, k) => {
								const root = roots ? roots[k] : -1;
								return (
									<SideFacts
										key={s}
										name={s === "a" ? "A" : "B"}
										side={view[s]}
										aborts={view.aborts[s]}
										title={files ? files.names[k] : root >= 0 && sk ? nameOf(sk.ids[root]) : "the common ancestor itself (same branch)"}
										subtree={files ? null : subtreeOf(root)}
										file={files?.[s].path}
									/>
								);
							})}
						</div>
						<div className="cmp-actions">
							{files
								? (["a", "b"] as const).map((s, k) => (
										<div key={s} className="button-row">
											<button type="button" data-testid={`compare-open-${s}`} title={files[s].path} onClick={act(() => void st.openPath(files[s].path))}>
												Open {files.names[k]}
											</button>
										</div>
									))
								: (["a", "b"] as const).map((s) => {
										const leaf = view[s].leafId;
										const prompt = lastPrompt(s);
										return (
											<div key={s} className="button-row">
												<button type="button" data-testid={`compare-navigate-${s}`} onClick={act(() => void st.startNavigate(leaf))}>
													Go to {s.toUpperCase()}
												</button>
												<button
													type="button"
													data-testid={`compare-branch-${s}`}
													disabled={prompt === null}
													title={prompt === null ? "no user prompt on this side" : "new file from this side's last prompt"}
													onClick={act(() => prompt && void st.branchToFile(prompt))}
												>
													Branch {s.toUpperCase()} to new file
												</button>
												<button type="button" data-testid={`compare-label-${s}`} onClick={act(() => st.startLabelEdit(leaf))}>
													Label {s.toUpperCase()}
												</button>
											</div>
										);
									})}
						</div>
						<h3>Prompts</h3>
						<table className="cmp-rows" data-testid="compare-rows">
							<tbody>
								{view.rows.length === 0 && (
									<tr>
										<td colSpan={2} className="muted">
											No user prompts after the common ancestor.
										</td>
									</tr>
								)}
								{view.rows.map((r, k) => (
									<tr key={k} data-testid="compare-row">
										{(["a", "b"] as const).map((s) => (
											<td key={s}>
												{r[s] ? (
													<>
														<div className="cmp-prompt">{r[s]!.prompt}</div>
														{r[s]!.answer && <div className="cmp-answer">{r[s]!.answer}</div>}
													</>
												) : (
													<span className="muted">–</span>
												)}
											</td>
										))}
									</tr>
								))}
							</tbody>
						</table>
						<h3>Final answers (A → B, word diff)</h3>
						<div className="cmp-diff" data-testid="compare-diff">
							{!view.finalAnswer.a.text && !view.finalAnswer.b.text ? (
								<span className="muted">Neither side has an assistant answer.</span>
							) : (
								view.answerDiff.map((p, k) =>
									p.added ? <ins key={k}>{p.value}</ins> : p.removed ? <del key={k}>{p.value}</del> : <span key={k}>{p.value}</span>,
								)
							)}
						</div>
					</div>
				)
			)}
			{"extra" in props && props.extra}
			<div className="button-row dialog-actions">
				{"actions" in props && props.actions}
				<button type="button" data-testid="compare-close" onClick={() => st.closeDialog("compare")}>
					Close
				</button>
			</div>
		</Modal>
	);
}
