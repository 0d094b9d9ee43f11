// SessionManager: the seed's tree model over one pi/omp session file (DESIGN.md "The core model").
// Structure is kept in typed columns (store.ts); entry bodies stay on disk and are parsed on demand
// (entry-cache.ts), so 100k-entry files open in a fraction of pi's time and memory.

import { isUtf8 } from "node:buffer";
import { type Stats, closeSync, constants as fsConstants, existsSync, fstatSync, mkdirSync, openSync, readSync, statSync, unlinkSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { LoadWarning, SearchScope } from "../../shared/api";
import type { AgentMessage, ContentBlock, SessionContext, SessionEntry, SessionHeader, TitleSlot, ToolCallBlock } from "../../shared/entries";
import { CURRENT_SESSION_VERSION } from "../../shared/entries";
import { previewText } from "../../shared/preview";
import { EntryFlag, EntryKind, type Skeleton, type SkeletonDelta, type SkeletonLabel } from "../../shared/skeleton";
import { type CardFacts, cardFacts, type UsageFacts, type UsageRollup, usageFacts, usageRollup } from "../../shared/card-facts";
import { resumePointStatus, type ResumePointStatus } from "../../shared/resume-point";
import { currentSystemMessage } from "../../shared/system-message";
import { isAlwaysHiddenKind } from "../../shared/tree-view";
import { factsOf } from "./classify";
import { buildContextFromPath, buildProjectionFromPath, contextEntryPositions, type SessionProjection } from "./context";
import { EntryCache, SMALL_FILE_BYTES } from "./entry-cache";
import { SessionFileError, ioError } from "./errors";
import { createSessionId, generateEntryId, projectDirName, sessionFileName } from "./ids";
import { isPlainObject, recoverGlued, scanLines, scanLinesSteps } from "./jsonl";
import { runSteps, runStepsCooperatively } from "./steps";
import { type Skim, skimLine } from "./scan-line";
import { headerVersion, migrateRecords } from "./migrate";
import { SearchIndex } from "./search";
import { Columns } from "./store";
import { appendBytes, type DiskState as WrittenState, settleStaleAppend, writeNewFile, writeReplacingFile } from "./write";

/** customType of the entry Arbor's "Save position for pi" appends (it moves pi's resume point on purpose). */
export const SAVED_POSITION_TYPE = "arbor.position";

export interface OpenOptions {
	onProgress?(doneBytes: number, totalBytes: number): void;
	/**
	 * Keep entry bodies on disk and index lines with the byte skimmer. Default: only for files of
	 * SMALL_FILE_BYTES and more (smaller files keep every parsed entry). Tests force it to prove both paths agree.
	 */
	lazy?: boolean;
	/** Observes (and, in tests, steers) how the open manager follows the file: see CatchUpProbe. */
	probe?: CatchUpProbe;
}

/**
 * A seam into the live path. `afterStat` runs between a catch-up's stat and its read, so a test can append
 * bytes exactly there (the race of another writer with our read) without timing luck; `trace` reports what
 * each catch-up and each own append saw (byte offsets and file sizes), for diagnosing a drifting view.
 */
export interface CatchUpProbe {
	afterStat?(statSize: number): void;
	trace?(t: CatchUpTrace): void;
}

export type CatchUpTrace =
	| {
		/** "catch-up": the app's own catch-up (leaf may follow the writer); "before-write": inside an append. */
		op: "catch-up" | "before-write";
		/** Bytes indexed before this catch-up (where the read starts). */
		from: number;
		/** File size this manager last knew (-1 = its own append raced another writer). */
		knownSize: number;
		/** File size the stat saw (the read stops there). */
		statSize: number;
		/** Bytes indexed after it (less than statSize while a partial last line waits). */
		to: number;
		result: CatchUpResult["kind"];
		reason?: string;
		entries: number;
	}
	| {
		op: "append";
		/** Where the line was placed, file size before and after, and whether another writer got in between. */
		offset: number; before: number; after: number; raced: boolean; id: string;
	};

export interface CreateOptions {
	/** Path (or id) of the session this one continues from (pi's `/fork` from a root message). */
	parentSession?: string;
}

export interface SessionTreeNode {
	entry: SessionEntry;
	children: SessionTreeNode[];
	label?: string;
	labelTimestamp?: string;
}

export interface BranchOptions {
	/** Folder for the new file (default: the current session's folder). */
	sessionDir?: string;
	/**
	 * false: only write the new file and stay on the current one (Arbor's branch-to-file, which opens the
	 * new file as another session). Default true: switch to the new file, as pi does.
	 */
	adopt?: boolean;
}

/**
 * `title_changed`: omp rewrote its fixed-width title line in place (same size; nothing else changed): the
 * index stays, `getTitleSlot()` has the new title. `appended` may carry the same news (`titleChanged`).
 */
export type CatchUpResult =
	| { kind: "none" } | { kind: "appended"; count: number; titleChanged?: boolean } | { kind: "reloaded"; reason: string }
	| { kind: "title_changed" };

type DiskState = WrittenState;
interface LabelState { label: string; timestamp: string | undefined }
type Loose = Record<string, unknown>;

const WARNING_CAP = 1000;
const SYNTHETIC_PREFIX = "~arbor:no-id:";

/** Plain text of a user message or custom message (what pi puts in the editor when navigating to it). */
export function entryText(entry: SessionEntry): string {
	const e = entry as Loose;
	let content: unknown;
	if (e.type === "message" && isPlainObject(e.message)) content = e.message.content;
	else if (e.type === "custom_message") content = e.content;
	if (typeof content === "string") return content;
	if (Array.isArray(content)) {
		return content
			.filter((c): c is { type: "text"; text: string } => isPlainObject(c) && c.type === "text" && typeof c.text === "string")
			.map((c) => c.text)
			.join("");
	}
	return "";
}

/** pi's default sessions folder for a cwd (`$PI_CODING_AGENT_DIR` or ~/.pi/agent, then sessions/--cwd--). */
export function defaultSessionDir(cwd: string): string {
	const env = process.env.PI_CODING_AGENT_DIR;
	const agentDir = env ? (env.startsWith("~") ? join(homedir(), env.slice(1)) : env) : join(homedir(), ".pi", "agent");
	return join(agentDir, "sessions", projectDirName(cwd));
}

export class SessionManager {
	readonly #persistent: boolean;
	#file: string | undefined;
	#dir: string;
	#cwd: string;
	#header!: SessionHeader;
	#titleSlot: Loose | undefined;
	#titleSlotBytes: Buffer | undefined;
	#fileVersion = CURRENT_SESSION_VERSION;
	#legacy = false;
	/** Set when writing would damage the file (no valid header): every write throws it. */
	#writeBlock: SessionFileError | undefined;
	/** False for a new session (or an empty file) until the header line has been written. */
	#headerOnDisk = true;
	#disk: DiskState | undefined;
	/** Bytes of the file that have been indexed (complete lines, plus a parseable unterminated last line). */
	#scanned = 0;
	#nextLineNo = 1;
	#endsWithNewline = true;
	/** An unterminated, unparseable final line (another writer may be mid-line, or a crash cut it). */
	#pendingTail: { offset: number; lineNo: number } | undefined;
	#cols = new Columns();
	#cache!: EntryCache;
	#byId = new Map<string, number>();
	#leafId: string | null = null;
	#labelsById = new Map<string, LabelState>();
	#warnings: LoadWarning[] = [];
	#warningCount = 0;
	#syntheticCounter = 0;
	#hasDuplicates = false;
	/** Index of the entry pi/omp resume from: the last one read from a whole line (-1 = none). */
	#resumeIndex = -1;
	/** Entry bodies stay on disk (large files); lines are indexed by the skimmer. */
	#lazy = false;
	#lazyOption: boolean | undefined;
	/** The line parser may skim (header seen, not a legacy file, lazy mode). */
	#skimming = false;
	/** While loading: no record parsed yet (a bad first line then means a bad header). */
	#beforeFirstRecord = false;
	/** The file starts with a UTF-8 byte-order mark (see #parseLine). */
	#bomAtStart = false;
	/** Some parent links form a loop: path walks then need a visited check. */
	#hasLoops = false;
	#toolCallIndex: Map<string, number> | undefined;
	#toolCallIndexCount = 0;
	#search!: SearchIndex;
	#probe: CatchUpProbe | undefined;
	/**
	 * Bumped whenever entries already handed out change: a reload (the index is rebuilt) or a catch-up that
	 * re-linked or re-flagged earlier entries (an appended entry is the missing parent of an earlier one, or
	 * re-uses an id). A consumer holding a copy plus appended deltas must refetch when it changes.
	 */
	#generation = 0;
	/** Parent ids named by entries but not (yet) in the file → those entries, re-linked when the parent arrives. */
	#dangling = new Map<string, number[]>();
	/** Set by #addRow when an id repeats (earlier entries' flags and links may change). */
	#sawDuplicate = false;
	/** While loading: file bytes [#utf8From, #utf8To) are known to be valid UTF-8 (one check per chunk read). */
	#utf8From = 0;
	#utf8To = -1;

	private constructor(persistent: boolean, cwd: string, dir: string) {
		this.#persistent = persistent;
		this.#cwd = cwd;
		this.#dir = dir;
		this.#cache = new EntryCache(this.#cols);
		this.#search = this.#newSearchIndex();
	}

	#newSearchIndex(): SearchIndex {
		return new SearchIndex({
			count: () => this.#cols.count,
			entries: (indices) => this.#cache.getMany(indices),
			label: (i) => this.#labelsById.get(this.#cols.ids[i])?.label,
			// Labels and session_info's "title" word are not in the entry's own bytes.
			alwaysCandidate: (i) => this.#cols.kind[i] === EntryKind.sessionInfo || this.#labelsById.has(this.#cols.ids[i]),
			offset: (i) => this.#cols.offset[i],
			scanRaw: (indices, visit) => this.#cache.scanRaw(indices, visit),
			lazy: () => this.#lazy,
		});
	}

	// ---------------------------------------------------------------- construction

	static open(path: string, options: OpenOptions = {}): SessionManager {
		const sm = SessionManager.#forFile(path, options);
		runSteps(sm.#openSteps(options));
		return sm;
	}

	/**
	 * open() in slices of about `sliceMs` that hand the thread back between them (steps.ts), for the app's
	 * main process: opening a 1 GB file takes seconds, and the other open sessions keep answering meanwhile.
	 * The same manager as open() when it resolves.
	 */
	static async openCooperative(path: string, options: OpenOptions & { sliceMs?: number } = {}): Promise<SessionManager> {
		const sm = SessionManager.#forFile(path, options);
		await runStepsCooperatively(sm.#openSteps(options), options.sliceMs ?? 20);
		return sm;
	}

	static #forFile(path: string, options: OpenOptions): SessionManager {
		const file = resolve(path);
		const sm = new SessionManager(true, process.cwd(), dirname(file));
		sm.#file = file;
		sm.#lazyOption = options.lazy;
		sm.#probe = options.probe;
		return sm;
	}

	*#openSteps(options: OpenOptions): Generator<void, void> {
		// Opening only reads: a torn line a killed Arbor left is repaired by the next write (write.ts).
		yield* this.#loadFileSteps(options);
		const cwd = this.#header.cwd;
		if (typeof cwd === "string") this.#cwd = cwd;
	}

	static create(cwd: string, sessionDir?: string, options: CreateOptions = {}): SessionManager {
		const dir = resolve(sessionDir ?? defaultSessionDir(cwd));
		const sm = new SessionManager(true, cwd, dir);
		sm.#newSession(options.parentSession);
		return sm;
	}

	static inMemory(cwd: string = process.cwd()): SessionManager {
		const sm = new SessionManager(false, cwd, "");
		sm.#newSession(undefined);
		return sm;
	}

	#newSession(parentSession: string | undefined): void {
		const timestamp = new Date().toISOString();
		const id = createSessionId();
		const header: SessionHeader = { type: "session", version: CURRENT_SESSION_VERSION, id, timestamp, cwd: this.#cwd };
		if (parentSession !== undefined) header.parentSession = parentSession;
		this.#resetIndex();
		this.#header = header;
		this.#fileVersion = CURRENT_SESSION_VERSION;
		this.#headerOnDisk = false;
		this.#disk = undefined;
		if (this.#persistent) this.#file = join(this.#dir, sessionFileName(timestamp, id));
	}

	#resetIndex(): void {
		this.#generation++;
		this.#dangling = new Map();
		this.#cols = new Columns();
		this.#cache = new EntryCache(this.#cols);
		this.#search = this.#newSearchIndex();
		this.#byId = new Map();
		this.#leafId = null;
		this.#labelsById = new Map();
		this.#warnings = [];
		this.#warningCount = 0;
		this.#hasDuplicates = false;
		this.#resumeIndex = -1;
		this.#hasLoops = false;
		this.#toolCallIndex = undefined;
		this.#toolCallIndexCount = 0;
		this.#titleSlot = undefined;
		this.#titleSlotBytes = undefined;
		this.#legacy = false;
		this.#writeBlock = undefined;
		this.#headerOnDisk = true;
		this.#scanned = 0;
		this.#nextLineNo = 1;
		this.#endsWithNewline = true;
		this.#pendingTail = undefined;
		this.#bomAtStart = false;
		this.#utf8To = -1;
	}

	#warn(line: number, kind: LoadWarning["kind"], message: string): void {
		this.#warningCount++;
		if (this.#warnings.length < WARNING_CAP) this.#warnings.push({ line, kind, message });
	}

	// ---------------------------------------------------------------- loading

	#loadFile(options: OpenOptions): void {
		runSteps(this.#loadFileSteps(options));
	}

	/** Loading as steps (steps.ts): one per chunk of the file scanned. */
	*#loadFileSteps(options: OpenOptions): Generator<void, void> {
		const file = this.#file as string;
		this.#resetIndex();
		let pre;
		try {
			// stat first: opening a FIFO for reading would block until a writer appears.
			pre = statSync(file);
		} catch (err) {
			throw ioError(file, err, "opening the session file");
		}
		if (pre.isDirectory()) throw new SessionFileError("io", file, "is a directory, not a session file");
		if (!pre.isFile()) throw new SessionFileError("io", file, "is not a regular file (pipe, socket or device)");
		let fd: number;
		try {
			fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
		} catch (err) {
			throw ioError(file, err, "opening the session file");
		}
		try {
			const st = fstatSync(fd);
			if (!st.isFile()) throw new SessionFileError("io", file, "is not a regular file");
			this.#lazy = this.#lazyOption ?? st.size >= SMALL_FILE_BYTES;
			this.#skimming = false;
			this.#disk = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, dev: st.dev };
			const legacyRecords: { obj: Loose; line: number }[] = [];
			let headerSeen = false;
			this.#beforeFirstRecord = true;
			const sink = (obj: Loose, offset: number, length: number, lineNo: number, exact: boolean, lineBytes: Buffer | undefined): void => {
				if (this.#beforeFirstRecord) {
					this.#beforeFirstRecord = false;
					if (obj.type === "title") {
						// omp's title slot; also tolerate third-party title lines that miss omp's exact shape.
						this.#titleSlot = obj;
						// Kept verbatim: omp's slot is fixed-width and must be written back byte for byte.
						this.#titleSlotBytes = lineBytes ? Buffer.from(lineBytes) : Buffer.from(JSON.stringify(obj));
						if (typeof obj.pad !== "string" || obj.v !== 1 || length + 1 !== 256) {
							this.#warn(lineNo, "title_slot", "title line does not have omp's fixed-width slot shape; read as a title anyway");
						}
						return;
					}
				}
				if (!headerSeen) {
					headerSeen = true;
					if (obj.type === "session" && typeof obj.id === "string") {
						this.#header = obj as SessionHeader;
						this.#fileVersion = headerVersion(obj);
						if (this.#fileVersion < CURRENT_SESSION_VERSION) {
							this.#legacy = true;
							this.#warn(0, "legacy_version", `version ${String(obj.version ?? 1)} file: migrated in memory; writing needs an upgrade`);
						}
						this.#skimming = this.#lazy && !this.#legacy;
						return;
					}
					this.#missingHeader(lineNo);
				}
				if (obj.type === "session") {
					// pi ignores later header lines entirely (they are not entries).
					this.#warn(lineNo, "other", "extra session header line ignored");
					return;
				}
				if (this.#legacy) legacyRecords.push({ obj, line: lineNo });
				else this.#ingest(obj, exact ? offset : -1, length, lineNo, !this.#lazy, exact);
			};
			const total = st.size;
			const res = yield* scanLinesSteps(fd, 0, total, 1, (buf, s, e, off, lineNo, hasEol) => {
				this.#parseLine(buf, s, e, off, lineNo, hasEol, sink);
			}, { onProgress: options.onProgress, onChunk: (buf, end, offset) => this.#noteChunk(buf, end, offset) });
			this.#utf8To = -1;
			this.#finishScan(res.end, res.nextLineNo, res.endsWithNewline);
			if (this.#bomAtStart) {
				const why = "file starts with a UTF-8 byte-order mark (EF BB BF): pi 1.6 reads no session header behind it and refuses the file, so Arbor shows it read-only and never writes to it (the file was not modified; remove the first 3 bytes to use it)";
				this.#warn(1, "bad_header", why);
				this.#writeBlock = new SessionFileError("bad_file", file, why, 1);
			}
			if (!headerSeen) {
				// Empty (or blank-only) file: pi rewrites it with a fresh header; we write one before the
				// first entry instead, so nothing that was in the file is ever replaced.
				const timestamp = new Date().toISOString();
				this.#header = { type: "session", version: CURRENT_SESSION_VERSION, id: createSessionId(), timestamp, cwd: this.#cwd };
				this.#headerOnDisk = false;
				this.#warn(0, "bad_header", st.size > 0 ? describeHeaderless(fd, st.size) : "file is empty: no session header yet (one is written before the first entry)");
				// First: it says what the file holds (the CLI reports the first bad_header warning).
				const w = this.#warnings.pop();
				if (w) this.#warnings.unshift(w);
			}
			if (this.#legacy) {
				const records = [this.#header as Loose, ...legacyRecords.map((r) => r.obj)];
				migrateRecords(records, this.#fileVersion);
				for (const r of legacyRecords) this.#ingest(r.obj, -1, 0, r.line, true);
			}
			this.#beforeFirstRecord = false;
			this.#skimming = false;
			this.#resolveParents(0);
			this.#cutCycles();
			this.#cache.setFile(file, this.#legacy);
		} finally {
			closeSync(fd);
		}
	}

	#missingHeader(lineNo: number): void {
		const file = this.#file ?? "(memory)";
		this.#warn(lineNo, "bad_header", "first record is not a valid session header; entries loaded, writing disabled");
		this.#writeBlock = new SessionFileError("bad_file", file, "the session header is missing or malformed; refusing to write (the file was not modified)", lineNo);
		const timestamp = new Date().toISOString();
		this.#header = { type: "session", version: CURRENT_SESSION_VERSION, id: createSessionId(), timestamp, cwd: this.#cwd };
	}

	#finishScan(end: number, nextLineNo: number, endsWithNewline: boolean): void {
		if (this.#pendingTail) {
			this.#scanned = this.#pendingTail.offset;
			this.#nextLineNo = this.#pendingTail.lineNo;
			this.#endsWithNewline = false;
		} else {
			this.#scanned = end;
			this.#nextLineNo = nextLineNo;
			this.#endsWithNewline = endsWithNewline;
		}
	}

	/** One UTF-8 check for a whole chunk of lines (valid as a whole = every line in it valid). */
	#noteChunk(buf: Buffer, end: number, offset: number): void {
		this.#utf8From = offset;
		this.#utf8To = end > 0 && isUtf8(buf.subarray(0, end)) ? offset + end : -1;
	}

	/** Parses one physical line and hands every record found to `sink`. Never throws on bad content. */
	#parseLine(
		buf: Buffer, s: number, e: number, offset: number, lineNo: number, hasEol: boolean,
		sink: (obj: Loose, offset: number, length: number, lineNo: number, exact: boolean, lineBytes: Buffer | undefined) => void,
	): void {
		if (offset === 0 && e - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) {
			// A UTF-8 byte-order mark: pi 1.6 reads the first line as not JSON, so the file has no session
			// header for pi (it refuses the file). Same rule here: shown read-only, never written, no byte stripped.
			this.#bomAtStart = true;
			s += 3;
			offset += 3;
		}
		let a = s;
		while (a < e && (buf[a] === 32 || buf[a] === 9 || buf[a] === 13)) a++;
		if (a === e) return;
		if (!(offset >= this.#utf8From && offset + (e - s) <= this.#utf8To) && !isUtf8(buf.subarray(s, e))) {
			this.#warn(lineNo, "invalid_utf8", "line has bytes that are not UTF-8; they read as U+FFFD");
		}
		// An unterminated last line may be cut mid-record: only JSON.parse can judge it.
		if (this.#skimming && hasEol) {
			const sk = skimLine(buf, s, e);
			if (sk && sk.type !== "session") {
				this.#ingestSkim(sk, offset, e - s, lineNo);
				return;
			}
		}
		const text = buf.toString("utf8", s, e);
		let obj: unknown;
		try {
			obj = JSON.parse(text);
		} catch {
			if (!hasEol) {
				// Maybe another writer is mid-line: keep it unindexed so a later catch-up reads it whole.
				this.#pendingTail = { offset, lineNo };
				this.#warn(lineNo, "truncated_last_line", "last line is incomplete (no newline, not valid JSON)");
				return;
			}
			if (this.#beforeFirstRecord) {
				this.#warn(lineNo, "bad_header", "first line is not a valid session header (not JSON)");
			}
			const rec = recoverGlued(text);
			if (rec.objects.length > 0) {
				this.#warn(lineNo, "glued_objects", `line holds ${rec.objects.length} records glued together${rec.lost ? " plus an unreadable fragment" : ""}; recovered them (pi drops the whole line)`);
				for (const o of rec.objects) sink(o, offset, e - s, lineNo, false, undefined);
			} else {
				this.#warn(lineNo, "malformed_line", "line is not valid JSON; skipped");
			}
			return;
		}
		if (!isPlainObject(obj)) {
			if (this.#beforeFirstRecord) this.#warn(lineNo, "bad_header", "first line is not a valid session header (not a JSON object)");
			this.#warn(lineNo, "malformed_line", "line is JSON but not an object; skipped");
			return;
		}
		sink(obj, offset, e - s, lineNo, true, buf.subarray(s, e));
	}

	/** Adds one parsed entry; parent links are resolved afterwards (#resolveParents). */
	/**
	 * `resumable`: the line parsed whole, so pi sees this entry too. Records recovered from a glued line are
	 * shown but never become the resume point or the leaf on load (pi resumes at the last line it parsed,
	 * and an entry appended under a record pi cannot see would be an orphan there).
	 */
	#ingest(obj: Loose, offset: number, length: number, lineNo: number, keep: boolean, resumable = true): number {
		const facts = factsOf(obj);
		let id = obj.id;
		let synthetic = false;
		if (typeof id !== "string") {
			id = this.#syntheticId(lineNo);
			// Visible on the entry object so callers can address it; stripped whenever entries are written.
			obj.id = id;
			synthetic = true;
		}
		const rp = obj.parentId;
		const i = this.#addRow(id as string, typeof rp === "string" || rp === null ? rp : undefined, facts.kind,
			facts.flags | (synthetic ? EntryFlag.syntheticId : 0), facts.time, facts.tokens, offset, length, lineNo, resumable);
		this.#cols.cost[i] = facts.cost; // branch cost: skeleton cost column
		this.#cache.put(i, obj as SessionEntry, keep || offset < 0);
		if (obj.type === "label") this.#applyLabel(obj.targetId, obj.label, obj.timestamp);
		return i;
	}

	/** Adds one entry known only from its skimmed line (body stays on disk). */
	#ingestSkim(sk: Skim, offset: number, length: number, lineNo: number): number {
		let id = sk.id;
		let flags = sk.flags;
		if (id === undefined) {
			id = this.#syntheticId(lineNo);
			flags |= EntryFlag.syntheticId;
		}
		const i = this.#addRow(id, sk.parentId, sk.kind, flags, sk.time, sk.tokens, offset, length, lineNo);
		this.#cols.cost[i] = sk.cost; // branch cost: skeleton cost column
		if (sk.type === "label") this.#applyLabel(sk.targetId, sk.label, sk.timestamp);
		return i;
	}

	#syntheticId(lineNo: number): string {
		this.#warn(lineNo, "missing_id", "entry has no string id; given a synthetic one (never written back)");
		return `${SYNTHETIC_PREFIX}${lineNo}:${++this.#syntheticCounter}`;
	}

	#applyLabel(targetId: unknown, label: unknown, timestamp: unknown): void {
		if (typeof targetId !== "string") return;
		this.#search.labelVersion++;
		// pi: a truthy label sets, anything else clears; the latest label entry in file order wins.
		if (label) this.#labelsById.set(targetId, { label: labelText(label), timestamp: typeof timestamp === "string" ? timestamp : undefined });
		else this.#labelsById.delete(targetId);
	}

	#addRow(
		id: string, rawParent: string | null | undefined, kind: number, flags: number, time: number, tokens: number,
		offset: number, length: number, lineNo: number, resumable = true,
	): number {
		const c = this.#cols;
		const i = c.count;
		c.reserve(i + 1);
		c.count = i + 1;
		c.ids[i] = id;
		c.rawParent[i] = rawParent;
		c.parent[i] = -1;
		c.link[i] = -1;
		c.kind[i] = kind;
		c.time[i] = time;
		c.tokens[i] = tokens;
		c.cost[i] = 0; // branch cost: skeleton cost column, set by the caller
		c.offset[i] = offset;
		c.length[i] = length;
		c.line[i] = lineNo;
		const prev = this.#byId.get(id);
		if (prev !== undefined) {
			flags |= EntryFlag.duplicateId;
			c.flags[prev] |= EntryFlag.duplicateId;
			this.#hasDuplicates = true;
			this.#sawDuplicate = true;
			this.#warn(lineNo, "duplicate_id", `id ${id} also used on line ${c.line[prev]}; the later entry wins lookups`);
		}
		c.flags[i] = flags;
		this.#byId.set(id, i);
		if (resumable) {
			this.#leafId = id;
			this.#resumeIndex = i;
		}
		return i;
	}

	/** `warnFrom`: entries below it were already reported (re-resolved only because an id was re-used). */
	#resolveParents(from: number, warnFrom = from): void {
		const c = this.#cols;
		const warn = (i: number, kind: LoadWarning["kind"], message: string): void => {
			if (i >= warnFrom) this.#warn(c.line[i], kind, message);
		};
		if (from === 0) this.#dangling.clear();
		for (let i = from; i < c.count; i++) {
			const rp = c.rawParent[i];
			c.flags[i] &= ~(EntryFlag.orphan | EntryFlag.cycleCut);
			let p = -1;
			if (rp === undefined) {
				c.flags[i] |= EntryFlag.orphan;
			} else if (rp === c.ids[i]) {
				c.flags[i] |= EntryFlag.cycleCut;
				warn(i, "cycle", `entry ${rp} names itself as parent; treated as a root`);
			} else if (rp !== null) {
				// Most entries follow their parent; without duplicate ids that row is the one the map holds.
				const j = i > 0 && !this.#hasDuplicates && c.ids[i - 1] === rp ? i - 1 : this.#byId.get(rp);
				if (j === undefined) {
					c.flags[i] |= EntryFlag.orphan;
					warn(i, "orphan", `parent ${rp} is not in the file; entry shown as a root`);
					const waiting = this.#dangling.get(rp);
					if (waiting) waiting.push(i);
					else this.#dangling.set(rp, [i]);
				} else {
					p = j;
					// Share the parent's id string instead of keeping an equal copy (1M entries: ~40 MB).
					c.rawParent[i] = c.ids[j];
				}
			}
			c.parent[i] = p;
			c.link[i] = p;
		}
	}

	/** Breaks parent loops longer than one entry by cutting the link of the loop's earliest entry. */
	#cutCycles(): void {
		const c = this.#cols;
		const n = c.count;
		const stamp = new Int32Array(n);
		for (let i = 0; i < n; i++) {
			if (stamp[i] !== 0) continue;
			let j = i;
			while (j >= 0 && stamp[j] === 0) {
				stamp[j] = i + 1;
				j = c.parent[j];
			}
			if (j >= 0 && stamp[j] === i + 1) {
				let min = j;
				let k = c.parent[j];
				while (k !== j) {
					if (k < min) min = k;
					k = c.parent[k];
				}
				c.parent[min] = -1;
				c.flags[min] |= EntryFlag.cycleCut;
				this.#hasLoops = true;
				this.#warn(c.line[min], "cycle", `parent links of ${c.ids[min]} form a loop; cut there and treated as a root`);
			}
		}
	}

	// ---------------------------------------------------------------- pi's accessors

	isPersistent(): boolean { return this.#persistent; }
	/** pi's name for isPersistent. */
	isPersisted(): boolean { return this.#persistent; }
	getSessionFile(): string | undefined { return this.#file; }
	getSessionDir(): string { return this.#dir; }
	getSessionId(): string { return this.#header.id; }
	getCwd(): string { return this.#cwd; }
	getHeader(): SessionHeader { return this.#header; }
	/** omp's title slot line, when the file starts with one. */
	getTitleSlot(): TitleSlot | undefined { return this.#titleSlot as TitleSlot | undefined; }
	getLeafId(): string | null { return this.#leafId; }
	getFileVersion(): number { return this.#fileVersion; }
	needsUpgrade(): boolean { return this.#legacy; }
	getWarnings(): LoadWarning[] { return this.#warnings.slice(); }
	getWarningCount(): number { return this.#warningCount; }
	getEntryCount(): number { return this.#cols.count; }
	getResumeLeafId(): string | null {
		return this.#resumeIndex >= 0 ? this.#cols.ids[this.#resumeIndex] : null;
	}

	/**
	 * The resume leaf, or its nearest ancestor when it is an entry no tree shows (usage / model_usage lines):
	 * where pi's resume point is drawn. null when there is no entry (or only such lines).
	 */
	getResumeAnchorId(): string | null {
		return this.#resumeAnchorId();
	}

	#resumeAnchorId(): string | null {
		const i = this.#resumeAnchorIndex();
		return i >= 0 ? this.#cols.ids[i] : null;
	}

	#resumeAnchorIndex(): number {
		return this.#anchorOf(this.#resumeIndex);
	}

	/** The in-app leaf as drawn: itself, or its nearest ancestor when it is a line no tree shows (usage). */
	getLeafAnchorId(): string | null {
		const i = this.#anchorOf(this.#leafIndex());
		return i >= 0 ? this.#cols.ids[i] : null;
	}

	#anchorOf(index: number): number {
		const c = this.#cols;
		let i = index;
		for (let steps = 0; i >= 0 && steps <= c.count && isAlwaysHiddenKind(c.kind[i]); steps++) {
			const p = c.parent[i];
			i = p === i ? -1 : p;
		}
		return i;
	}

	/**
	 * Whether pi's resume point (the last line) sits on another branch than the newest conversation
	 * (shared/resume-point.ts). A resume leaf Arbor's "Save position for pi" wrote (custom entry
	 * `arbor.position`) is deliberate and never stale.
	 */
	getResumePointStatus(): ResumePointStatus {
		const c = this.#cols;
		return resumePointStatus({ count: c.count, parent: c.parent, kind: c.kind, resumeLeaf: this.#resumeIndex }, (i) => {
			if (c.kind[i] !== EntryKind.custom) return false;
			return (this.#cache.get(i) as Loose).customType === SAVED_POSITION_TYPE;
		});
	}

	getLeafEntry(): SessionEntry | undefined {
		return this.#leafId === null ? undefined : this.getEntry(this.#leafId);
	}

	getEntry(id: string): SessionEntry | undefined {
		const i = this.#byId.get(id);
		return i === undefined ? undefined : this.#cache.get(i);
	}

	/**
	 * Entries for many indices: plain objects when in memory (small files), else lazy stand-ins that parse
	 * on first use (large files), so walking 100k entries costs the walk, not a parse of every body.
	 */
	#entriesAt(indices: ArrayLike<number>): SessionEntry[] {
		return this.#lazy ? this.#cache.lazyViews(indices) : this.#cache.getMany(indices);
	}

	/** Entry at a file-order index (skeleton index). */
	getEntryAt(index: number): SessionEntry | undefined {
		if (!(index >= 0 && index < this.#cols.count)) return undefined;
		return this.#cache.get(index);
	}

	indexOf(id: string): number {
		return this.#byId.get(id) ?? -1;
	}

	/** Id at a file-order index ("" outside the file). No copy of the columns, unlike getSkeleton. */
	idAt(index: number): string {
		return index >= 0 && index < this.#cols.count ? this.#cols.ids[index] : "";
	}

	/** Skeleton kind at a file-order index (EntryKind.unknown outside the file). */
	kindAt(index: number): number {
		return index >= 0 && index < this.#cols.count ? this.#cols.kind[index] : EntryKind.unknown;
	}

	/** Skeleton flags at a file-order index (0 outside the file). */
	flagsAt(index: number): number {
		return index >= 0 && index < this.#cols.count ? this.#cols.flags[index] : 0;
	}

	getEntries(): SessionEntry[] {
		const n = this.#cols.count;
		return this.#entriesAt(Array.from({ length: n }, (_, i) => i));
	}

	getChildren(parentId: string): SessionEntry[] {
		const c = this.#cols;
		const out: number[] = [];
		for (let i = 0; i < c.count; i++) {
			// pi scans its id map, so with duplicate ids only the winning occurrence is a candidate.
			if (c.rawParent[i] === parentId && this.#byId.get(c.ids[i]) === i) out.push(i);
		}
		return this.#entriesAt(out);
	}

	getLabel(id: string): string | undefined {
		return this.#labelsById.get(id)?.label;
	}

	getLabelTimestamp(id: string): string | undefined {
		return this.#labelsById.get(id)?.timestamp;
	}

	/**
	 * Entry indices from the root down to `index`. Follows the file's parent links; where they loop, the walk
	 * stops at the first entry it would visit twice (as omp does; pi hangs), so every entry appears once.
	 */
	pathIndices(index: number): Int32Array {
		const c = this.#cols;
		if (!this.#hasLoops) {
			let depth = 0;
			for (let j = index; j >= 0; j = c.link[j]) depth++;
			const out = new Int32Array(depth);
			let k = depth;
			for (let j = index; j >= 0; j = c.link[j]) out[--k] = j;
			return out;
		}
		const seen = new Set<number>();
		const rev: number[] = [];
		for (let j = index; j >= 0 && !seen.has(j); j = c.link[j]) {
			seen.add(j);
			rev.push(j);
		}
		return Int32Array.from(rev.reverse());
	}

	getBranch(fromId?: string): SessionEntry[] {
		const start = fromId ?? this.#leafId;
		// "" is a (hostile but possible) id, not "no leaf".
		if (start === null || start === undefined) return [];
		const i = this.#byId.get(start);
		if (i === undefined) return [];
		return this.#entriesAt(this.pathIndices(i));
	}

	/** Ids on the path root→entry (no parsing). */
	getBranchIds(fromId?: string): string[] {
		const start = fromId ?? this.#leafId;
		if (start === null || start === undefined) return [];
		const i = this.#byId.get(start);
		if (i === undefined) return [];
		const path = this.pathIndices(i);
		const ids = this.#cols.ids;
		const out: string[] = new Array(path.length);
		for (let k = 0; k < path.length; k++) out[k] = ids[path[k]];
		return out;
	}

	getTree(): SessionTreeNode[] {
		const c = this.#cols;
		const n = c.count;
		// Stand-ins straight from the cache: going through getEntries' lazily filled array costs a Proxy trap
		// per element.
		const all = this.#lazy ? undefined : this.#cache.getMany(Array.from({ length: n }, (_, i) => i));
		const cache = this.#cache;
		const labels = this.#labelsById;
		const nodes: SessionTreeNode[] = new Array(n);
		for (let i = 0; i < n; i++) {
			const st = labels.size > 0 ? labels.get(c.ids[i]) : undefined;
			nodes[i] = { entry: all ? all[i] : cache.view(i), children: [], label: st?.label, labelTimestamp: st?.timestamp };
		}
		const childIdx: number[][] = new Array(n);
		const roots: number[] = [];
		for (let i = 0; i < n; i++) {
			const p = c.parent[i];
			if (p < 0) roots.push(i);
			else (childIdx[p] ??= []).push(i);
		}
		const time = c.time;
		for (let i = 0; i < n; i++) {
			const ch = childIdx[i];
			if (!ch) continue;
			// Same comparator as pi (timestamp difference, NaN for bad stamps) so ties and oddities sort alike.
			if (ch.length > 1) ch.sort((a, b) => time[a] - time[b]);
			const kids = nodes[i].children;
			for (const k of ch) kids.push(nodes[k]);
		}
		return roots.map((r) => nodes[r]);
	}

	// ---------------------------------------------------------------- leaf movement

	branch(branchFromId: string): void {
		if (typeof branchFromId !== "string" || !this.#byId.has(branchFromId)) throw new Error(`Entry ${branchFromId} not found`);
		this.#leafId = branchFromId;
	}

	resetLeaf(): void {
		this.#leafId = null;
	}

	/**
	 * pi 1.6 (0.84.3): `fromId` is the leaf navigated away from ("root" when there is none), no longer the
	 * destination; `usage` (the summarizer's) is written after `details` when given.
	 */
	branchWithSummary(branchFromId: string | null, summary: string, details?: unknown, fromHook?: boolean, usage?: unknown): string {
		if (branchFromId !== null && !this.#byId.has(branchFromId)) throw new Error(`Entry ${branchFromId} not found`);
		this.#assertWritable();
		const fromId = this.#leafId ?? "root";
		this.#leafId = branchFromId;
		return this.#append({
			type: "branch_summary", id: this.#newId(), parentId: branchFromId, timestamp: new Date().toISOString(),
			fromId, summary, details, usage, fromHook,
		});
	}

	// ---------------------------------------------------------------- appends (pi's key order)

	appendMessage(message: AgentMessage): string {
		return this.#append({ type: "message", id: this.#newId(), parentId: this.#leafId, timestamp: new Date().toISOString(), message });
	}

	appendThinkingLevelChange(thinkingLevel: string): string {
		return this.#append({ type: "thinking_level_change", id: this.#newId(), parentId: this.#leafId, timestamp: new Date().toISOString(), thinkingLevel });
	}

	appendModelChange(provider: string, modelId: string): string {
		return this.#append({ type: "model_change", id: this.#newId(), parentId: this.#leafId, timestamp: new Date().toISOString(), provider, modelId });
	}

	/**
	 * pi 1.6: without `firstKeptEntryId` the compaction keeps nothing (it names itself), and the prompt / tool
	 * state replayed from the context's system messages is written as the `systemMessage` checkpoint.
	 */
	appendCompaction(summary: string, firstKeptEntryId: string | undefined, tokensBefore: number, details?: unknown, fromHook?: boolean, usage?: unknown): string {
		const timestamp = new Date().toISOString();
		const systemMessage = currentSystemMessage(this.buildSessionContext().messages);
		const id = this.#newId();
		return this.#append({
			type: "compaction", id, parentId: this.#leafId, timestamp,
			summary, firstKeptEntryId: firstKeptEntryId ?? id, tokensBefore, details, usage, fromHook,
			...(systemMessage ? { systemMessage: { ...systemMessage, timestamp: new Date(timestamp).getTime() } } : {}),
		});
	}

	appendCustomEntry(customType: string, data?: unknown): string {
		return this.#append({ type: "custom", customType, data, id: this.#newId(), parentId: this.#leafId, timestamp: new Date().toISOString() });
	}

	appendCustomMessageEntry(customType: string, content: string | ContentBlock[], display: boolean, details?: unknown): string {
		return this.#append({
			type: "custom_message", customType, content, display, details, id: this.#newId(), parentId: this.#leafId,
			timestamp: new Date().toISOString(),
		});
	}

	/**
	 * pi's appendLabelChange. `opts.atResume` (the app's labels): parented on pi's resume point instead of the
	 * in-app leaf, so labelling from another branch never moves where pi resumes (pi #9930 / omp #12242).
	 */
	appendLabelChange(targetId: string, label: string | undefined, opts: { atResume?: boolean } = {}): string {
		if (typeof targetId !== "string" || !this.#byId.has(targetId)) throw new Error(`Entry ${targetId} not found`);
		return this.#append({ type: "label", id: this.#newId(), parentId: this.#leafId, timestamp: new Date().toISOString(), targetId, label }, opts.atResume === true);
	}

	appendSessionInfo(name: string, opts: { atResume?: boolean } = {}): string {
		// pi 1.6 (0.80.0): line breaks in a name become one space.
		return this.#append({ type: "session_info", id: this.#newId(), parentId: this.#leafId, timestamp: new Date().toISOString(), name: name.replace(/[\r\n]+/g, " ").trim() }, opts.atResume === true);
	}

	/** The entry as it may be written: a synthetic id is Arbor's own and never reaches a file. */
	#forWriting(i: number, entry: Loose, parentId?: string | null): Loose {
		const synthetic = (this.#cols.flags[i] & EntryFlag.syntheticId) !== 0;
		if (!synthetic && parentId === undefined) return entry;
		const copy: Loose = { ...entry };
		if (synthetic) delete copy.id;
		if (parentId !== undefined) copy.parentId = parentId;
		return copy;
	}

	#newId(): string {
		return generateEntryId((id) => this.#byId.has(id));
	}

	#assertWritable(): void {
		if (!this.#persistent) return;
		const file = this.#file as string;
		if (this.#legacy) {
			throw new SessionFileError("legacy_needs_upgrade", file, `this is a version ${this.#fileVersion} session file; call upgradeLegacy() (keeps a .bak) before writing to it`);
		}
		if (this.#writeBlock) throw this.#writeBlock;
	}

	/** Appends one entry under the current leaf (already in `entry.parentId`) and makes it the leaf. */
	/**
	 * `atResume`: a bookkeeping entry (label, session name) that must not move pi's resume point to another
	 * branch: it is parented on the resume leaf (the file's last entry, after catching up with other writers),
	 * and the in-app leaf moves onto it only when it was at the resume leaf (as pi's leaf would).
	 */
	#append(entry: Loose, atResume = false): string {
		this.#assertWritable();
		let offset = -1;
		let length = 0;
		let lineNo = this.#nextLineNo;
		if (this.#persistent && this.#disk) {
			// A torn line a killed Arbor writer left is cut (with proof) before anything else is written;
			// the catch-up then sees the shorter file and reloads.
			if (settleStaleAppend(this.#file as string) > 0) this.#disk = { ...this.#disk, size: -1 };
			this.#syncBeforeWrite();
		}
		const keepLeaf = atResume && this.#leafId !== this.getResumeLeafId() ? { leaf: this.#leafId } : undefined;
		if (atResume) entry.parentId = this.getResumeLeafId();
		if (typeof entry.parentId === "string" && entry.parentId.startsWith(SYNTHETIC_PREFIX)) {
			// A synthetic id is never written: the new entry starts a new root, as it will after a reload.
			entry.parentId = null;
		}
		if (this.#persistent) {
			// The leaf may have been the synthetic-id entry of a file that was reloaded in between.
			if (typeof entry.parentId === "string" && !this.#byId.has(entry.parentId)) {
				throw new SessionFileError("conflict", this.#file as string, `entry ${entry.parentId} disappeared when the file changed on disk; nothing was written`);
			}
			const line = Buffer.from(`${JSON.stringify(entry)}\n`, "utf8");
			length = line.length - 1;
			if (!this.#disk) {
				const parts: Buffer[] = [];
				if (this.#titleSlotBytes) parts.push(this.#titleSlotBytes, Buffer.from("\n"));
				const headerLine = Buffer.from(`${JSON.stringify(this.#header)}\n`, "utf8");
				parts.push(headerLine, line);
				const file = this.#file as string;
				mkdirSync(dirname(file), { recursive: true });
				const st = writeNewFile(file, parts);
				offset = headerLine.length;
				lineNo = 2;
				this.#headerOnDisk = true;
				this.#disk = st;
				this.#scanned = st.size;
				this.#nextLineNo = 3;
				this.#endsWithNewline = true;
				this.#cache.setFile(file, false);
			} else {
				const parts: Buffer[] = [];
				if (!this.#endsWithNewline) {
					parts.push(Buffer.from("\n"));
					if (this.#pendingTail) {
						this.#warn(this.#pendingTail.lineNo, "malformed_line", "incomplete last line closed with a newline before appending");
						this.#pendingTail = undefined;
						lineNo++;
					}
				}
				if (!this.#headerOnDisk) parts.push(Buffer.from(`${JSON.stringify(this.#header)}\n`, "utf8"));
				const prefix = parts.reduce((s, b) => s + b.length, 0);
				parts.push(line);
				const before = this.#disk.size;
				const headerWasOnDisk = this.#headerOnDisk;
				const { state, raced } = appendBytes(this.#file as string, parts, before);
				this.#probe?.trace?.({ op: "append", offset: raced ? -1 : before + prefix, before, after: state.size, raced, id: entry.id as string });
				if (raced && headerWasOnDisk && this.#adoptRacedAppend(entry.id as string, state)) {
					// A bookkeeping entry leaves the in-app leaf where it was, raced or not.
					if (keepLeaf) this.#leafId = keepLeaf.leaf;
					return entry.id as string;
				}
				if (!this.#headerOnDisk) lineNo++;
				this.#headerOnDisk = true;
				offset = before + prefix;
				this.#disk = raced ? { ...state, size: -1 } : state;
				this.#scanned = before + prefix + line.length;
				this.#nextLineNo = lineNo + 1;
				this.#endsWithNewline = true;
			}
		}
		const i = this.#ingest(entry, offset, length, lineNo, true);
		this.#resolveParents(i);
		this.#toolCallIndex = undefined;
		if (keepLeaf) this.#leafId = keepLeaf.leaf;
		return entry.id as string;
	}

	/**
	 * Another writer's lines landed between our catch-up and our own line (or right after it): where our
	 * line went is not known, and indexing it at the end would put it before lines that precede it in the
	 * file. So read everything from where the index stops, in file order, our line among them, exactly as a
	 * reload would place it, and make it the leaf. False when our line is not found (the caller falls back
	 * to a full reload on the next catch-up).
	 */
	#adoptRacedAppend(id: string, state: DiskState): boolean {
		try {
			this.#readAppended(state.size, false);
			this.#disk = state;
		} catch {
			// The line is written; a read failing now must not fail the append: the next catch-up reloads.
			this.#disk = { ...state, size: -1 };
		}
		if (!this.#byId.has(id)) return false;
		this.#leafId = id;
		return true;
	}

	// ---------------------------------------------------------------- other writers

	/** Brings the index up to date with the file (another process, e.g. pi, may have appended). */
	catchUp(): CatchUpResult {
		return this.#catchUp(true);
	}

	/** `follow`: a leaf still at the last entry moves on to the other writer's last entry (not before our own writes). */
	#catchUp(follow: boolean): CatchUpResult {
		if (!this.#persistent || !this.#disk || !this.#file) return { kind: "none" };
		let st;
		try {
			st = statSync(this.#file);
		} catch (err) {
			throw ioError(this.#file, err, "checking the session file");
		}
		const d = this.#disk;
		const from = this.#scanned;
		this.#probe?.afterStat?.(st.size);
		const r = this.#catchUpFrom(st, d, follow);
		this.#probe?.trace?.({
			op: follow ? "catch-up" : "before-write", from, knownSize: d.size, statSize: st.size, to: this.#scanned,
			result: r.kind, reason: r.kind === "reloaded" ? r.reason : undefined, entries: this.#cols.count,
		});
		return r;
	}

	#catchUpFrom(st: Stats, d: DiskState, follow: boolean): CatchUpResult {
		if (st.ino !== d.ino || st.dev !== d.dev) return this.#reload("file was replaced");
		if (st.size < d.size || d.size < 0) return this.#reload(d.size < 0 ? "another writer appended at the same time" : "file shrank");
		// omp rewrites its 256-byte title line in place: same size, and the mtime may not even move. Its bytes are
		// compared on every check (one 256-byte read), so the rewrite is noticed and is no reason to reload or to
		// refuse a write.
		const slot = this.#refreshTitleSlot();
		if (slot === "broken") return this.#reload("the title line was rewritten");
		if (st.size === d.size) {
			if (st.mtimeMs !== d.mtimeMs) {
				if (slot === "changed") {
					this.#disk = { ...d, mtimeMs: st.mtimeMs };
					return { kind: "title_changed" };
				}
				if (this.#pendingTail || st.size === 0) return this.#reload("file changed in place");
				return this.#reload("file was rewritten in place");
			}
			return slot === "changed" ? { kind: "title_changed" } : { kind: "none" };
		}
		const before = this.#cols.count;
		this.#readAppended(st.size, follow);
		this.#disk = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, dev: st.dev };
		return slot === "changed" ? { kind: "appended", count: this.#cols.count - before, titleChanged: true } : { kind: "appended", count: this.#cols.count - before };
	}

	/** Re-reads omp's title line (same byte length as loaded): "same", "changed" (a valid new slot) or "broken". */
	#refreshTitleSlot(): "same" | "changed" | "broken" {
		const old = this.#titleSlotBytes;
		if (!old || !this.#file) return "same";
		const n = old.length + 1;
		const raw = Buffer.alloc(n + 3);
		let read = 0;
		const fd = openSync(this.#file, "r");
		try {
			while (read < raw.length) {
				const k = readSync(fd, raw, read, raw.length - read, read);
				if (k === 0) break;
				read += k;
			}
		} finally {
			closeSync(fd);
		}
		// A UTF-8 byte order mark before the title line is not part of it.
		const bom = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? 3 : 0;
		const buf = raw.subarray(bom, bom + n);
		const got = Math.max(0, Math.min(n, read - bom));
		if (got === n && buf[n - 1] === 0x0a && buf.subarray(0, n - 1).equals(old)) return "same";
		if (got !== n || buf[n - 1] !== 0x0a) return "broken";
		let obj: unknown;
		try {
			obj = JSON.parse(buf.subarray(0, n - 1).toString("utf8"));
		} catch {
			return "broken";
		}
		if (!isPlainObject(obj) || (obj as Loose).type !== "title") return "broken";
		this.#titleSlot = obj as Loose;
		this.#titleSlotBytes = Buffer.from(buf.subarray(0, n - 1));
		return "changed";
	}

	/** See #generation: changes when entries already handed out (skeleton, deltas) may differ now. */
	getGeneration(): number {
		return this.#generation;
	}

	#readAppended(size: number, follow: boolean): void {
		const file = this.#file as string;
		const fd = openSync(file, "r");
		try {
			const from = this.#scanned;
			const firstNew = this.#cols.count;
			// Indexing moves the leaf to each new entry. A leaf the user moved stays where it was; a leaf still
			// at the resume point (the last entry) follows the other writer, as a reload would.
			const leaf = this.#leafId;
			const followWriter = follow && (leaf === null ? firstNew === 0 : leaf === this.getResumeLeafId() || leaf === this.#resumeAnchorId());
			this.#pendingTail = undefined;
			this.#sawDuplicate = false;
			const hadHeader = this.#headerOnDisk;
			let headerSeen = hadHeader;
			this.#skimming = this.#lazy && hadHeader && !this.#legacy;
			const res = scanLines(fd, from, size, this.#nextLineNo, (buf, s, e, off, lineNo, hasEol) => {
				this.#parseLine(buf, s, e, off, lineNo, hasEol, (obj, offset, length, ln, exact) => {
					if (!headerSeen) {
						headerSeen = true;
						if (obj.type === "session" && typeof obj.id === "string") {
							this.#header = obj as SessionHeader;
							this.#headerOnDisk = true;
							return;
						}
					}
					if (obj.type === "session") return;
					this.#ingest(obj, exact ? offset : -1, length, ln, !this.#lazy, exact);
				});
			});
			this.#skimming = false;
			this.#finishScan(res.end, res.nextLineNo, res.endsWithNewline);
			// An earlier entry may have named one of the new entries as its parent before it was written (a
			// reload links them, so the live view must too); a duplicate id can re-point earlier links (the
			// later entry wins). Either way earlier entries change: resolve everything and say so.
			let parentArrived = false;
			if (this.#dangling.size > 0) {
				for (let i = firstNew; i < this.#cols.count && !parentArrived; i++) parentArrived = this.#dangling.has(this.#cols.ids[i]);
			}
			this.#resolveParents(this.#hasDuplicates || parentArrived ? 0 : firstNew, firstNew);
			this.#cutCycles();
			if (this.#sawDuplicate || parentArrived) this.#generation++;
			this.#sawDuplicate = false;
			this.#toolCallIndex = undefined;
			if (!followWriter) this.#leafId = leaf;
			else {
				// Lines no tree shows (pi's cache-warmer usage, omp's model_usage) do not carry the in-app leaf
				// along: it stays on the newest visible entry of the writer's branch (no leaf jump every few minutes).
				const anchor = this.#resumeAnchorId();
				if (anchor !== null) this.#leafId = anchor;
			}
		} finally {
			closeSync(fd);
		}
	}

	#syncBeforeWrite(): void {
		const r = this.#catchUp(false);
		if (r.kind === "reloaded") this.#assertWritable();
	}

	#reload(reason: string): CatchUpResult {
		const leaf = this.#leafId;
		this.#loadFile({});
		if (leaf !== null && this.#byId.has(leaf)) this.#leafId = leaf;
		return { kind: "reloaded", reason };
	}

	close(): void {
		this.#cache.clear();
	}

	// ---------------------------------------------------------------- legacy upgrade

	/**
	 * Rewrites a v1/v2 file as v3 after copying it to FILE.bak (never overwritten); returns the .bak path.
	 * Another writer may append meanwhile: the old file stays open, and every byte appended to it after the
	 * part that was rewritten (up to and after the rename) is read back from it and appended to the new
	 * file, so no line is lost. When the file was replaced or shrank instead, the attempt is dropped (with
	 * its .bak) and made again; after 5 such attempts the upgrade is refused (a conflict, nothing changed).
	 */
	upgradeLegacy(): string {
		if (!this.#persistent || !this.#file) throw new Error("upgradeLegacy needs a session file");
		const file = this.#file;
		if (!this.#legacy) throw new SessionFileError("bad_file", file, "file is already at the current version; nothing to upgrade");
		if (this.#writeBlock) throw this.#writeBlock;
		for (let attempt = 0; attempt < 5; attempt++) {
			const bak = this.#upgradeOnce(file);
			if (bak !== null) return bak;
		}
		throw new SessionFileError("conflict", file, "another program kept replacing the file during the upgrade; nothing was changed (try again when it is idle)");
	}

	/** One upgrade attempt; null when the file changed under it (nothing changed then, no .bak left). */
	#upgradeOnce(file: string): string | null {
		this.catchUp();
		if (!this.#legacy) throw new SessionFileError("conflict", file, "the file was replaced during the upgrade; nothing was changed");
		// Serialize first: an entry that cannot be written (nested too deep) must fail before any file exists.
		const parts: Buffer[] = [];
		if (this.#titleSlotBytes) parts.push(this.#titleSlotBytes, Buffer.from("\n"));
		parts.push(Buffer.from(`${serializeForRewrite(this.#header, file)}\n`, "utf8"));
		for (let i = 0; i < this.#cols.count; i++) {
			parts.push(Buffer.from(`${serializeForRewrite(this.#forWriting(i, this.#cache.get(i) as Loose), file)}\n`, "utf8"));
		}
		const indexed = this.#disk as DiskState;
		// Bytes past this offset (another writer's later or unfinished lines) are not in `parts`.
		const rewritten = this.#scanned;
		// The original stays open: after the rename, anything appended to it in the last instant is read back.
		let fd: number;
		try {
			fd = openSync(file, "r");
		} catch (err) {
			throw ioError(file, err, "reading the file for its backup copy");
		}
		try {
			const st = fstatSync(fd);
			if (st.ino !== indexed.ino || st.size < indexed.size) return null;
			const original = Buffer.alloc(st.size);
			let off = 0;
			while (off < original.length) {
				const n = readSync(fd, original, off, original.length - off, off);
				if (n === 0) break;
				off += n;
			}
			if (off !== original.length) return null;
			let bak = `${file}.bak`;
			for (let k = 1; existsSync(bak); k++) bak = `${file}.bak.${k}`;
			// The backup goes through a temp file, fsync and a no-clobber link like every new file: a kill in the
			// middle of the copy must not leave a partial .bak that looks like the original.
			writeNewFile(bak, [original]);
			// Only appends are followed: the same file, not shorter.
			const unchanged = (): boolean => {
				try {
					const now = statSync(file);
					return now.ino === st.ino && now.size >= st.size;
				} catch {
					return false;
				}
			};
			const replaced = writeReplacingFile(file, parts, 0o644, unchanged);
			if (replaced === null) {
				try { unlinkSync(bak); } catch { /* already gone */ }
				return null;
			}
			const late = fstatSync(fd).size - rewritten;
			if (late > 0) {
				const extra = Buffer.alloc(late);
				readSync(fd, extra, 0, late, rewritten);
				const tail = extra[extra.length - 1] === 0x0a ? [extra] : [extra, Buffer.from("\n")];
				appendBytes(file, tail, replaced.size);
			}
			const leaf = this.#leafId;
			this.#loadFile({});
			if (leaf !== null && this.#byId.has(leaf)) this.#leafId = leaf;
			return bak;
		} finally {
			closeSync(fd);
		}
	}

	// ---------------------------------------------------------------- branch to a new file

	/**
	 * `options.sessionDir`: write the new file there instead of the current folder (like pi's
	 * `open(path, sessionDir)`); the temp file, fsync and no-clobber link all happen in that folder.
	 */
	createBranchedSession(leafId: string, options: BranchOptions = {}): string | undefined {
		// Raw line bytes are copied by offset: make sure the index still describes the file on disk.
		if (this.#persistent && this.#disk) this.#catchUp(false);
		const leafIndex = typeof leafId === "string" ? this.#byId.get(leafId) : undefined;
		if (leafIndex === undefined) throw new Error(`Entry ${leafId} not found`);
		const c = this.#cols;
		const path = this.pathIndices(leafIndex);
		const kept: number[] = [];
		// New parent id for kept entries whose path parent was a dropped label (pi would orphan them).
		const reparent = new Map<number, string | null>();
		let prevKept: number = -1;
		let prevWasLabel = false;
		// pi 1.6 (0.79.2): a compaction whose firstKeptEntryId names a dropped label keeps from the entry after it.
		const labelReplacement = new Map<string, string>();
		const pendingLabels: string[] = [];
		for (const i of path) {
			if (c.kind[i] === EntryKind.label) { prevWasLabel = true; pendingLabels.push(c.ids[i]); continue; }
			if (prevWasLabel) reparent.set(i, prevKept >= 0 ? c.ids[prevKept] : null);
			for (const l of pendingLabels) labelReplacement.set(l, c.ids[i]);
			pendingLabels.length = 0;
			kept.push(i);
			prevKept = i;
			prevWasLabel = false;
		}
		const keptFrom = new Map<number, string>();
		if (labelReplacement.size > 0) {
			for (const i of kept) {
				if (c.kind[i] !== EntryKind.compaction) continue;
				const fk = (this.#cache.get(i) as Loose).firstKeptEntryId;
				if (typeof fk === "string" && fk !== c.ids[i] && labelReplacement.has(fk)) keptFrom.set(i, labelReplacement.get(fk) as string);
			}
		}
		const forWriting = (i: number): Loose => {
			const e = this.#forWriting(i, this.#cache.get(i) as Loose, reparent.get(i));
			const fk = keptFrom.get(i);
			return fk === undefined ? e : { ...e, firstKeptEntryId: fk };
		};
		const keptIds = new Set<string>();
		for (const i of kept) keptIds.add(c.ids[i]);
		const labelEntries: Loose[] = [];
		let parentId: string | null = prevKept >= 0 ? c.ids[prevKept] : null;
		if (parentId !== null && parentId.startsWith(SYNTHETIC_PREFIX)) parentId = null;
		const taken = new Set(keptIds);
		for (const [targetId, st] of this.#labelsById) {
			if (!keptIds.has(targetId)) continue;
			const id = generateEntryId((x) => taken.has(x));
			taken.add(id);
			labelEntries.push({ type: "label", id, parentId, timestamp: st.timestamp, targetId, label: st.label });
			parentId = id;
		}
		const timestamp = new Date().toISOString();
		const sessionId = createSessionId();
		const header: SessionHeader = {
			type: "session", version: CURRENT_SESSION_VERSION, id: sessionId, timestamp, cwd: this.#cwd,
		};
		if (this.#persistent && this.#file) header.parentSession = this.#file;

		if (!this.#persistent) {
			const objs = kept.map((i) => forWriting(i));
			this.#resetIndex();
			this.#header = header;
			this.#headerOnDisk = false;
			for (const o of [...objs, ...labelEntries]) this.#ingest(o, -1, 0, 0, true);
			this.#resolveParents(0);
			this.#cutCycles();
			return undefined;
		}

		const dir = options.sessionDir !== undefined ? resolve(options.sessionDir) : this.#dir;
		const newFile = join(dir, sessionFileName(timestamp, sessionId));
		const headerBytes = Buffer.from(`${JSON.stringify(header)}\n`, "utf8");
		// Lay the new file out first (only re-parented and in-memory entries are serialized), then fill one
		// buffer: copied lines are read from the source straight into place, runs of neighbouring lines at once.
		const placed: { i: number; offset: number; length: number; obj: Loose | undefined }[] = [];
		const rewritten: Buffer[] = [];
		const copyIdx: number[] = [];
		const copyPos: number[] = [];
		let pos = headerBytes.length;
		for (const i of kept) {
			if (!reparent.has(i) && !keptFrom.has(i) && c.offset[i] >= 0) {
				copyIdx.push(i);
				copyPos.push(pos);
				placed.push({ i, offset: pos, length: c.length[i], obj: undefined });
				pos += c.length[i] + 1;
				continue;
			}
			const e = forWriting(i);
			const line = Buffer.from(`${serializeForRewrite(e, this.#file ?? "session")}\n`, "utf8");
			rewritten.push(line);
			placed.push({ i, offset: pos, length: line.length - 1, obj: e });
			pos += line.length;
		}
		const labelPlaced: { obj: Loose; offset: number; length: number }[] = [];
		const labelLines: Buffer[] = [];
		for (const l of labelEntries) {
			const line = Buffer.from(`${JSON.stringify(l)}\n`, "utf8");
			labelLines.push(line);
			labelPlaced.push({ obj: l, offset: pos, length: line.length - 1 });
			pos += line.length;
		}
		const content = Buffer.allocUnsafe(pos);
		headerBytes.copy(content, 0);
		let r = 0;
		for (const p of placed) if (p.obj) rewritten[r++].copy(content, p.offset);
		labelLines.forEach((line, k) => line.copy(content, labelPlaced[k].offset));
		if (!this.#cache.copyLinesInto(copyIdx, copyPos, content)) {
			throw new SessionFileError("conflict", this.#file ?? "(memory)", "the file changed under the open session (it is shorter than indexed); reload it");
		}
		mkdirSync(dir, { recursive: true });
		// One buffer, one write: thousands of small writes cost more than the copy.
		const disk = writeNewFile(newFile, [content]);
		if (options.adopt === false) return newFile;
		this.#adoptBranchFile(newFile, header, disk, placed, labelPlaced);
		this.#dir = dir;
		return newFile;
	}

	/** Switches to a file this process just wrote, carrying the index over from the source entries. */
	#adoptBranchFile(
		file: string, header: SessionHeader, disk: DiskState,
		placed: { i: number; offset: number; length: number; obj: Loose | undefined }[],
		labels: { obj: Loose; offset: number; length: number }[],
	): void {
		const old = this.#cols;
		const oldCache = this.#cache;
		const keepFlags = EntryFlag.toolOnly | EntryFlag.error | EntryFlag.aborted | EntryFlag.hasThinking | EntryFlag.hasToolCalls |
			EntryFlag.hasImage | EntryFlag.hidden | EntryFlag.truncated | EntryFlag.syntheticId;
		const bodies = placed.map((p) => p.obj ?? (this.#lazy ? undefined : (oldCache.get(p.i) as Loose)));
		this.#resetIndex();
		this.#file = file;
		this.#header = header;
		this.#fileVersion = CURRENT_SESSION_VERSION;
		this.#disk = disk;
		this.#cache.setFile(file, false);
		let line = 2;
		placed.forEach((p, k) => {
			const rawParent = p.obj ? ((typeof p.obj.parentId === "string" || p.obj.parentId === null) ? p.obj.parentId : undefined) : old.rawParent[p.i];
			const i = this.#addRow(old.ids[p.i], rawParent as string | null | undefined, old.kind[p.i], old.flags[p.i] & keepFlags,
				old.time[p.i], old.tokens[p.i], p.offset, p.length, line++);
			this.#cols.cost[i] = old.cost[p.i]; // branch cost: skeleton cost column
			const body = bodies[k];
			if (body) this.#cache.put(i, body as SessionEntry, !this.#lazy || p.obj !== undefined);
		});
		for (const l of labels) this.#ingest(l.obj, l.offset, l.length, line++, true);
		this.#scanned = disk.size;
		this.#nextLineNo = line;
		this.#endsWithNewline = true;
		this.#resolveParents(0);
		this.#cutCycles();
	}

	// ---------------------------------------------------------------- model context

	buildSessionContext(leafId?: string | null): SessionContext {
		const leaf = leafId === undefined ? this.#leafId : leafId;
		if (leaf === null) return { messages: [], thinkingLevel: "off", model: null };
		const c = this.#cols;
		if (c.count === 0) return { messages: [], thinkingLevel: "off", model: null };
		const idx = (leaf ? this.#byId.get(leaf) : undefined) ?? c.count - 1;
		const path = this.pathIndices(idx);
		return buildContextFromPath({ kind: c.kind, ids: c.ids, entryAt: (i) => this.#cache.get(i) }, path);
	}

	/** Path indices pi's context rules start from: [] for an explicit null leaf, else the path to the leaf (unknown id: the last entry). */
	#contextPath(leafId: string | null | undefined): ArrayLike<number> {
		const leaf = leafId === undefined ? this.#leafId : leafId;
		const c = this.#cols;
		if (leaf === null || c.count === 0) return [];
		return this.pathIndices((leaf ? this.#byId.get(leaf) : undefined) ?? c.count - 1);
	}

	/**
	 * pi 1.6's buildSessionProjection: every context entry (as an index) with the messages it contributes after
	 * context edits (`editIndex` names the edit applied), plus the context itself.
	 */
	buildSessionProjection(leafId?: string | null): SessionProjection {
		const c = this.#cols;
		return buildProjectionFromPath({ kind: c.kind, ids: c.ids, entryAt: (i) => this.#cache.get(i) }, this.#contextPath(leafId));
	}

	/** pi 1.6's buildContextEntries: the compaction-aware entry list the context is built from. */
	buildContextEntries(leafId?: string | null): SessionEntry[] {
		const c = this.#cols;
		const path = this.#contextPath(leafId);
		const src = { kind: c.kind, ids: c.ids, entryAt: (i: number) => this.#cache.get(i) };
		return contextEntryPositions(src, path).map((p) => this.#cache.get(path[p]));
	}

	// ---------------------------------------------------------------- skeleton, previews, search

	#skeletonLabels(): SkeletonLabel[] {
		const out: SkeletonLabel[] = [];
		for (const [targetId, st] of this.#labelsById) {
			const target = this.#byId.get(targetId);
			if (target === undefined) continue;
			out.push({ target, label: st.label, time: st.timestamp ? new Date(st.timestamp).getTime() : Number.NaN });
		}
		return out;
	}

	#leafIndex(): number {
		return this.#leafId === null ? -1 : (this.#byId.get(this.#leafId) ?? -1);
	}

	getSkeleton(): Skeleton {
		const c = this.#cols;
		const n = c.count;
		return {
			count: n,
			ids: c.ids.slice(0, n),
			parent: c.parent.slice(0, n),
			kind: c.kind.slice(0, n),
			flags: c.flags.slice(0, n),
			time: c.time.slice(0, n),
			tokens: c.tokens.slice(0, n),
			cost: c.cost.slice(0, n), // branch cost: skeleton cost column
			labels: this.#skeletonLabels(),
			leaf: this.#anchorOf(this.#leafIndex()),
			resumeLeaf: this.#resumeAnchorIndex(),
		};
	}

	getSkeletonDelta(start: number): SkeletonDelta {
		const c = this.#cols;
		const n = c.count;
		const s = Math.max(0, Math.min(start, n));
		return {
			start: s,
			ids: c.ids.slice(s, n),
			parent: c.parent.slice(s, n),
			kind: c.kind.slice(s, n),
			flags: c.flags.slice(s, n),
			time: c.time.slice(s, n),
			tokens: c.tokens.slice(s, n),
			cost: c.cost.slice(s, n), // branch cost: skeleton cost column
			labels: this.#skeletonLabels(),
			leaf: this.#anchorOf(this.#leafIndex()),
			resumeLeaf: this.#resumeAnchorIndex(),
		};
	}

	#findToolCall(fromIndex: number, toolCallId: string): ToolCallBlock | undefined {
		const c = this.#cols;
		// The call is almost always a few steps up the path (assistant → toolResult → toolResult...).
		let j = c.parent[fromIndex];
		for (let hops = 0; j >= 0 && hops < 64; hops++, j = c.parent[j]) {
			if (c.kind[j] !== EntryKind.assistant || !(c.flags[j] & EntryFlag.hasToolCalls)) continue;
			const hit = toolCallIn(this.#cache.get(j), toolCallId);
			if (hit) return hit;
		}
		// pi's tree selector maps every tool call in the session; fall back to a lazily built index.
		if (!this.#toolCallIndex || this.#toolCallIndexCount !== c.count) {
			const idx = new Map<string, number>();
			for (let i = 0; i < c.count; i++) {
				if (c.kind[i] !== EntryKind.assistant || !(c.flags[i] & EntryFlag.hasToolCalls)) continue;
				const m = (this.#cache.get(i) as Loose).message;
				const content = isPlainObject(m) ? m.content : undefined;
				if (!Array.isArray(content)) continue;
				for (const b of content) if (isPlainObject(b) && b.type === "toolCall" && typeof b.id === "string") idx.set(b.id, i);
			}
			this.#toolCallIndex = idx;
			this.#toolCallIndexCount = c.count;
		}
		const at = this.#toolCallIndex.get(toolCallId);
		return at === undefined ? undefined : toolCallIn(this.#cache.get(at), toolCallId);
	}

	getPreviews(indices: number[], opts: { homeDir?: string } = {}): string[] {
		const homeDir = opts.homeDir ?? process.env.HOME ?? process.env.USERPROFILE ?? "";
		const c = this.#cols;
		const valid = indices.filter((i) => i >= 0 && i < c.count);
		// One batch (sorted by offset, neighbouring lines in one positional read) for the rows and the assistant
		// entries their tool results name, instead of a read per entry.
		const want = new Set<number>(valid);
		for (const i of valid) {
			if (c.kind[i] !== EntryKind.toolResult) continue;
			let j = c.parent[i];
			for (let hops = 0; j >= 0 && hops < 64; hops++, j = c.parent[j]) {
				if (c.kind[j] === EntryKind.assistant && c.flags[j] & EntryFlag.hasToolCalls) {
					want.add(j);
					break;
				}
			}
		}
		const batch = [...want];
		const got = this.#cache.getMany(batch);
		const byIndex = new Map<number, SessionEntry>();
		batch.forEach((i, k) => byIndex.set(i, got[k]));
		return indices.map((i) => {
			const e = byIndex.get(i);
			if (!e) return "";
			return previewText(e, (id) => this.#findToolCall(i, id), { homeDir });
		});
	}

	/** What cards need beyond the skeleton, per index (shared/card-facts.ts); read in one batch as getPreviews. */
	getCardFacts(indices: number[], opts: { homeDir?: string } = {}): (CardFacts | null)[] {
		const homeDir = opts.homeDir ?? process.env.HOME ?? process.env.USERPROFILE ?? "";
		const c = this.#cols;
		const valid = indices.filter((i) => i >= 0 && i < c.count);
		const got = this.#cache.getMany(valid);
		const byIndex = new Map<number, SessionEntry>();
		valid.forEach((i, k) => byIndex.set(i, got[k]));
		return indices.map((i) => {
			const e = byIndex.get(i);
			return e ? cardFacts(e, (id) => this.#findToolCall(i, id), { homeDir }) : null;
		});
	}

	/** Usage lines (pi's usage, omp's model_usage) summed into the entry each hangs under (shared/card-facts.ts). */
	getUsageRollup(): UsageRollup[] {
		const c = this.#cols;
		const lines: number[] = [];
		for (let i = 0; i < c.count; i++) if (isAlwaysHiddenKind(c.kind[i])) lines.push(i);
		const got = this.#cache.getMany(lines);
		const facts = new Map<number, UsageFacts | undefined>();
		lines.forEach((i, k) => facts.set(i, usageFacts((got[k] as Loose).usage)));
		return usageRollup({ count: c.count, parent: c.parent, kind: c.kind }, (i) => facts.get(i));
	}

	/** pi's query rules over pi's searchable text ("pi") or all text ("full"); matching indices ascending. */
	search(query: string, scope: SearchScope): number[] {
		return this.#search.search(query, scope);
	}

	/**
	 * search() in slices that hand the thread back between them (SearchIndex.searchCooperative), for a
	 * process that must keep answering while a first query reads a big file. Resolves undefined when
	 * `stop()` says so; a reload of the file during the search starts it again on the new index.
	 */
	async searchCooperative(query: string, scope: SearchScope, opts: { sliceMs?: number; stop?: () => boolean } = {}): Promise<number[] | undefined> {
		for (;;) {
			const index = this.#search;
			let replaced = false;
			const result = await index.searchCooperative(query, scope, {
				sliceMs: opts.sliceMs,
				stop: () => (replaced = this.#search !== index) || (opts.stop?.() ?? false),
			});
			if (!replaced) return result;
			if (opts.stop?.()) return undefined;
		}
	}
}

/**
 * What a file without any JSON record holds, for its warning: blank lines, carriage returns without line
 * feeds, NUL bytes (a crash can leave a file of zeros), or lines that are not JSON. Reads at most 64 KiB.
 */
function describeHeaderless(fd: number, size: number): string {
	const sample = Buffer.alloc(Math.min(size, 64 * 1024));
	let n = 0;
	try {
		n = readSync(fd, sample, 0, sample.length, 0);
	} catch {
		n = 0;
	}
	let lf = 0, cr = 0, blank = 0, nul = 0, other = 0;
	for (let i = 0; i < n; i++) {
		const b = sample[i];
		if (b === 0x0a) lf++;
		else if (b === 0x0d) cr++;
		else if (b === 0x20 || b === 0x09) blank++;
		else if (b === 0x00) nul++;
		else other++;
	}
	const tail = "no session header yet (one is written before the first entry)";
	const sampled = n < size ? ` (first ${n} of ${size} bytes)` : "";
	if (other === 0 && nul === 0 && cr === 0) return `file has only blank lines: ${tail}`;
	if (other === 0 && nul === 0) {
		return lf === 0
			? `file holds only carriage returns (${cr} CR${blank ? " and spaces" : ""}) and no line feed${sampled}: ${tail}`
			: `file holds only blank lines ended with carriage returns and line feeds${sampled}: ${tail}`;
	}
	if (other === 0) {
		const rest = [lf ? "line feeds" : "", cr ? "carriage returns" : "", blank ? "spaces" : ""].filter(Boolean);
		return `file holds only NUL bytes (${nul}${rest.length ? `, with ${rest.join(", ")}` : ""})${sampled}, as a crash can leave it: ${tail}`;
	}
	return `file has no line that is a JSON record${nul ? ` (it holds ${nul} NUL bytes)` : ""}${sampled}: ${tail}`;
}

function toolCallIn(entry: SessionEntry | undefined, toolCallId: string): ToolCallBlock | undefined {
	const m = (entry as Loose | undefined)?.message;
	if (!isPlainObject(m) || !Array.isArray(m.content)) return undefined;
	for (const b of m.content) {
		if (isPlainObject(b) && b.type === "toolCall" && b.id === toolCallId) return b as unknown as ToolCallBlock;
	}
	return undefined;
}

/**
 * pi treats any truthy `label` as a label. A hostile file can put an object or a 20,000-deep array there,
 * where String() would recurse until the stack overflows; show such a value as bounded JSON instead.
 */
function labelText(label: unknown): string {
	if (typeof label === "string") return label;
	if (typeof label !== "object" || label === null) return String(label);
	try {
		return JSON.stringify(label).slice(0, 200);
	} catch {
		return "[unreadable label]";
	}
}

/**
 * JSON of an entry Arbor must write again (legacy upgrade, a re-parented line of a branched file).
 * JSON.parse accepts values nested far deeper than JSON.stringify can write back; such an entry is a
 * typed error before any file is created, not a crash.
 */
function serializeForRewrite(entry: unknown, file: string): string {
	try {
		return JSON.stringify(entry);
	} catch (err) {
		const raw = typeof entry === "object" && entry !== null ? (entry as { id?: unknown }).id : undefined;
		const id = typeof raw === "string" ? ` ${raw.slice(0, 40)}` : "";
		throw new SessionFileError("bad_file", file, `entry${id} is nested too deeply to be written again; nothing was changed`, undefined, { cause: err });
	}
}
