// Reading a session file into an index (one part of SessionManager, docs/session-core.md "Parts"): one
// physical line at a time (UTF-8 check, BOM, the byte skimmer on large files, glued records, a torn last
// line), and a whole file in steps: title slot, header, legacy records migrated in memory, warnings.
// Reading never writes.

import { isUtf8 } from "node:buffer";
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync, statSync } from "node:fs";
import type { SessionHeader } from "../../shared/entries";
import { CURRENT_SESSION_VERSION } from "../../shared/entries";
import { SMALL_FILE_BYTES } from "./entry-cache";
import { EntryIndex } from "./entry-index";
import { SessionFileError, ioError } from "./errors";
import { createSessionId } from "./ids";
import { isRecord } from "../../shared/guards";
import type { EntryKindCode } from "../../shared/skeleton";
import { recoverGlued, scanLinesSteps } from "./jsonl";
import { PROBE_BYTES, type RecordPlace, type RecordReader, type SessionFormat } from "./formats/format";
import { piRecordReader } from "./formats/pi/format";
import { headerVersion, migrateRecords } from "./formats/pi/migrate";
import { hasSlotShape, isTitleRecord } from "./formats/omp/title-slot";
import { detectFormat } from "./formats/registry";
import type { DiskState } from "./write";

type Loose = Record<string, unknown>;

/** An unterminated, unparseable final line (another writer may be mid-line, or a crash cut it). */
export interface PendingTail {
	offset: number;
	lineNo: number;
}

/** Where indexing stopped: bytes indexed (complete lines, plus a parseable unterminated last line), next line number. */
export interface FileEnd {
	scanned: number;
	nextLineNo: number;
	endsWithNewline: boolean;
	pendingTail: PendingTail | undefined;
}

export type RecordSink = (obj: Loose, offset: number, length: number, lineNo: number, exact: boolean, lineBytes: Buffer | undefined) => void;

/** Parses physical lines into records for one scan (a load or a catch-up) of one index. */
export class LineReader {
	readonly #index: EntryIndex;
	/** The line parser may skim (header seen, not a legacy file, lazy mode). */
	skimming: boolean;
	/** While loading: no record parsed yet (a bad first line then means a bad header). */
	beforeFirstRecord: boolean;
	/** The file starts with a UTF-8 byte-order mark (see parseLine). */
	bomAtStart = false;
	pendingTail: PendingTail | undefined;
	/** File bytes [#utf8From, #utf8To) are known to be valid UTF-8 (one check per chunk read). */
	#utf8From = 0;
	#utf8To = -1;
	/** The file's format reader: its skimmer (when it has one) indexes lines without parsing them. */
	readonly #records: RecordReader;
	/** One place object per reader, refilled for each skimmed line (valid during the call only). */
	readonly #at: RecordPlace = { lineNo: 0, offset: 0, length: 0 };

	constructor(index: EntryIndex, skimming: boolean, beforeFirstRecord: boolean, records: RecordReader = piRecordReader) {
		this.#index = index;
		this.skimming = skimming && records.skim !== undefined;
		this.beforeFirstRecord = beforeFirstRecord;
		this.#records = records;
	}

	/** One UTF-8 check for a whole chunk of lines (valid as a whole = every line in it valid). */
	noteChunk(buf: Buffer, end: number, offset: number): void {
		this.#utf8From = offset;
		this.#utf8To = end > 0 && isUtf8(buf.subarray(0, end)) ? offset + end : -1;
	}

	/** Where the scan that ended at `end` leaves the index (a pending torn line is not indexed yet). */
	end(end: number, nextLineNo: number, endsWithNewline: boolean): FileEnd {
		const t = this.pendingTail;
		if (t) return { scanned: t.offset, nextLineNo: t.lineNo, endsWithNewline: false, pendingTail: t };
		return { scanned: end, nextLineNo, endsWithNewline, pendingTail: undefined };
	}

