// Session text shown on a terminal (issue #23): a message, label, title, cwd or file name may hold ESC, BEL,
// CR or C1 controls, and a terminal obeys them (OSC 52 sets the clipboard, OSC 0 the window title, CR and
// cursor moves overwrite lines). Every human-readable line the CLI prints goes through here; controls are
// shown the way `less` and `cat -v` show them: C0 and DEL in caret notation (ESC -> ^[, CR -> ^M), C1 as
// <U+009B>. Bidi controls and invisible characters (shared/visible-text.ts, issue 39) are shown the same way
// (<U+202E>): a terminal would reorder or hide them. JSON output keeps being JSON: only the characters JSON
// allows raw but a terminal obeys (DEL, C1, bidi and invisible ones) are written as \u escapes, so the value
// read back is the same.

import { codePointName, jsonVisible, visibleText } from "./visible-text";

/** C0 controls except tab and newline, DEL, and C1. */
const CONTROLS_KEEP_NEWLINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
/** The same, newline included: a single-line field must not start a line of its own. */
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;
/** What JSON.stringify leaves raw (it already escapes C0): DEL and C1. */
const JSON_RAW_CONTROLS = /[\u007f-\u009f]/g;

const mark = (code: number): string => `<${codePointName(code)}>`;

function shown(c: string): string {
	const code = c.charCodeAt(0);
	if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
	if (code === 0x7f) return "^?";
	return mark(code);
}

/** One line of terminal output: every control character (newline too) made visible. */
export function terminalLine(s: string): string {
	return visibleText(s.replace(CONTROLS, shown), mark);
}

/** Text of several lines: newlines and tabs kept, every other control character made visible. */
export function terminalText(s: string): string {
	return visibleText(s.replace(CONTROLS_KEEP_NEWLINE, shown), mark);
}

/** JSON text with DEL, C1, bidi and invisible characters written as \u escapes: the same JSON value, nothing a terminal obeys. */
export function terminalJson(json: string): string {
	return jsonVisible(json.replace(JSON_RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));
}
