// The only code that writes session files. Appends are whole lines; new files go through a temp file in the
// same folder, fsync and a no-clobber link, so a crash or a name clash never damages an existing file.

import { createHash, randomBytes } from "node:crypto";
import {
	closeSync,
	constants as fsConstants,
	fchmodSync,
	fstatSync,
	fsyncSync,
	ftruncateSync,
	linkSync,
	lstatSync,
	openSync,
	readFileSync,
	readSync,
	renameSync,
	statSync,
	unlinkSync,
	writeSync,
	existsSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { threadId } from "node:worker_threads";
import { SessionFileError, ioError } from "./errors";

/** Removes a temp file, claim or marker that may already be gone (renamed into place or cleaned by another writer). */
function removeQuietly(file: string): void {
	try {
		unlinkSync(file);
	} catch {
		// already gone
	}
}

export interface DiskState {
	size: number;
	mtimeMs: number;
	ino: number;
	dev: number;
}

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
		try {
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
	} catch {
		// Some platforms cannot fsync a directory; the file itself is already durable.
	}
}

function tempPathFor(path: string): string {
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
 * Creates `path` with the given content; fails (code "conflict") instead of replacing an existing file.
 * `mode` has no default: each caller says whose file it is (NEW_SESSION_FILE_MODE, derivedFileMode(source),
 * PRIVATE_FILE_MODE).
 */
export function writeNewFile(path: string, parts: Buffer[], mode: number): DiskState {
	const tmp = writeTemp(path, parts, mode);
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

// ---------------------------------------------------------------- the append marker
//
// Linux may stop a write of more than a page part-way when the process is killed (kill -9, OOM), leaving a
// torn last line that pi would later glue its next entry to. Before each append Arbor publishes a marker
// next to the session naming itself (pid, thread, process start time, boot id), the size before the append
// and the exact bytes it is about to write (with their SHA-256). Rules (docs/guarantees.md "Torn appends"):
// - Reading never looks at the marker; only a writer acts on it, at its next append.
// - The marker is written to a fresh temp file (O_EXCL | O_NOFOLLOW, 0600) and published with link(),
//   which never follows or replaces anything at the marker path: a marker is complete or absent.
// - Holding the marker is the lock among Arbor writers: one Arbor append at a time per file. A marker of
//   a live owner is waited for; a process that cannot be proven dead is treated as alive.
// - A marker whose owner is dead is claimed (renamed away, inode checked), then the claimer publishes its
//   own marker, and only while holding it cuts the file back to the recorded size, and only when the
//   bytes past it are, byte for byte, a proper prefix of the bytes the marker holds. Anything else (a
//   complete line, someone else's bytes, an old or damaged marker, a symlink) is removed and never acted on.

/** Where the marker of an append in progress lives. A dot-file next to the session: no session lister reads it. */
export function appendMarkerPath(path: string): string {
	return join(dirname(path), `.${basename(path)}.arbor-append`);
}

/** The marker's first line (JSON, padded with spaces) has this fixed size; the appended bytes follow it. */
export const MARKER_HEADER_BYTES = 512;
const MARKER_VERSION = 2;
/** How long an append waits for another live Arbor writer's marker before appending without one. */
const LIVE_WAIT_MS = 5000;
const O_NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;

interface Owner {
	pid: number;
	thread: number;
	boot: string;
	start: string;
}
interface MarkerHeader extends Owner {
	arbor: "append";
	v: number;
	before: number;
	length: number;
	sha256: string;
	nonce: string;
}

function readProc(path: string): string | null {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return null;
	}
}

/** Process start time in clock ticks since boot (field 22 of /proc/PID/stat); null without /proc or process. */
function procStart(pid: number | "self"): string | null {
	const stat = readProc(`/proc/${pid}/stat`);
	if (stat === null) return null;
	// The command name (field 2) may hold spaces and parentheses: fields after the last ")" are fixed.
	const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return rest[19] ?? null;
}

let self: Owner | undefined;
function selfOwner(): Owner {
	self ??= {
		pid: process.pid,
		thread: threadId,
		boot: (readProc("/proc/sys/kernel/random/boot_id") ?? "").trim(),
		start: procStart("self") ?? "",
	};
	return self;
}

/** "dead" only with proof (no such process, pid reused, rebooted, or this very thread between appends). */
function ownerState(o: Owner): "alive" | "dead" {
	const me = selfOwner();
	if (o.boot !== "" && me.boot !== "" && o.boot !== me.boot) return "dead";
	if (o.pid === me.pid && o.start === me.start && o.boot === me.boot) {
		// Appends are synchronous: this thread is not in the middle of one right now.
		return o.thread === me.thread ? "dead" : "alive";
	}
	try {
		process.kill(o.pid, 0);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ESRCH") return "dead";
	}
	if (me.start === "" || o.start === "") return "alive";
	const start = procStart(o.pid);
	if (start === null) return existsSync(`/proc/${o.pid}`) ? "alive" : "dead";
	return start === o.start ? "alive" : "dead";
}

function sha256(b: Buffer): string {
	return createHash("sha256").update(b).digest("hex");
}

function sleepMs(ms: number): void {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function errCode(err: unknown): string {
	return typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : "";
}

function markerContent(before: number, bytes: Buffer): Buffer[] {
	const header: MarkerHeader = {
		arbor: "append",
		v: MARKER_VERSION,
		...selfOwner(),
		before,
		length: bytes.length,
		sha256: sha256(bytes),
		nonce: randomBytes(8).toString("hex"),
	};
	const json = JSON.stringify(header);
	if (json.length > MARKER_HEADER_BYTES - 1) throw new Error("append marker header too long");
	return [Buffer.from(`${json.padEnd(MARKER_HEADER_BYTES - 1, " ")}\n`, "utf8"), bytes];
}

/** Writes a complete marker to a new temp file (exclusive, never through a symlink); its path, or null. */
function writeMarkerTemp(marker: string, before: number, bytes: Buffer): string | null {
	const tmp = `${marker}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
	let fd: number;
	try {
		fd = openSync(tmp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | O_NOFOLLOW, 0o600);
	} catch {
		return null;
	}
	try {
		writeAll(fd, markerContent(before, bytes));
	} catch {
		closeSync(fd);
		removeQuietly(tmp);
		return null;
	}
	closeSync(fd);
	return tmp;
}

type Publish = "ok" | "taken" | "unavailable";

/** Publishes a marker with link(): fails with "taken" when anything (a marker, a symlink) is at the path. */
function publishMarker(marker: string, before: number, bytes: Buffer): Publish {
	const tmp = writeMarkerTemp(marker, before, bytes);
	if (tmp === null) return "unavailable";
	try {
		linkSync(tmp, marker);
		return "ok";
	} catch (err) {
		return errCode(err) === "EEXIST" ? "taken" : "unavailable";
	} finally {
		removeQuietly(tmp);
	}
}

/** Replaces the marker this writer holds (only ever called while holding it). */
function republishMarker(marker: string, before: number, bytes: Buffer): boolean {
	const tmp = writeMarkerTemp(marker, before, bytes);
	if (tmp === null) return false;
	try {
		renameSync(tmp, marker);
		return true;
	} catch {
		removeQuietly(tmp);
		return false;
	}
}

interface Found {
	ino: number;
	header: MarkerHeader | undefined;
	bytes: Buffer | undefined;
}

/** Reads the marker without following a symlink; undefined when nothing is there any more. */
function readMarker(marker: string): Found | undefined {
	let fd: number;
	try {
		fd = openSync(marker, fsConstants.O_RDONLY | O_NOFOLLOW | fsConstants.O_NONBLOCK);
	} catch (err) {
		const code = errCode(err);
		if (code === "ENOENT") return undefined;
		// A symlink (ELOOP) or something unreadable: not a marker Arbor wrote.
		try {
			return { ino: lstatSync(marker).ino, header: undefined, bytes: undefined };
		} catch {
			return undefined;
		}
	}
	try {
		const st = fstatSync(fd);
		if (!st.isFile() || st.size < MARKER_HEADER_BYTES) return { ino: st.ino, header: undefined, bytes: undefined };
		const head = Buffer.alloc(MARKER_HEADER_BYTES);
		readSync(fd, head, 0, head.length, 0);
		let header: MarkerHeader | undefined;
		try {
			const h = JSON.parse(head.toString("utf8")) as MarkerHeader;
			const ok =
				h &&
				h.arbor === "append" &&
				h.v === MARKER_VERSION &&
				Number.isSafeInteger(h.pid) &&
				Number.isSafeInteger(h.thread) &&
				typeof h.boot === "string" &&
				typeof h.start === "string" &&
				Number.isSafeInteger(h.before) &&
				h.before >= 0 &&
				Number.isSafeInteger(h.length) &&
				h.length >= 0 &&
				typeof h.sha256 === "string" &&
				st.size === MARKER_HEADER_BYTES + h.length;
			header = ok ? h : undefined;
		} catch {
			header = undefined;
		}
		if (!header) return { ino: st.ino, header: undefined, bytes: undefined };
		const bytes = Buffer.alloc(header.length);
		let off = 0;
		while (off < bytes.length) {
			const n = readSync(fd, bytes, off, bytes.length - off, MARKER_HEADER_BYTES + off);
			if (n === 0) break;
			off += n;
		}
		return { ino: st.ino, header, bytes: off === bytes.length && sha256(bytes) === header.sha256 ? bytes : undefined };
	} finally {
		closeSync(fd);
	}
}

/**
 * Moves a dead owner's marker out of the way (rename to a unique name). Only one process wins the rename;
 * the inode check catches the case where the path already held someone else's fresh marker (it is then
 * linked back). Returns the claimed path, or null when nothing was claimed.
 */
function claimMarker(marker: string, found: Found): string | null {
	const claim = `${marker}.${process.pid}.${randomBytes(4).toString("hex")}.stale`;
	try {
		renameSync(marker, claim);
	} catch {
		return null;
	}
	let ino = -1;
	try {
		ino = lstatSync(claim).ino;
	} catch {
		/* gone */
	}
	if (ino !== found.ino) {
		try {
			linkSync(claim, marker);
		} catch {
			/* a newer marker took the place; ours to drop */
		}
		removeQuietly(claim);
		return null;
	}
	return claim;
}

/**
 * Cuts the torn line a dead Arbor writer left, only when the bytes past its recorded size are exactly a
 * proper prefix of what it was writing. Called while holding the marker (no Arbor writer can append).
 */
function repairFrom(fd: number, header: MarkerHeader, bytes: Buffer): number {
	const size = fstatSync(fd).size;
	const before = header.before;
	if (!(size > before && size < before + bytes.length)) return 0;
	const tail = Buffer.alloc(size - before);
	let off = 0;
	while (off < tail.length) {
		const n = readSync(fd, tail, off, tail.length - off, before + off);
		if (n === 0) return 0;
		off += n;
	}
	if (!tail.equals(bytes.subarray(0, tail.length))) return 0;
	// A writer without the marker (pi) appending since the check shows as a size change: then nothing is cut.
	if (fstatSync(fd).size !== size) return 0;
	ftruncateSync(fd, before);
	fsyncSync(fd);
	return tail.length;
}

interface Slot {
	/** This writer holds the marker (and must remove it). */
	held: boolean;
	/** Bytes of a dead writer's torn line removed while taking the slot. */
	repaired: number;
	/** The file size the held marker records. */
	before: number;
}

/**
 * Takes the append slot of `path` for an append of `bytes` through `fd` (opened for reading and appending).
 * Never throws for marker trouble: without a marker the append still happens, just without torn-line repair.
 */
function takeSlot(fd: number, marker: string, bytes: Buffer): Slot {
	const deadline = Date.now() + LIVE_WAIT_MS;
	let stale: { claim: string; header: MarkerHeader; bytes: Buffer } | undefined;
	let before = fstatSync(fd).size;
	let slot: Slot = { held: false, repaired: 0, before };
	for (let attempt = 0; ; attempt++) {
		if (attempt > 0 && Date.now() > deadline) break;
		before = fstatSync(fd).size;
		const r = publishMarker(marker, before, bytes);
		if (r === "ok") {
			slot = { held: true, repaired: 0, before };
			break;
		}
		if (r === "unavailable") break;
		const found = readMarker(marker);
		if (!found) continue;
		if (found.header && ownerState(found.header) === "alive") {
			sleepMs(Math.min(20, 1 + attempt));
			continue;
		}
		// A dead owner's marker, an old-format or damaged one, or a symlink: claim it and drop it.
		const claim = claimMarker(marker, found);
		if (claim === null) continue;
		if (found.header && found.bytes && !stale) stale = { claim, header: found.header, bytes: found.bytes };
		else removeQuietly(claim);
	}
	if (stale) {
		if (slot.held) {
			try {
				slot.repaired = repairFrom(fd, stale.header, stale.bytes);
			} catch {
				slot.repaired = 0;
			}
			if (slot.repaired > 0) {
				slot.before = fstatSync(fd).size;
				if (!republishMarker(marker, slot.before, bytes)) {
					removeQuietly(marker);
					slot.held = false;
				}
			}
		}
		removeQuietly(stale.claim);
	}
	return slot;
}

function releaseSlot(marker: string, slot: Slot): void {
	if (!slot.held) return;
	slot.held = false;
	removeQuietly(marker);
}

/**
 * At the start of a write by Arbor: repairs a torn line a dead Arbor writer left (see the rules above) and
 * removes its marker. Returns the bytes removed (0 almost always). Never called by a read.
 */
export function settleStaleAppend(path: string): number {
	const marker = appendMarkerPath(path);
	try {
		lstatSync(marker);
	} catch {
		return 0;
	}
	let fd: number;
	try {
		fd = openSync(path, fsConstants.O_RDWR | fsConstants.O_APPEND);
	} catch {
		return 0;
	}
	try {
		const slot = takeSlot(fd, marker, Buffer.alloc(0));
		releaseSlot(marker, slot);
		return slot.repaired;
	} finally {
		closeSync(fd);
	}
}

/**
 * Appends the parts (one write of their concatenation). `raced` is true when the file size afterwards is
 * not `expectedSize` + our bytes: another writer appended at the same moment (or a dead writer's torn line
 * was removed first).
 */
export function appendBytes(path: string, parts: Buffer[], expectedSize: number): { state: DiskState; raced: boolean } {
	let fd: number;
	try {
		fd = openSync(path, "a+");
	} catch (err) {
		throw ioError(path, err, "opening the session file for appending");
	}
	const marker = appendMarkerPath(path);
	let slot: Slot = { held: false, repaired: 0, before: -1 };
	let before = -1;
	let written = 0;
	const total = parts.reduce((s, b) => s + b.length, 0);
	const line = parts.length === 1 ? parts[0] : Buffer.concat(parts, total);
	try {
		slot = takeSlot(fd, marker, line);
		before = fstatSync(fd).size;
		// One buffer, one write: O_APPEND then places the whole line atomically for regular files.
		while (written < line.length) written += writeSync(fd, line, written, line.length - written);
		const state = stateOf(fd);
		return { state, raced: slot.repaired > 0 || state.size !== expectedSize + total };
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
