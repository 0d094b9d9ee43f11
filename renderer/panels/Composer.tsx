// Composer: a user message appended at the leaf (appendUserMessage), which starts a new branch when the
// leaf was moved. Prefilled after navigating to a user message or branching to a new file. Each session
// has its own draft, and the Send button names the file it writes to.

import { useEffect, useRef } from "react";
import { useApp } from "../store";
import { draftOf } from "../store/selectors";
import { baseName, useSessionName } from "./session-name";

export function Composer() {
	const sessionId = useApp((s) => s.activeSessionId);
	const text = useApp((s) => draftOf(s));
	const setText = useApp((s) => s.setComposerText);
	const send = useApp((s) => s.sendComposer);
	const path = useApp((s) => (s.activeSessionId ? (s.sessions[s.activeSessionId]?.summary.path ?? null) : null));
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
	return (
		<form
			className="composer"
			data-testid="composer-form"
			onSubmit={(e) => {
				e.preventDefault();
				void send();
			}}
		>
			<textarea
				ref={ref}
				data-testid="composer"
				value={text}
				aria-label={`Message to append to ${file}`}
				placeholder={`Message to append at the leaf of ${name} (Ctrl+Enter to send)`}
				rows={2}
				onChange={(e) => setText(e.target.value)}
				onKeyDown={(e) => {
					if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
						e.preventDefault();
						void send();
					}
				}}
			/>
			<button
				type="submit"
				data-testid="composer-send"
				disabled={text.trim() === ""}
				title={`Appends the message at the leaf of ${path ?? "this in-memory session"}`}
			>
				Send to{" "}
				<span className="composer-target" data-testid="composer-target">
					{file}
				</span>
			</button>
		</form>
	);
}