	/** Parses one physical line and hands every record found to `sink`. Never throws on bad content. */
	parseLine(buf: Buffer, s: number, e: number, offset: number, lineNo: number, hasEol: boolean, sink: RecordSink): void {
		const ix = this.#index;
		if (offset === 0 && e - s >= 3 && buf[s] === 0xef && buf[s + 1] === 0xbb && buf[s + 2] === 0xbf) {
			// A UTF-8 byte-order mark: pi 1.6 reads the first line as not JSON, so the file has no session
			// header for pi (it refuses the file). Same rule here: shown read-only, never written, no byte stripped.
			this.bomAtStart = true;
			s += 3;
			offset += 3;
		}
		let a = s;
		while (a < e && (buf[a] === 32 || buf[a] === 9 || buf[a] === 13)) a++;
		if (a === e) return;
		if (!(offset >= this.#utf8From && offset + (e - s) <= this.#utf8To) && !isUtf8(buf.subarray(s, e))) {
			ix.warn(lineNo, "invalid_utf8", "line has bytes that are not UTF-8; they read as U+FFFD");
		}
		// An unterminated last line may be cut mid-record: only JSON.parse can judge it.
		if (this.skimming && hasEol) {
			const at = this.#at;
			at.lineNo = lineNo;
			at.offset = offset;
			at.length = e - s;
			const rows = this.#records.skim?.(buf, s, e, at);
			if (rows) {
				for (const row of rows) ix.ingestRow(row, offset, e - s, lineNo);
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
				this.pendingTail = { offset, lineNo };
				ix.warn(lineNo, "truncated_last_line", "last line is incomplete (no newline, not valid JSON)");
				return;
			}
			if (this.beforeFirstRecord) {
				ix.warn(lineNo, "bad_header", "first line is not a valid session header (not JSON)");
			}
			const rec = recoverGlued(text);
			if (rec.objects.length > 0) {
				ix.warn(
					lineNo,
					"glued_objects",
					`line holds ${rec.objects.length} records glued together${rec.lost ? " plus an unreadable fragment" : ""}; recovered them (pi drops the whole line)`,
				);
				for (const o of rec.objects) sink(o, offset, e - s, lineNo, false, undefined);
			} else {
				ix.warn(lineNo, "malformed_line", "line is not valid JSON; skipped");
			}
			return;
		}
		if (!isRecord(obj)) {
			if (this.beforeFirstRecord) ix.warn(lineNo, "bad_header", "first line is not a valid session header (not a JSON object)");
			ix.warn(lineNo, "malformed_line", "line is JSON but not an object; skipped");
			return;
		}
		sink(obj, offset, e - s, lineNo, true, buf.subarray(s, e));
	}
}

/** A whole file as read: its index and what the writer needs to know about the file. */
export interface LoadedFile {
	index: EntryIndex;
	header: SessionHeader;
	/** False for an empty file until a header line has been written. */
	headerOnDisk: boolean;
	titleSlot: Loose | undefined;
	/** omp's title line verbatim (fixed-width: written back byte for byte). */
	titleSlotBytes: Buffer | undefined;
	fileVersion: number;
	legacy: boolean;
	/** Set when writing would damage the file (no valid header): every write throws it. */
	writeBlock: SessionFileError | undefined;
	disk: DiskState;
	end: FileEnd;
	/** The file's format (formats/registry.ts), and its reader: a catch-up of appended lines continues with it. */
	format: SessionFormat;
	records: RecordReader;
}

export interface LoadInput {
	/** Keep bodies on disk (default: files of SMALL_FILE_BYTES and more). */
	lazy: boolean | undefined;
	onProgress?(doneBytes: number, totalBytes: number): void;
	/** cwd for a header made up for a file without one. */
	cwd: string;
	/** Version kept when the file names none (a headerless file). */
	fileVersion: number;
	/** Synthetic ids already handed out (see EntryIndex.syntheticCount). */
	syntheticCount: number;
	/** The format to read the file as (default: detected from its first bytes and path, formats/registry.ts). */
	format?: SessionFormat;
}

/** Loading as steps (steps.ts): one per chunk of the file scanned. */
export function* loadFileSteps(file: string, input: LoadInput): Generator<void, LoadedFile> {
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
		const ix = new EntryIndex(input.lazy ?? st.size >= SMALL_FILE_BYTES, input.syntheticCount);
		const format = input.format ?? detectFormat({ path: file, head: readHead(fd, st.size) });
		const records = format.newReader();
		const out: LoadedFile = {
			index: ix,
			header: undefined as unknown as SessionHeader,
			headerOnDisk: true,
			titleSlot: undefined,
			titleSlotBytes: undefined,
			fileVersion: input.fileVersion,
			legacy: false,
			writeBlock: undefined,
			disk: { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, dev: st.dev },
			end: undefined as unknown as FileEnd,
			format,
			records,
		};
		const madeUpHeader = (): SessionHeader => ({
			type: "session",
			version: CURRENT_SESSION_VERSION,
			id: createSessionId(),
			timestamp: new Date().toISOString(),
			cwd: input.cwd,
		});
		if (!format.readsAsPi) return yield* loadForeignSteps(file, fd, st.size, out, input);
		const reader = new LineReader(ix, false, true, records);
		const legacyRecords: { obj: Loose; line: number }[] = [];
		let headerSeen = false;
		const sink: RecordSink = (obj, offset, length, lineNo, exact, lineBytes) => {
			if (reader.beforeFirstRecord) {
				reader.beforeFirstRecord = false;
				if (isTitleRecord(obj)) {
					// omp's title slot; also tolerate third-party title lines that miss omp's exact shape.
					out.titleSlot = obj;
					// Kept verbatim: omp's slot is fixed-width and must be written back byte for byte.
					out.titleSlotBytes = lineBytes ? Buffer.from(lineBytes) : Buffer.from(JSON.stringify(obj));
					if (!hasSlotShape(obj, length)) {
						ix.warn(lineNo, "title_slot", "title line does not have omp's fixed-width slot shape; read as a title anyway");
					}
					return;
				}
			}
			if (!headerSeen) {
				headerSeen = true;
				if (obj.type === "session" && typeof obj.id === "string") {
					out.header = obj as SessionHeader;
					out.fileVersion = headerVersion(obj);
					if (out.fileVersion < CURRENT_SESSION_VERSION) {
						out.legacy = true;
						ix.warn(0, "legacy_version", `version ${String(obj.version ?? 1)} file: migrated in memory; writing needs an upgrade`);
					}
					reader.skimming = ix.lazy && !out.legacy;
					return;
				}
				ix.warn(lineNo, "bad_header", "first record is not a valid session header; entries loaded, writing disabled");
				out.writeBlock = new SessionFileError(
					"bad_file",
					file,
					"the session header is missing or malformed; refusing to write (the file was not modified)",
					lineNo,
				);
				out.header = madeUpHeader();
			}
			if (obj.type === "session") {
				// pi ignores later header lines entirely (they are not entries).
				ix.warn(lineNo, "other", "extra session header line ignored");
				return;
			}
			if (out.legacy) legacyRecords.push({ obj, line: lineNo });
			else ix.ingest(obj, exact ? offset : -1, length, lineNo, !ix.lazy, exact);
		};
		const res = yield* scanLinesSteps(
			fd,
			0,
			st.size,
			1,
			(buf, s, e, off, lineNo, hasEol) => {
				reader.parseLine(buf, s, e, off, lineNo, hasEol, sink);
			},
			{ onProgress: input.onProgress, onChunk: (buf, end, offset) => reader.noteChunk(buf, end, offset) },
		);
		out.end = reader.end(res.end, res.nextLineNo, res.endsWithNewline);
		if (reader.bomAtStart) {
			const why =
				"file starts with a UTF-8 byte-order mark (EF BB BF): pi 1.6 reads no session header behind it and refuses the file, so Arbor shows it read-only and never writes to it (the file was not modified; remove the first 3 bytes to use it)";
			ix.warn(1, "bad_header", why);
			out.writeBlock = new SessionFileError("bad_file", file, why, 1);
		}
		if (!headerSeen) {
			// Empty (or blank-only) file: pi rewrites it with a fresh header; we write one before the
			// first entry instead, so nothing that was in the file is ever replaced.
			out.header = madeUpHeader();
			out.headerOnDisk = false;
			ix.warn(0, "bad_header", st.size > 0 ? describeHeaderless(fd, st.size) : "file is empty: no session header yet (one is written before the first entry)");
			// First: it says what the file holds (the CLI reports the first bad_header warning).
			const w = ix.warnings.pop();
			if (w) ix.warnings.unshift(w);
		}
		if (out.legacy) {
			const records = [out.header as Loose, ...legacyRecords.map((r) => r.obj)];
			migrateRecords(records, out.fileVersion);
			for (const r of legacyRecords) ix.ingest(r.obj, -1, 0, r.line, true);
		}
		ix.link();
		ix.cache.setFile(file);
		return out;
	} finally {
		closeSync(fd);
	}
}

