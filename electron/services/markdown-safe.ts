// Session text in a Markdown export (issue #23 item 9). The export is pasted into issue trackers and wikis,
// whose renderers pass some raw HTML and follow links: the text of a message must show as text there, never
// as markup, a `javascript:` link or a heading of the export's own. Message text keeps its Markdown (code,
// lists, emphasis, http links); outside code, `&` and `<` are written as entities (no raw HTML, no
// `<javascript:...>` autolink, no entity-obfuscated scheme) and a link whose target is not http(s), mailto,
// relative or a fragment loses its link syntax. Code spans and fenced blocks are shown literally by every
// renderer, so they are left as they are. One-line fields (headings) are collapsed onto one line.

import { terminalText } from "../../shared/terminal-text";

const SAFE_SCHEME = /^(https?|mailto):/i;
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** A link target as a renderer would read it: backslash escapes, entities for "<", spaces and controls gone. */
function targetScheme(raw: string): string {
	return raw
		.replace(/&lt;/gi, "")
		.replace(/[\\\s\u0000-\u001f\u007f-\u009f]/g, "")
		.slice(0, 40);
}

/** Breaks the link syntax of every `[text](target)` and `[ref]: target` whose target is not safe. */
function neutralizeLinks(text: string): string {
	const unsafe = (after: string): boolean => {
		const t = targetScheme(after);
		return ANY_SCHEME.test(t) && !SAFE_SCHEME.test(t);
	};
	// "](" opens an inline link's target; "] (" is no link in CommonMark or GFM.
	let out = text.replace(/\]\(([^)]{0,200})/g, (m: string, after: string) => (unsafe(after) ? `] (${after}` : m));
	// "[ref]: target" defines a reference link; "[ref] : target" defines nothing.
	out = out.replace(/^( {0,3}\[[^\]]*\]):([^\n]{0,200})/gm, (m: string, ref: string, after: string) => (unsafe(after) ? `${ref} :${after}` : m));
	return out;
}

/** Text outside code: entities for & and <, unsafe links unlinked. */
function plain(text: string): string {
	return neutralizeLinks(text.replace(/&/g, "&amp;").replace(/</g, "&lt;"));
}

/** Inline code spans (`...`, ``...``) of one line kept as they are, the rest made plain. */
function inline(line: string): string {
	let out = "";
	let at = 0;
	// A span opens and closes with runs of the same number of backticks (CommonMark).
	for (const m of line.matchAll(/(?<!`)(`+)(?!`)(.*?)(?<!`)\1(?!`)/g)) {
		out += plain(line.slice(at, m.index)) + m[0];
		at = m.index + m[0].length;
	}
	return out + plain(line.slice(at));
}

/**
 * A line that Markdown would read as a heading, escaped so it reads as the text it is (issue #28: an answer
 * holding "## User · …" or a "===" underline forged a turn of the export): an ATX "#" start, and a setext
 * underline ("===" or "---") right below a line of text. A "---" after a blank line stays a thematic break.
 */
function noHeading(line: string, afterText: boolean): string {
	if (/^ {0,3}#{1,6}(?=[ \t]|$)/.test(line)) return line.replace("#", "\\#");
	if (afterText && /^ {0,3}(=+|-+)[ \t]*$/.test(line)) return line.replace(/[=-]/, (c) => `\\${c}`);
	return line;
}

/**
 * Message text for the export's body: fenced code blocks (``` or ~~~) and inline code as they are, the rest
 * without raw HTML or unsafe links; control characters shown escaped (^[ ...) everywhere.
 */
export function markdownBody(text: string): string {
	const lines = terminalText(text).split("\n");
	let fence: string | null = null;
	// The line before, outside code, holds text: an underline below it would make it a setext heading.
	let afterText = false;
	for (let i = 0; i < lines.length; i++) {
		const l = lines[i];
		const m = /^ {0,3}(`{3,}|~{3,})/.exec(l);
		if (fence !== null) {
			if (m && m[1][0] === fence[0] && m[1].length >= fence.length && l.trim() === m[1]) fence = null;
			continue;
		}
		if (m && !(m[1][0] === "`" && l.slice(m.index + m[0].length).includes("`"))) {
			fence = m[1];
			afterText = false;
			continue;
		}
		lines[i] = noHeading(inline(l), afterText);
		afterText = l.trim() !== "";
	}
	// A fence the text leaves open would swallow the export's next headings: close it.
	if (fence !== null) lines.push(fence);
	return lines.join("\n");
}

/** A heading or title: one line (newlines, CR and tabs collapsed), no markup, no link, no control. */
export function markdownLine(text: string): string {
	return plain(terminalText(text.replace(/\s+/g, " ").trim()))
		.replace(/^#+/, (h) => `\\${h}`)
		.replace(/([[\]*_`])/g, "\\$1");
}
