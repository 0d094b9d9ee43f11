// Text views of one entry, shared by the main process (previews, search), the CLI and the renderer:
// pi's tree-selector row text, pi's searchable text, and Arbor's "full" search text (PEERS.md (d)).
// Pure functions: no Node, no DOM. Entries are untrusted, so every field is read defensively.

import { contentText } from "./content-text";
import type { SessionEntry, ToolCallBlock } from "./entries";
import { asRecord, safeString } from "./guards";
import { safeJson } from "./tree-text";

// safeString's home is guards.ts; re-exported for the callers that read it from here.
export { safeString };

type Loose = Record<string, unknown>;

export interface PreviewOptions {
	/** Home directory to shorten to "~" in tool paths (pi uses $HOME). */
	homeDir?: string;
}

const PI_TEXT_MAX = 200;

function normalize(s: string): string {
	return s.replace(/[\n\t]/g, " ").trim();
}

/** pi's extractContent: string content or concatenated text blocks, first 200 characters. */
function extractContent(content: unknown): string {
	return contentText(content, "", { nonString: "coerce", stopAfter: PI_TEXT_MAX }).slice(0, PI_TEXT_MAX);
}

function allText(content: unknown): string {
	return contentText(content, "", { nonString: "coerce" });
}

function str(v: unknown, fallback = ""): string {
	return v === undefined || v === null ? fallback : safeString(v);
}

/** posix path.resolve for an absolute path (no cwd needed): "." and ".." resolved, repeated and trailing "/" dropped. */
function resolveAbsolute(p: string): string {
	const out: string[] = [];
	for (const part of p.split("/")) {
		if (part === "" || part === ".") continue;
		if (part === "..") out.pop();
		else out.push(part);
	}
	return `/${out.join("/")}`;
}

/**
 * pi 1.6's shortenHomePath (posix): an absolute path inside the home directory becomes "~/<relative>" (or "~"),
 * anything else is returned unchanged. pi 0.73 replaced any prefix match ("/home/ab" shortened "/home/abc").
 */
export function shortenHomePath(path: string, home: string): string {
	if (!home || !path.startsWith("/") || !home.startsWith("/")) return path;
	const h = resolveAbsolute(home);
	const r = resolveAbsolute(path);
	if (r === h) return "~";
	const prefix = h.endsWith("/") ? h : `${h}/`;
	if (!r.startsWith(prefix)) return path;
	return `~/${r.slice(prefix.length)}`;
}