/** The file's first bytes (up to PROBE_BYTES) for format detection; a read error gives none. */
function readHead(fd: number, size: number): Buffer {
	const head = Buffer.alloc(Math.min(size, PROBE_BYTES));
	try {
		return head.subarray(0, readSync(fd, head, 0, head.length, 0));
	} catch {
		return head.subarray(0, 0);
	}
}

/** The error every write to a read-only format's file throws (one code, naming the agent). */
export function readOnlyError(file: string, format: SessionFormat): SessionFileError {
	return new SessionFileError(
		"read_only_format",
		file,
		`this is a ${format.agentName} session file, which Arbor reads but never writes; continue it with ${format.agentName} itself (the file was not modified)`,
	);
}

/**
 * A foreign format's record sink: each parsed record becomes the rows its reader gives, their entries mapped by
 * the format (kept in memory on small files, re-read from the line's offset on large ones: EntryCache). Rows of
 * a record recovered from a glued line are never the resume point (as for pi's).
 */
export function foreignSink(ix: EntryIndex, format: SessionFormat, records: RecordReader): RecordSink {
	return (obj, offset, length, lineNo, exact) => {
		const rows = records.read(obj, { lineNo, offset, length });
		for (let k = 0; k < rows.length; k++) {
			const row = rows[k];
			const part = row.part ?? k;
			const parentId = typeof row.parentId === "string" ? row.parentId : null;
			ix.ingestRow(row, exact ? offset : -1, length, lineNo, (id) => format.toEntry(obj, { id, parentId, part }), !ix.lazy, exact);
		}
	};
}

