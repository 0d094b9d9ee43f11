// The session-format seam (DESIGN.md "Session formats", docs/formats.md): one agent's files as a module of the
// session core. A format knows how to recognise its files (first bytes and place), where its agent keeps them,
// how a raw record becomes rows of the index and entries of Arbor's model (shared/entries.ts, pi's v3 model
// is the reference), what the agent sends its model at an entry, where it resumes, where a file was forked
// from, and whether Arbor may write to it. Raw record names (keys, types, header fields) stay inside the
// format's folder: the lint rule `arbor/raw-records` (eslint/raw-records.mjs) keeps them there.
//
// The shape is additive from here on: fields are only added (optional), never renamed or removed.

import type { AgentMessage, SessionEntry } from "../../../shared/entries";
import type { EntryKindCode } from "../../../shared/skeleton";
import type { SessionManager } from "../manager";

/** A format's id: "pi", "omp", "claude", "codex". The registry (registry.ts) holds one format per id. */
export type FormatId = string;

/** Environment and home folder a format resolves its agent's folders from (tests pass their own). */
export type DirEnv = Readonly<Record<string, string | undefined>>;

/** What detection sees of a file: its path and its first bytes (up to `PROBE_BYTES`, fewer for a short file). */
export interface FormatProbe {
	path: string;
	head: Buffer;
}

/** Bytes read from the start of a file for `detect` (enough for pi's header, omp's 256-byte title slot and a Claude/Codex first record). */
export const PROBE_BYTES = 64 * 1024;

/** Where a raw record sits in its file. */
export interface RecordPlace {
	/** 1-based physical line. */
	lineNo: number;
	/** Byte offset of the record's first byte (after leading blanks). */
	offset: number;
	/** The record's length in bytes (without the line end). */
	length: number;
}

/**
 * One row of the index from a raw record: the skeleton's facts for one entry. A raw record gives 0..N rows
 * (a bookkeeping record none, a record holding several turns several, told apart by `part`).
 */
export interface IndexRow {
	/** The entry's id; undefined when the record has none (the core then makes up a synthetic id, never written). */
	id: string | undefined;
	/** The parent's id; null for a root; undefined when absent or not a string (shown as a root, flagged orphan). */
	parentId: string | null | undefined;
	/** Arbor's entry kind (shared/skeleton.ts EntryKind). */
	kind: EntryKindCode;
	/** shared/skeleton.ts EntryFlag bits (tool-only, error, has-thinking, …). */
	flags: number;
	/** Token usage the skeleton shows for the entry (0 when none). */
	tokens: number;
	/** Cost in the model provider's currency units (0 when none). */
	cost: number;
	/** Epoch ms of the entry, NaN when unknown. */
	time: number;
	/** The entry's timestamp as written (labels need it for their time). */
	timestamp?: string;
	/** A label row: the entry it labels and the label (null clears). */
	targetId?: string;
	label?: string | null;
	/** Which row of its record this is (absent: 0, the first); handed back to `toEntry` by the lazy re-read. */
	part?: number;
}

/**
 * A stateful reader for one file, fed its raw records in file order. Claude links records by uuid, Codex items
 * have no ids (the parent is the previous item; a rollback starts a branch): whatever such rules need across
 * lines lives in the reader. One reader per load; a catch-up of appended lines continues with the same reader.
 */
export interface RecordReader {
	/**
	 * Optional fast path: the rows of one line straight from its bytes `buf[s, e)` without building the JSON
	 * (pi's byte skimmer). Returns undefined when unsure; the core then JSON.parses the line and calls `read`.
	 */
	skim?(buf: Buffer, s: number, e: number, at: RecordPlace): IndexRow[] | undefined;
	/** The rows of one parsed raw record. Never throws on odd content: an unreadable record gives no row. */
	read(raw: Record<string, unknown>, at: RecordPlace): IndexRow[];
}

/** Where a file was forked from: the parent file (or session id, when only that is known) and the entry. */
export interface Lineage {
	/** Path of the parent session file, when the format names one. */
	file?: string;
	/** The parent's session id, when the format names that instead of a path (Claude, Codex). */
	sessionId?: string;
	/** The entry in the parent the fork starts after, when known. */
	entryId?: string;
	/** Paths this file had before its agent moved it (omp's `previousSessionFiles`): a child naming one of them is this file's. */
	previousFiles?: string[];
}

/** How an index asks for the resume point: entries in file order, by id and row. */
export interface ResumeInput {
	/** Number of rows. */
	count: number;
	idAt(row: number): string;
	kindAt(row: number): EntryKindCode;
	/** False for a row that may not be resumed from (a record recovered from a glued line). */
	resumableAt(row: number): boolean;
}

/** The context a format's agent sends its model at an entry: the messages, plus the facts its rules keep (omp: models by role, mode, …). */
export interface FormatContext {
	messages: AgentMessage[];
	/** The entry each message came from (same order and length as `messages`), when the format tracks it. */
	entryIds?: string[];
}

/**
 * One agent's session files. pi (v1–v3, 1.6) and omp are writable; foreign formats (Claude Code, Codex) are
 * read-only: every write path refuses them with the core's `read_only_format` error naming `agentName`.
 */
export interface SessionFormat {
	/** "pi", "omp", "claude", "codex". */
	readonly id: FormatId;
	/** The agent's name as the library and the live badge show it: "pi", "oh-my-pi", "Claude Code", "Codex". */
	readonly agentName: string;
	/** Whether Arbor may append to (and branch within) this format's files. */
	readonly writable: boolean;
	/**
	 * Its files are pi's JSONL (pi and omp): a header line, v1–v3 records that are Arbor's entries as they are,
	 * omp's title slot; the core reads and writes them by pi's rules (line-reader.ts). Absent for other agents'
	 * formats: every record goes through `newReader().read` / `toEntry`, and nothing is migrated.
	 */
	readonly readsAsPi?: boolean;
	/**
	 * Whether the file is this format's, from its first bytes and its place. Cheap and pure: the registry
	 * asks each format in order (the most specific first, pi last as the fallback).
	 */
	detect(probe: FormatProbe): boolean;
	/** Every folder the agent may keep sessions in, whether it exists or not (the library lists the existing ones). */
	sessionRoots(env: DirEnv, home: string): string[];
	/** Whether `file` (a path found under one of `sessionRoots`) is one of the agent's session files. */
	isSessionFile(file: string): boolean;
	/** A fresh reader for one file (its cross-line state lives in it). */
	newReader(): RecordReader;
	/**
	 * The entry of Arbor's model for a raw record and one of its rows (stateless: the lazy re-read calls it on a
	 * line read back from its offset). `row` carries the id and parent the reader gave that row (synthetic ids
	 * included), so the entry keeps the links the index has.
	 */
	toEntry(raw: Record<string, unknown>, row: { id: string; parentId: string | null; part: number }): SessionEntry;
	/**
	 * The context the agent sends its model at `leafId` (null: empty; undefined: the leaf), from the open file's
	 * mapped entries. Absent: pi's rules (`sm.buildSessionContext`, context.ts) apply, as for any format whose
	 * agent has no rules of its own that Arbor reproduces.
	 */
	buildContext?(sm: SessionManager, leafId?: string | null): FormatContext;
	/** Where this file was forked from, from its header record (or first record, for a format without a header; pi: `parentSession`), or undefined. */
	lineage(header: Record<string, unknown> | undefined): Lineage | undefined;
	/** The row the agent resumes from when it continues this file (pi / omp: the last resumable line), or -1. */
	resumeRow(ix: ResumeInput): number;
}
