// The append slot of a session file: the marker that makes Arbor's appends one at a time per file and lets
// Arbor's next write repair a torn line that a killed Arbor writer left (docs/guarantees.md "Torn appends").

import { createHash, randomBytes } from "node:crypto";
import {
	closeSync,
	existsSync,
	fstatSync,
	fsyncSync,
	ftruncateSync,
	linkSync,
	lstatSync,
	openSync,
	constants as fsConstants,
	readFileSync,
	readSync,
	renameSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { threadId } from "node:worker_threads";
import { O_NOFOLLOW, errCode, removeQuietly, sleepMs, writeAll } from "./fd-io";

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
export function republishMarker(marker: string, before: number, bytes: Buffer): boolean {
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

export interface Slot {
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
export function takeSlot(fd: number, marker: string, bytes: Buffer): Slot {
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

export function releaseSlot(marker: string, slot: Slot): void {
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
