// Status bar: the file, entry count, where the leaf is versus where pi will resume, warnings, progress,
// and the summary model (a button to the settings dialog).

import { useEffect } from "react";
import type { ActiveModelInfo } from "../../shared/api";
import { EntryKind, type Skeleton } from "../../shared/skeleton";
import { useServices } from "../commands/services";
import { kindStyle } from "../graph/cards";
import { useApp } from "../store";
import { labelTimeText } from "../../shared/tree-text";
import { activeSession, indexOfId, leafId } from "../store/selectors";
import { shorten } from "./session-name";

/** Kinds that carry conversation text; the others (labels, saved positions, model changes…) are settings lines. */
const TEXT_KINDS: ReadonlySet<number> = new Set([
	EntryKind.user,
	EntryKind.assistant,
	EntryKind.toolResult,
	EntryKind.bashExecution,
	EntryKind.customMessageRole,
	EntryKind.otherRole,
	EntryKind.compaction,
	EntryKind.branchSummary,
	EntryKind.customMessage,
]);

/**
 * The entry to name for a position: itself, or when it is a settings line (Arbor's saved position, a label,
 * a model change…) its nearest ancestor with conversation text, so the status bar reads "assistant: Fixed…"
 * instead of "custom: [custom: arbor.position]".
 */
export function namedEntry(sk: Skeleton | null, index: number): { index: number; below: boolean } {
	if (!sk || index < 0) return { index, below: false };
	let i = index;
	while (i >= 0 && !TEXT_KINDS.has(sk.kind[i])) i = sk.parent[i];
	return i < 0 ? { index, below: false } : { index: i, below: i !== index };
}

export function modelSourceText(source: ActiveModelInfo["source"]): string {
	switch (source) {
		case "arbor-settings":
			return "Arbor's settings";
		case "pi-session":
			return "this session's own model, as pi restores it";
		case "pi-settings":
			return "pi's saved default";
		case "env":
			return "pi's automatic choice, on an environment key";
		default:
			return "pi's automatic choice";
	}
}

/** "user: fix the parser" style text of an entry for the status bar (fetched on demand), never a hex id. */
function useEntryText(index: number): string {
	const sessionId = useApp((s) => s.activeSessionId);
	const kind = useApp((s) => activeSession(s)?.skeleton?.kind[index] ?? -1);
	const preview = useApp((s) => (sessionId && index >= 0 ? s.previews[sessionId]?.get(index) : undefined));
	const ensure = useApp((s) => s.ensurePreviews);
	useEffect(() => {
		if (sessionId && index >= 0 && preview === undefined) void ensure(sessionId, [index]);
	}, [sessionId, index, preview, ensure]);
	if (index < 0) return "(start of the file)";
	const role = kindStyle(kind).title;
	return preview === undefined ? role : `${role}: ${shorten(preview, 36)}`;
}

