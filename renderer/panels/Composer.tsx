// Composer: a user message appended at the leaf (appendUserMessage), which starts a new branch when the
// leaf was moved. Prefilled after navigating to a user message or branching to a new file.

import { useApp } from "../store";

export function Composer() {
	const text = useApp((s) => s.composerText);
	const setText = useApp((s) => s.setComposerText);
	const send = useApp((s) => s.sendComposer);
	const hasSession = useApp((s) => s.activeSessionId !== null);
	if (!hasSession) return null;
	return (
		<form
			className="composer"
			onSubmit={(e) => {
				e.preventDefault();
				void send();
			}}
		>
			<textarea
				data-testid="composer"
				value={text}
				placeholder="Message to append at the leaf (Ctrl+Enter to send)"
				rows={2}
				onChange={(e) => setText(e.target.value)}
				onKeyDown={(e) => {
					if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
						e.preventDefault();
						void send();
					}
				}}
			/>
			<button type="submit" data-testid="composer-send" disabled={text.trim() === ""}>Send</button>
		</form>
	);
}
