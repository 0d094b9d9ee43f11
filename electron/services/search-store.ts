// Search across sessions, part 3 of 5: the index folder on disk. Files (JSON, each written whole to a
// temporary name and renamed, so a reader never sees half a file):
//   manifest.json   version, the state of every indexed file (FileState), the next file id
//   reserved.json   file ids handed out ahead (never reused, even after a stop before the manifest is saved)
//   d-<hex>.json    dictionary: term -> postings [fid, block, ...] of the terms starting with those 3 characters
//   t-<k>.json      block tables of the files whose fid % 64 is k: fid -> [[byte offset, byte length], ...]
//   index.lock      held by the one process writing the folder (search-folder.ts)
// The manifest is written last: postings and tables of file ids it does not name are stale and skipped.
// Until it is written the previous index stays whole: postings and tables of the file ids it names are kept
// in every file rewritten before it (a build that fails on a full disk leaves the old index answering).
// A dictionary or table file that does not parse (cut short by a crash of the machine) is rebuilt: a
// dictionary from the indexed blocks of the session files, a table group by indexing its files again.

import { closeSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { dictFromBlocks } from "./search-build";
import { checkIndexFolder, removeIndexFiles, removeTempFiles, tryLock, unlock, type LockHolder } from "./search-folder";
import { type TermTable, dictName } from "./search-terms";
import { makePrivateDir, openPrivateFile, writePrivateFile } from "./arbor-files";

/** Version 3: block tables grouped in 64 files (t-*.json) instead of one b-<fid>.json per session file. */
export const INDEX_VERSION = 3;

export interface FileState {
	size: number;
	mtimeMs: number;
	indexedTo: number;
	head: string;
	/** File id in the postings; a file re-indexed from scratch gets a new one. */
	fid: number;
	/** Blocks indexed. */
	blocks: number;
	sessionId: string | null;
	title: string | null;
	entries: number;
}

export interface Manifest {
	version: number;
	files: Record<string, FileState>;
	nextFid: number;
}

/** A dictionary file: term -> postings [fid, block, fid, block, ...]. */
export type Dict = Record<string, number[]>;

/** [byte offset, byte length] of each block of one file. */
export type BlockTable = [number, number][];

/** Dictionary files kept parsed in memory at most (each holds the terms of one three-character prefix). */
const DICT_CACHE = 48;
const TABLE_GROUPS = 64;
/** Posting numbers merged, or characters of a dictionary file written, per build step. */
const STEP_NUMBERS = 200_000;

export function writeAtomic(file: string, data: string): void {
	const tmp = `${file}.${process.pid}.tmp`;
	try {
		writePrivateFile(tmp, data);
	} catch (err) {
		// A full disk: no half-written temporary file is left behind.
		rmSync(tmp, { force: true });
		throw err;
	}
	renameSync(tmp, file);
}

/**
 * Writes dictionary `d` with `updates` applied (JSON that parses to the same object), a piece per
 * step, under a temporary name renamed into place at the end (removed if the build stops before).
 */
function* writeDict(file: string, d: Dict, updates: Map<string, number[]>): Generator<void, void> {
	const tmp = `${file}.${process.pid}.tmp`;
	const fd = openPrivateFile(tmp);
	let done = false;
	try {
		let out = "{";
		let first = true;
		const piece = (word: string, list: number[]) => {
			out += `${first ? "" : ","}${JSON.stringify(word)}:[${list.join(",")}]`;
			first = false;
		};
		const flush = function* () {
			if (out.length < STEP_NUMBERS) return;
			writeSync(fd, out);
			out = "";
			yield;
		};
		for (const word of Object.keys(d)) {
			piece(word, updates.get(word) ?? d[word]);
			yield* flush();
		}
		for (const [word, list] of updates) {
			if (Object.hasOwn(d, word)) continue;
			piece(word, list);
			yield* flush();
		}
		writeSync(fd, `${out}}`);
		done = true;
	} finally {
		closeSync(fd);
		if (!done) rmSync(tmp, { force: true });
	}
	renameSync(tmp, file);
}

function readJson(file: string): unknown {
	try {
		return JSON.parse(readFileSync(file, "utf8"));
	} catch {
		return undefined;
	}
}

/** A JSON object file: the object, {} when the file does not exist, null when it exists but is damaged. */
function readObject(file: string): Record<string, unknown> | null {
	let text: string;
	try {
		text = readFileSync(file, "utf8");
	} catch (err) {
		if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
		return null;
	}
	try {
		const v: unknown = JSON.parse(text);
		return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
	} catch {
		return null;
	}
}

/** Identity of a file's current contents (a rename into place changes it). */
function stamp(file: string): string {
	try {
		const st = statSync(file);
		return `${st.ino}:${st.size}:${st.mtimeMs}`;
	} catch {
		return "";
	}
}

export class IndexStore {
	readonly dir: string;
	manifest: Manifest = { version: INDEX_VERSION, files: {}, nextFid: 1 };
	/** fid -> path of the files the manifest holds now (postings of other fids are stale: skipped). */
	readonly byFid = new Map<number, string>();
	/** The folder holds an index of another version (an older Arbor's): cleared on the next update. */
	older = false;
	#reserved = 0;
	/** fid -> blocks of each file as the manifest on disk has it: what the dictionary files hold. */
	#saved = new Map<number, number>();
	/** The manifest read or written last (another process's write changes it). */
	#stamp = "";
	#oldManifest: unknown;
	#locked = false;
	/** Counts the reads of the whole index from disk (another process changed it, or a failed build). */
	generation = 0;
	/** Parsed dictionary files, least recently used first. */
	#dicts = new Map<string, Dict>();
	/** Dictionary files found damaged and rebuilt in memory, to be written with the lock held. */
	#repaired = new Set<string>();
	/** Names of the dictionary files on disk, listed once when needed. */
	#names: Set<string> | null = null;
	/** Parsed block table groups (all kept: a few bytes per block). */
	#tables = new Map<number, Record<string, BlockTable>>();
	#dirtyTables = new Set<number>();

	/** Throws IndexFolderError when `dir` holds files that are not Arbor's index. */
	constructor(dir: string) {
		this.dir = dir;
		checkIndexFolder(dir);
		this.#load();
	}

	/** Reads the manifest and id reservation from disk, forgetting everything cached. */
	#load(): void {
		this.generation++;
		const file = join(this.dir, "manifest.json");
		this.#stamp = stamp(file);
		this.manifest = { version: INDEX_VERSION, files: {}, nextFid: 1 };
		this.older = false;
		const m = readJson(file) as Manifest | undefined;
		this.#oldManifest = m;
		if (m !== undefined) {
			if (m && m.version === INDEX_VERSION && typeof m.files === "object" && m.files && typeof m.nextFid === "number") this.manifest = m;
			else this.older = true;
		}
		this.#reserved = 0;
		this.#readReservation();
		this.byFid.clear();
		this.#saved.clear();
		for (const [path, st] of Object.entries(this.manifest.files)) {
			this.byFid.set(st.fid, path);
			this.#saved.set(st.fid, st.blocks);
		}
		this.#dicts.clear();
		this.#repaired.clear();
		this.#names = null;
		this.#tables.clear();
		this.#dirtyTables.clear();
	}

	/** Ids another process reserved since are never handed out here. */
	#readReservation(): void {
		const r = readJson(join(this.dir, "reserved.json")) as { upTo?: unknown } | undefined;
		if (r && typeof r.upTo === "number" && r.upTo > this.manifest.nextFid) this.manifest.nextFid = r.upTo;
		if (this.#reserved < this.manifest.nextFid) this.#reserved = this.manifest.nextFid;
	}

	get locked(): boolean {
		return this.#locked;
	}

	/**
	 * Takes the folder's write lock: null when taken, else the live process holding it. With the lock,
	 * what another process wrote meanwhile is read again and the temporary files of a killed writer removed.
	 */
	lock(): LockHolder | null {
		if (this.#locked) return null;
		checkIndexFolder(this.dir);
		makePrivateDir(this.dir);
		const held = tryLock(this.dir);
		if (held) return held;
		this.#locked = true;
		try {
			if (stamp(join(this.dir, "manifest.json")) !== this.#stamp) this.#load();
			else this.#readReservation();
			removeTempFiles(this.dir);
		} catch (err) {
			this.unlock();
			throw err;
		}
		return null;
	}

	unlock(): void {
		if (!this.#locked) return;
		this.#locked = false;
		unlock(this.dir);
	}

	/** Forgets what a failed build changed in memory: the index is what is on disk. */
	reload(): void {
		this.#load();
	}

	/** A file id never used before in this folder: ids are reserved on disk ahead, 1,000 at a time. */
	newFid(): number {
		const fid = this.manifest.nextFid++;
		if (fid >= this.#reserved) {
			this.#reserved = fid + 1000;
			makePrivateDir(this.dir);
			writeAtomic(join(this.dir, "reserved.json"), JSON.stringify({ upTo: this.#reserved }));
		}
		return fid;
	}

	#group(fid: number): Record<string, BlockTable> {
		const k = fid % TABLE_GROUPS;
		let g = this.#tables.get(k);
		if (!g) {
			const read = readObject(join(this.dir, `t-${k}.json`));
			g = (read ?? {}) as Record<string, BlockTable>;
			this.#tables.set(k, g);
			if (read === null) {
				// Damaged: the files of this group are indexed again (from scratch, under new ids).
				this.#dirtyTables.add(k);
				for (const [path, st] of Object.entries(this.manifest.files)) if (st.fid % TABLE_GROUPS === k) this.drop(path);
			}
		}
		return g;
	}

	/** The block table of file `fid` (empty when unknown). */
	blocksOf(fid: number): BlockTable {
		const t = this.#group(fid)[fid];
		return Array.isArray(t) ? t : [];
	}

	/** A new, empty block table for file `fid`, to be filled by the build. */
	newTable(fid: number): BlockTable {
		const t: BlockTable = [];
		this.#group(fid)[fid] = t;
		this.#dirtyTables.add(fid % TABLE_GROUPS);
		return t;
	}

	/** The block table of `fid` for appending blocks (marked to be saved). */
	tableForAppend(fid: number): BlockTable {
		const g = this.#group(fid);
		let t = g[fid];
		if (!Array.isArray(t)) t = g[fid] = [];
		this.#dirtyTables.add(fid % TABLE_GROUPS);
		return t;
	}

	/** Forgets file `path` (its postings go stale; its table is left out when its group is next written). */
	drop(path: string): void {
		const st = this.manifest.files[path];
		if (!st) return;
		delete this.manifest.files[path];
		this.byFid.delete(st.fid);
	}

	/** Postings and tables of `fid` stay in the files: a file indexed now, or one the manifest on disk names. */
	#keeps(fid: number): boolean {
		return this.byFid.has(fid) || this.#saved.has(fid);
	}

	dict(name: string): Dict {
		let d = this.#dicts.get(name);
		if (d) {
			this.#dicts.delete(name);
			this.#dicts.set(name, d);
			return d;
		}
		const read = readObject(join(this.dir, name));
		if (read === null) {
			// Damaged (cut short): rebuilt from the indexed blocks, never merged into as if it were empty.
			const files = [];
			for (const [fid, blocks] of this.#saved) {
				const path = this.byFid.get(fid);
				if (path !== undefined) files.push({ fid, path, table: this.blocksOf(fid).slice(0, blocks) });
			}
			d = dictFromBlocks(name, files);
			this.#repaired.add(name);
		} else d = read as Dict;
		this.#dicts.set(name, d);
		while (this.#dicts.size > DICT_CACHE) this.#dicts.delete(this.#dicts.keys().next().value as string);
		return d;
	}

	/** Names of the dictionary files on disk (and written since). */
	dictNames(): Set<string> {
		if (!this.#names) {
			this.#names = new Set();
			try {
				for (const n of readdirSync(this.dir)) if (n.startsWith("d-") && n.endsWith(".json")) this.#names.add(n);
			} catch {
				// No index folder yet.
			}
		}
		return this.#names;
	}

	/** Puts `d` in the cache as dictionary file `name` (replacing a copy read from disk meanwhile). */
	#cacheDict(name: string, d: Dict): void {
		this.#dicts.delete(name);
		this.#dicts.set(name, d);
		while (this.#dicts.size > DICT_CACHE) this.#dicts.delete(this.#dicts.keys().next().value as string);
	}

	/**
	 * Merges the terms' pending postings into the dictionary files (read, append, atomic write per file).
	 * The work of one file is split into steps of about STEP_NUMBERS numbers, so a large dictionary file
	 * never holds the main process for long. Until a file is renamed into place its new lists are kept
	 * aside: a query meanwhile reads the old lists and the pending postings, each once. Postings of files
	 * dropped or re-indexed since are left out of every list rewritten.
	 */
	*mergePostings(terms: TermTable): Generator<void, void> {
		if (!terms.pendingCount) return;
		makePrivateDir(this.dir);
		const names = this.dictNames();
		for (const [name, ids] of [...terms.pending]) {
			const d = this.dict(name);
			yield;
			const updates = new Map<string, number[]>();
			let work = 0;
			for (const id of ids) {
				const word = terms.words[id];
				const add = terms.postings(id);
				const old = Object.hasOwn(d, word) ? d[word] : undefined;
				const kept: number[] = [];
				if (old) for (let i = 0; i < old.length; i += 2) if (this.#keeps(old[i])) kept.push(old[i], old[i + 1]);
				for (let i = 0; i < add.length; i++) kept.push(add[i]);
				updates.set(word, kept);
				work += kept.length + (old ? old.length : 0);
				if (work > STEP_NUMBERS) {
					work = 0;
					yield;
				}
			}
			yield* writeDict(join(this.dir, name), d, updates);
			for (const [word, list] of updates) d[word] = list;
			this.#repaired.delete(name);
			this.#cacheDict(name, d);
			names.add(name);
			// Merged: queries now find these postings in the file's parsed copy, not twice.
			terms.merged(name);
			yield;
		}
	}

	/** Writes the dictionary files rebuilt after damage (with the lock held). */
	*#writeRepaired(): Generator<void, void> {
		for (const name of [...this.#repaired]) {
			const d = this.#dicts.get(name) ?? this.dict(name);
			yield* writeDict(join(this.dir, name), d, new Map());
			this.#repaired.delete(name);
		}
	}

	/** Writes the block tables changed, then the manifest (which makes the postings and tables live). */
	*save(): Generator<void, void> {
		makePrivateDir(this.dir);
		yield* this.#writeRepaired();
		for (const k of [...this.#dirtyTables]) {
			const g = this.#tables.get(k) ?? {};
			for (const fid of Object.keys(g)) if (!this.#keeps(Number(fid))) delete g[fid];
			writeAtomic(join(this.dir, `t-${k}.json`), JSON.stringify(g));
			this.#dirtyTables.delete(k);
			yield;
		}
		const file = join(this.dir, "manifest.json");
		writeAtomic(file, JSON.stringify(this.manifest));
		this.#stamp = stamp(file);
		this.#oldManifest = this.manifest;
		this.#saved.clear();
		for (const st of Object.values(this.manifest.files)) this.#saved.set(st.fid, st.blocks);
	}

	/** Damage found by a query (dictionaries rebuilt, table groups dropped) not yet written. */
	get hasRepairs(): boolean {
		return this.#repaired.size > 0 || this.#dirtyTables.size > 0;
	}

	/** Deletes the index files of any Arbor version (never another file, nor the folder) and starts empty. */
	clear(): void {
		removeIndexFiles(this.dir, this.#oldManifest);
		this.#stamp = "";
		this.#oldManifest = undefined;
		this.manifest = { version: INDEX_VERSION, files: {}, nextFid: 1 };
		this.byFid.clear();
		this.#saved.clear();
		this.#dicts.clear();
		this.#repaired.clear();
		this.#names = null;
		this.#tables.clear();
		this.#dirtyTables.clear();
		this.#reserved = 0;
		this.older = false;
	}
}

export { dictName };
