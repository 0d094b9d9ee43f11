// Comparing two branches, of one session or of two files that share a path (forks): the shapes `arbor compare
// --json` prints and the app's compare view shows, the common ancestor by id, and the pure per-side facts (tokens,
// cost, files, errors, time) computed from the entries of one side. Pure: the services layer collects the entries
// and adds the word diff.

import type { SessionEntry, Usage } from "./entries";
import { contentText } from "./content-text";
import { isRecord } from "./guards";

export interface SideTokens {
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	total: number;
}
export interface SideFiles {
	read: string[];
	edited: string[];
	written: string[];
}

/** One side of a comparison: the entries after the common ancestor down to (and including) its leaf. */
export interface CompareSide {
	leafId: string;
	entries: string[];
	tokens: SideTokens;
	cost: number;
	files: SideFiles;
	errors: number;
	durationMs: number | null;
}

/**
 * One side of a compare across session files: a file and the side's leaf in it (omitted: the file's current leaf,
 * where pi resumes it). Forks (pi's /fork, Arbor's tries) copy their original's path with the same ids, so two
 * files' sides share their entries up to the fork.
 */
export interface CompareSideRef {
	path: string;
	leafId?: string;
}

/** How many ids two root-to-leaf paths share from the root: the common ancestor is the last of them (by id, so across files too). */
export function sharedPrefix(a: readonly string[], b: readonly string[]): number {
	let k = 0;
	while (k < a.length && k < b.length && a[k] === b[k]) k++;
	return k;
}

/** `arbor compare --json`, exactly. */
export interface CompareResult {
	commonAncestorId: string | null;
	a: CompareSide;
	b: CompareSide;
}

/** One turn of a side: a user prompt and the last assistant text answering it (before the next prompt). */
export interface CompareTurn {
	promptId: string;
	prompt: string;
	answerId: string | null;
	answer: string;
}

/** A row of the side-by-side view: the k-th prompt after the ancestor on each side (either may be absent). */
export interface CompareRow {
	a: CompareTurn | null;
	b: CompareTurn | null;
}

export interface WordDiffPart {
	value: string;
	added?: boolean;
	removed?: boolean;
}

/** What the app's compare view needs besides the CLI shape. */
export interface CompareView extends CompareResult {
	/** Aborted assistant turns / cancelled bash runs per side. */
	aborts: { a: number; b: number };
	rows: CompareRow[];
	/** Final assistant answer of each side (last assistant text on the side; "" if none). */
	finalAnswer: { a: { id: string | null; text: string }; b: { id: string | null; text: string } };
	/** Word-level diff from a's final answer to b's. */
	answerDiff: WordDiffPart[];
}

