// Status bar: the file, entry count, where the leaf is versus where pi will resume, warnings, progress,
// and the summary model (a button to the settings dialog).

import { useServices } from "../commands/services";
import { useApp } from "../store";
import { activeSession } from "../store/selectors";

export function StatusBar() {
	const { run } = useServices();
	const session = useApp(activeSession);
	const progress = useApp((s) => s.progress);
	const model = useApp((s) => s.activeModel);
	const tasks = Object.values(progress);
	const sk = session?.skeleton ?? null;
	const leafDiffers = !!sk && sk.leaf !== sk.resumeLeaf;
	return (
		<footer className="status-bar" data-testid="status-bar">
			{session ? (
				<>
					<span className="status-file mono" data-testid="status-file" title={session.summary.path ?? "in memory"}>
						{session.summary.path ?? "(in memory)"}
					</span>
					{session.summary.path && (
						<button type="button" data-testid="status-family" title="Files branched from or into this one" onClick={() => void run("session.family", { source: "button" })}>
							Family
						</button>
					)}
					<span data-testid="status-entries">{sk ? `${sk.count.toLocaleString()} entries` : "loading…"}</span>
					{sk && (
						<span data-testid="status-leaf" className={leafDiffers ? "warn" : ""}>
							{leafDiffers
								? `leaf ${sk.leaf >= 0 ? sk.ids[sk.leaf] : "(none)"} · pi resumes at ${sk.resumeLeaf >= 0 ? sk.ids[sk.resumeLeaf] : "(start)"}`
								: "leaf = where pi resumes"}
						</span>
					)}
					{leafDiffers && (
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
				title={model ? `Summaries use ${model.provider}/${model.modelId} (from ${model.source === "arbor-settings" ? "Arbor settings" : model.source === "env" ? "the environment" : "pi's configuration"}). Click to change.` : "No model for summaries: click to set one"}
				onClick={() => void run("settings.open", { source: "button" })}
			>
				{model ? `${model.provider}/${model.modelId}` : "no model"}
			</button>
		</footer>
	);
}
