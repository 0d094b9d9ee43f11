// The only code that writes session files. Appends are whole lines; new files go through a temp file in the
// same folder, fsync and a no-clobber link, so a crash or a name clash never damages an existing file.

import { randomBytes } from "node:crypto";
import { closeSync, fstatSync, fsyncSync, ftruncateSync, linkSync, openSync, renameSync, unlinkSync, writeSync, existsSync } from "node:fs";
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
	try {
		const total = parts.reduce((s, b) => s + b.length, 0);
		const line = parts.length === 1 ? parts[0] : Buffer.concat(parts, total);
		before = fstatSync(fd).size;
		// One buffer, one write: O_APPEND then places the whole line atomically for regular files.
		while (written < line.length) written += writeSync(fd, line, written, line.length - written);
		const state = stateOf(fd);
		return { state, raced: state.size !== expectedSize + total };
	} catch (err) {
		// A full disk can take part of the line before failing: cut our partial line off again, so the file
		// ends exactly as it did (only when nobody else appended meanwhile; their bytes are not ours to cut).
		if (written > 0 && before >= 0) {
			try {
				if (fstatSync(fd).size === before + written) ftruncateSync(fd, before);
			} catch {
				// Nothing more can be done; the error below still tells the user the append failed.
			}
		}
		throw ioError(path, err, "appending to the session file");
	} finally {
		closeSync(fd);
	}
}
