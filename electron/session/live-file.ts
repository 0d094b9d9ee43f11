// The file on disk (one part of SessionManager, docs/session-core.md "Parts"): what was read of it (size,
// mtime, inode, where indexing stopped, omp's title line), following it while other writers append
// (catch-up, reload), and appending Arbor's own lines (never losing a byte: write.ts). It holds the current
// index (entry-index.ts) and replaces it whenever the file is read again from the start.

import { type Stats, closeSync, lstatSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { SessionHeader } from "../../shared/entries";
import { CURRENT_SESSION_VERSION } from "../../shared/entries";
import { lineageOf } from "./formats/registry";
import { assertNoSyntheticIds, EntryIndex, isSyntheticId } from "./entry-index";
import { SessionFileError, ioError } from "./errors";
import { isRecord } from "../../shared/guards";
import { scanLines } from "./jsonl";
import { applyResumeRule, type FileEnd, foreignSink, type LoadedFile, LineReader, loadFileSteps } from "./line-reader";
import type { RecordReader, SessionFormat } from "./formats/format";
import { piFormat, piRecordReader } from "./formats/pi/format";
import { isTitleRecord } from "./formats/omp/title-slot";
import { runSteps } from "./steps";
import { type DiskState, appendBytes, derivedFileMode, NEW_SESSION_FILE_MODE, replacedByLink, settleStaleAppend, writeNewFile } from "./write";

type Loose = Record<string, unknown>;

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
			offset: number;
			before: number;
			after: number;
			raced: boolean;
			id: string;
	  };

/**
 * `title_changed`: omp rewrote its fixed-width title line in place (same size; nothing else changed): the
 * index stays, `getTitleSlot()` has the new title. `appended` may carry the same news (`titleChanged`).
 */
export type CatchUpResult =
	{ kind: "none" } | { kind: "appended"; count: number; titleChanged?: boolean } | { kind: "reloaded"; reason: string } | { kind: "title_changed" };

const FRESH_END: Readonly<FileEnd> = { scanned: 0, nextLineNo: 1, endsWithNewline: true, pendingTail: undefined };

export class LiveFile {
	readonly persistent: boolean;
	/** The session file (undefined in memory). */
	path: string | undefined;
	cwd: string;
	index: EntryIndex;
	header!: SessionHeader;
	/** False for a new session (or an empty file) until the header line has been written. */
	headerOnDisk = true;
	titleSlot: Loose | undefined;
	titleSlotBytes: Buffer | undefined;
	fileVersion = CURRENT_SESSION_VERSION;
	legacy = false;
	/** Set when writing would damage the file (no valid header): every write throws it. */
	writeBlock: SessionFileError | undefined;
	/** What was last known of the file (undefined: nothing on disk yet, or in memory). */
	disk: DiskState | undefined;
	/** Where indexing stopped (bytes, line number, a torn last line). */
	end: Readonly<FileEnd> = FRESH_END;
	/**
	 * Bumped whenever entries already handed out change: a reload (the index is rebuilt) or a catch-up that
	 * re-linked or re-flagged earlier entries (an appended entry is the missing parent of an earlier one, or
	 * re-uses an id). A consumer holding a copy plus appended deltas must refetch when it changes.
	 */
	generation = 0;
	/** The file's format (formats/registry.ts; pi for a new session) and its reader, which appended lines continue with. */
	format: SessionFormat = piFormat;
	records: RecordReader = piRecordReader;
	readonly #formatOption: SessionFormat | undefined;
	readonly #lazyOption: boolean | undefined;
	readonly #probe: CatchUpProbe | undefined;
	/** The path was a symbolic link when the file was opened (the user chose the link): it may stay one. */
	#openedViaLink = false;

	constructor(persistent: boolean, cwd: string, options: { path?: string; lazy?: boolean; probe?: CatchUpProbe; format?: SessionFormat } = {}) {
		this.persistent = persistent;
		this.cwd = cwd;
		this.path = options.path;
		this.#formatOption = options.format;
		this.#lazyOption = options.lazy;
		this.#probe = options.probe;
		this.index = new EntryIndex(false);
	}

	/** A new, empty index; every fact about the file read so far is dropped too. */
	reset(index: EntryIndex = new EntryIndex(this.index.lazy, this.index.syntheticCount)): void {
		this.generation++;
		this.index = index;
		this.titleSlot = undefined;
		this.titleSlotBytes = undefined;
		this.legacy = false;
		this.writeBlock = undefined;
		this.headerOnDisk = true;
		this.end = FRESH_END;
	}

