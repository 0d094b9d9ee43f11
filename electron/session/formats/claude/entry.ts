// One Claude Code record as an entry of Arbor's model (pi's v3 entries, shared/entries.ts). Stateless: the id and
// parent come from the reader's row (reader.ts), so the entry keeps the links the index has. docs/formats-claude.md.

import type { ContentBlock, SessionEntry, StopReason, Usage } from "../../../../shared/entries";
import { isRecord } from "../../../../shared/guards";

type Raw = Record<string, unknown>;

/** What a record is to Arbor; decided from the record alone (the reader and the mapper share it). */
export type ClaudeRole = "user" | "toolResult" | "assistant" | "compaction" | "meta" | "hidden" | "unknown";

/** Record types Claude Code writes for its own bookkeeping (no uuid, never part of the conversation). */
const BOOKKEEPING = new Set([
	"queue-operation",
	"last-prompt",
	"mode",
	"permission-mode",
	"cost-state",
	"api-request",
	"api-request-route",
	"api-request-shape",
	"api-request-blob",
	"atis-latch",
	"tools-used",
	"custom-title",
	"ai-title",
	"agent-name",
	"file-history-snapshot",
	"frame-link",
	"pr-link",
	"worktree-state",
	"bridge-session",
	"relocated",
	"started",
	"result",
	"summary",
	"tag",
]);

export const messageOf = (raw: Raw): Raw => (isRecord(raw.message) ? raw.message : {});

/** The record's content blocks ([] for string content). */
export function blocksOf(raw: Raw): Raw[] {
	const c = messageOf(raw).content;
	return Array.isArray(c) ? c.filter(isRecord) : [];
}

/** A user record holding only tool results (one or more): what a tool call's answer is written as. */
export function isToolResultRecord(raw: Raw): boolean {
	const b = blocksOf(raw);
	return raw.type === "user" && b.length > 0 && b.every((x) => x.type === "tool_result");
}

export function roleOf(raw: Raw): ClaudeRole {
	const t = raw.type;
	if (t === "user") {
		if (raw.isCompactSummary === true) return "compaction";
		if (isToolResultRecord(raw)) return "toolResult";
		// Text Claude Code injects itself (command caveats, hook output): not typed by the user.
		if (raw.isMeta === true) return "meta";
		return "user";
	}
	if (t === "assistant") return "assistant";
	// An older summary record that sits in the tree (uuid + parent) and carries the compaction's text.
	if (t === "summary" && typeof raw.uuid === "string") return "compaction";
	if (t === "system" || t === "attachment" || t === "progress" || BOOKKEEPING.has(t as string)) return "hidden";
	// A type of a newer version: in the tree when it has a uuid, else bookkeeping like the rest.
	return typeof raw.uuid === "string" ? "unknown" : "hidden";
}

/** Number of rows a record gives: one per tool result in a tool-result record, else one. */
export function partsOf(raw: Raw): number {
	return isToolResultRecord(raw) ? blocksOf(raw).length : 1;
}

/** The text of a content value (string, or the text blocks of a list). */
export function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter(isRecord)
		.map((b) => (b.type === "text" && typeof b.text === "string" ? b.text : ""))
		.join("");
}

function imageOf(b: Raw): ContentBlock {
	const src = isRecord(b.source) ? b.source : {};
	if (src.type === "base64" && typeof src.data === "string") return { type: "image", data: src.data, mimeType: String(src.media_type ?? "image/png") };
	return { ...b, type: "claude_image" };
}

/** Anthropic content blocks as pi's: text, thinking, toolCall, image; anything else kept under its own type. */
export function mapBlocks(content: unknown): ContentBlock[] {
	if (typeof content === "string") return [{ type: "text", text: content }];
	if (!Array.isArray(content)) return [];
	return content.filter(isRecord).map((b): ContentBlock => {
		switch (b.type) {
			case "text":
				return { type: "text", text: String(b.text ?? "") };
			case "thinking":
				return { type: "thinking", thinking: String(b.thinking ?? ""), ...(typeof b.signature === "string" ? { thinkingSignature: b.signature } : {}) };
			case "redacted_thinking":
				return { type: "thinking", thinking: "", redacted: true };
			case "tool_use":
			case "server_tool_use":
				return { type: "toolCall", id: String(b.id ?? ""), name: String(b.name ?? ""), arguments: isRecord(b.input) ? b.input : {} };
			case "image":
				return imageOf(b);
			default:
				return { ...b, type: String(b.type ?? "unknown") };
		}
	});
}

