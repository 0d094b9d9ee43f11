// Branch files and the legacy upgrade (one part of SessionManager, docs/session-core.md "Parts"): writing
// a path to a new session file (original line bytes, labels still in effect, temp file + fsync + no-clobber
// link) and switching to it, and rewriting a v1/v2 file as v3 after a backup while other writers append.
// Both work on the file part (live-file.ts) and its index, passed in.

import { existsSync, fstatSync, openSync, readSync, statSync, unlinkSync, closeSync } from "node:fs";
import { join, resolve } from "node:path";
import type { SessionEntry, SessionHeader } from "../../shared/entries";
import { newSessionHeader } from "./formats/pi/header";
import { readOnlyError } from "./line-reader";
import { EntryFlag, EntryKind } from "../../shared/skeleton";
import { EntryIndex, isSyntheticId } from "./entry-index";
import { SessionFileError, ioError } from "./errors";
import { createSessionId, generateEntryId, sessionFileName } from "./ids";
import type { LiveFile } from "./live-file";
import { type DiskState, appendBytes, derivedFileMode, makeTargetDir, NEW_SESSION_FILE_MODE, writeNewFile, writeReplacingFile } from "./write";

type Loose = Record<string, unknown>;

export interface BranchOptions {
	/** Folder for the new file (default: the current session's folder). */
	sessionDir?: string;
	/**
	 * false: only write the new file and stay on the current one (Arbor's branch-to-file, which opens the
	 * new file as another session). Default true: switch to the new file, as pi does.
	 */
	adopt?: boolean;
	/** Working folder the new file's header names (default: the current session's), as pi's `cwdOverride`. */
	cwd?: string;
}

/** The new file (undefined in memory) and the session's folder afterwards. */
export interface BranchResult {
	path: string | undefined;
	dir: string;
}

/**
 * Rewrites a v1/v2 file as v3 after copying it to FILE.bak (never overwritten); returns the .bak path.
 * Another writer may append meanwhile: the old file stays open, and every byte appended to it after the
 * part that was rewritten (up to and after the rename) is read back from it and appended to the new
 * file, so no line is lost. When the file was replaced or shrank instead, the attempt is dropped (with
 * its .bak) and made again; after 5 such attempts the upgrade is refused (a conflict, nothing changed).
 */
export function upgradeLegacy(live: LiveFile): string {
	if (!live.persistent || !live.path) throw new Error("upgradeLegacy needs a session file");
	const file = live.path;
	if (!live.legacy) throw new SessionFileError("bad_file", file, "file is already at the current version; nothing to upgrade");
	if (live.writeBlock) throw live.writeBlock;
	for (let attempt = 0; attempt < 5; attempt++) {
		const bak = upgradeOnce(live, file);
		if (bak !== null) return bak;
	}
	throw new SessionFileError("conflict", file, "another program kept replacing the file during the upgrade; nothing was changed (try again when it is idle)");
}

