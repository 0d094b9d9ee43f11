// The only code that writes session files. Appends are whole lines; new files go through a temp file in the
// same folder, fsync and a no-clobber link, so a crash or a name clash never damages an existing file.

import { randomBytes } from "node:crypto";
import {
	closeSync,
	constants as fsConstants,
	fchmodSync,
	fstatSync,
	fsyncSync,
	ftruncateSync,
	linkSync,
	mkdirSync,
	openSync,
	readSync,
	renameSync,
	statSync,
	writeSync,
	existsSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { type Slot, appendMarkerPath, releaseSlot, republishMarker, takeSlot } from "./append-slot";
import { SessionFileError, ioError } from "./errors";
import { type DiskState, O_NOFOLLOW, errCode, removeQuietly, sleepMs, stateOf, writeAll } from "./fd-io";

export type { DiskState } from "./fd-io";
export { MARKER_HEADER_BYTES, appendMarkerPath, settleStaleAppend } from "./append-slot";

const NEWLINE = Buffer.from("\n");

function fsyncDir(dir: string): void {
	try {
		const fd = openSync(dir, "r");
		try {
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
	} catch {
		// Some platforms cannot fsync a directory; the file itself is already durable.
	}
}

export function tempPathFor(path: string): string {
	return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
}

/**
 * A session file Arbor starts on its own (no source to follow): what pi's writes give it under the usual
 * umask 022. Files derived from a session take `derivedFileMode(source)` instead (issue #23).
 */
export const NEW_SESSION_FILE_MODE = 0o644;
/** Arbor's own files (settings, index, window state, logs): the user's alone. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * The mode for a file made from `source` (a branch, a pruned copy, an export, a backup, a child session):
 * never wider than the source's own read/write bits, so a 0600 conversation never yields a 0644 copy. The
 * umask narrows it further, never widens it. A source that cannot be read gives `fallback` (0600).
 */
export function derivedFileMode(source: string | null | undefined, fallback = PRIVATE_FILE_MODE): number {
	if (!source) return fallback;
	try {
		return statSync(source).mode & 0o666;
	} catch {
		return fallback;
	}
}

/** `exact`: set `mode` as given, past the umask (a rewrite keeping the file's own mode). */
function writeTemp(path: string, parts: Buffer[], mode: number, exact = false): string {
	const tmp = tempPathFor(path);
	let fd: number;
	try {
		fd = openSync(tmp, "wx", mode);
	} catch (err) {
		throw ioError(tmp, err, "creating a temporary file");
	}
	try {
		if (exact) fchmodSync(fd, mode);
		writeAll(fd, parts);
		fsyncSync(fd);
	} catch (err) {
		closeSync(fd);
		removeQuietly(tmp);
		throw ioError(tmp, err, "writing a temporary file");
	}
	closeSync(fd);
	return tmp;
}

/**
 * Creates the folder a new session file goes to (a branch's or a pruned copy's `--dir`), missing parents
 * included. A path that is a file, or lies below one, is refused in one line naming it.
 */
export function makeTargetDir(dir: string): void {
	try {
		mkdirSync(dir, { recursive: true });
	} catch (err) {
		const code = errCode(err);
		if (code === "EEXIST" || code === "ENOTDIR")
			throw new SessionFileError("io", dir, "is not a folder (a file is in the way): choose a folder for the new file");
		throw ioError(dir, err, "creating the folder");
	}
}

/**
 * Creates `path` with the given content; fails (code "conflict") instead of replacing an existing file.
 * `mode` has no default: each caller says whose file it is (NEW_SESSION_FILE_MODE, derivedFileMode(source),
 * PRIVATE_FILE_MODE).
 */
export function writeNewFile(path: string, parts: Buffer[], mode: number): DiskState {
	return publishNewFile(writeTemp(path, parts, mode), path);
}

/** Links a complete, fsynced temp file (tempPathFor) to `path` without replacing anything; the temp file goes. */
export function publishNewFile(tmp: string, path: string): DiskState {
	try {
		try {
			linkSync(tmp, path);
		} catch (err) {
			const code = typeof err === "object" && err !== null && "code" in err ? (err as { code: unknown }).code : "";
			if (code === "EEXIST") throw new SessionFileError("conflict", path, "a file with this name already exists; it was not overwritten");
			// File systems without hard links: check-then-rename is the best remaining option.
			if (existsSync(path)) throw new SessionFileError("conflict", path, "a file with this name already exists; it was not overwritten");
			renameSync(tmp, path);
		}
	} finally {
		removeQuietly(tmp);
	}
	fsyncDir(dirname(path));
	const fd = openSync(path, "r");
	try {
		return stateOf(fd);
	} finally {
		closeSync(fd);
	}
}

/**
 * Atomically replaces `path`: every byte reaches the temp file (short writes continued, errors thrown with
 * the temp file removed) and is fsynced before the rename, so a full disk leaves the old file whole. For
 * session files only the explicit legacy upgrade uses it (after a .bak copy); Arbor's own settings too.
 */
export function writeReplacingFile(path: string, parts: Buffer[], mode: number, beforeRename?: () => boolean, exactMode = false): DiskState | null {
	const tmp = writeTemp(path, parts, mode, exactMode);
	if (beforeRename && !beforeRename()) {
		removeQuietly(tmp);
		return null;
	}
	try {
		renameSync(tmp, path);
	} catch (err) {
		removeQuietly(tmp);
		throw ioError(path, err, "replacing the file");
	}
	fsyncDir(dirname(path));
	const fd = openSync(path, "r");
	try {
		return stateOf(fd);
	} finally {
		closeSync(fd);
	}
}

/** The error of a write refused because the session's path is now a symbolic link (it was a regular file when opened). */
export function replacedByLink(path: string): SessionFileError {
	return new SessionFileError(
		"conflict",
		path,
		"the session file was replaced by a symbolic link since it was opened; nothing was written (Arbor never writes through a link it did not open)",
	);
}

/** The file an append must land in: the one that was opened (issue #23: never through a swapped-in symlink). */
export interface AppendTarget {
	ino: number;
	dev: number;
	/** The path was a regular file when opened: open it without following a symlink now. */
	noFollow: boolean;
}

/**
 * Whether the file ends inside a line, decided while holding the append slot. Another writer's line may still
 * be on its way in (a large write becomes visible page by page, and pi writes without a marker): while the
 * size keeps growing, look again; a line that stays unterminated is torn for good.
 */
function endsInsideLine(fd: number): boolean {
	const last = Buffer.alloc(1);
	let size = fstatSync(fd).size;
	for (let look = 0; size > 0; look++) {
		if (readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a) return false;
		if (look >= 3) return true;
		sleepMs(2 + 4 * look);
		const now = fstatSync(fd).size;
		if (now === size && look >= 1) return true;
		size = now;
	}
	return false;
}

/**
 * Appends the parts (one write of their concatenation). `raced` is true when the file size afterwards is
 * not `expectedSize` + our bytes: another writer appended at the same moment (or a dead writer's torn line
 * was removed first). With `target`, nothing is written unless the path opens (without following a
 * symlink) to that very file.
 *
 * `closeLine`: when the file ends inside a line, a newline goes first (`closed` says so). This is decided
 * here, holding the slot and looking at the file's last byte, never from an earlier read: a catch-up can
 * see another writer's line half written, and "closing" it once that writer has finished wrote an empty line.
 */
export function appendBytes(
	path: string,
	parts: Buffer[],
	expectedSize: number,
	options: { closeLine?: boolean; target?: AppendTarget } = {},
): { state: DiskState; raced: boolean; closed: boolean } {
	const { closeLine = false, target } = options;
	let fd: number;
	try {
		fd = openSync(path, fsConstants.O_RDWR | fsConstants.O_APPEND | fsConstants.O_CREAT | (target?.noFollow ? O_NOFOLLOW : 0));
	} catch (err) {
		if (target?.noFollow && errCode(err) === "ELOOP") throw replacedByLink(path);
		throw ioError(path, err, "opening the session file for appending");
	}
	if (target) {
		let st: DiskState | undefined;
		try {
			st = stateOf(fd);
		} catch {
			st = undefined;
		}
		if (!st || st.ino !== target.ino || st.dev !== target.dev) {
			closeSync(fd);
			throw new SessionFileError("conflict", path, "the session file was replaced while appending; nothing was written (open it again)");
		}
	}
	const marker = appendMarkerPath(path);
	let slot: Slot = { held: false, repaired: 0, before: -1 };
	let before = -1;
	let written = 0;
	let total = parts.reduce((s, b) => s + b.length, 0);
	let line = parts.length === 1 ? parts[0] : Buffer.concat(parts, total);
	try {
		slot = takeSlot(fd, marker, line);
		const closed = closeLine && endsInsideLine(fd);
		if (closed) {
			total += 1;
			line = Buffer.concat([NEWLINE, line], total);
			// The marker must hold the exact bytes about to be written, or a torn write could not be repaired.
			if (slot.held) slot.before = fstatSync(fd).size;
			if (slot.held && !republishMarker(marker, slot.before, line)) {
				removeQuietly(marker);
				slot.held = false;
			}
		}
		before = fstatSync(fd).size;
		// One buffer, one write: O_APPEND then places the whole line atomically for regular files.
		while (written < line.length) written += writeSync(fd, line, written, line.length - written);
		const state = stateOf(fd);
		return { state, raced: slot.repaired > 0 || state.size !== expectedSize + total, closed };
	} catch (err) {
		// A full disk can take part of the line before failing: cut our partial line off again, so the file
		// ends exactly as it did (only when the bytes at the end are still ours; others' are not ours to cut).
		let cut = written === 0;
		if (written > 0 && before >= 0) {
			try {
				if (fstatSync(fd).size === before + written) {
					const tail = Buffer.alloc(written);
					readSync(fd, tail, 0, written, before);
					if (tail.equals(line.subarray(0, written)) && fstatSync(fd).size === before + written) {
						ftruncateSync(fd, before);
						cut = true;
					}
				}
			} catch {
				// Nothing more can be done; the error below still tells the user the append failed.
			}
		}
		// Keep the marker only when our partial line is still in the file: it lets the next Arbor write cut it.
		if (!cut) slot.held = false;
		throw ioError(path, err, "appending to the session file");
	} finally {
		releaseSlot(marker, slot);
		closeSync(fd);
	}
}