function num(v: unknown): number {
	return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** The tool names pi (1.6 and 0.73) and omp use for file reads and changes, with their path argument. */
const READ_TOOLS = new Set(["read"]);
const EDIT_TOOLS = new Set(["edit", "multiedit", "multi_edit", "apply_patch"]);
const WRITE_TOOLS = new Set(["write"]);

function toolPath(args: unknown): string | undefined {
	if (!isRecord(args)) return undefined;
	for (const k of ["path", "file_path", "filePath"]) {
		const v = args[k];
		if (typeof v === "string" && v.trim() !== "") return v;
	}
	return undefined;
}

function usageOf(e: SessionEntry): Usage | undefined {
	if (e.type === "message" && isRecord(e.message) && e.message.role === "assistant" && isRecord(e.message.usage)) return e.message.usage as Usage;
	// pi 1.x compactions record the usage of the summarizing call; `usage` entries (cache warming, side calls) carry model-attributed usage outside the context.
	if ((e.type === "usage" || e.type === "compaction") && isRecord((e as Record<string, unknown>).usage)) return (e as Record<string, unknown>).usage as Usage;
	return undefined;
}

function timeOf(e: SessionEntry): number {
	const ts = (e as { timestamp?: unknown }).timestamp;
	if (typeof ts === "string" || typeof ts === "number") return new Date(ts).getTime();
	return Number.NaN;
}

export interface SideFacts extends Omit<CompareSide, "leafId" | "entries" | "durationMs"> {
	aborts: number;
	firstTime: number;
	lastTime: number;
}

/**
 * Facts of a run of entries (one side, oldest first). Files come from read/edit/write tool calls; a call
 * whose tool result on the same side reports isError does not count (the file was not read or changed).
 */
export function sideFacts(entries: readonly SessionEntry[]): SideFacts {
	const tokens: SideTokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
	let cost = 0;
	let errors = 0;
	let aborts = 0;
	let firstTime = Number.NaN;
	let lastTime = Number.NaN;
	const calls: { id: string; name: string; path: string }[] = [];
	const failed = new Set<string>();
	for (const e of entries) {
		const t = timeOf(e);
		if (Number.isFinite(t)) {
			if (!Number.isFinite(firstTime) || t < firstTime) firstTime = t;
			if (!Number.isFinite(lastTime) || t > lastTime) lastTime = t;
		}
		const u = usageOf(e);
		if (u) {
			const i = num(u.input),
				o = num(u.output),
				cr = num(u.cacheRead),
				cw = num(u.cacheWrite);
			tokens.input += i;
			tokens.output += o;
			tokens.cacheRead += cr;
			tokens.cacheWrite += cw;
			tokens.total += typeof u.totalTokens === "number" && Number.isFinite(u.totalTokens) ? u.totalTokens : i + o + cr + cw;
			if (isRecord(u.cost)) cost += num(u.cost.total);
		}
		if (e.type !== "message" || !isRecord(e.message)) continue;
		const m = e.message as Record<string, unknown>;
		if (m.role === "assistant") {
			if (m.stopReason === "error") errors++;
			if (m.stopReason === "aborted") aborts++;
			if (Array.isArray(m.content)) {
				for (const c of m.content) {
					if (!isRecord(c) || c.type !== "toolCall" || typeof c.name !== "string") continue;
					const p = toolPath(c.arguments);
					if (p !== undefined) calls.push({ id: typeof c.id === "string" ? c.id : "", name: c.name.toLowerCase(), path: p });
				}
			}
		} else if (m.role === "toolResult") {
			if (m.isError === true) {
				errors++;
				if (typeof m.toolCallId === "string") failed.add(m.toolCallId);
			}
		} else if (m.role === "bashExecution") {
			if (typeof m.exitCode === "number" && m.exitCode !== 0) errors++;
			if (m.cancelled === true) aborts++;
		}
	}
	const read = new Set<string>(),
		edited = new Set<string>(),
		written = new Set<string>();
	for (const c of calls) {
		if (c.id !== "" && failed.has(c.id)) continue;
		if (READ_TOOLS.has(c.name)) read.add(c.path);
		else if (EDIT_TOOLS.has(c.name)) edited.add(c.path);
		else if (WRITE_TOOLS.has(c.name)) written.add(c.path);
	}
	const sorted = (s: Set<string>) => [...s].sort();
	return {
		tokens,
		cost,
		errors,
		aborts,
		firstTime,
		lastTime,
		files: { read: sorted(read), edited: sorted(edited), written: sorted(written) },
	};
}

/** Turns of a side: each user prompt with the last assistant text before the next prompt. */
export function sideTurns(entries: readonly SessionEntry[]): CompareTurn[] {
	const turns: CompareTurn[] = [];
	for (const e of entries) {
		if (e.type !== "message" || !isRecord(e.message)) continue;
		const m = e.message as Record<string, unknown>;
		if (m.role === "user") turns.push({ promptId: (e as { id: string }).id, prompt: contentText(m.content, "\n"), answerId: null, answer: "" });
		else if (m.role === "assistant" && turns.length > 0) {
			const text = contentText(m.content, "\n");
			if (text.trim() !== "") {
				const t = turns[turns.length - 1];
				t.answerId = (e as { id: string }).id;
				t.answer = text;
			}
		}
	}
	return turns;
}

/** The last assistant text on a side (the side's final answer). */
export function finalAnswer(entries: readonly SessionEntry[]): { id: string | null; text: string } {
	for (let k = entries.length - 1; k >= 0; k--) {
		const e = entries[k];
		if (e.type !== "message" || !isRecord(e.message) || e.message.role !== "assistant") continue;
		const text = contentText(e.message.content, "\n");
		if (text.trim() !== "") return { id: (e as { id: string }).id, text };
	}
	return { id: null, text: "" };
}

/** Side-by-side rows: prompt k of a next to prompt k of b. */
export function alignTurns(a: readonly CompareTurn[], b: readonly CompareTurn[]): CompareRow[] {
	const rows: CompareRow[] = [];
	for (let k = 0; k < Math.max(a.length, b.length); k++) rows.push({ a: a[k] ?? null, b: b[k] ?? null });
	return rows;
}
