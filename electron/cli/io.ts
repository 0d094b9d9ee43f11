// Output and failure handling shared by the `arbor` commands: buffered stdout that respects pipe
// back-pressure, stderr messages, and opening a session file with errors mapped to exit codes.
// Every byte a command prints goes through here (eslint forbids process.stdout/stderr.write elsewhere in
// electron/cli): human-readable lines through the terminal-text escaper, JSON through terminalJson, so text
// from a session file never reaches the terminal as a control sequence (shared/terminal-text.ts).

import { SessionFileError, SessionManager } from "../session";
import type { LoadWarning } from "../../shared/api";
import { terminalJson, terminalLine, terminalText } from "../../shared/terminal-text";
import { isHiddenChar } from "../../shared/visible-text";
import { EXIT_BAD_FILE, UsageError } from "./args";

export { Output, printError } from "./output";

/** Short output at once: one line of text on stdout (escaped as Output.line does). */
export function printLine(s: string): void {
	process.stdout.write(`${terminalLine(s)}\n`);
}

/** Several lines of text on stdout (escaped as Output.text does). */
export function printText(s: string): void {
	process.stdout.write(`${terminalText(s)}\n`);
}

/** One JSON value's text and a newline on stdout. */
export function printJsonLine(text: string): void {
	process.stdout.write(`${terminalJson(text)}\n`);
}

/**
 * An export's bytes on stdout, where they may reach a terminal: text (Markdown, HTML) with its control
 * characters shown escaped, JSONL with DEL and C1 as \\u escapes (the same JSON values).
 */
export function printExport(data: Buffer, kind: "text" | "jsonl"): Promise<void> {
	const shown = kind === "jsonl" ? jsonBytesForTerminal(data) : Buffer.from(terminalText(data.toString("utf8")), "utf8");
	return new Promise<void>((res, rej) => process.stdout.write(shown, (err) => (err ? rej(err) : res())));
}

/** A command's usage (Arbor's own text). */
export function printUsage(usage: string): void {
	process.stdout.write(`${usage}\n`);
}

/** Progress on a terminal's stderr: Arbor's own control sequences (\r, erase line) around escaped text. */
export function printProgress(text: string | null): void {
	process.stderr.write(text === null ? "\r\x1b[K" : `\r${terminalLine(text)}`);
}

/**
 * Bytes of JSON lines on stdout (export --format jsonl: the session's own line bytes, maybe not valid
 * UTF-8): DEL and UTF-8 C1 (C2 80..C2 9F, only ever inside JSON strings) become \u escapes, and so do the
 * bidi controls and invisible characters (shared/visible-text.ts, issue 39) except a byte order mark that
 * opens the data (outside any string there); the rest is copied as it is.
 */
export function jsonBytesForTerminal(data: Buffer): Buffer {
	const parts: Buffer[] = [];
	let from = 0;
	for (let i = 0; i < data.length; i++) {
		const b = data[i];
		if (b < 0x7f) continue;
		const c1 = b === 0xc2 && i + 1 < data.length && data[i + 1] >= 0x80 && data[i + 1] <= 0x9f;
		let code = b === 0x7f ? b : c1 ? data[i + 1] : -1;
		let len = c1 ? 2 : 1;
		if (code < 0) {
			if (!HIDDEN_LEADS.has(b)) continue;
			[code, len] = utf8At(data, i);
			if (code < 0 || !isHiddenChar(code) || (i === 0 && code === 0xfeff)) continue;
		}
		const units = String.fromCodePoint(code);
		const escaped = Array.from({ length: units.length }, (_, k) => `\\u${units.charCodeAt(k).toString(16).padStart(4, "0")}`).join("");
		parts.push(data.subarray(from, i), Buffer.from(escaped, "latin1"));
		i += len - 1;
		from = i + 1;
	}
	if (from === 0) return data;
	parts.push(data.subarray(from));
	return Buffer.concat(parts);
}

/** The UTF-8 lead bytes of the hidden characters (U+00AD … U+E007F): a quick skip for everything else. */
const HIDDEN_LEADS = new Set([0xc2, 0xcd, 0xd8, 0xe1, 0xe2, 0xe3, 0xef, 0xf0, 0xf3]);

/** The code point of a valid 2–4 byte UTF-8 sequence at `i` and its length, else [-1, 1]. */
function utf8At(data: Buffer, i: number): [number, number] {
	const b = data[i];
	const len = b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
	if (len === 0 || i + len > data.length) return [-1, 1];
	let code = b & (0x7f >> len);
	for (let k = 1; k < len; k++) {
		const c = data[i + k];
		if ((c & 0xc0) !== 0x80) return [-1, 1];
		code = (code << 6) | (c & 0x3f);
	}
	const min = [0, 0, 0x80, 0x800, 0x10000][len];
	return code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? [-1, 1] : [code, len];
}

/** One line on stderr: `arbor: MESSAGE`, every control character in it shown escaped. */
export function warn(message: string): void {
	process.stderr.write(`arbor: ${terminalLine(message)}\n`);
}

/** A session file that cannot be used: exit code 2 with a message naming the file (and line). */
export class BadFileError extends Error {
	readonly exitCode = EXIT_BAD_FILE;
	constructor(message: string) {
		super(message);
		this.name = "BadFileError";
	}
}

/**
 * Open a session for a command. A file without a valid session header is a bad file (exit 2) for every
 * command: the core still opens it (so the app can show what it found) but nothing in it is trustworthy.
 */
export function openSession(file: string | undefined, usage: string): SessionManager {
	if (!file) throw new UsageError("missing FILE", usage);
	let sm: SessionManager;
	try {
		sm = SessionManager.open(file);
	} catch (err) {
		if (err instanceof SessionFileError) throw new BadFileError(err.message);
		throw err;
	}
	const bad = sm.getWarnings().find((w) => w.kind === "bad_header");
	if (bad) {
		sm.close();
		throw new BadFileError(`${sm.getSessionFile() ?? file}${bad.line > 0 ? `:${bad.line}` : ""}: ${bad.message}`);
	}
	return sm;
}

/** Load warnings on stderr (at most `max`, then a count), so stdout stays clean for --json. */
export function reportWarnings(sm: SessionManager, max = 5): void {
	printLoadWarnings(sm.getSessionFile() ?? "", sm.getWarnings(), sm.getWarningCount(), max);
}

/** The same for warnings a command got from the services (`ArborServices.loadWarnings`). */
export function printLoadWarnings(file: string, warnings: readonly LoadWarning[], total: number, max = 5): void {
	for (const w of warnings.slice(0, max)) warn(`${file}:${w.line}: ${w.message}`);
	if (total > max) warn(`${file}: ${total - max} more warning(s); \`arbor info\` lists them`);
}

/** Map a failure of a writing command: SessionFileError -> bad file, anything else rethrown. */
export function asBadFile(err: unknown): never {
	if (err instanceof SessionFileError) {
		const hint = err.code === "legacy_needs_upgrade" ? " (open it in Arbor and upgrade it to v3 first; reading commands work as is)" : "";
		throw new BadFileError(`${err.message}${hint}`);
	}
	throw err;
}
