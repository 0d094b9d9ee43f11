// Context panel: what the model would see with the leaf at the selected entry (getContext): the
// compaction summary, kept messages, branch summaries, with token estimates per message and in total.

import { useEffect, useState } from "react";
import type { ContextView } from "../../shared/api";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { errorText } from "../store/dialogs";
import { isRecord, str, textOfBlocks } from "./entry-text";

const FETCH_DELAY_MS = 120;

function messageSummary(message: unknown): { role: string; text: string } {
	if (!isRecord(message)) return { role: "?", text: "" };
	const role = str(message.role) || "?";
	let text = "";
	if (role === "branchSummary" || role === "compactionSummary") text = str(message.summary);
	else if (role === "bashExecution") text = `$ ${str(message.command)}`;
	else text = textOfBlocks(message.content);
	if (!text && Array.isArray(message.content)) {
		const calls = message.content.filter((b) => isRecord(b) && b.type === "toolCall").map((b) => str((b as Record<string, unknown>).name));
		if (calls.length) text = `[tool calls: ${calls.join(", ")}]`;
	}
	if (role === "toolResult") text = `[${str(message.toolName)}] ${text}`;
	return { role, text: text.replace(/\s+/g, " ").slice(0, 240) };
}

export function ContextPanel() {
	const { client, reveal } = useServices();
	const sessionId = useApp((s) => s.activeSessionId);
	const selectedId = useApp((s) => s.selectedId);
	// Refetch when the file changes (an append can change what the model sees at the leaf).
	const count = useApp((s) => (s.activeSessionId ? (s.sessions[s.activeSessionId]?.skeleton?.count ?? 0) : 0));
	const [view, setView] = useState<{ at: string | null; ctx: ContextView } | { at: string | null; error: string } | null>(null);

	useEffect(() => {
		if (!sessionId) return;
		let live = true;
		// While pi appends many entries a second, or a key repeats, ask once things settle.
		const timer = setTimeout(() => {
			client.request("getContext", { sessionId, leafId: selectedId }).then(
				(ctx) => live && setView({ at: selectedId, ctx }),
				(err: unknown) => live && setView({ at: selectedId, error: errorText(err) }),
			);
		}, FETCH_DELAY_MS);
		return () => {
			live = false;
			clearTimeout(timer);
		};
	}, [client, sessionId, selectedId, count]);

	if (!view || view.at !== selectedId) return <div className="panel-empty" data-testid="context-panel">Loading…</div>;
	if ("error" in view) return <div className="panel-empty error-text" data-testid="context-panel">{view.error}</div>;
	const { ctx } = view;
	return (
		<div className="context-panel" data-testid="context-panel">
			<div className="context-head">
				<strong data-testid="context-total">≈{ctx.totalEstimatedTokens.toLocaleString()} tokens</strong>
				<span className="muted"> in {ctx.messages.length} messages</span>
				{ctx.model && <div className="muted">{ctx.model.provider} / {ctx.model.modelId} · thinking {ctx.thinkingLevel}</div>}
				{ctx.compactionId && <div className="muted">Starts with the summary of compaction {ctx.compactionId}</div>}
			</div>
			<ol className="context-list">
				{ctx.messages.map((m, i) => {
					const { role, text } = messageSummary(m.message);
					return (
						<li key={i} className={`context-item role-${role}`} data-testid="context-message">
							<button type="button" className="linkish" disabled={!m.entryId} onClick={() => m.entryId && reveal(m.entryId)}>
								<span className="kind-badge">{role}</span>
								<span className="context-text">{text || "(no text)"}</span>
								<span className="muted tokens">≈{m.estimatedTokens.toLocaleString()}</span>
							</button>
						</li>
					);
				})}
			</ol>
		</div>
	);
}
