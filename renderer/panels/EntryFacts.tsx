// Inspector views for pi 1.6 and omp 18.3 entries: a system message's sections and tool changes, a context
// edit's target (clickable) with the original and the edited text, usage lines, omp records, and the usage
// lines folded into an entry ("cache warming: N calls, $X"). Everything from the file is React text.

import { useContext, useEffect, useState, type ReactNode } from "react";
import type { SessionEntry } from "../../shared/entries";
import { systemContentText } from "../../shared/system-message";
import { ServicesContext } from "../commands/services";
import { formatCost } from "../graph/cards";
import { useUsageRollup } from "../store/use-cards";
import { useApp } from "../store";
import { errorText } from "../store/dialogs";
import { indexOfId } from "../store/selectors";
import { entryPlainText, str, textOfBlocks } from "./entry-text";
import { isRecord } from "../../shared/guards";

/** One "name: value" row of the inspector. */
export function Field({ name, children }: { name: string; children: ReactNode }) {
	return (
		<div className="field">
			<span className="field-name">{name}</span>
			<span className="field-value">{children}</span>
		</div>
	);
}

function toolNames(list: unknown): string[] {
	return Array.isArray(list) ? list.map((t) => (isRecord(t) ? str(t.name) : "")).filter((n) => n !== "") : [];
}

/** role "system": the prompt text, each section (name + text; removed ones marked), tools added / removed. */
export function SystemMessageView({ message }: { message: Record<string, unknown> }) {
	const text = systemContentText(message.content);
	const sections = isRecord(message.sections) ? Object.entries(message.sections) : [];
	const added = toolNames(message.toolsAdded);
	const removed = toolNames(message.toolsRemoved);
	return (
		<div className="system-message" data-testid="inspector-system">
			{text !== "" && (
				<pre className="plain" data-testid="system-content">
					{text}
				</pre>
			)}
			{sections.length > 0 && (
				<div className="system-sections">
					<div className="field-name">Sections</div>
					<ul>
						{sections.map(([name, value]) => (
							<li key={name} data-testid="system-section" className={value === null ? "is-removed" : ""}>
								<strong className="mono">{name}</strong>
								{value === null ? (
									<span className="badge removed" data-testid="system-section-removed">
										{" "}
										removed
									</span>
								) : (
									<pre className="plain">{typeof value === "string" ? value : JSON.stringify(value)}</pre>
								)}
							</li>
						))}
					</ul>
				</div>
			)}
			{added.length > 0 && (
				<Field name="tools added">
					<span data-testid="system-tools-added">{added.join(", ")}</span>
				</Field>
			)}
			{removed.length > 0 && (
				<Field name="tools removed">
					<span data-testid="system-tools-removed">{removed.join(", ")}</span>
				</Field>
			)}
			{text === "" && sections.length === 0 && added.length === 0 && removed.length === 0 && <div className="muted">(changes nothing)</div>}
		</div>
	);
}

type Target = { id: string; entry: SessionEntry } | { id: string; error: string } | null;

function editedText(replacement: unknown): string {
	if (!isRecord(replacement)) return "";
	return textOfBlocks(replacement.content);
}

/** context_edit: the entry it changes (click to show it), its original text, and the edited text or "omitted". */
export function ContextEditView({ entry }: { entry: Record<string, unknown> }) {
	const services = useContext(ServicesContext);
	const sessionId = useApp((s) => s.activeSessionId);
	const targetId = str(entry.targetId);
	const inFile = useApp((s) => {
		const sk = s.activeSessionId ? s.sessions[s.activeSessionId]?.skeleton : null;
		return sk ? indexOfId(sk, targetId) >= 0 : false;
	});
	const [target, setTarget] = useState<Target>(null);
	useEffect(() => {
		if (!services || !sessionId || !targetId || !inFile) return;
		let live = true;
		services.client.request("getEntry", { sessionId, id: targetId }).then(
			(e) => live && setTarget({ id: targetId, entry: e }),
			(err: unknown) => live && setTarget({ id: targetId, error: errorText(err) }),
		);
		return () => {
			live = false;
		};
	}, [services, sessionId, targetId, inFile]);
	const omit = entry.replacement === null;
	const original =
		target && target.id === targetId
			? "error" in target
				? target.error
				: entryPlainText(target.entry)
			: inFile
				? "Loading…"
				: "(the target is not in this file)";
	return (
		<div className="context-edit" data-testid="inspector-context-edit">
			<Field name="changes">
				<button
					type="button"
					className="linkish mono"
					data-testid="context-edit-target"
					disabled={!inFile || !services}
					onClick={() => services?.reveal(targetId)}
				>
					{targetId || "(no target)"}
				</button>
			</Field>
			<Field name="mode">{omit ? "omit (the model no longer sees it)" : "replace"}</Field>
			<div className="field-name">Original</div>
			<pre className="plain" data-testid="context-edit-original">
				{original}
			</pre>
			<div className="field-name">Edited</div>
			{omit ? (
				<div className="muted" data-testid="context-edit-new">
					omitted
				</div>
			) : (
				<pre className="plain" data-testid="context-edit-new">
					{editedText(entry.replacement) || "(no text)"}
				</pre>
			)}
		</div>
	);
}

