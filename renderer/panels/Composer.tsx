// Composer: a user message appended at the leaf (appendUserMessage), which starts a new branch when the
// leaf was moved. Prefilled after navigating to a user message or branching to a new file. Each session
// has its own draft, and the Send button names the file it writes to. When a live pi holds the file, Send
// runs a real turn in that pi (queued while it works) and Stop (or Escape) ends the turn; if pi goes away,
// the draft stays and the composer is back on the file.

import { useEffect, useRef } from "react";
import { useApp } from "../store";
import { draftOf } from "../store/selectors";
import { baseName, useSessionName } from "./session-name";

export function Composer() {
	const sessionId = useApp((s) => s.activeSessionId);
	const text = useApp((s) => draftOf(s));
	const setText = useApp((s) => s.setComposerText);
	const send = useApp((s) => s.sendComposer);
	const stop = useApp((s) => s.stopLive);
	const path = useApp((s) => (s.activeSessionId ? (s.sessions[s.activeSessionId]?.summary.path ?? null) : null));
	const live = useApp((s) => (s.activeSessionId ? s.live[s.activeSessionId] : undefined));
	const focusTick = useApp((s) => s.composerFocusTick);
	const name = useSessionName(sessionId, 32);
	const ref = useRef<HTMLTextAreaElement>(null);
	useEffect(() => {
		if (focusTick > 0 && ref.current) {
			ref.current.focus();
			const n = ref.current.value.length;
			ref.current.setSelectionRange(n, n);
		}
	}, [focusTick]);
	if (!sessionId) return null;
	const file = path ? baseName(path) : "(in memory)";
	const working = live?.state.status === "streaming";
	const pi = live ? `pi (pid ${live.state.pid})` : "";
	return (
		<form
			className={`composer${live ? " is-live" : ""}`}
			data-testid="composer-form"
			data-live={live ? "true" : "false"}
			onSubmit={(e) => {
				e.preventDefault();
				void send();
			}}
		>
			<textarea
				ref={ref}
				data-testid="composer"
				data-escape-to-graph
				value={text}
				aria-label={live ? `Message for the running ${pi}: starts a turn` : `Message to append to ${file}`}
				placeholder={
					live
						? `Message for ${pi}: runs a turn from its leaf${working ? ", after the one running now" : ""} (Ctrl+Enter to send)`
						: `Message to append at the leaf of ${name} (Ctrl+Enter to send)`
				}
				rows={2}
				onChange={(e) => setText(e.target.value)}
				onKeyDown={(e) => {
					if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
						e.preventDefault();
						void send();
					}
				}}
			/>
			{live && working && (
				<button
					type="button"
					className="composer-stop"
					data-testid="composer-stop"
					disabled={live.stopping}
					title="Stop pi's turn (Escape)"
					onClick={() => void stop(sessionId)}
				>
					{live.stopping ? "Stopping…" : "■ Stop"}
				</button>
			)}
			<button
				type="submit"
				data-testid="composer-send"
				disabled={text.trim() === ""}
				title={
					live
						? `Sends the message to ${pi}, which runs a turn and writes it to ${path ?? "its session"}${working ? " (queued until the running turn ends)" : ""}`
						: `Appends the message at the leaf of ${path ?? "this in-memory session"}`
				}
			>
				{live ? (
					<span data-testid="composer-target">{working ? "Queue for pi" : "Send to pi"}</span>
				) : (
					<>
						Send to{" "}
						<span className="composer-target" data-testid="composer-target">
							{file}
						</span>
					</>
				)}
			</button>
		</form>
	);
}
