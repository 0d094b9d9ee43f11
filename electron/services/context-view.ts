// The model context at an entry, as the UI shows it: the core's buildSessionContext messages, each paired
// with the entry that produced it and a rough token estimate (characters / 4, images at a flat rate).

import type { ContextMessageView, ContextView } from "../../shared/api";
import type { AgentMessage, SessionEntry } from "../../shared/entries";
import type { SessionManager } from "../session";

/** A flat per-image estimate: the image bytes say little about what a provider bills. */
const IMAGE_TOKENS = 1_200;

function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function estimateMessageTokens(message: AgentMessage): number {
	let chars = 0;
	let images = 0;
	const addContent = (content: unknown): void => {
		if (typeof content === "string") {
			chars += content.length;
			return;
		}
		if (!Array.isArray(content)) return;
		for (const b of content) {
			if (!isRecord(b)) continue;
			if (b.type === "text" && typeof b.text === "string") chars += b.text.length;
			else if (b.type === "thinking" && typeof b.thinking === "string") chars += b.thinking.length;
			else if (b.type === "toolCall") chars += (typeof b.name === "string" ? b.name.length : 0) + (JSON.stringify(b.arguments ?? {})?.length ?? 0);
			else if (b.type === "image") images++;
		}
	};
	const m = message as Record<string, unknown>;
	addContent(m.content);
	if (typeof m.summary === "string") chars += m.summary.length;
	if (typeof m.command === "string") chars += m.command.length;
	if (typeof m.output === "string") chars += m.output.length;
	return Math.ceil(chars / 4) + images * IMAGE_TOKENS;
}

function producesMessage(entry: SessionEntry): boolean {
	if (entry.type === "message" || entry.type === "custom_message") return true;
	if (entry.type === "branch_summary") {
		const s = (entry as { summary?: unknown }).summary;
		return typeof s === "string" && s !== "";
	}
	return false;
}

/**
 * Entry ids in the order buildSessionContext emits messages (pi's rules, SESSION-FORMAT.md §14.1): with a
 * compaction on the path, its summary first, then the kept entries before it from firstKeptEntryId, then
 * everything after it.
 */
export function contextEntryIds(path: SessionEntry[]): { ids: string[]; compactionId: string | null } {
	let compactionIndex = -1;
	for (let i = path.length - 1; i >= 0; i--) {
		if ((path[i] as SessionEntry).type === "compaction") {
			compactionIndex = i;
			break;
		}
	}
	const ids: string[] = [];
	const push = (e: SessionEntry): void => {
		if (producesMessage(e)) ids.push(e.id ?? "");
	};
	if (compactionIndex < 0) {
		for (const e of path) push(e);
		return { ids, compactionId: null };
	}
	const c = path[compactionIndex] as SessionEntry & { firstKeptEntryId?: unknown };
	ids.push(c.id ?? "");
	const firstKept = typeof c.firstKeptEntryId === "string" ? c.firstKeptEntryId : undefined;
	let keeping = false;
	for (let i = 0; i < compactionIndex; i++) {
		const e = path[i] as SessionEntry;
		if (e.id === firstKept) keeping = true;
		if (keeping) push(e);
	}
	for (let i = compactionIndex + 1; i < path.length; i++) push(path[i] as SessionEntry);
	return { ids, compactionId: c.id ?? null };
}

export function buildContextView(m: SessionManager, leafId: string | null): ContextView {
	const ctx = m.buildSessionContext(leafId);
	const path = leafId === null ? [] : m.getBranch(leafId);
	const { ids, compactionId } = contextEntryIds(path);
	// If the core ever emits a different message list (a rule we do not mirror), ids are dropped rather
	// than attached to the wrong messages.
	const aligned = ids.length === ctx.messages.length;
	const messages: ContextMessageView[] = ctx.messages.map((message, i) => ({
		entryId: aligned ? (ids[i] || null) : null,
		message,
		estimatedTokens: estimateMessageTokens(message),
	}));
	return {
		leafId,
		thinkingLevel: ctx.thinkingLevel,
		model: ctx.model,
		messages,
		totalEstimatedTokens: messages.reduce((n, v) => n + v.estimatedTokens, 0),
		compactionId,
	};
}