	/**
	 * A new session (or, in memory, a branch's copy in `index`): nothing on disk until its first append
	 * (then at `path`; never in memory).
	 */
	startNew(header: SessionHeader, path: string | undefined, index?: EntryIndex): void {
		this.reset(index);
		this.header = header;
		this.fileVersion = CURRENT_SESSION_VERSION;
		this.format = piFormat;
		this.records = piRecordReader;
		this.headerOnDisk = false;
		this.disk = undefined;
		if (this.persistent && path !== undefined) this.path = path;
	}

	// ---------------------------------------------------------------- reading the whole file

	*loadSteps(onProgress?: (doneBytes: number, totalBytes: number) => void): Generator<void, void> {
		const file = this.path as string;
		let loaded: LoadedFile;
		try {
			loaded = yield* loadFileSteps(file, {
				lazy: this.#lazyOption,
				onProgress,
				cwd: this.cwd,
				fileVersion: this.fileVersion,
				syntheticCount: this.index.syntheticCount,
				format: this.#formatOption,
			});
		} catch (err) {
			this.reset();
			throw err;
		}
		this.#openedViaLink = isSymlink(file);
		this.reset(loaded.index);
		this.header = loaded.header;
		this.headerOnDisk = loaded.headerOnDisk;
		this.titleSlot = loaded.titleSlot;
		this.titleSlotBytes = loaded.titleSlotBytes;
		this.fileVersion = loaded.fileVersion;
		this.legacy = loaded.legacy;
		this.writeBlock = loaded.writeBlock;
		this.disk = loaded.disk;
		this.end = loaded.end;
		this.format = loaded.format;
		this.records = loaded.records;
	}

	/** Reads the file again from the start; the leaf stays where it was when that entry is still there. */
	reloadKeepingLeaf(): void {
		const leaf = this.index.leafId;
		runSteps(this.loadSteps());
		if (leaf !== null && this.index.byId.has(leaf)) this.index.leafId = leaf;
	}

	/** Switches to a file this process just wrote (a branch), with its index already built. */
	adopt(path: string, header: SessionHeader, disk: DiskState, index: EntryIndex, nextLineNo: number): void {
		this.reset(index);
		this.path = path;
		this.#openedViaLink = false;
		this.header = header;
		this.fileVersion = CURRENT_SESSION_VERSION;
		this.disk = disk;
		this.end = { scanned: disk.size, nextLineNo, endsWithNewline: true, pendingTail: undefined };
	}

	// ---------------------------------------------------------------- other writers

