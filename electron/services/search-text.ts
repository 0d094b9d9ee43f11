// Search across sessions, part 1 of 5: what text of an entry is searchable and the word rules shared by
// the index and its queries. search-index.ts says how the parts fit together.

import { safeJson } from "../../shared/tree-text";

/** Text indexed per entry (the rest of a huge tool output is not searchable). */
export const ENTRY_TEXT_MAX = 32 * 1024;

/** Word separators: everything but ASCII letters, digits and "_", and any non-ASCII letter. */
const SEPARATORS = /[^a-z0-9_\u00c0-\uffff]+/;

/**
 * True when UTF-16 code unit `c` of lower-cased text is part of a word: a-z, 0-9, "_" or any unit from
 * U+00C0 up (surrogates included), the char-code form of SEPARATORS' complement.
 */
export function isWordUnit(c: number): boolean {
	return c >= 0xc0 || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95;
}

/** True when a word of `lower` (already lower-cased) starts with `term`: the index's prefix rule. */
export function hasWordStartingWith(lower: string, term: string): boolean {
	for (let at = lower.indexOf(term); at >= 0; at = lower.indexOf(term, at + 1)) {
		if (at === 0 || !isWordUnit(lower.charCodeAt(at - 1))) return true;
	}
	return false;
}

/** The words of a query, lower-cased. */
export function queryTerms(q: string): string[] {
	return q.toLowerCase().split(SEPARATORS).filter(Boolean);
}

type Loose = Record<string, unknown>;

function textOf(content: unknown, out: string[]): void {
	if (typeof content === "string") {
		out.push(content);
		return;
	}
	if (!Array.isArray(content)) return;
	for (const b of content) {
		if (typeof b !== "object" || b === null) continue;
		const x = b as Loose;
		if (typeof x.text === "string") out.push(x.text);
		else if (typeof x.thinking === "string") out.push(x.thinking);
		else if (x.type === "toolCall") {
			if (typeof x.name === "string") out.push(x.name);
			if (x.arguments !== undefined) out.push(safeJson(x.arguments) ?? "");
		}
	}
}

/**
 * The searchable text of one parsed entry and its kind, or null for lines that carry none: a message's
 * text, thinking and tool-call blocks (name and arguments), a bash execution's command and output, a
 * summary or error message; a custom message's content; any entry's `summary`; a session_info name; a label.
 */
export function entryText(o: Loose): { text: string; kind: string } | null {
	const parts: string[] = [];
	let kind = typeof o.type === "string" ? o.type : "entry";
	if (o.type === "message" && typeof o.message === "object" && o.message !== null) {
		const m = o.message as Loose;
		if (typeof m.role === "string") kind = m.role;
		textOf(m.content, parts);
		if (typeof m.command === "string") parts.push(m.command);
		if (typeof m.output === "string") parts.push(m.output);
		if (typeof m.summary === "string") parts.push(m.summary);
		if (typeof m.errorMessage === "string") parts.push(m.errorMessage);
	} else if (o.type === "custom_message") {
		textOf(o.content, parts);
	} else if (typeof o.summary === "string") {
		parts.push(o.summary);
	} else if (o.type === "session_info" && typeof o.name === "string") {
		parts.push(o.name);
	} else if (o.type === "label" && typeof o.label === "string") {
		parts.push(o.label);
	}
	const text = parts.join("\n");
	if (!text.trim()) return null;
	return { text: text.length > ENTRY_TEXT_MAX ? text.slice(0, ENTRY_TEXT_MAX) : text, kind };
}

export function oneLine(s: string): string {
	return s.replace(/\s+/g, " ").trim();
}

/** A short piece of `text` around the first query term found in it. */
export function snippetFor(text: string, query: string, width = 160): string {
	const flat = oneLine(text);
	const lower = flat.toLowerCase();
	let at = -1;
	for (const term of query
		.toLowerCase()
		.split(/[\s\p{P}]+/u)
		.filter(Boolean)) {
		at = lower.indexOf(term);
		if (at >= 0) break;
	}
	if (at < 0) return flat.length > width ? `${flat.slice(0, width)}…` : flat;
	const from = Math.max(0, at - Math.floor(width / 3));
	const piece = flat.slice(from, from + width);
	return `${from > 0 ? "…" : ""}${piece}${from + width < flat.length ? "…" : ""}`;
}