/** After rows were added: the resume point by the format's own rule. */
export function applyResumeRule(ix: EntryIndex, format: SessionFormat): void {
	const c = ix.cols;
	const core = ix.resumeIndex;
	const r = format.resumeRow({
		count: c.count,
		idAt: (i) => c.ids[i],
		kindAt: (i) => c.kind[i] as EntryKindCode,
		// The core's own rule: the last resumable row; rows after it were recovered from glued lines.
		resumableAt: (i) => i <= core,
	});
	if (r === core) return;
	ix.resumeIndex = r;
	ix.leafId = r >= 0 ? c.ids[r] : null;
}

/** A foreign (read-only) format's file: no pi header, title slot or migration; every record through its reader. */
function* loadForeignSteps(file: string, fd: number, size: number, out: LoadedFile, input: LoadInput): Generator<void, LoadedFile> {
	const ix = out.index;
	out.header = { type: "session", version: CURRENT_SESSION_VERSION, id: createSessionId(), timestamp: new Date().toISOString(), cwd: input.cwd };
	out.writeBlock = out.format.writable ? undefined : readOnlyError(file, out.format);
	const reader = new LineReader(ix, ix.lazy, false, out.records);
	const sink = foreignSink(ix, out.format, out.records);
	const res = yield* scanLinesSteps(fd, 0, size, 1, (buf, s, e, off, lineNo, hasEol) => reader.parseLine(buf, s, e, off, lineNo, hasEol, sink), {
		onProgress: input.onProgress,
		onChunk: (buf, end, offset) => reader.noteChunk(buf, end, offset),
	});
	out.end = reader.end(res.end, res.nextLineNo, res.endsWithNewline);
	applyResumeRule(ix, out.format);
	ix.link();
	ix.cache.setFile(file, out.format);
	return out;
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
	let lf = 0,
		cr = 0,
		blank = 0,
		nul = 0,
		other = 0;
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
