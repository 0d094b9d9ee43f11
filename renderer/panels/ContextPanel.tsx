// Context panel: what the model would see with the leaf at the selected entry (getContext): the
// compaction summary, kept messages, branch summaries, with token estimates per message and in total.
// omp files come as omp 18.3 sends them (with omp's facts); a switch shows the file by the other's rules.

import { useEffect, useState } from "react";
import type { ContextRules, ContextView } from "../../shared/api";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { errorText } from "../store/dialogs";
import { indexOfId } from "../store/selectors";
import { EntryKind, type Skeleton } from "../../shared/skeleton";
import { useCardFacts } from "../store/use-cards";
import { str, textOfBlocks } from "./entry-text";
import { isRecord } from "../../shared/guards";

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
	if (role === "system") {
		// pi 1.6: the system checkpoint / messages the model starts from (prompt, sections, tools).
		const sections = isRecord(message.sections) ? Object.keys(message.sections).length : 0;
		const tools = Array.isArray(message.toolsAdded) ? message.toolsAdded.length : 0;
		const extra = [sections > 0 ? `${sections} section${sections === 1 ? "" : "s"}` : "", tools > 0 ? `${tools} tool${tools === 1 ? "" : "s"}` : ""]
			.filter(Boolean)
			.join(", ");
		text = `${extra ? `[${extra}] ` : ""}${typeof message.content === "string" ? message.content : text}`;
	}
	return { role, text: text.replace(/\s+/g, " ").slice(0, 240) };
}

/** context_edit entries on the path root -> `leaf` (newest first, at most `max`). */
export function contextEditsOnPath(sk: Skeleton, leaf: number, max = 50): number[] {
	const out: number[] = [];
	for (let i = leaf, steps = 0; i >= 0 && i < sk.count && steps <= sk.count && out.length < max; steps++) {
		if (sk.kind[i] === EntryKind.contextEdit) out.push(i);
		const p = sk.parent[i];
		i = p === i ? -1 : p;
	}
	return out;
}

/** An omit edit on the path: its target is not in the context; say so where the message would be. */
function OmittedNote({ index, sessionId, sk }: { index: number; sessionId: string; sk: Skeleton }) {
	const { reveal } = useServices();
	// A first skeleton's indices are not the file's: facts wait for the whole skeleton.
	const f = useCardFacts(sessionId, index, sk.first === undefined);
	if (!f?.contextEdit || f.contextEdit.mode !== "omit") return null;
	const target = f.contextEdit.targetId;
	const editId = sk.ids[index];
	return (
		<li className="context-item is-omitted" data-testid="context-omitted">
			<button type="button" className="linkish" disabled={indexOfId(sk, target) < 0} onClick={() => reveal(target)}>
				<span className="kind-badge">omitted</span>
				<span className="context-text muted">{target} is not sent to the model</span>
			</button>
			<button type="button" className="context-edited-tag" title="Show the context edit" onClick={() => reveal(editId)}>
				omitted by {editId}
			</button>
		</li>
	);
}

const RULES_NAME: Record<ContextRules, string> = { pi: "pi 1.6", omp: "omp 18.3" };

/**
 * Which rules built the view, a switch to the other's, and omp's context facts. Shown for files whose agent has
 * context rules of its own besides pi's (the writer the server names: omp).
 */
function RulesHead({ ctx, onSwitch }: { ctx: ContextView; onSwitch: (rules: ContextRules) => void }) {
	if (!ctx.writer || ctx.writer === "pi" || !ctx.rules) return null;
	const other: ContextRules = ctx.rules === ctx.writer ? "pi" : ctx.writer;
	const o = ctx.omp;
	const roles = o ? Object.entries(o.models) : [];
	return (
		<div className="context-rules" data-testid="context-rules" data-rules={ctx.rules}>
			<div>
				<span data-testid="context-rules-name">As {RULES_NAME[ctx.rules]} sends it</span>{" "}
				<button type="button" className="linkish context-rules-switch" data-testid="context-rules-switch" onClick={() => onSwitch(other)}>
					show as {RULES_NAME[other]} sends it
				</button>
			</div>
			{o && (
				<dl className="context-omp-facts muted" data-testid="context-omp-facts">
					<dt>models</dt>
					<dd>{roles.length ? roles.map(([role, model]) => `${role}: ${model}`).join(" · ") : "none"}</dd>
					{o.serviceTier !== undefined && (
						<>
							<dt>service tier</dt>
							<dd>{o.serviceTier}</dd>
						</>
					)}
					<dt>thinking</dt>
					<dd>
						{o.thinkingLevel ?? "off"}
						{o.configuredThinkingLevel && o.configuredThinkingLevel !== o.thinkingLevel ? ` (configured ${o.configuredThinkingLevel})` : ""}
					</dd>
					{o.injectedTtsrRules.length > 0 && (
						<>
							<dt>TTSR rules</dt>
							<dd>{o.injectedTtsrRules.join(", ")}</dd>
						</>
					)}
					<dt>mode</dt>
					<dd>{o.mode}</dd>
				</dl>
			)}
		</div>
	);
}