/** Anthropic usage as pi's (input excludes the cache; totalTokens counts all four). */
export function mapUsage(u: unknown): Usage | undefined {
	if (!isRecord(u)) return undefined;
	const n = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
	const input = n(u.input_tokens);
	const output = n(u.output_tokens);
	const cacheRead = n(u.cache_read_input_tokens);
	const cacheWrite = n(u.cache_creation_input_tokens);
	return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite };
}

const STOP: Record<string, StopReason> = {
	end_turn: "stop",
	stop_sequence: "stop",
	tool_use: "toolUse",
	max_tokens: "length",
	pause_turn: "stop",
	refusal: "error",
};

const timeMs = (ts: unknown): number | undefined => {
	const t = typeof ts === "string" ? Date.parse(ts) : Number.NaN;
	return Number.isFinite(t) ? t : undefined;
};

/** The custom type a hidden record is shown under: "claude:<type>[:<subtype or attachment type>]". */
export function hiddenType(raw: Raw): string {
	const sub = typeof raw.subtype === "string" ? raw.subtype : isRecord(raw.attachment) && typeof raw.attachment.type === "string" ? raw.attachment.type : "";
	return `claude:${String(raw.type)}${sub ? `:${sub}` : ""}`;
}

export interface RowRef {
	id: string;
	parentId: string | null;
	part: number;
}

/** The entry for one row of a record. */
export function claudeEntry(raw: Raw, row: RowRef): SessionEntry {
	const base = { id: row.id, parentId: row.parentId, timestamp: typeof raw.timestamp === "string" ? raw.timestamp : "" };
	const m = messageOf(raw);
	const timestamp = timeMs(raw.timestamp);
	switch (roleOf(raw)) {
		case "user":
			return { ...base, type: "message", message: { role: "user", content: mapBlocks(m.content), timestamp } };
		case "toolResult": {
			const b = blocksOf(raw)[row.part] ?? {};
			const content = mapBlocks(b.content);
			return {
				...base,
				type: "message",
				// Claude Code keeps the tool's name only on the call (the assistant record): the row shows the call id.
				message: {
					role: "toolResult",
					toolCallId: String(b.tool_use_id ?? ""),
					toolName: "",
					content,
					isError: b.is_error === true,
					details: raw.toolUseResult,
					timestamp,
				},
			};
		}
		case "assistant": {
			const error = raw.isApiErrorMessage === true || (typeof raw.error === "string" && raw.error !== "");
			const stop = typeof m.stop_reason === "string" ? (STOP[m.stop_reason] ?? m.stop_reason) : "stop";
			return {
				...base,
				type: "message",
				message: {
					role: "assistant",
					content: mapBlocks(m.content),
					api: "anthropic-messages",
					provider: "anthropic",
					model: typeof m.model === "string" ? m.model : "",
					usage: mapUsage(m.usage),
					stopReason: error ? "error" : stop,
					...(error ? { errorMessage: typeof raw.error === "string" ? raw.error : textOf(m.content) } : {}),
					timestamp,
				},
			};
		}
		case "compaction":
			return { ...base, type: "compaction", summary: typeof raw.summary === "string" ? raw.summary : textOf(m.content), tokensBefore: 0 };
		case "meta":
			// Hidden like pi's settings entries (a custom_message would be drawn in the default tree).
			return { ...base, type: "custom", customType: "claude:meta", data: { content: mapBlocks(m.content) } };
		case "hidden":
			return { ...base, type: "custom", customType: hiddenType(raw), data: raw };
		default:
			return { ...raw, ...base, type: String(raw.type ?? "unknown") };
	}
}
