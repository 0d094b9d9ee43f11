// Status bar: the file, entry count, where the leaf is versus where pi will resume, warnings, progress,
// and the summary model (a button to the settings dialog).

import { useEffect } from "react";
import { useServices } from "../commands/services";
import { kindStyle } from "../graph/cards";
import { useApp } from "../store";
import { piLeafId } from "../store/live";
import { activeSession, indexOfId } from "../store/selectors";
import { shorten } from "./session-name";

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
	const tasks = Object.values(progress);
	const sk = session?.skeleton ?? null;
	const leafDiffers = !!sk && sk.leaf !== sk.resumeLeaf;
	const leafText = useEntryText(sk?.leaf ?? -1);
	const resumeText = useEntryText(sk && leafDiffers ? sk.resumeLeaf : -1);
	// Live: the running pi's in-memory leaf is where the next turn goes; the file's positions are secondary.
	const liveLeafId = useApp((s) => {
		const v = s.activeSessionId ? s.live[s.activeSessionId] : undefined;
		return v ? piLeafId(v, sk) : undefined;
	});
	const liveIndex = sk && liveLeafId ? indexOfId(sk, liveLeafId) : -1;
	const piText = useEntryText(liveIndex);
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
					<span data-testid="status-entries">{sk ? `${sk.count.toLocaleString()} entries` : "loading…"}</span>
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
								title="Go to the leaf (where the next message goes)"
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
						<button type="button" data-testid="status-save-position" onClick={() => void run("position.save", { source: "button" })}>
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
						? `Summaries use ${model.provider}/${model.modelId} (from ${model.source === "arbor-settings" ? "Arbor settings" : model.source === "env" ? "the environment" : "pi's configuration"}). Click to change.`
						: "No model for summaries: click to set one"
				}
				onClick={() => void run("settings.open", { source: "button" })}
			>
				{model ? `${model.provider}/${model.modelId}` : "no model"}
			</button>
		</footer>
	);
}
