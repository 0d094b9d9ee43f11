// buildSessionContext: the messages the model sees at a leaf, in pi's exact shapes (SESSION-FORMAT §14.1).
// Works on a path of entry indices so that only the entries that contribute are ever parsed: the settings
// entries that win, and the message-like entries from the latest compaction on.

import type { AgentMessage, SessionContext, SessionEntry } from "../../shared/entries";
import { EntryKind } from "../../shared/skeleton";

export interface PathSource {
	kind: Uint8Array;
	ids: string[];
	entryAt(index: number): SessionEntry;
}

type Loose = Record<string, unknown>;

function tsMs(ts: unknown): number {
	return new Date(ts as string).getTime();
}

/** Converts one path entry as pi does; entries that never reach the model return undefined. */
export function toContextMessage(entry: SessionEntry): AgentMessage | undefined {
	const e = entry as Loose;
	if (e.type === "message") return e.message as AgentMessage;
	if (e.type === "custom_message") {
		// Key order and the always-present `details` key mirror pi's createCustomMessage.
		return {
			role: "custom", customType: e.customType, content: e.content, display: e.display, details: e.details,
			timestamp: tsMs(e.timestamp),
		} as AgentMessage;
	}
	if (e.type === "branch_summary" && e.summary) {
		return { role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: tsMs(e.timestamp) } as AgentMessage;
	}
	return undefined;
}

function mayContribute(kind: number): boolean {
	return kind <= EntryKind.otherRole || kind === EntryKind.customMessage || kind === EntryKind.branchSummary;
}

/** `path` holds entry indices, root first. */
export function buildContextFromPath(src: PathSource, path: ArrayLike<number>): SessionContext {
	let thinkingAt = -1;
	let modelAt = -1;
	let compactionAt = -1;
	for (let p = path.length - 1; p >= 0 && (thinkingAt < 0 || modelAt < 0 || compactionAt < 0); p--) {
		const k = src.kind[path[p]];
		if (k === EntryKind.thinkingLevelChange) {
			if (thinkingAt < 0) thinkingAt = p;
		} else if (k === EntryKind.modelChange || k === EntryKind.assistant) {
			if (modelAt < 0) modelAt = p;
		} else if (k === EntryKind.compaction) {
			if (compactionAt < 0) compactionAt = p;
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
	const messages: AgentMessage[] = [];
	const emit = (p: number): void => {
		if (!mayContribute(src.kind[path[p]])) return;
		const msg = toContextMessage(src.entryAt(path[p]));
		if (msg !== undefined) messages.push(msg);
	};
	if (compactionAt >= 0) {
		const c = src.entryAt(path[compactionAt]) as Loose;
		messages.push({
			role: "compactionSummary", summary: c.summary, tokensBefore: c.tokensBefore, timestamp: tsMs(c.timestamp),
		} as AgentMessage);
		// pi locates the compaction by id, which finds the first path entry with that id (duplicate ids).
		let cAt = compactionAt;
		const cid = src.ids[path[compactionAt]];
		for (let p = 0; p < compactionAt; p++) {
			if (src.kind[path[p]] === EntryKind.compaction && src.ids[path[p]] === cid) { cAt = p; break; }
		}
		const firstKept = c.firstKeptEntryId;
		let from = -1;
		if (typeof firstKept === "string") {
			for (let p = 0; p < cAt; p++) if (src.ids[path[p]] === firstKept) { from = p; break; }
		}
		if (from >= 0) for (let p = from; p < cAt; p++) emit(p);
		for (let p = cAt + 1; p < path.length; p++) emit(p);
	} else {
		for (let p = 0; p < path.length; p++) emit(p);
	}
	return { messages, thinkingLevel: thinkingLevel as string, model };
}