function num(v: unknown): number | null {
	return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** usage (pi 1.6) / model_usage (omp): what the call was for, tokens and cost. */
export function UsageLineView({ entry }: { entry: Record<string, unknown> }) {
	const u = isRecord(entry.usage) ? entry.usage : {};
	const cost = isRecord(u.cost) ? num(u.cost.total) : null;
	const what = str(entry.type === "usage" ? entry.kind : entry.purpose);
	return (
		<div className="usage" data-testid="inspector-usage-line">
			<div className="muted">Hidden in every tree view; its cost counts under the entry it hangs under.</div>
			{what && <Field name="for">{what}</Field>}
			<Field name="model">{[str(entry.provider), str(entry.model)].filter(Boolean).join(" / ") || "unknown"}</Field>
			{(["input", "output", "cacheRead", "cacheWrite", "totalTokens"] as const).map((k) => {
				const v = num(u[k]);
				return v === null ? null : (
					<Field key={k} name={`${k} tokens`}>
						{v.toLocaleString()}
					</Field>
				);
			})}
			{cost !== null && <Field name="cost">${cost.toFixed(4)}</Field>}
			{str(entry.note) && <Field name="note">{str(entry.note)}</Field>}
		</div>
	);
}

const OMP_FIELDS: Record<string, [string, string][]> = {
	service_tier_change: [["serviceTier", "service tier"]],
	reset_boundary: [],
	title_change: [
		["title", "title"],
		["previousTitle", "was"],
		["source", "source"],
	],
	ttsr_injection: [["injectedRules", "rules"]],
	session_init: [
		["agent", "agent"],
		["resolvedModel", "model"],
		["tools", "tools"],
		["task", "task"],
		["systemPrompt", "system prompt"],
	],
	mode_change: [
		["mode", "mode"],
		["data", "data"],
	],
	credential_pin: [
		["provider", "provider"],
		["hash", "account (hashed)"],
	],
};

export function isOmpRecordType(type: string): boolean {
	return Object.prototype.hasOwnProperty.call(OMP_FIELDS, type);
}

/** omp 18.3 bookkeeping records: their key fields. */
export function OmpRecordView({ entry }: { entry: Record<string, unknown> }) {
	const type = str(entry.type);
	const fields = OMP_FIELDS[type] ?? [];
	const show = (v: unknown): string =>
		v === null ? "default" : typeof v === "string" ? v : Array.isArray(v) && v.every((x) => typeof x === "string") ? v.join(", ") : (JSON.stringify(v) ?? "");
	return (
		<div className="omp-record" data-testid="inspector-omp">
			<div className="muted">oh-my-pi record{type === "reset_boundary" ? ": the context starts again after this point (/clear)" : ""}</div>
			{fields
				.filter(([k]) => entry[k] !== undefined)
				.map(([k, name]) => (
					<Field key={k} name={name}>
						{k === "task" || k === "systemPrompt" ? <pre className="plain">{show(entry[k])}</pre> : show(entry[k])}
					</Field>
				))}
		</div>
	);
}

/** Under an entry: the usage lines folded into it (pi's cache warmer, omp's model_usage). */
export function UsageRollupLine({ entryId }: { entryId: string }) {
	const sessionId = useApp((s) => s.activeSessionId);
	const sk = useApp((s) => (s.activeSessionId ? (s.sessions[s.activeSessionId]?.skeleton ?? null) : null));
	const index = sk ? indexOfId(sk, entryId) : -1;
	const r = useUsageRollup(sessionId, sk?.count ?? 0, index);
	if (!r) return null;
	return (
		<div className="usage-rollup muted" data-testid="inspector-usage-rollup">
			cache warming: {r.lines} call{r.lines === 1 ? "" : "s"}, {formatCost(r.cost) || "$0"}
			{r.tokens > 0 ? ` (${Math.round(r.tokens).toLocaleString("en-US")} tokens)` : ""}
		</div>
	);
}