export function ContextPanel() {
	const { client, reveal } = useServices();
	const sessionId = useApp((s) => s.activeSessionId);
	const selectedId = useApp((s) => s.selectedId);
	// Refetch when the file changes (an append can change what the model sees at the leaf).
	const count = useApp((s) => (s.activeSessionId ? (s.sessions[s.activeSessionId]?.skeleton?.count ?? 0) : 0));
	const sk = useApp((s) => (s.activeSessionId ? (s.sessions[s.activeSessionId]?.skeleton ?? null) : null));
	const [view, setView] = useState<{ at: string | null; ctx: ContextView } | { at: string | null; error: string } | null>(null);
	// The rules the user picked per file (view state only; unset = the file's own: omp's for omp files).
	const [rulesBy, setRulesBy] = useState<Record<string, ContextRules>>({});
	const as = sessionId ? rulesBy[sessionId] : undefined;
	const at = JSON.stringify([selectedId, as ?? null]);

	useEffect(() => {
		if (!sessionId) return;
		let live = true;
		// While pi appends many entries a second, or a key repeats, ask once things settle.
		const timer = setTimeout(() => {
			client.request("getContext", as ? { sessionId, leafId: selectedId, as } : { sessionId, leafId: selectedId }).then(
				(ctx) => live && setView({ at, ctx }),
				(err: unknown) => live && setView({ at, error: errorText(err) }),
			);
		}, FETCH_DELAY_MS);
		return () => {
			live = false;
			clearTimeout(timer);
		};
	}, [client, sessionId, selectedId, count, as, at]);

	if (!view || view.at !== at)
		return (
			<div className="panel-empty" data-testid="context-panel">
				Loading…
			</div>
		);
	if ("error" in view)
		return (
			<div className="panel-empty error-text" data-testid="context-panel">
				{view.error}
			</div>
		);
	const { ctx } = view;
	const editCount = ctx.messages.filter((m) => m.contextEditId).length;
	const leafIndex = sk ? (ctx.leafId === null ? sk.leaf : indexOfId(sk, ctx.leafId)) : -1;
	// Context edits are pi 1.6's: other agents' rules do not apply them.
	const edits = sk && sessionId && leafIndex >= 0 && (ctx.rules ?? "pi") === "pi" ? contextEditsOnPath(sk, leafIndex) : [];
	return (
		<div className="context-panel" data-testid="context-panel">
			<div className="context-head">
				<RulesHead ctx={ctx} onSwitch={(rules) => sessionId && setRulesBy((r) => ({ ...r, [sessionId]: rules }))} />
				<strong data-testid="context-total">≈{ctx.totalEstimatedTokens.toLocaleString()} tokens</strong>
				<span className="muted"> in {ctx.messages.length} messages</span>
				{ctx.model && (
					<div className="muted">
						{ctx.model.provider} / {ctx.model.modelId} · thinking {ctx.thinkingLevel}
					</div>
				)}
				{ctx.compactionId && <div className="muted">Starts with the summary of compaction {ctx.compactionId}</div>}
				{editCount > 0 && (
					<div className="muted" data-testid="context-edits-note">
						{editCount} message{editCount === 1 ? "" : "s"} replaced by context edits
					</div>
				)}
			</div>
			<ol className="context-list">
				{ctx.messages.map((m, i) => {
					const { role, text } = messageSummary(m.message);
					return (
						<li
							key={i}
							className={`context-item role-${role}${m.contextEditId ? " is-edited" : ""}`}
							data-testid="context-message"
							data-edited-by={m.contextEditId}
						>
							<button type="button" className="linkish" disabled={!m.entryId} onClick={() => m.entryId && reveal(m.entryId)}>
								<span className="kind-badge">{role}</span>
								<span className="context-text">{text || "(no text)"}</span>
								<span className="muted tokens">≈{m.estimatedTokens.toLocaleString()}</span>
							</button>
							{m.contextEditId && (
								<button
									type="button"
									className="context-edited-tag"
									data-testid="context-edited-tag"
									title="This message's content was replaced by a context edit; click to show the edit"
									onClick={() => reveal(m.contextEditId!)}
								>
									edited by {m.contextEditId}
								</button>
							)}
						</li>
					);
				})}
				{edits.map((i) => (
					<OmittedNote key={i} index={i} sessionId={sessionId!} sk={sk!} />
				))}
			</ol>
		</div>
	);
}