export function StatusBar() {
	const { run, reveal } = useServices();
	const session = useApp(activeSession);
	const progress = useApp((s) => s.progress);
	const model = useApp((s) => s.activeModel);
	const refreshModel = useApp((s) => s.refreshActiveModel);
	const tasks = Object.values(progress);
	const sk = session?.skeleton ?? null;
	const leafDiffers = !!sk && sk.leaf !== sk.resumeLeaf;
	const leafNamed = namedEntry(sk, sk?.leaf ?? -1);
	const resumeNamed = namedEntry(sk, sk && leafDiffers ? sk.resumeLeaf : -1);
	let leafText = useEntryText(leafNamed.index) + (leafNamed.below ? " ↓" : "");
	let resumeText = useEntryText(resumeNamed.index) + (resumeNamed.below ? " ↓" : "");
	// Two different positions must not read alike (two "user: continue" on two branches): add each one's time,
	// and its entry number when the times agree too.
	if (sk && leafDiffers && leafText === resumeText) {
		const at = (i: number): string => (i >= 0 ? labelTimeText(sk.time[i]) : "");
		const [a, b] = [at(sk.leaf), at(sk.resumeLeaf)];
		const tag = (t: string, i: number): string => (a !== b && t !== "" ? ` (${t})` : ` (entry ${(i + 1).toLocaleString()})`);
		leafText += tag(a, sk.leaf);
		resumeText += tag(b, sk.resumeLeaf);
	}
	// Live: the leaf is the running pi's (in its memory): where the next turn goes; the file's positions are secondary.
	const isLive = useApp((s) => (s.activeSessionId ? s.live[s.activeSessionId] !== undefined : false));
	const liveLeafId = isLive && sk ? leafId(sk) : undefined;
	const liveIndex = sk && liveLeafId ? indexOfId(sk, liveLeafId) : -1;
	const piText = useEntryText(liveIndex);
	// A summary uses the session's own model (its branch's last model): ask again when the session or its
	// leaf changes, so the model named here is the one the summary request uses.
	const sessionId = session?.summary.sessionId;
	const leaf = sk?.leaf ?? -1;
	useEffect(() => {
		const t = setTimeout(() => void refreshModel(), 150);
		return () => clearTimeout(t);
	}, [sessionId, leaf, refreshModel]);
	return (
		<footer className="status-bar" data-testid="status-bar">
			{session ? (
				<>
					<span className="status-file mono" data-testid="status-file" title={session.summary.path ?? "in memory"}>
						{session.summary.path ?? "(in memory)"}
					</span>
					{session.summary.path && (
						<button
							type="button"
							data-testid="status-family"
							title="Files branched from or into this one"
							onClick={() => void run("session.family", { source: "button" })}
						>
							Family
						</button>
					)}
					<span data-testid="status-entries">
						{sk ? (sk.first ? `${sk.first.total.toLocaleString()} entries (loading…)` : `${sk.count.toLocaleString()} entries`) : "loading…"}
					</span>
					{sk && liveLeafId !== undefined && (
						<span data-testid="status-leaf" className="status-leaf">
							<button
								type="button"
								className="link"
								data-testid="status-go-pi"
								title="Go to the running pi's leaf (in its memory): its next turn continues from there"
								disabled={liveIndex < 0}
								onClick={() => liveLeafId && reveal(liveLeafId)}
							>
								pi is at: {liveLeafId === null ? "(start)" : liveIndex >= 0 ? piText : "(not in the file yet)"}
							</button>
						</span>
					)}
					{sk && liveLeafId === undefined && (
						<span data-testid="status-leaf" className={`status-leaf${leafDiffers ? " warn" : ""}`}>
							<button
								type="button"
								className="link"
								data-testid="status-go-leaf"
								title={`Go to the leaf (where the next message goes)${leafNamed.below ? ": a settings line under this entry" : ""}`}
								onClick={() => void run("go.leaf", { source: "button" })}
							>
								Leaf: {sk.leaf >= 0 ? leafText : "(none)"}
							</button>
							{leafDiffers ? (
								<>
									{" · "}
									<button
										type="button"
										className="link"
										data-testid="status-go-resume"
										title="Go to where pi resumes when it opens this file (its last line)"
										onClick={() => void run("go.resume", { source: "button" })}
									>
										pi resumes at: {sk.resumeLeaf >= 0 ? resumeText : "(start)"}
									</button>
								</>
							) : (
								<span className="muted"> (pi resumes here)</span>
							)}
						</span>
					)}
					{leafDiffers && liveLeafId === undefined && (
						<button
							type="button"
							data-testid="status-save-position"
							title="pi and omp resume at the file's last line: append a marker under Arbor's leaf so the next `pi -c` continues from here (Ctrl+S)"
							onClick={() => void run("position.save", { source: "button" })}
						>
							Save position for pi
						</button>
					)}
					{session.summary.warningCount > 0 && (
						<button type="button" className="warn" data-testid="status-warnings" onClick={() => void run("session.warnings", { source: "button" })}>
							{session.summary.warningCount} warning{session.summary.warningCount === 1 ? "" : "s"}
						</button>
					)}
				</>
			) : (
				<span>No session open</span>
			)}
			<span className="spacer" />
			{tasks.map((t) => (
				<span key={t.task} className="status-progress" data-testid="status-progress">
					<span className="spinner" aria-hidden /> {t.task}
					{t.total > 0 ? ` ${Math.round((100 * t.done) / t.total)}%` : "…"}
				</span>
			))}
			<button
				type="button"
				className={`status-model${model ? " muted" : " warn"}`}
				data-testid="status-model"
				title={
					model
						? `Summaries${session ? " in this session" : ""} use ${model.provider}/${model.modelId} (from ${modelSourceText(model.source)}). Click to change.`
						: "No model for summaries: click to set one"
				}
				onClick={() => void run("settings.open", { source: "button" })}
			>
				{model ? `${model.provider}/${model.modelId}` : "no model"}
			</button>
		</footer>
	);
}
