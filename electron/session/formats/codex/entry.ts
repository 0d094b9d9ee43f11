// One Codex rollout line as an entry of Arbor's model (pi's v3 entries). Stateless: ids and parents come from the
// reader's row (reader.ts). A line is `{timestamp, ordinal?, type, payload}`; conversation items are `response_item`
// payloads (message, reasoning, tool calls and their outputs) and `compacted` records; everything else (event_msg,
// turn_context, world_state, …) is bookkeeping. docs/formats-codex.md.

import type { ContentBlock, SessionEntry } from "../../../../shared/entries";
import { isRecord } from "../../../../shared/guards";

type Raw = Record<string, unknown>;

export type CodexRole = "user" | "assistant" | "toolCall" | "toolResult" | "reasoning" | "context" | "compaction" | "legacyAnswer" | "usage" | "hidden";

/** Text Codex injects as a user or developer item at each turn (environment, instructions, skills): not typed by the user. */
const INJECTED =
	/^\s*(<environment_context>|<skills_instructions>|<user_instructions>|<permissions instructions>|<turn_aborted>|<user_shell_command>|<subagent_notification>|# AGENTS\.md instructions|<INSTRUCTIONS>)/;

const TOOL_CALLS = new Set(["function_call", "custom_tool_call", "local_shell_call", "tool_search_call", "web_search_call", "image_generation_call"]);
const TOOL_OUTPUTS = new Set(["function_call_output", "custom_tool_call_output", "tool_search_output"]);

export const payloadOf = (raw: Raw): Raw => (isRecord(raw.payload) ? raw.payload : {});

/** The text of a message item's content (input_text / output_text / text parts). */
export function itemText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter(isRecord)
		.map((p) => (typeof p.text === "string" ? p.text : ""))
		.join("");
}

export function roleOf(raw: Raw): CodexRole {
	const p = payloadOf(raw);
	if (raw.type === "compacted") return "compaction";
	if (raw.type === "event_msg") {
		if (p.type === "token_count" && isRecord(p.info)) return "usage";
		// Codex 0.50-0.52 wrote only events: a finished turn carries the answer or its usage.
		if (p.type === "turn.completed") return typeof p.message === "string" ? "legacyAnswer" : isRecord(p.usage) ? "usage" : "hidden";
		return "hidden";
	}
	if (raw.type !== "response_item") return "hidden";
	// Older writers left out the item type of a message (role + content only).
	const type = p.type ?? (typeof p.role === "string" ? "message" : undefined);
	if (type === "message") {
		if (p.role === "assistant") return "assistant";
		if (p.role === "user") return INJECTED.test(itemText(p.content)) ? "context" : "user";
		return "context";
	}
	if (type === "reasoning") return "reasoning";
	if (TOOL_CALLS.has(type as string)) return "toolCall";
	if (TOOL_OUTPUTS.has(type as string)) return "toolResult";
	return "hidden";
}

/** Whether a role is a conversation item (in the chain the model sees) rather than bookkeeping hanging off it. */
export const isItem = (role: CodexRole): boolean => role !== "usage" && role !== "hidden";

function parts(content: unknown): ContentBlock[] {
	if (typeof content === "string") return [{ type: "text", text: content }];
	if (!Array.isArray(content)) return [];
	return content.filter(isRecord).map((p): ContentBlock => {
		if (typeof p.text === "string") return { type: "text", text: p.text };
		if (p.type === "input_image" && typeof p.image_url === "string") {
			const m = /^data:([^;]+);base64,(.*)$/s.exec(p.image_url);
			if (m) return { type: "image", mimeType: m[1]!, data: m[2]! };
		}
		return { ...p, type: `codex_${String(p.type ?? "part")}` };
	});
}

/** A tool call's arguments: a JSON string (function_call), an object, or a custom tool's raw `input`. */
export function callArguments(p: Raw): Record<string, unknown> {
	const a = p.arguments;
	if (isRecord(a)) return a;
	if (typeof a === "string") {
		try {
			const v: unknown = JSON.parse(a);
			return isRecord(v) ? v : { value: v };
		} catch {
			return { raw: a };
		}
	}
	if (typeof p.input === "string") return { input: p.input };
	if (isRecord(p.action)) return p.action;
	return {};
}

