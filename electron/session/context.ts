// buildSessionContext: the messages the model sees at a leaf, in pi 1.6's exact shapes (docs/compatibility.md
// "pi 0.73.1 -> 1.6.0"; SESSION-FORMAT §14.1 for the rules that did not change). Works on a path of entry
// indices so that only the entries that contribute are ever parsed: the settings entries that win, the
// context edits, and the message-like entries from the latest compaction on.
//
// Three steps, named as pi names them:
// - context entries (pi's buildContextEntries): the whole path, or with a compaction on it: the latest
//   compaction, the kept entries from firstKeptEntryId up to it (system messages dropped: the compaction's
//   systemMessage checkpoint replaces them), then everything after it;
// - projection (pi's buildSessionProjection): each context entry with the messages it contributes after the
//   latest context_edit among the context entries that targets it;
// - context (pi's buildSessionContext): the projection's messages, thinking level and model.

import type { AgentMessage, SessionContext, SessionEntry } from "../../shared/entries";
import { EntryKind } from "../../shared/skeleton";
import { isRecord } from "../../shared/guards";

export interface PathSource {
	kind: Uint8Array;
	ids: string[];
	entryAt(index: number): SessionEntry;
}

type Loose = Record<string, unknown>;

function tsMs(ts: unknown): number {
	return new Date(ts as string).getTime();
}

/** Converts one entry as pi 1.6's sessionEntryToContextMessages does (entries that never reach the model give []). */
export function toContextMessages(entry: SessionEntry): AgentMessage[] {
	const e = entry as Loose;
	if (e.type === "message") {
		const m = e.message;
		if (m === undefined) return [];
		if (!isRecord(m)) return [m as AgentMessage];
		// pi: files are read without validation; a missing/null content becomes "" (system) or [] (user, assistant, toolResult).
		if (m.role === "system" && m.content == null) return [{ ...m, content: "" } as unknown as AgentMessage];
		if ((m.role === "user" || m.role === "assistant" || m.role === "toolResult") && m.content == null) {
			return [{ ...m, content: [] } as unknown as AgentMessage];
		}
		return [m as AgentMessage];
	}
	if (e.type === "custom_message") {
		// Key order and the always-present `details` key mirror pi's createCustomMessage.
		return [
			{
				role: "custom",
				customType: e.customType,
				content: e.content ?? [],
				display: e.display,
				details: e.details,
				timestamp: tsMs(e.timestamp),
			} as AgentMessage,
		];
	}
	if (e.type === "branch_summary" && e.summary) {
		return [{ role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: tsMs(e.timestamp) } as AgentMessage];
	}
	if (e.type === "compaction") {
		const summary = { role: "compactionSummary", summary: e.summary, tokensBefore: e.tokensBefore, timestamp: tsMs(e.timestamp) } as AgentMessage;
		return e.systemMessage ? [e.systemMessage as AgentMessage, summary] : [summary];
	}
	return [];
}

/** The first message an entry contributes (before context edits), or undefined. */
export function toContextMessage(entry: SessionEntry): AgentMessage | undefined {
	return toContextMessages(entry)[0];
}

const EDITABLE_ROLES = new Set(["user", "assistant", "toolResult", "custom"]);

/**
 * pi's projectContextEntry: `edit.replacement === null` omits the entry's messages; `{ content }` replaces the
 * content of its user/assistant/toolResult/custom messages (a string becomes one text block for assistant and
 * toolResult). A replacement that is neither (a damaged file; pi throws there) leaves the messages unchanged.
 */
export function applyContextEdit(messages: AgentMessage[], edit: SessionEntry | undefined): AgentMessage[] {
	if (!edit) return messages;
	const replacement = (edit as Loose).replacement;
	if (replacement === null) return [];
	if (!isRecord(replacement)) return messages;
	return messages.map((message) => {
		const m = message as Loose;
		if (!EDITABLE_ROLES.has(m.role as string)) return message;
		const content =
			(m.role === "assistant" || m.role === "toolResult") && typeof replacement.content === "string"
				? [{ type: "text", text: replacement.content }]
				: replacement.content;
		return { ...m, content } as unknown as AgentMessage;
	});
}

/** A message-producing kind, or one whose entry may produce messages (branch summaries, compactions). */
function mayContribute(kind: number): boolean {
	return (
		kind <= EntryKind.otherRole ||
		kind === EntryKind.system ||
		kind === EntryKind.customMessage ||
		kind === EntryKind.branchSummary ||
		kind === EntryKind.compaction
	);
}

