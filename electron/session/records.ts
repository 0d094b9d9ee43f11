// The records SessionManager appends, each in pi's key order (pi 1.6's SessionManager writes the same
// fields in the same order, so a file Arbor appends to reads byte-alike to one pi wrote). `at` carries the
// entry's id, parent and timestamp, always written in that order.

import type { AgentMessage, ContentBlock } from "../../shared/entries";

export interface RecordHead {
	id: string;
	parentId: string | null;
	timestamp: string;
}

type Loose = Record<string, unknown>;

export const messageRecord = (at: RecordHead, message: AgentMessage): Loose => ({ type: "message", ...at, message });

export const thinkingLevelRecord = (at: RecordHead, thinkingLevel: string): Loose => ({ type: "thinking_level_change", ...at, thinkingLevel });

export const modelChangeRecord = (at: RecordHead, provider: string, modelId: string): Loose => ({ type: "model_change", ...at, provider, modelId });

export interface CompactionFields {
	summary: string;
	firstKeptEntryId: string;
	tokensBefore: number;
	details?: unknown;
	usage?: unknown;
	fromHook?: boolean;
	systemMessage?: unknown;
}

export function compactionRecord(at: RecordHead, f: CompactionFields): Loose {
	const { summary, firstKeptEntryId, tokensBefore, details, usage, fromHook, systemMessage } = f;
	return {
		type: "compaction",
		...at,
		summary,
		firstKeptEntryId,
		tokensBefore,
		details,
		usage,
		fromHook,
		...(systemMessage ? { systemMessage } : {}),
	};
}

/** pi 1.6 (0.84.3): `fromId` is the leaf navigated away from; `usage` (the summarizer's) follows `details`. */
export const branchSummaryRecord = (at: RecordHead, fromId: string, summary: string, details?: unknown, fromHook?: boolean, usage?: unknown): Loose => ({
	type: "branch_summary",
	...at,
	fromId,
	summary,
	details,
	usage,
	fromHook,
});

export const customRecord = (at: RecordHead, customType: string, data?: unknown): Loose => ({ type: "custom", customType, data, ...at });

export const customMessageRecord = (at: RecordHead, customType: string, content: string | ContentBlock[], display: boolean, details?: unknown): Loose => ({
	type: "custom_message",
	customType,
	content,
	display,
	details,
	...at,
});

export const labelRecord = (at: RecordHead, targetId: string, label: string | undefined): Loose => ({ type: "label", ...at, targetId, label });

/** pi 1.6 (0.80.0): line breaks in a session name become one space. */
export const sessionInfoRecord = (at: RecordHead, name: string): Loose => ({ type: "session_info", ...at, name: name.replace(/[\r\n]+/g, " ").trim() });