function parseLineNumber(v: unknown): number | undefined {
	if (typeof v === "string" && v.trim() !== "") v = Number(v);
	return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** pi 1.6's read line range: null and absent are the same, numeric strings count, anything malformed gives "". */
export function formatReadLineRange(offset: unknown, limit: unknown): string {
	if (offset == null && limit == null) return "";
	const start = offset == null ? 1 : parseLineNumber(offset);
	if (start === undefined) return "";
	if (limit == null) return `:${start}`;
	const count = parseLineNumber(limit);
	if (count === undefined) return "";
	const end = start + count - 1;
	return `:${start}${end ? `-${end}` : ""}`;
}

/** pi's one-line description of a tool call, used for toolResult rows. */
export function formatToolCall(name: string, args: Record<string, unknown>, opts: PreviewOptions = {}): string {
	const home = opts.homeDir ?? "";
	const shorten = (p: string): string => shortenHomePath(p, home);
	const a = asRecord(args) ?? {};
	switch (name) {
		case "read":
			return `[read: ${shorten(safeString(a.path || a.file_path || ""))}${formatReadLineRange(a.offset, a.limit)}]`;
		case "write":
			return `[write: ${shorten(safeString(a.path || a.file_path || ""))}]`;
		case "edit":
			return `[edit: ${shorten(safeString(a.path || a.file_path || ""))}]`;
		case "bash": {
			const raw = safeString(a.command || "");
			const cmd = raw
				.replace(/[\n\t]/g, " ")
				.trim()
				.slice(0, 50);
			return `[bash: ${cmd}${raw.length > 50 ? "..." : ""}]`;
		}
		case "grep":
			return `[grep: /${safeString(a.pattern || "")}/ in ${shorten(safeString(a.path || "."))}]`;
		case "find":
			return `[find: ${safeString(a.pattern || "")} in ${shorten(safeString(a.path || "."))}]`;
		case "ls":
			return `[ls: ${shorten(safeString(a.path || "."))}]`;
		default: {
			const json = safeJson(args) ?? "undefined";
			return `[${name}: ${json.slice(0, 40)}${json.length > 40 ? "..." : ""}]`;
		}
	}
}

/** The row text pi's tree selector shows for an entry (without colours). */
export function previewText(entry: SessionEntry, findToolCall: (toolCallId: string) => ToolCallBlock | undefined, opts: PreviewOptions = {}): string {
	const e = entry as Loose;
	switch (e.type) {
		case "message": {
			const m = asRecord(e.message);
			if (!m) return "[message]";
			const role = m.role;
			if (role === "user") return `user: ${normalize(extractContent(m.content))}`;
			if (role === "assistant") {
				const text = normalize(extractContent(m.content));
				if (text) return `assistant: ${text}`;
				if (m.stopReason === "aborted") return "assistant: (aborted)";
				if (m.errorMessage) return `assistant: ${normalize(safeString(m.errorMessage)).slice(0, 80)}`;
				return "assistant: (no content)";
			}
			if (role === "toolResult") {
				const call = typeof m.toolCallId === "string" && m.toolCallId ? findToolCall(m.toolCallId) : undefined;
				if (call) return formatToolCall(safeString(call.name), asRecord(call.arguments) ?? {}, opts);
				return `[${str(m.toolName, "tool")}]`;
			}
			if (role === "bashExecution") return `[bash]: ${normalize(str(m.command))}`;
			return `[${str(role)}]`;
		}
		case "custom_message": {
			const content = typeof e.content === "string" ? e.content : allText(e.content);
			return `[${str(e.customType)}]: ${normalize(content)}`;
		}
		case "compaction": {
			// pi prints NaN when tokensBefore is missing; a row that says nothing wrong says "[compaction]".
			const before = Number(e.tokensBefore);
			return typeof e.tokensBefore === "number" && Number.isFinite(before) ? `[compaction: ${Math.round(before / 1000)}k tokens]` : "[compaction]";
		}
		case "branch_summary":
			return `[branch summary]: ${normalize(str(e.summary))}`;
		case "model_change":
			return `[model: ${str(e.modelId ?? e.model)}]`;
		case "thinking_level_change":
			return `[thinking: ${str(e.thinkingLevel)}]`;
		case "custom":
			return `[custom: ${str(e.customType)}]`;
		case "context_edit":
			return `[context ${e.replacement === null ? "omit" : "replace"}: ${str(e.targetId)}]`;
		case "label":
			return `[label: ${e.label ? safeString(e.label) : "(cleared)"}]`;
		case "session_info":
			return e.name ? `[title: ${safeString(e.name)}]` : "[title: empty]";
		default:
			return "";
	}
}

/** pi's searchable text for an entry (label first, then the parts of PEERS.md (d) step 3). */
export function searchableText(entry: SessionEntry, label?: string): string {
	const e = entry as Loose;
	const parts: unknown[] = [];
	if (label) parts.push(label);
	switch (e.type) {
		case "message": {
			const m = asRecord(e.message);
			if (!m) break;
			parts.push(m.role);
			if ("content" in m && m.content) parts.push(extractContent(m.content));
			if (m.role === "bashExecution" && m.command) parts.push(m.command);
			break;
		}
		case "custom_message":
			parts.push(e.customType);
			parts.push(typeof e.content === "string" ? e.content : extractContent(e.content));
			break;
		case "compaction":
			parts.push("compaction");
			break;
		case "branch_summary":
			parts.push("branch summary", e.summary);
			break;
		case "session_info":
			parts.push("title");
			if (e.name) parts.push(e.name);
			break;
		case "model_change":
			parts.push("model", e.modelId);
			break;
		case "thinking_level_change":
			parts.push("thinking", e.thinkingLevel);
			break;
		case "custom":
			parts.push("custom", e.customType);
			break;
		case "context_edit":
			parts.push("context edit", e.replacement === null ? "omit" : "replace", e.targetId);
			break;
		case "label":
			parts.push("label", e.label ?? "");
			break;
	}
	return parts.map((p) => (p === undefined || p === null ? "" : safeString(p))).join(" ");
}

const JSON_CAP = 20_000;

function capJson(v: unknown): string {
	if (v === undefined) return "";
	try {
		const s = JSON.stringify(v, (_k, val: unknown) => (typeof val === "string" && val.length > JSON_CAP ? val.slice(0, JSON_CAP) : val));
		return s === undefined ? "" : s.slice(0, JSON_CAP * 2);
	} catch {
		return "";
	}
}

function blocksFull(content: unknown, parts: string[]): void {
	if (typeof content === "string") {
		parts.push(content);
		return;
	}
	if (!Array.isArray(content)) return;
	for (const c of content) {
		const b = asRecord(c);
		if (!b) continue;
		if (b.type === "text") parts.push(str(b.text));
		else if (b.type === "thinking") parts.push(str(b.thinking));
		else if (b.type === "toolCall") parts.push(str(b.name), capJson(b.arguments));
		else if (b.type !== "image") parts.push(capJson(b));
	}
}

/** Arbor's "full" search scope: every text, thinking, tool name and argument, tool output, path, summary. */
export function fullText(entry: SessionEntry, label?: string): string {
	const e = entry as Loose;
	const parts: string[] = [];
	if (label) parts.push(label);
	parts.push(str(e.type));
	switch (e.type) {
		case "message": {
			const m = asRecord(e.message);
			if (!m) break;
			parts.push(str(m.role));
			blocksFull(m.content, parts);
			for (const k of ["toolName", "command", "output", "errorMessage", "customType", "model", "provider", "fullOutputPath"]) {
				if (typeof m[k] === "string") parts.push(m[k] as string);
			}
			if (m.role === "fileMention") parts.push(capJson(m.files));
			break;
		}
		case "custom_message":
			parts.push(str(e.customType));
			blocksFull(e.content, parts);
			break;
		case "compaction":
		case "branch_summary":
			parts.push(e.type === "compaction" ? "compaction" : "branch summary", str(e.summary), capJson(e.details));
			break;
		case "model_change":
			parts.push("model", str(e.provider), str(e.modelId), str(e.model));
			break;
		case "thinking_level_change":
			parts.push("thinking", str(e.thinkingLevel));
			break;
		case "custom":
			parts.push("custom", str(e.customType), capJson(e.data));
			break;
		case "label":
			parts.push("label", str(e.label));
			break;
		case "session_info":
			parts.push("title", str(e.name));
			break;
		default:
			parts.push(capJson(e));
	}
	return parts.map((p) => safeString(p)).join(" ");
}

/**
 * pi's query rule: lower-case, split on whitespace; every token must be a substring (AND, any order).
 * Arbor's one addition: a "quoted phrase" is one token, matched as the exact phrase (case-insensitive;
 * an unclosed quote runs to the end). Queries without a double quote tokenize exactly as pi's do.
 */
export function queryTokens(query: string): string[] {
	const lower = query.toLowerCase();
	if (!lower.includes('"')) return lower.split(/\s+/).filter(Boolean);
	const out: string[] = [];
	const parts = lower.split('"');
	for (let k = 0; k < parts.length; k++) {
		if (k % 2 === 1) {
			const phrase = parts[k].trim();
			if (phrase) out.push(phrase);
		} else {
			for (const t of parts[k].split(/\s+/)) if (t) out.push(t);
		}
	}
	return out;
}

/** How well a match fits its query, best first (the order search answers list matches in). */
export const MatchRank = {
	/** The whole query as one phrase, at word boundaries ("fix the parser" inside "…to fix the parser."). */
	phrase: 0,
	/** Every token as a whole word, anywhere. */
	words: 1,
	/** Every token somewhere, some only inside longer words (pi's plain substring rule). */
	scattered: 2,
} as const;

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** True when `needle` occurs in `text` with no letter or digit right before or after it. */
function hasWord(text: string, needle: string): boolean {
	for (let k = text.indexOf(needle); k >= 0; k = text.indexOf(needle, k + 1)) {
		const before = k > 0 ? text[k - 1] : " ";
		const after = k + needle.length < text.length ? text[k + needle.length] : " ";
		if (!WORD_CHAR.test(before) && !WORD_CHAR.test(after)) return true;
	}
	return false;
}

/**
 * The rank of a text that matches every token (queryTokens' output; `text` lower-cased, label first). Which
 * entries match stays pi's rule; the rank only orders them, so a phrase typed as plain words finds its
 * sentence before entries that merely hold the same common words apart.
 */
export function matchRank(tokens: readonly string[], text: string): number {
	const inText = (needle: string): boolean => hasWord(text, needle);
	const phrase = tokens.join(" ");
	if (inText(phrase)) return MatchRank.phrase;
	// Newlines or double spaces in the text do not break a phrase.
	if (tokens.length > 1 && hasWord(text.replace(/\s+/g, " "), phrase)) return MatchRank.phrase;
	return tokens.every(inText) ? MatchRank.words : MatchRank.scattered;
}

/** Matches sorted best rank first, file order within a rank. */
export function rankedOrder(matches: readonly number[], rankOf: (i: number) => number): number[] {
	return [...matches].sort((a, b) => rankOf(a) - rankOf(b) || a - b);
}