/** One upgrade attempt; null when the file changed under it (nothing changed then, no .bak left). */
function upgradeOnce(live: LiveFile, file: string): string | null {
	live.catchUp(true);
	if (!live.legacy) throw new SessionFileError("conflict", file, "the file was replaced during the upgrade; nothing was changed");
	// Serialize first: an entry that cannot be written (nested too deep) must fail before any file exists.
	const parts: Buffer[] = [];
	const ix = live.index;
	if (live.titleSlotBytes) parts.push(live.titleSlotBytes, Buffer.from("\n"));
	parts.push(Buffer.from(`${serializeForRewrite(live.header, file)}\n`, "utf8"));
	for (let i = 0; i < ix.cols.count; i++) {
		parts.push(Buffer.from(`${serializeForRewrite(forWriting(ix, i, ix.cache.get(i) as Loose), file)}\n`, "utf8"));
	}
	const indexed = live.disk as DiskState;
	// Bytes past this offset (another writer's later or unfinished lines) are not in `parts`.
	const rewritten = live.end.scanned;
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
		// The backup and the rewritten file keep the original's mode: a private session stays private.
		const mode = st.mode & 0o777;
		writeNewFile(bak, [original], mode & 0o666);
		// Only appends are followed: the same file, not shorter.
		const unchanged = (): boolean => {
			try {
				const now = statSync(file);
				return now.ino === st.ino && now.size >= st.size;
			} catch {
				return false;
			}
		};
		const replaced = writeReplacingFile(file, parts, mode, unchanged, true);
		if (replaced === null) {
			try {
				unlinkSync(bak);
			} catch {
				/* already gone */
			}
			return null;
		}
		const late = fstatSync(fd).size - rewritten;
		if (late > 0) {
			const extra = Buffer.alloc(late);
			readSync(fd, extra, 0, late, rewritten);
			const tail = extra[extra.length - 1] === 0x0a ? [extra] : [extra, Buffer.from("\n")];
			appendBytes(file, tail, replaced.size);
		}
		live.reloadKeepingLeaf();
		return bak;
	} finally {
		closeSync(fd);
	}
}

/**
 * `options.sessionDir`: write the new file there instead of the current folder (like pi's
 * `open(path, sessionDir)`); the temp file, fsync and no-clobber link all happen in that folder.
 */
export function createBranchedSession(live: LiveFile, currentDir: string, leafId: string, options: BranchOptions): BranchResult {
	// Another agent's file: its lines are not pi's, so a copy would be neither agent's file.
	if (!live.format.writable) throw readOnlyError(live.path ?? "(memory)", live.format);
	// Raw line bytes are copied by offset: make sure the index still describes the file on disk.
	if (live.persistent && live.disk) live.catchUp(false);
	const ix = live.index;
	const leafIndex = typeof leafId === "string" ? ix.byId.get(leafId) : undefined;
	if (leafIndex === undefined) throw new Error(`Entry ${leafId} not found`);
	const c = ix.cols;
	const path = ix.pathIndices(leafIndex);
	const kept: number[] = [];
	// New parent id for kept entries whose path parent was a dropped label (pi would orphan them).
	const reparent = new Map<number, string | null>();
	let prevKept: number = -1;
	let prevWasLabel = false;
	// pi 1.6 (0.79.2): a compaction whose firstKeptEntryId names a dropped label keeps from the entry after it.
	const labelReplacement = new Map<string, string>();
	const pendingLabels: string[] = [];
	for (const i of path) {
		if (c.kind[i] === EntryKind.label) {
			prevWasLabel = true;
			pendingLabels.push(c.ids[i]);
			continue;
		}
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
			const fk = (ix.cache.get(i) as Loose).firstKeptEntryId;
			if (typeof fk === "string" && fk !== c.ids[i] && labelReplacement.has(fk)) keptFrom.set(i, labelReplacement.get(fk) as string);
		}
	}
	const written = (i: number): Loose => {
		const e = forWriting(ix, i, ix.cache.get(i) as Loose, reparent.get(i));
		const fk = keptFrom.get(i);
		return fk === undefined ? e : { ...e, firstKeptEntryId: fk };
	};
	const keptIds = new Set<string>();
	for (const i of kept) keptIds.add(c.ids[i]);
	const labelEntries: Loose[] = [];
	let parentId: string | null = prevKept >= 0 ? c.ids[prevKept] : null;
	if (isSyntheticId(parentId)) parentId = null;
	const taken = new Set(keptIds);
	for (const [targetId, st] of ix.labels) {
		if (!keptIds.has(targetId)) continue;
		const id = generateEntryId((x) => taken.has(x));
		taken.add(id);
		labelEntries.push({ type: "label", id, parentId, timestamp: st.timestamp, targetId, label: st.label });
		parentId = id;
	}
	const timestamp = new Date().toISOString();
	const sessionId = createSessionId();
	const header = newSessionHeader(sessionId, timestamp, options.cwd ?? live.cwd, live.persistent && live.path ? live.path : undefined);

	if (!live.persistent) {
		const objs = kept.map((i) => written(i));
		const next = new EntryIndex(ix.lazy, ix.syntheticCount);
		for (const o of [...objs, ...labelEntries]) next.ingest(o, -1, 0, 0, true);
		next.link();
		live.startNew(header, undefined, next);
		return { path: undefined, dir: currentDir };
	}

	const dir = options.sessionDir !== undefined ? resolve(options.sessionDir) : currentDir;
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
		const e = written(i);
		const line = Buffer.from(`${serializeForRewrite(e, live.path ?? "session")}\n`, "utf8");
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
	if (!ix.cache.copyLinesInto(copyIdx, copyPos, content)) {
		throw new SessionFileError("conflict", live.path ?? "(memory)", "the file changed under the open session (it is shorter than indexed); reload it");
	}
	makeTargetDir(dir);
	// One buffer, one write: thousands of small writes cost more than the copy.
	// No wider than the source: a branch of a 0600 conversation is 0600 too (issue #23).
	const disk = writeNewFile(newFile, [content], live.path ? derivedFileMode(live.path) : NEW_SESSION_FILE_MODE);
	if (options.adopt === false) return { path: newFile, dir: currentDir };
	adoptBranchFile(live, newFile, header, disk, placed, labelPlaced);
	return { path: newFile, dir };
}

