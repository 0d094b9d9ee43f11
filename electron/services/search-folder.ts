// Search across sessions: which files of the index folder are Arbor's, and the lock that lets one Arbor
// process at a time write them. Arbor never deletes or overwrites a file it did not write: a folder that
// is not empty and holds no Arbor index is refused, and clearing an index removes only the names below.
//
// The lock is `index.lock`, created exclusively and holding the writer's pid, host and process start time.
// A lock whose process is gone (kill -9) is stale and is broken under a second exclusive file, so two
// processes that find the same stale lock cannot both take it.

import { closeSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

export const LOCK = "index.lock";
const BREAKING = "index.lock.break";
/** A lock or break file this old without readable contents was left by a process killed while creating it. */
const UNREADABLE_STALE_MS = 10_000;

/** Names Arbor's index writes, this version and older ones (b-<fid>.json: version 2). */
const OWN = /^(?:manifest\.json|reserved\.json|d-[0-9a-f]+\.json|t-\d+\.json|b-\d+\.json)$/;
/** A file written whole under `<name>.<pid>.tmp` and renamed into place (left behind by a kill). */
const TEMP = /^(.+)\.\d+\.tmp$/;
/** The one-file-per-session shards of version 1, named in its manifest. */
const V1_SHARD = /^[0-9a-f]{8,40}\.json$/;

/** The index folder holds files Arbor did not write: nothing in it is touched. */
export class IndexFolderError extends Error {
	readonly dir: string;
	constructor(dir: string, why: string) {
		super(
			`"${dir}" is not empty and holds no Arbor search index (${why}). Arbor never deletes or overwrites files it did not write: choose an empty or new folder for the index, or move those files away.`,
		);
		this.name = "IndexFolderError";
		this.dir = dir;
	}
}

export function isTempName(name: string): boolean {
	const m = TEMP.exec(name);
	return m !== null && OWN.test(m[1]);
}

function isOwnName(name: string): boolean {
	return OWN.test(name) || isTempName(name) || name === LOCK || name === BREAKING;
}

/** A manifest any Arbor version wrote: an object with a whole version number and a files object. */
export function isArborManifest(v: unknown): v is { version: number; files: Record<string, unknown> } {
	if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
	const m = v as { version?: unknown; files?: unknown };
	return Number.isInteger(m.version) && (m.version as number) > 0 && typeof m.files === "object" && m.files !== null && !Array.isArray(m.files);
}

function readText(file: string): string | undefined {
	try {
		return readFileSync(file, "utf8");
	} catch {
		return undefined;
	}
}

function parse(text: string | undefined): unknown {
	if (text === undefined) return undefined;
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

function names(dir: string): string[] {
	try {
		return readdirSync(dir);
	} catch (err) {
		return noFolder(dir, err);
	}
}

/** The regular files of `dir` (a folder of the user's with an index-like name is never touched). */
function fileNames(dir: string): string[] {
	try {
		return readdirSync(dir, { withFileTypes: true })
			.filter((e) => e.isFile())
			.map((e) => e.name);
	} catch (err) {
		return noFolder(dir, err);
	}
}

function noFolder(dir: string, err: unknown): string[] {
	const code = (err as NodeJS.ErrnoException).code;
	if (code === "ENOENT") return [];
	if (code === "ENOTDIR") throw new IndexFolderError(dir, "it is a file, not a folder");
	throw err;
}

/**
 * Throws IndexFolderError unless `dir` is missing, empty or Arbor's index: a manifest.json any Arbor wrote,
 * or (a first build stopped before its manifest) only Arbor's own names with its id reservation.
 */
export function checkIndexFolder(dir: string): void {
	// The usual case first, without listing a folder of thousands of dictionary files.
	if (isArborManifest(parse(readText(join(dir, "manifest.json"))))) return;
	const all = names(dir);
	if (!all.length) return;
	if (all.includes("manifest.json")) throw new IndexFolderError(dir, "its manifest.json is not an Arbor index manifest");
	const foreign = all.find((n) => !isOwnName(n));
	if (foreign !== undefined) throw new IndexFolderError(dir, `it holds "${foreign}" and no manifest.json`);
	const r = parse(readText(join(dir, "reserved.json"))) as { upTo?: unknown } | undefined;
	const onlyLocks = all.every((n) => n === LOCK || n === BREAKING || isTempName(n));
	if (!onlyLocks && !(r && typeof r.upTo === "number")) throw new IndexFolderError(dir, "it has no manifest.json");
}

/**
 * Removes the index files of any Arbor version from `dir` (and the shards a version-1 manifest names),
 * leaving every other file, the lock and the folder itself.
 */
export function removeIndexFiles(dir: string, oldManifest: unknown): void {
	const shards = new Set<string>();
	if (isArborManifest(oldManifest))
		for (const st of Object.values(oldManifest.files)) {
			const shard = (st as { shard?: unknown } | null)?.shard;
			if (typeof shard === "string" && V1_SHARD.test(shard)) shards.add(shard);
		}
	for (const n of fileNames(dir)) if ((OWN.test(n) || isTempName(n) || shards.has(n)) && n !== "manifest.json") rmSync(join(dir, n), { force: true });
	// The manifest last: until it is gone the folder still reads as Arbor's.
	rmSync(join(dir, "manifest.json"), { force: true });
}

/** Temporary files a killed writer left (only called with the lock held: no live writer owns one). */
export function removeTempFiles(dir: string): number {
	let n = 0;
	for (const name of fileNames(dir))
		if (isTempName(name)) {
			rmSync(join(dir, name), { force: true });
			n++;
		}
	return n;
}

/** The process holding the lock. */
export interface LockHolder {
	pid: number;
	host: string;
	/** The process's start time (Linux /proc), so a pid reused by another process is not mistaken for it. */
	start: string | null;
}

function startOf(pid: number): string | null {
	const stat = readText(`/proc/${pid}/stat`);
	if (stat === undefined) return null;
	// Fields after the command name (which may hold spaces, closed by the last ")"); field 22 is starttime.
	return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
}

function alive(h: LockHolder): boolean {
	// Another machine's process (a shared network folder) cannot be checked: its lock holds.
	if (h.host !== hostname()) return true;
	try {
		process.kill(h.pid, 0);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
	}
	const now = h.start === null ? null : startOf(h.pid);
	return now === null || now === h.start;
}

/**
 * Creates `file` with `data` only if it does not exist (false when it does). A failed write (a full disk)
 * removes the file again.
 */
export function createExclusive(file: string, data: string): boolean {
	let fd: number;
	try {
		fd = openSync(file, "wx", 0o600);
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
		throw err;
	}
	try {
		writeSync(fd, data);
	} catch (err) {
		closeSync(fd);
		rmSync(file, { force: true });
		throw err;
	}
	closeSync(fd);
	return true;
}

function readHolder(file: string): LockHolder | "gone" | "unreadable" {
	const text = readText(file);
	if (text === undefined) return "gone";
	const h = parse(text) as Partial<LockHolder> | undefined;
	if (h && typeof h.pid === "number" && typeof h.host === "string") return { pid: h.pid, host: h.host, start: typeof h.start === "string" ? h.start : null };
	return "unreadable";
}

function ageMs(file: string): number {
	try {
		return Date.now() - statSync(file).mtimeMs;
	} catch {
		return 0;
	}
}

/** Takes the folder's lock: null when taken, else the live process holding it. The folder must exist. */
export function tryLock(dir: string): LockHolder | null {
	const file = join(dir, LOCK);
	const me: LockHolder = { pid: process.pid, host: hostname(), start: startOf(process.pid) };
	for (let attempt = 0; attempt < 5; attempt++) {
		if (createExclusive(file, JSON.stringify(me))) return null;
		const held = readHolder(file);
		if (held === "gone") continue;
		if (held === "unreadable" ? ageMs(file) < UNREADABLE_STALE_MS : alive(held)) return held === "unreadable" ? { pid: 0, host: "", start: null } : held;
		// Stale: break it, one breaker at a time, and only if it is still the same stale lock.
		const breaking = join(dir, BREAKING);
		if (!createExclusive(breaking, String(process.pid))) {
			if (ageMs(breaking) > UNREADABLE_STALE_MS) rmSync(breaking, { force: true });
			continue;
		}
		try {
			if (JSON.stringify(readHolder(file)) === JSON.stringify(held)) rmSync(file, { force: true });
		} finally {
			rmSync(breaking, { force: true });
		}
	}
	const last = readHolder(file);
	return typeof last === "object" ? last : { pid: 0, host: "", start: null };
}

/** Releases the lock if this process holds it. */
export function unlock(dir: string): void {
	const file = join(dir, LOCK);
	const held = readHolder(file);
	if (typeof held === "object" && held.pid === process.pid && held.host === hostname()) rmSync(file, { force: true });
}
