// Search across sessions, part 3 of 5: the index folder on disk. Files (JSON, each written whole to a
// temporary name and renamed, so a reader never sees half a file):
//   manifest.json   version, the state of every indexed file (FileState), the next file id
//   reserved.json   file ids handed out ahead (never reused, even after a stop before the manifest is saved)
//   d-<hex>.json    dictionary: term -> postings [fid, block, ...] of the terms starting with those 3 characters
//   t-<k>.json      block tables of the files whose fid % 64 is k: fid -> [[byte offset, byte length], ...]
// The manifest is written last: postings and tables of file ids it does not name are stale and skipped.

import { closeSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
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
	writePrivateFile(tmp, data);
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

export class IndexStore {
	readonly dir: string;
	manifest: Manifest;
	/** fid -> path of the files the manifest holds now (postings of other fids are stale: skipped). */
	readonly byFid = new Map<number, string>();
	/** The folder holds an index of another version (an older Arbor's): cleared on the next update. */
	older = false;
	#reserved = 0;
	/** Parsed dictionary files, least recently used first. */
	#dicts = new Map<string, Dict>();
	/** Names of the dictionary files on disk, listed once when needed. */
	#names: Set<string> | null = null;
	/** Parsed block table groups (all kept: a few bytes per block). */
	#tables = new Map<number, Record<string, BlockTable>>();
	#dirtyTables = new Set<number>();

	constructor(dir: string) {
		this.dir = dir;
		this.manifest = { version: INDEX_VERSION, files: {}, nextFid: 1 };
		const m = readJson(join(dir, "manifest.json")) as Manifest | undefined;
		if (m !== undefined) {
			if (m && m.version === INDEX_VERSION && typeof m.files === "object" && m.files && typeof m.nextFid === "number") this.manifest = m;
			else this.older = true;
		}
		const r = readJson(join(dir, "reserved.json")) as { upTo?: unknown } | undefined;
		if (r && typeof r.upTo === "number" && r.upTo > this.manifest.nextFid) this.manifest.nextFid = r.upTo;
		this.#reserved = this.manifest.nextFid;
		for (const [path, st] of Object.entries(this.manifest.files)) this.byFid.set(st.fid, path);
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
			const read = readJson(join(this.dir, `t-${k}.json`));
			g = read && typeof read === "object" && !Array.isArray(read) ? (read as Record<string, BlockTable>) : {};
			this.#tables.set(k, g);
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

	/** Forgets file `path` (its postings go stale). */
	drop(path: string): void {
		const st = this.manifest.files[path];
		if (!st) return;
		delete this.manifest.files[path];
		this.byFid.delete(st.fid);
		const g = this.#group(st.fid);
		if (st.fid in g) {
			delete g[st.fid];
			this.#dirtyTables.add(st.fid % TABLE_GROUPS);
		}
	}

	dict(name: string): Dict {
		let d = this.#dicts.get(name);
		if (d) {
			this.#dicts.delete(name);
			this.#dicts.set(name, d);
			return d;
		}
		const read = readJson(join(this.dir, name));
		d = read && typeof read === "object" && !Array.isArray(read) ? (read as Dict) : {};
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
		const live = this.byFid;
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
				if (old) for (let i = 0; i < old.length; i += 2) if (live.has(old[i])) kept.push(old[i], old[i + 1]);
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
			this.#cacheDict(name, d);
			names.add(name);
			// Merged: queries now find these postings in the file's parsed copy, not twice.
			terms.merged(name);
			yield;
		}
	}

	/** Writes the block tables changed, then the manifest (which makes the postings and tables live). */
	*save(): Generator<void, void> {
		makePrivateDir(this.dir);
		for (const k of [...this.#dirtyTables]) {
			const g = this.#tables.get(k) ?? {};
			for (const fid of Object.keys(g)) if (!this.byFid.has(Number(fid))) delete g[fid];
			writeAtomic(join(this.dir, `t-${k}.json`), JSON.stringify(g));
			this.#dirtyTables.delete(k);
			yield;
		}
		writeAtomic(join(this.dir, "manifest.json"), JSON.stringify(this.manifest));
	}

	/** Deletes the folder's contents and starts empty. */
	clear(): void {
		rmSync(this.dir, { recursive: true, force: true });
		this.manifest = { version: INDEX_VERSION, files: {}, nextFid: 1 };
		this.byFid.clear();
		this.#dicts.clear();
		this.#names = null;
		this.#tables.clear();
		this.#dirtyTables.clear();
		this.#reserved = 0;
		this.older = false;
	}
}

export { dictName };
