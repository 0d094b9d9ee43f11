// The navigate dialog (pi's /tree select): first what would be summarized (previewNavigation, also
// highlighted on the graph), then No summary / Summarize / Summarize with custom prompt; summarizing
// streams the text live and Escape cancels it with nothing changed. Errors are shown as they are.

import { useEffect, useRef, useState } from "react";
import { modelSourceText } from "../panels/StatusBar";
import { useApp } from "../store";
import type { NavigateDialog as NavigateState } from "../store/dialogs";
import { Modal } from "./Modal";

export function NavigateDialog({ dialog }: { dialog: NavigateState }) {
	const confirm = useApp((s) => s.confirmNavigate);
	const cancel = useApp((s) => s.cancelNavigate);
	const undo = useApp((s) => s.undoNavigate);
	const resolveBusy = useApp((s) => s.resolveBusyNavigate);
	// Live: the running pi moves (and summarizes with its own model); the texts say so.
	const live = useApp((s) => (s.activeSessionId ? s.live[s.activeSessionId] : undefined));
	const waitRef = useRef<HTMLButtonElement>(null);
	const closeDialog = useApp((s) => s.closeDialog);
	const doneRef = useRef<HTMLButtonElement>(null);
	const model = useApp((s) => s.activeModel);
	const [prompt, setPrompt] = useState("");
	const [replace, setReplace] = useState(false);
	const streamRef = useRef<HTMLPreElement>(null);
	const summarizeRef = useRef<HTMLButtonElement>(null);
	const noSummaryRef = useRef<HTMLButtonElement>(null);

	useEffect(() => {
		if (dialog.stage !== "choose") return;
		(dialog.focus === "summarize" ? summarizeRef : noSummaryRef).current?.focus();
	}, [dialog.stage, dialog.focus]);

	useEffect(() => {
		if (dialog.stage === "done") doneRef.current?.focus();
		if (dialog.stage === "busy") waitRef.current?.focus();
	}, [dialog.stage]);

	useEffect(() => {
		const el = streamRef.current;
		if (el) el.scrollTop = el.scrollHeight;
	}, [dialog.summaryText]);

	const p = dialog.preview;
	const count = p?.entriesToSummarize.length ?? 0;

	return (
		<Modal title="Navigate here" testId="navigate-dialog" onClose={() => void cancel()} wide={dialog.stage === "summarizing" || dialog.stage === "done"}>
			{dialog.stage === "loading" && (
				<p className="muted">
					<span className="spinner" /> Working…
				</p>
			)}

			{p && dialog.stage === "choose" && (
				<>
					<p data-testid="navigate-preview">
						{count > 0 ? (
							<>
								Leaving a branch of <strong>{count}</strong> entr{count === 1 ? "y" : "ies"} (≈{p.estimatedTokens.toLocaleString()} tokens), highlighted on the
								graph.
							</>
						) : (
							<>Nothing would be summarized: the target is on the current path.</>
						)}
					</p>
					{p.editorText !== undefined && <p className="muted">The leaf moves to the message's parent and its text goes to the composer.</p>}
					{count > 0 &&
						(live ? (
							<p className="muted" data-testid="navigate-model">
								pi summarizes with its own model
								{live.state.model ? ` (${live.state.model.provider}/${live.state.model.modelId})` : ""}.
							</p>
						) : model ? (
							<p className="muted" data-testid="navigate-model">
								Summarize uses {model.provider}/{model.modelId} ({modelSourceText(model.source)}).
							</p>
						) : (
							<p className="muted" data-testid="navigate-no-model">
								No model is configured: summarizing will fail. Set one in Arbor or pi settings.
							</p>
						))}
					<div className="button-row">
						<button ref={noSummaryRef} type="button" data-testid="navigate-no-summary" onClick={() => void confirm("none")}>
							No summary
						</button>
						<button ref={summarizeRef} type="button" data-testid="navigate-summarize" disabled={count === 0} onClick={() => void confirm("summarize")}>
							Summarize
						</button>
						<button type="button" data-testid="navigate-custom" disabled={count === 0} onClick={() => void confirm("custom")}>
							Summarize with custom prompt…
						</button>
						<button type="button" data-testid="navigate-cancel" onClick={() => void cancel()}>
							Cancel
						</button>
					</div>
				</>
			)}

			{dialog.stage === "custom" && (
				<form
					onSubmit={(e) => {
						e.preventDefault();
						void confirm("custom", { instructions: prompt, replace });
					}}
				>
					<textarea
						autoFocus
						data-testid="navigate-custom-prompt"
						rows={5}
						value={prompt}
						placeholder="Extra instructions for the summary (e.g. focus on the decisions about the API)"
						onChange={(e) => setPrompt(e.target.value)}
					/>
					<label className="checkbox">
						<input type="checkbox" data-testid="navigate-replace-prompt" checked={replace} onChange={(e) => setReplace(e.target.checked)} />
						Replace the default summary prompt instead of adding to it
					</label>
					<div className="button-row">
						<button type="submit" data-testid="navigate-custom-submit" disabled={prompt.trim() === ""}>
							Summarize
						</button>
						<button type="button" onClick={() => void cancel()}>
							Back
						</button>
					</div>
				</form>
			)}

			{dialog.stage === "summarizing" && (
				<div data-testid="navigate-progress">
					<p className="muted">
						<span className="spinner" />{" "}
						{dialog.cancelling
							? "Cancelling…"
							: live
								? "pi is summarizing the abandoned branch with its model… (Escape stops it; nothing changes)"
								: "Summarizing the abandoned branch… (Escape cancels; nothing changes)"}
					</p>
					{live && dialog.summaryText === "" ? (
						<p className="muted">pi writes the summary inside its own process; it appears on the graph once saved.</p>
					) : (
						<pre ref={streamRef} className="summary-stream" data-testid="navigate-summary-text">
							{dialog.summaryText}
						</pre>
					)}
					<div className="button-row">
						<button type="button" data-testid="navigate-abort" disabled={dialog.cancelling} onClick={() => void cancel()}>
							Cancel
						</button>
					</div>
				</div>
			)}

			{(dialog.stage === "done" || dialog.stage === "undoing") && dialog.result && (
				<div data-testid="navigate-done">
					<p role="status">
						Summary saved{dialog.result.viaPid !== undefined ? ` by pi (pid ${dialog.result.viaPid})` : ""} as a <strong>branch summary</strong> entry
						{dialog.result.file ? (
							<>
								{" "}
								in{" "}
								<span className="mono" title={dialog.result.file}>
									{dialog.result.file.split(/[\\/]/).pop()}
								</span>
							</>
						) : null}
						; the leaf is now on it.
					</p>
					<pre className="summary-stream" data-testid="navigate-summary-text">
						{dialog.summaryText}
					</pre>
					<div className="button-row">
						<button ref={doneRef} type="button" data-testid="navigate-done-close" onClick={() => closeDialog("navigate")}>
							Done
						</button>
						<button type="button" data-testid="navigate-undo" disabled={dialog.stage === "undoing" || !dialog.result.oldLeafId} onClick={() => void undo()}>
							{dialog.stage === "undoing" ? "Moving back…" : "Undo: move the leaf back"}
						</button>
					</div>
				</div>
			)}

			{dialog.stage === "busy" && (
				<div data-testid="navigate-busy">
					<p role="alert" title={dialog.busyMessage}>
						<strong>pi is busy with a turn right now</strong>, and it cannot move its leaf while the turn runs. Nothing was changed.
					</p>
					<div className="button-row">
						<button ref={waitRef} type="button" data-testid="navigate-wait" onClick={() => void resolveBusy("wait")}>
							Wait for pi to finish
						</button>
						<button type="button" data-testid="navigate-stop-turn" onClick={() => void resolveBusy("stop")}>
							Stop pi's turn
						</button>
						<button type="button" data-testid="navigate-busy-cancel" onClick={() => void cancel()}>
							Cancel
						</button>
					</div>
					<p className="muted">Wait: pi moves as soon as its turn ends. Stop: the turn is stopped, then pi moves.</p>
				</div>
			)}

			{dialog.stage === "waiting" && (
				<div data-testid="navigate-waiting">
					<p role="status">
						<span className="spinner" />{" "}
						{dialog.cancelling ? "Stopping pi's turn, then moving…" : "Waiting for pi to finish its turn; it moves as soon as the turn ends."}
					</p>
					<div className="button-row">
						<button type="button" data-testid="navigate-stop-now" disabled={dialog.cancelling} onClick={() => void cancel()}>
							Stop pi's turn now
						</button>
					</div>
					<p className="muted">Escape stops the turn too; the move then goes ahead.</p>
				</div>
			)}

			{dialog.stage === "error" && (
				<>
					<p className="error-text" role="alert" data-testid="navigate-error">
						{dialog.error}
					</p>
					<p className="muted">Nothing was changed.</p>
					<div className="button-row">
						<button type="button" data-testid="navigate-close" onClick={() => void cancel()}>
							Close
						</button>
					</div>
				</>
			)}
		</Modal>
	);
}