/** Switches to a file this process just wrote, carrying the index over from the source entries. */
function adoptBranchFile(
	live: LiveFile,
	file: string,
	header: SessionHeader,
	disk: DiskState,
	placed: { i: number; offset: number; length: number; obj: Loose | undefined }[],
	labels: { obj: Loose; offset: number; length: number }[],
): void {
	const ix = live.index;
	const old = ix.cols;
	const oldCache = ix.cache;
	const keepFlags =
		EntryFlag.toolOnly |
		EntryFlag.error |
		EntryFlag.aborted |
		EntryFlag.hasThinking |
		EntryFlag.hasToolCalls |
		EntryFlag.hasImage |
		EntryFlag.hidden |
		EntryFlag.truncated |
		EntryFlag.syntheticId;
	const bodies = placed.map((p) => p.obj ?? (ix.lazy ? undefined : (oldCache.get(p.i) as Loose)));
	const next = new EntryIndex(ix.lazy, ix.syntheticCount);
	next.cache.setFile(file);
	let line = 2;
	placed.forEach((p, k) => {
		const rawParent = p.obj ? (typeof p.obj.parentId === "string" || p.obj.parentId === null ? p.obj.parentId : undefined) : old.rawParent[p.i];
		const i = next.addRow(
			old.ids[p.i],
			rawParent as string | null | undefined,
			old.kind[p.i],
			old.flags[p.i] & keepFlags,
			old.time[p.i],
			old.tokens[p.i],
			p.offset,
			p.length,
			line++,
		);
		next.cols.cost[i] = old.cost[p.i];
		const body = bodies[k];
		if (body) next.cache.put(i, body as SessionEntry, !next.lazy || p.obj !== undefined);
	});
	for (const l of labels) next.ingest(l.obj, l.offset, l.length, line++, true);
	next.link();
	live.adopt(file, header, disk, next, line);
}

/** The entry as it may be written: a synthetic id is Arbor's own and never reaches a file. */
function forWriting(ix: EntryIndex, i: number, entry: Loose, parentId?: string | null): Loose {
	const synthetic = (ix.cols.flags[i] & EntryFlag.syntheticId) !== 0;
	if (!synthetic && parentId === undefined) return entry;
	const copy: Loose = { ...entry };
	if (synthetic) delete copy.id;
	if (parentId !== undefined) copy.parentId = parentId;
	return copy;
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
