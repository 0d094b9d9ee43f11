// The only code that writes session files. Appends are whole lines; new files go through a temp file in the
// same folder, fsync and a no-clobber link, so a crash or a name clash never damages an existing file.

import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, fsyncSync, ftruncateSync, linkSync, openSync, readFileSync, readSync, renameSync, unlinkSync, writeFileSync, writeSync, existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { SessionFileError, ioError } from "./errors";

export interface DiskState { size: number; mtimeMs: number; ino: number; dev: number }

function writeAll(fd: number, parts: Buffer[]): void {
	for (const p of parts) {
		let off = 0;
		while (off < p.length) off += writeSync(fd, p, off, p.length - off);
	}
}

function stateOf(fd: number): DiskState {
	const st = fstatSync(fd);
	return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, dev: st.dev };
}

function fsyncDir(dir: string): void {
	try {
		const fd = openSync(dir, "r");
		try { fsyncSync(fd); } finally { closeSync(fd); }
	} catch {
		// Some platforms cannot fsync a directory; the file itself is already durable.
	}
}

function tempPathFor(path: string): string {
	return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
}

function writeTemp(path: string, parts: Buffer[]): string {
	const tmp = tempPathFor(path);
	let fd: number;
	try {
		fd = openSync(tmp, "wx", 0o644);
	} catch (err) {
		throw ioError(tmp, err, "creating a temporary file");
	}
	try {
		writeAll(fd, parts);
		fsyncSync(fd);
	} catch (err) {
		closeSync(fd);
		try { unlinkSync(tmp); } catch { /* already gone */ }
		throw ioError(tmp, err, "writing a temporary file");
	}
	closeSync(fd);
	return tmp;
}

/** Creates `path` with the given content; fails (code "conflict") instead of replacing an existing file. */
export function writeNewFile(path: string, parts: Buffer[]): DiskState {
	const tmp = writeTemp(path, parts);
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
		try { unlinkSync(tmp); } catch { /* renamed or already removed */ }
	}
	fsyncDir(dirname(path));
	const fd = openSync(path, "r");
	try { return stateOf(fd); } finally { closeSync(fd); }
}

/** Atomically replaces `path` (only used by the explicit legacy upgrade, after a .bak copy was made). */
export function writeReplacingFile(path: string, parts: Buffer[]): DiskState {
	const tmp = writeTemp(path, parts);
	try {
		renameSync(tmp, path);
	} catch (err) {
		try { unlinkSync(tmp); } catch { /* gone */ }
		throw ioError(path, err, "replacing the file");
	}
	fsyncDir(dirname(path));
	const fd = openSync(path, "r");
	try { return stateOf(fd); } finally { closeSync(fd); }
}

/**
 * Where an append in progress is recorded. Linux may stop a write of more than a page part-way when the
 * process is killed (kill -9, OOM), leaving a torn last line that pi would later glue its next entry to.
 * The marker names the size before the append and the line's length, so the next open can cut exactly
 * those bytes off again. A dot-file next to the session: no session lister reads it.
 */
export function appendMarkerPath(path: string): string {
	return join(dirname(path), `.${basename(path)}.arbor-append`);
}

/**
 * Repairs a torn append Arbor itself left (see appendMarkerPath): when the marker exists and the file ends
 * with a partial line starting at the recorded size, the partial bytes are removed. Bytes anyone else
 * wrote, or a complete line, are never touched. Returns the number of bytes removed.
 */
export function repairTornAppend(path: string): number {
	const marker = appendMarkerPath(path);
	let text: string;
	try {
		text = readFileSync(marker, "utf8");
	} catch {
		return 0;
	}
	let removed = 0;
	const [sizeText, lengthText] = text.trim().split(" ");
	const before = Number(sizeText);
	const length = Number(lengthText);
	if (Number.isSafeInteger(before) && Number.isSafeInteger(length) && before >= 0 && length > 0) {
		let fd = -1;
		try {
			fd = openSync(path, "r+");
			const size = fstatSync(fd).size;
			if (size > before && size < before + length) {
				const tail = Buffer.alloc(size - before);
				readSync(fd, tail, 0, tail.length, before);
				// Only our partial line: pi and omp always end their lines with "\n".
				if (!tail.includes(0x0a)) {
					ftruncateSync(fd, before);
					fsyncSync(fd);
					removed = tail.length;
				}
			}
		} catch {
			// Unreadable now: leave both file and marker for the next attempt.
			if (fd >= 0) closeSync(fd);
			return 0;
		}
		closeSync(fd);
	}
	try { unlinkSync(marker); } catch { /* already gone */ }
	return removed;
}

/**
 * Appends the parts (one write per part, each a whole line or a lone "\n"). `raced` is true when the file
 * size afterwards is not `expectedSize` + our bytes: another writer appended at the same moment.
 */
export function appendBytes(path: string, parts: Buffer[], expectedSize: number): { state: DiskState; raced: boolean } {
	let fd: number;
	try {
		fd = openSync(path, "a");
	} catch (err) {
		throw ioError(path, err, "opening the session file for appending");
	}
	let before = -1;
	let written = 0;
	const marker = appendMarkerPath(path);
	let markerWritten = false;
	try {
		const total = parts.reduce((s, b) => s + b.length, 0);
		const line = parts.length === 1 ? parts[0] : Buffer.concat(parts, total);
		before = fstatSync(fd).size;
		// Best effort: a folder we may not create files in still takes the append, just without the record.
		try {
			writeFileSync(marker, `${before} ${line.length}\n`);
			markerWritten = true;
		} catch {
			markerWritten = false;
		}
		// One buffer, one write: O_APPEND then places the whole line atomically for regular files.
		while (written < line.length) written += writeSync(fd, line, written, line.length - written);
		if (markerWritten) {
			try { unlinkSync(marker); } catch { /* gone */ }
		}
		const state = stateOf(fd);
		return { state, raced: state.size !== expectedSize + total };
	} catch (err) {
		// A full disk can take part of the line before failing: cut our partial line off again, so the file
		// ends exactly as it did (only when nobody else appended meanwhile; their bytes are not ours to cut).
		if (written > 0 && before >= 0) {
			try {
				if (fstatSync(fd).size === before + written) {
					ftruncateSync(fd, before);
					if (markerWritten) unlinkSync(marker);
				}
			} catch {
				// Nothing more can be done; the error below still tells the user the append failed.
			}
		}
		throw ioError(path, err, "appending to the session file");
	} finally {
		closeSync(fd);
	}
}