function outputBlocks(out: unknown): ContentBlock[] {
	if (typeof out === "string") return [{ type: "text", text: out }];
	if (Array.isArray(out)) return parts(out);
	if (isRecord(out)) return typeof out.content === "string" ? [{ type: "text", text: out.content }] : parts(out.content);
	return [];
}

/** Codex usage (last_token_usage or a legacy turn's usage) as pi's. */
export function codexUsage(u: unknown): { input: number; output: number; cacheRead: number; cacheWrite: number; totalTokens: number } | undefined {
	if (!isRecord(u)) return undefined;
	const n = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
	const cached = n(u.cached_input_tokens);
	const input = Math.max(0, n(u.input_tokens ?? u.prompt) - cached);
	const output = n(u.output_tokens ?? u.completion);
	const total = n(u.total_tokens) || input + cached + output;
	return { input, output, cacheRead: cached, cacheWrite: 0, totalTokens: total };
}

/** The usage a token_count event reports for the last request (older ones: the whole info). */
export function eventUsage(p: Raw): unknown {
	if (isRecord(p.info)) return p.info.last_token_usage ?? p.info;
	return p.usage;
}

const timeMs = (ts: unknown): number | undefined => {
	const t = typeof ts === "string" ? Date.parse(ts) : Number.NaN;
	return Number.isFinite(t) ? t : undefined;
};

export interface RowRef {
	id: string;
	parentId: string | null;
	part: number;
}

/** The custom type a bookkeeping line is shown under: "codex:<type>[:<payload type>]". */
export function hiddenType(raw: Raw): string {
	const t = payloadOf(raw).type;
	return `codex:${String(raw.type)}${typeof t === "string" ? `:${t}` : ""}`;
}

export function codexEntry(raw: Raw, row: RowRef): SessionEntry {
	const base = { id: row.id, parentId: row.parentId, timestamp: typeof raw.timestamp === "string" ? raw.timestamp : "" };
	const p = payloadOf(raw);
	const timestamp = timeMs(raw.timestamp);
	const assistant = (content: ContentBlock[], usage?: ReturnType<typeof codexUsage>): SessionEntry => ({
		...base,
		type: "message",
		message: { role: "assistant", content, api: "openai-responses", provider: "openai", model: "", ...(usage ? { usage } : {}), stopReason: "stop", timestamp },
	});
	switch (roleOf(raw)) {
		case "user":
			return { ...base, type: "message", message: { role: "user", content: parts(p.content), timestamp } };
		case "assistant":
			return assistant(parts(p.content));
		case "legacyAnswer":
			return assistant([{ type: "text", text: String(p.message) }], codexUsage(p.usage));
		case "reasoning": {
			const summary = Array.isArray(p.summary) ? itemText(p.summary) : "";
			const text = summary || itemText(p.content);
			return assistant([{ type: "thinking", thinking: text, ...(p.encrypted_content ? { redacted: !text } : {}) }]);
		}
		case "toolCall": {
			const name = typeof p.name === "string" ? p.name : String(p.type);
			const m = assistant([{ type: "toolCall", id: String(p.call_id ?? p.id ?? ""), name, arguments: callArguments(p) }]);
			return { ...m, message: { ...(m as { message: Raw }).message, stopReason: "toolUse" } } as SessionEntry;
		}
		case "toolResult": {
			const out = p.output;
			const failed = isRecord(out) && out.success === false;
			return {
				...base,
				type: "message",
				message: { role: "toolResult", toolCallId: String(p.call_id ?? ""), toolName: "", content: outputBlocks(out), isError: failed, timestamp },
			};
		}
		case "context":
			// Hidden like pi's settings entries (a custom_message would be drawn in the default tree).
			return { ...base, type: "custom", customType: `codex:${String(p.role ?? "context")}`, data: { content: parts(p.content) } };
		case "compaction":
			return {
				...base,
				type: "compaction",
				summary: typeof p.message === "string" ? p.message : "",
				tokensBefore: 0,
				...(Array.isArray(p.replacement_history) ? { details: { replacementHistory: p.replacement_history } } : {}),
			};
		case "usage":
			return { ...base, type: "usage", kind: "codex:token_count", provider: "openai", model: "", usage: codexUsage(eventUsage(p)) ?? {} };
		default:
			return { ...base, type: "custom", customType: hiddenType(raw), data: raw };
	}
}