/**
 * pi's buildContextEntries on a path of indices (root first): positions into `path`, in context order. With a
 * compaction on the path the first position is the latest compaction.
 */
export function contextEntryPositions(src: PathSource, path: ArrayLike<number>): number[] {
	let compactionAt = -1;
	for (let p = path.length - 1; p >= 0; p--)
		if (src.kind[path[p]] === EntryKind.compaction) {
			compactionAt = p;
			break;
		}
	const out: number[] = [];
	if (compactionAt < 0) {
		for (let p = 0; p < path.length; p++) out.push(p);
		return out;
	}
	// pi 1.6 finds the compaction by id: the first path entry with that id, whatever its type (duplicate ids).
	const cid = src.ids[path[compactionAt]];
	let cAt = compactionAt;
	for (let p = 0; p < compactionAt; p++)
		if (src.ids[path[p]] === cid) {
			cAt = p;
			break;
		}
	out.push(compactionAt);
	const firstKept = (src.entryAt(path[compactionAt]) as Loose).firstKeptEntryId;
	let found = false;
	for (let p = 0; p < cAt; p++) {
		if (!found && src.ids[path[p]] === firstKept) found = true;
		if (found && src.kind[path[p]] !== EntryKind.system) out.push(p);
	}
	for (let p = cAt + 1; p < path.length; p++) out.push(p);
	return out;
}

export interface ProjectedEntry {
	/** Entry index (file order). */
	index: number;
	/** Messages it contributes after context edits; empty for state-only entries and omissions. */
	messages: AgentMessage[];
	/** Index of the context_edit applied to it, -1 for none. */
	editIndex: number;
}

export interface SessionProjection extends SessionContext {
	entries: ProjectedEntry[];
}

/** pi's buildSessionProjection on a path of entry indices (root first). */
export function buildProjectionFromPath(src: PathSource, path: ArrayLike<number>): SessionProjection {
	let thinkingAt = -1;
	let modelAt = -1;
	for (let p = path.length - 1; p >= 0 && (thinkingAt < 0 || modelAt < 0); p--) {
		const k = src.kind[path[p]];
		if (k === EntryKind.thinkingLevelChange) {
			if (thinkingAt < 0) thinkingAt = p;
		} else if (k === EntryKind.modelChange || k === EntryKind.assistant) {
			if (modelAt < 0) modelAt = p;
		}
	}
	let thinkingLevel: unknown = "off";
	if (thinkingAt >= 0) thinkingLevel = (src.entryAt(path[thinkingAt]) as Loose).thinkingLevel;
	let model: SessionContext["model"] = null;
	if (modelAt >= 0) {
		const e = src.entryAt(path[modelAt]) as Loose;
		if (e.type === "model_change") model = { provider: e.provider as string, modelId: e.modelId as string };
		else {
			const m = e.message as Loose;
			model = { provider: m.provider as string, modelId: m.model as string };
		}
	}
	const positions = contextEntryPositions(src, path);
	// Latest edit per target among the context entries (in context order).
	const edits = new Map<unknown, number>();
	for (const p of positions) {
		const i = path[p];
		if (src.kind[i] !== EntryKind.contextEdit) continue;
		edits.set((src.entryAt(i) as Loose).targetId, i);
	}
	const entries: ProjectedEntry[] = [];
	const messages: AgentMessage[] = [];
	for (let k = 0; k < positions.length; k++) {
		const i = path[positions[k]];
		const kind = src.kind[i];
		const editIndex = edits.size > 0 ? (edits.get(src.ids[i]) ?? -1) : -1;
		let msgs: AgentMessage[] = [];
		// An older compaction kept inside the retained range contributes nothing; only the head one does.
		if (mayContribute(kind) && !(kind === EntryKind.compaction && k > 0)) {
			msgs = toContextMessages(src.entryAt(i));
			if (editIndex >= 0 && msgs.length > 0) msgs = applyContextEdit(msgs, src.entryAt(editIndex));
		}
		entries.push({ index: i, messages: msgs, editIndex });
		for (const m of msgs) messages.push(m);
	}
	return { entries, messages, thinkingLevel: thinkingLevel as string, model };
}

/** pi's buildSessionContext on a path of entry indices (root first). */
export function buildContextFromPath(src: PathSource, path: ArrayLike<number>): SessionContext {
	const { messages, thinkingLevel, model } = buildProjectionFromPath(src, path);
	return { messages, thinkingLevel, model };
}