	/**
	 * `follow`: a leaf still at the last entry moves on to the other writer's last entry (not before our own writes).
	 * `writerHoldsLeaf`: the other writer appends only at its own leaf (a live pi Arbor steers), so the leaf
	 * follows it wherever it was.
	 */
	catchUp(follow: boolean, writerHoldsLeaf = false): CatchUpResult {
		if (!this.persistent || !this.disk || !this.path) return { kind: "none" };
		this.#assertNotSwappedForLink();
		let st;
		try {
			st = statSync(this.path);
		} catch (err) {
			throw ioError(this.path, err, "checking the session file");
		}
		const d = this.disk;
		const from = this.end.scanned;
		this.#probe?.afterStat?.(st.size);
		const r = this.#catchUpFrom(st, d, follow, writerHoldsLeaf);
		this.#probe?.trace?.({
			op: follow ? "catch-up" : "before-write",
			from,
			knownSize: d.size,
			statSize: st.size,
			to: this.end.scanned,
			result: r.kind,
			reason: r.kind === "reloaded" ? r.reason : undefined,
			entries: this.index.cols.count,
		});
		return r;
	}

	#catchUpFrom(st: Stats, d: DiskState, follow: boolean, writerHoldsLeaf: boolean): CatchUpResult {
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
					this.disk = { ...d, mtimeMs: st.mtimeMs };
					return { kind: "title_changed" };
				}
				if (this.end.pendingTail || st.size === 0) return this.#reload("file changed in place");
				return this.#reload("file was rewritten in place");
			}
			return slot === "changed" ? { kind: "title_changed" } : { kind: "none" };
		}
		const before = this.index.cols.count;
		this.#readAppended(st.size, follow, writerHoldsLeaf);
		this.disk = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, dev: st.dev };
		const count = this.index.cols.count - before;
		return slot === "changed" ? { kind: "appended", count, titleChanged: true } : { kind: "appended", count };
	}

	/** Re-reads omp's title line (same byte length as loaded): "same", "changed" (a valid new slot) or "broken". */
	#refreshTitleSlot(): "same" | "changed" | "broken" {
		const old = this.titleSlotBytes;
		if (!old || !this.path) return "same";
		const n = old.length + 1;
		const raw = Buffer.alloc(n + 3);
		let read = 0;
		const fd = openSync(this.path, "r");
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
		if (!isRecord(obj) || !isTitleRecord(obj)) return "broken";
		this.titleSlot = obj as Loose;
		this.titleSlotBytes = Buffer.from(buf.subarray(0, n - 1));
		return "changed";
	}

	#readAppended(size: number, follow: boolean, writerHoldsLeaf: boolean): void {
		const ix = this.index;
		const fd = openSync(this.path as string, "r");
		try {
			const firstNew = ix.cols.count;
			// Indexing moves the leaf to each new entry. A leaf the user moved stays where it was; a leaf still
			// at the resume point (the last entry) follows the other writer, as a reload would.
			const leaf = ix.leafId;
			const followWriter = follow && (writerHoldsLeaf || (leaf === null ? firstNew === 0 : leaf === ix.resumeLeafId() || leaf === ix.resumeAnchorId()));
			ix.clearSawDuplicate();
			let headerSeen = this.headerOnDisk;
			const reader = new LineReader(ix, ix.lazy && this.headerOnDisk && !this.legacy, false, this.records);
			const foreign = this.format.readsAsPi ? undefined : foreignSink(ix, this.format, this.records);
			const res = scanLines(fd, this.end.scanned, size, this.end.nextLineNo, (buf, s, e, off, lineNo, hasEol) => {
				reader.parseLine(buf, s, e, off, lineNo, hasEol, (obj, offset, length, ln, exact, bytes) => {
					if (foreign) return foreign(obj, offset, length, ln, exact, bytes);
					if (!headerSeen) {
						headerSeen = true;
						if (obj.type === "session" && typeof obj.id === "string") {
							this.header = obj as SessionHeader;
							this.headerOnDisk = true;
							return;
						}
					}
					if (obj.type === "session") return;
					ix.ingest(obj, exact ? offset : -1, length, ln, !ix.lazy, exact);
				});
			});
			this.end = reader.end(res.end, res.nextLineNo, res.endsWithNewline);
			if (foreign) applyResumeRule(ix, this.format);
			if (ix.linkAppended(firstNew)) this.generation++;
			if (!followWriter) ix.leafId = leaf;
			else {
				// Lines no tree shows (pi's cache-warmer usage, omp's model_usage) do not carry the in-app leaf
				// along: it stays on the newest visible entry of the writer's branch (no leaf jump every few minutes).
				const anchor = ix.resumeAnchorId();
				if (anchor !== null) ix.leafId = anchor;
			}
		} finally {
			closeSync(fd);
		}
	}

	/**
	 * A path that was a regular file when opened and is a symbolic link now was swapped by someone: neither
	 * read (a reload would show the link's target) nor written through (issue #23).
	 */
	#assertNotSwappedForLink(): void {
		if (this.#openedViaLink || !this.path) return;
		if (isSymlink(this.path)) throw replacedByLink(this.path);
	}

	#reload(reason: string): CatchUpResult {
		this.reloadKeepingLeaf();
		return { kind: "reloaded", reason };
	}

	// ---------------------------------------------------------------- appending

	assertWritable(): void {
		if (!this.persistent) return;
		const file = this.path as string;
		if (this.legacy) {
			throw new SessionFileError(
				"legacy_needs_upgrade",
				file,
				`this is a version ${this.fileVersion} session file; call upgradeLegacy() (keeps a .bak) before writing to it`,
			);
		}
		if (this.writeBlock) throw this.writeBlock;
	}

	/**
	 * Appends one entry under the current leaf (already in `entry.parentId`) and makes it the leaf.
	 * `atResume`: a bookkeeping entry (label, session name) that must not move pi's resume point to another
	 * branch: it is parented on the resume leaf (the file's last entry, after catching up with other writers),
	 * and the in-app leaf moves onto it only when it was at the resume leaf (as pi's leaf would).
	 */
	append(entry: Loose, atResume = false): string {
		this.assertWritable();
		let offset = -1;
		let length = 0;
		let lineNo = this.end.nextLineNo;
		if (this.persistent && this.disk) {
			// Checked before anything else touches the path (the torn-line repair opens it too).
			this.#assertNotSwappedForLink();
			// A torn line a killed Arbor writer left is cut (with proof) before anything else is written;
			// the catch-up then sees the shorter file and reloads.
			if (settleStaleAppend(this.path as string) > 0) this.disk = { ...this.disk, size: -1 };
			if (this.catchUp(false).kind === "reloaded") this.assertWritable();
			// The catch-up may have read other writers' lines: ours comes after them.
			lineNo = this.end.nextLineNo;
		}
		const ix = this.index;
		const keepLeaf = atResume && ix.leafId !== ix.resumeLeafId() ? { leaf: ix.leafId } : undefined;
		if (atResume) entry.parentId = ix.resumeLeafId();
		if (isSyntheticId(entry.parentId)) {
			// A synthetic id is never written: the new entry starts a new root, as it will after a reload.
			entry.parentId = null;
		}
		assertNoSyntheticIds(entry, this.path);
		if (this.persistent) {
			const file = this.path as string;
			// The leaf may have been the synthetic-id entry of a file that was reloaded in between.
			if (typeof entry.parentId === "string" && !ix.byId.has(entry.parentId)) {
				throw new SessionFileError("conflict", file, `entry ${entry.parentId} disappeared when the file changed on disk; nothing was written`);
			}
			const line = Buffer.from(`${JSON.stringify(entry)}\n`, "utf8");
			length = line.length - 1;
			if (!this.disk) {
				const parts: Buffer[] = [];
				if (this.titleSlotBytes) parts.push(this.titleSlotBytes, Buffer.from("\n"));
				const headerLine = Buffer.from(`${JSON.stringify(this.header)}\n`, "utf8");
				parts.push(headerLine, line);
				mkdirSync(dirname(file), { recursive: true });
				// A new session that names the file it came from is no more readable than that file.
				const st = writeNewFile(file, parts, derivedFileMode(lineageOf(this.header)?.file, NEW_SESSION_FILE_MODE));
				offset = headerLine.length;
				lineNo = 2;
				this.headerOnDisk = true;
				this.disk = st;
				this.end = { scanned: st.size, nextLineNo: 3, endsWithNewline: true, pendingTail: undefined };
				ix.cache.setFile(file);
			} else {
				const parts: Buffer[] = [];
				let pendingTail = this.end.pendingTail;
				if (!this.headerOnDisk) parts.push(Buffer.from(`${JSON.stringify(this.header)}\n`, "utf8"));
				let prefix = parts.reduce((s, b) => s + b.length, 0);
				parts.push(line);
				const before = this.disk.size;
				const headerWasOnDisk = this.headerOnDisk;
				// Whether the file ends inside a line is decided by the append itself, under the append slot: the
				// catch-up above may have seen another writer's line half written.
				const { state, raced, closed } = appendBytes(file, parts, before, {
					closeLine: true,
					target: { ino: this.disk.ino, dev: this.disk.dev, noFollow: !this.#openedViaLink },
				});
				if (closed) {
					prefix++;
					if (pendingTail) {
						ix.warn(pendingTail.lineNo, "malformed_line", "incomplete last line closed with a newline before appending");
						pendingTail = undefined;
						this.end = { ...this.end, pendingTail };
						lineNo++;
					}
				}
				this.#probe?.trace?.({ op: "append", offset: raced ? -1 : before + prefix, before, after: state.size, raced, id: entry.id as string });
				if (raced && headerWasOnDisk && this.#adoptRacedAppend(entry.id as string, state)) {
					// A bookkeeping entry leaves the in-app leaf where it was, raced or not.
					if (keepLeaf) this.index.leafId = keepLeaf.leaf;
					return entry.id as string;
				}
				if (!this.headerOnDisk) lineNo++;
				this.headerOnDisk = true;
				offset = before + prefix;
				this.disk = raced ? { ...state, size: -1 } : state;
				this.end = { scanned: before + prefix + line.length, nextLineNo: lineNo + 1, endsWithNewline: true, pendingTail };
			}
		}
		const i = ix.ingest(entry, offset, length, lineNo, true);
		ix.resolveParents(i);
		if (keepLeaf) ix.leafId = keepLeaf.leaf;
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
			this.#readAppended(state.size, false, false);
			this.disk = state;
		} catch {
			// The line is written; a read failing now must not fail the append: the next catch-up reloads.
			this.disk = { ...state, size: -1 };
		}
		if (!this.index.byId.has(id)) return false;
		this.index.leafId = id;
		return true;
	}
}

function isSymlink(p: string): boolean {
	try {
		return lstatSync(p).isSymbolicLink();
	} catch {
		return false;
	}
}
