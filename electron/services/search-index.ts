// Search across all sessions: a persisted full-text index of every session file's entries, kept under
// Arbor's own folder (~/.arbor/search-index by default), never next to the session files.
//
// Engine: Arbor's own small inverted index in plain JSON files (pure JS; no native module, so it runs on
// Node 20 and inside Electron with no rebuild at install). Documents are blocks of consecutive lines of one
// file. The dictionary is split by the first three characters of a term into `d-<hex>.json` files holding
// term -> postings [fileId, block, ...]; block tables (byte offset and length of each block) are grouped in
// 64 files. A query reads only the dictionary files its terms start with (a few, kept in a bounded cache),
// intersects postings per block, ranks by idf, then reads the matching entries from the session files'
// bytes. An append adds postings for the new tail only. docs/services.md "Search across sessions" says why
// this design and what the limits are.
//
// Parts: search-text.ts (which text of an entry is searchable, word rules), search-terms.ts (the build's
// tokeniser and postings buffer), search-store.ts (the index folder on disk), search-build.ts (indexing one
// file or its new tail), and this file (updates and queries).
//
// Building is a generator (see ../session/steps.ts): the CLI runs it in one piece, the app's main process
// in cooperative slices so requests keep being answered while thousands of files are indexed.

import { closeSync, openSync, readSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { arborSearchIndexDir } from "../../shared-node/paths";
import { type LibraryOptions, defaultSessionRoots, sessionFilesIn } from "../session/library";
import { runSteps } from "../session/steps";
import { indexFile } from "./search-build";
import type { LockHolder } from "./search-folder";
import { IndexStore } from "./search-store";
import { PREFIX_CHARS, TermTable, dictMayHold, dictName } from "./search-terms";
import { entryText, hasWordStartingWith, queryTerms, snippetFor } from "./search-text";

export { entryText, hasWordStartingWith, queryTerms, snippetFor } from "./search-text";
export { IndexFolderError, type LockHolder } from "./search-folder";

/** Another process is writing the index folder (updateSteps does not wait; update does). */
export class IndexBusyError extends Error {
	readonly holder: LockHolder;
	constructor(dir: string, holder: LockHolder) {
		super(`another Arbor process${holder.pid ? ` (pid ${holder.pid})` : ""} is updating the search index in "${dir}"`);
		this.name = "IndexBusyError";
		this.holder = holder;
	}
}

/** Errors of a write the disk refused: said in one line; the index on disk stays as it was. */
const WRITE_ERRORS: Record<string, string> = {
	ENOSPC: "no space left on the disk",
	EDQUOT: "the disk quota is used up",
	EROFS: "the disk is read-only",
	EIO: "the disk failed to write",
	EACCES: "permission denied",
	EPERM: "permission denied",
};

export class IndexWriteError extends Error {
	readonly code: string;
	constructor(dir: string, code: string) {
		super(`cannot update the search index in "${dir}": ${WRITE_ERRORS[code]} (${code}); the index is kept as it was`);
		this.name = "IndexWriteError";
		this.code = code;
	}
}

/** Blocks the thread for `ms` (the CLI waiting for another process's lock). */
function sleep(ms: number): void {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Matching blocks of one session read for its matching entries. */
const BLOCKS_READ = 4;
/** Pending postings (numbers) buffered during a build before they are merged into the dictionary files. */
const PENDING_MAX = 16_000_000;
/** Words the build's term table holds before it is emptied after a merge (bounds its memory). */
const TERMS_MAX = 1_000_000;
/** Blocks of one file addressable in a posting key (fid * BLOCK_SPAN + block). */
const BLOCK_SPAN = 1 << 22;

export interface SearchIndexOptions extends LibraryOptions {
	/** Where the index lives. Default ~/.arbor/search-index. */
	indexDir?: string;
}

export interface IndexProgress {
	phase: "scanning" | "indexing" | "done";
	filesDone: number;
	filesTotal: number;
	bytesDone: number;
	bytesTotal: number;
}

export interface SearchHitEntry {
	entryId: string | null;
	/** 1-based line in the file, for an entry without an id (found by its line once opened). */
	line?: number;
	kind: string;
	snippet: string;
	score: number;
}

export interface SearchHitSession {
	path: string;
	sessionId: string | null;
	title: string | null;
	score: number;
	/** Entries matching, best first (at most `perSession`). */
	matches: SearchHitEntry[];
	/** Matching entries found in the blocks read: the best blocks, until `perSession` entries (at most 4 blocks). */
	matchCount: number;
	/** Indexed blocks of this session that hold every term (a block is ~24 KiB of entry text). */
	matchingBlocks: number;
}

export interface SearchResult {
	query: string;
	sessions: SearchHitSession[];
	indexedFiles: number;
	/** True when files were still waiting to be indexed when the query ran. */
	partial: boolean;
}

/** Every file the index covers: pi's and omp's session folders, or the given folders. */
export function indexedFileList(dirs: string[] | undefined, options: LibraryOptions = {}): string[] {
	const roots = dirs && dirs.length ? dirs : defaultSessionRoots(options).map((r) => r.dir);
	const seen = new Set<string>();
	for (const r of roots) for (const f of sessionFilesIn(r)) seen.add(f);
	return [...seen];
}

type Loose = Record<string, unknown>;

/** Dense block numbers of a query: block b of file fid is base(fid) + b, for b < cap(fid). */
interface BlockSpace {
	base: Map<number, number>;
	cap: Map<number, number>;
	size: number;
}

/** The blocks of one term (or of the terms ANDed so far) and their weights. */
interface TermBlocks {
	weight: Float64Array;
	has: Uint8Array;
	/** Blocks past a file's counted blocks, by fid * BLOCK_SPAN + block. */
	over: Map<number, number>;
}

export class SearchIndex {
	readonly dir: string;
	#store: IndexStore;
	/** Words and postings of a build not yet merged into the dictionary files (searchable meanwhile). */
	#terms = new TermTable();
	#pending = 0;

	/** Throws IndexFolderError when the folder holds files that are not Arbor's index. */
	constructor(options: SearchIndexOptions = {}) {
		this.dir = options.indexDir ?? arborSearchIndexDir(options.home ?? homedir());
		this.#store = new IndexStore(this.dir);
	}

	get fileCount(): number {
		return Object.keys(this.#store.manifest.files).length;
	}

	/** Merges the buffered postings, then saves the block tables and the manifest. */
	*#save(): Generator<void, void> {
		yield* this.#store.mergePostings(this.#terms);
		if (this.#terms.size > TERMS_MAX) this.#terms.reset();
		yield* this.#store.save();
	}

	/**
	 * Brings the index up to date with `files` (default: pi's and omp's folders). Yields between slices.
	 * Holds the index folder's lock while it runs (IndexBusyError when another process holds it). A write
	 * the disk refuses throws IndexWriteError and leaves the index as it was on disk.
	 */
	*updateSteps(files: string[], onProgress?: (p: IndexProgress) => void): Generator<void, IndexProgress> {
		const store = this.#store;
		const generation = store.generation;
		const holder = this.#guard(() => store.lock());
		if (holder) throw new IndexBusyError(this.dir, holder);
		try {
			// Read again from disk (another process wrote it): postings buffered before belong to the old state.
			if (store.generation !== generation) this.#terms = new TermTable();
			return yield* this.#updateLocked(files, onProgress);
		} catch (err) {
			const code = (err as NodeJS.ErrnoException).code;
			if (!code || !WRITE_ERRORS[code]) throw err;
			// What the build changed in memory is forgotten: the index is the one on disk, as it was.
			store.reload();
			this.#terms = new TermTable();
			throw new IndexWriteError(this.dir, code);
		} finally {
			store.unlock();
		}
	}

	/** Runs `f`, turning a write the disk refused into IndexWriteError. */
	#guard<T>(f: () => T): T {
		try {
			return f();
		} catch (err) {
			const code = (err as NodeJS.ErrnoException).code;
			if (code && WRITE_ERRORS[code]) throw new IndexWriteError(this.dir, code);
			throw err;
		}
	}

	*#updateLocked(files: string[], onProgress?: (p: IndexProgress) => void): Generator<void, IndexProgress> {
		const store = this.#store;
		if (store.older) {
			store.clear();
			this.#terms = new TermTable();
		}
		const wanted = new Set(files);
		for (const path of Object.keys(store.manifest.files)) if (!wanted.has(path)) store.drop(path);
		const work: { path: string; size: number; mtimeMs: number }[] = [];
		let bytesTotal = 0;
		for (const path of files) {
			let st;
			try {
				st = statSync(path);
			} catch {
				store.drop(path);
				continue;
			}
			const known = store.manifest.files[path];
			if (known && known.size === st.size && known.mtimeMs === st.mtimeMs) continue;
			const fromByte = known && st.size >= known.indexedTo ? known.indexedTo : 0;
			bytesTotal += st.size - fromByte;
			work.push({ path, size: st.size, mtimeMs: st.mtimeMs });
		}
		const progress: IndexProgress = { phase: "indexing", filesDone: 0, filesTotal: work.length, bytesDone: 0, bytesTotal };
		this.#pending = work.length;
		onProgress?.({ ...progress });
		yield;
		try {
			for (const w of work) {
				const before = progress.bytesDone;
				yield* indexFile(store, this.#terms, w.path, (n) => {
					progress.bytesDone = before + n;
				});
				if (this.#terms.pendingCount > PENDING_MAX) {
					yield* this.#save();
					yield;
				}
				progress.filesDone++;
				this.#pending--;
				onProgress?.({ ...progress });
				yield;
			}
			yield* this.#save();
		} finally {
			this.#pending = 0;
		}
		progress.phase = "done";
		onProgress?.({ ...progress });
		return progress;
	}

	/** Runs the whole update at once (CLI), first waiting for another process's update to end. */
	update(files: string[], onProgress?: (p: IndexProgress) => void, onWait?: (holder: LockHolder) => void): IndexProgress {
		for (let told = false; ;) {
			const holder = this.#guard(() => this.#store.lock());
			if (!holder) break;
			if (!told) onWait?.(holder);
			told = true;
			sleep(100);
		}
		return runSteps(this.updateSteps(files, onProgress));
	}

	/**
	 * Writes what a query rebuilt after finding an index file damaged, if no other process holds the lock
	 * and no build is pending (else the next update writes it).
	 */
	saveRepairs(): void {
		const store = this.#store;
		if (!store.hasRepairs || this.#terms.pendingCount || store.locked) return;
		const generation = store.generation;
		if (this.#guard(() => store.lock())) return;
		try {
			if (store.generation === generation) this.#guard(() => runSteps(store.save()));
		} finally {
			store.unlock();
		}
	}

	/**
	 * Blocks holding a word that starts with `term`, with a weight: rarer words weigh more (idf), a longer
	 * word that only starts with the term weighs less than the word itself (the best weight per block).
	 */
	#blocksFor(term: string, totalBlocks: number, space: BlockSpace): TermBlocks {
		const store = this.#store;
		const names = term.length >= PREFIX_CHARS ? [dictName(term)] : [...store.dictNames()].filter((n) => dictMayHold(n, term));
		const out: TermBlocks = { weight: new Float64Array(space.size), has: new Uint8Array(space.size), over: new Map() };
		const lists: [string, ArrayLike<number>][] = [];
		for (const name of names) {
			const d = store.dict(name);
			for (const word in d) if (word.startsWith(term)) lists.push([word, d[word]]);
		}
		// Postings a build in progress has not merged into the files yet are searchable too.
		const terms = this.#terms;
		for (const [name, ids] of terms.pending) {
			if (!dictMayHold(name, term)) continue;
			for (const id of ids) if (terms.words[id].startsWith(term)) lists.push([terms.words[id], terms.postings(id)]);
		}
		const { base, cap } = space;
		const { weight, has, over } = out;
		for (const [word, postings] of lists) {
			const df = postings.length / 2;
			const idf = Math.log(1 + (totalBlocks - df + 0.5) / (df + 0.5));
			const w = word.length === term.length ? idf : (idf * term.length) / word.length;
			for (let i = 0; i < postings.length; i += 2) {
				const fid = postings[i];
				const at = base.get(fid);
				// A file dropped or re-indexed since (stale postings), or one the query leaves out.
				if (at === undefined) continue;
				const block = postings[i + 1];
				if (block < (cap.get(fid) as number)) {
					const k = at + block;
					if (!has[k]) {
						has[k] = 1;
						weight[k] = w;
					} else if (weight[k] < w) weight[k] = w;
				} else {
					// Past the blocks the manifest counts (not written by this Arbor): kept as before, by key.
					const key = fid * BLOCK_SPAN + block;
					const had = over.get(key);
					if (had === undefined || had < w) over.set(key, w);
				}
			}
		}
		return out;
	}

	/** Query the index: sessions best first, each with its best matching entries. */
	search(query: string, options: { limit?: number; perSession?: number; files?: string[] } = {}): SearchResult {
		const limit = options.limit ?? 50;
		const perSession = options.perSession ?? 5;
		const q = query.trim();
		const files = this.#store.manifest.files;
		const out: SearchResult = { query: q, sessions: [], indexedFiles: this.fileCount, partial: this.#pending > 0 };
		if (!q) return out;
		const terms = [...new Set(queryTerms(q))];
		if (!terms.length) return out;
		let only: Set<number> | null = null;
		if (options.files) {
			only = new Set();
			for (const f of options.files) {
				const st = files[f];
				if (st) only.add(st.fid);
			}
		}
		let totalBlocks = 0;
		for (const st of Object.values(files)) totalBlocks += st.blocks ?? 1;
		// Every block of the files searched gets a dense number (typed arrays instead of maps keyed by
		// fid * BLOCK_SPAN + block, numbers too large for V8's small integers: slow keys, garbage per key).
		const space: BlockSpace = { base: new Map(), cap: new Map(), size: 0 };
		for (const [fid, path] of this.#store.byFid) {
			if (only && !only.has(fid)) continue;
			const n = files[path]?.blocks ?? 0;
			space.base.set(fid, space.size);
			space.cap.set(fid, n);
			space.size += n;
		}
		// Terms are ANDed per block: the blocks of the first term, kept only where every other term is.
		let scores: TermBlocks | null = null;
		for (const term of terms) {
			const m = this.#blocksFor(term, totalBlocks, space);
			let left = 0;
			if (!scores) {
				scores = m;
				for (let k = 0; k < space.size; k++) left += m.has[k];
			} else {
				for (let k = 0; k < space.size; k++) {
					if (!scores.has[k]) continue;
					if (m.has[k]) {
						scores.weight[k] += m.weight[k];
						left++;
					} else scores.has[k] = 0;
				}
				const next = new Map<number, number>();
				for (const [key, s] of scores.over) {
					const w = m.over.get(key);
					if (w !== undefined) next.set(key, s + w);
				}
				scores.over = next;
			}
			if (!left && !scores.over.size) break;
		}
		const perFile = new Map<number, { block: number; score: number }[]>();
		if (scores) {
			for (const [fid, at] of space.base) {
				const n = space.cap.get(fid) as number;
				let list: { block: number; score: number }[] | undefined;
				for (let b = 0; b < n; b++) {
					if (!scores.has[at + b]) continue;
					if (!list) perFile.set(fid, (list = []));
					list.push({ block: b, score: scores.weight[at + b] });
				}
			}
			for (const [key, score] of scores.over) {
				const fid = Math.floor(key / BLOCK_SPAN);
				let list = perFile.get(fid);
				if (!list) perFile.set(fid, (list = []));
				list.push({ block: key % BLOCK_SPAN, score });
			}
		}
		const hits: { path: string; fid: number; score: number; results: { block: number; score: number }[] }[] = [];
		for (const [fid, results] of perFile) {
			results.sort((a, b) => b.score - a.score || a.block - b.block);
			hits.push({ path: this.#store.byFid.get(fid) as string, fid, score: results[0].score, results });
		}
		// Ties (sessions copied from one another score alike) by path: the collator localeCompare uses,
		// made once (a localeCompare call builds one each time: tens of ms over thousands of ties).
		const byPath = new Intl.Collator().compare;
		hits.sort((a, b) => b.score - a.score || byPath(a.path, b.path));
		for (const h of hits.slice(0, limit)) {
			const table = this.#store.blocksOf(h.fid);
			// A file whose damaged table group was just dropped: it is indexed again on the next update.
			const st = files[h.path];
			if (!st) continue;
			const matches: SearchHitEntry[] = [];
			let matchCount = 0;
			let fd: number | null = null;
			try {
				fd = openSync(h.path, "r");
				for (const r of h.results.slice(0, BLOCKS_READ)) {
					const at = table[r.block];
					if (!at) continue;
					let firstLine = -1;
					for (const m of this.#entriesIn(fd, at[0], at[1], terms)) {
						matchCount++;
						if (matches.length >= perSession) continue;
						// The snippet (a pass over the whole entry text) only for the entries listed.
						const hit: SearchHitEntry = { entryId: m.entryId, kind: m.kind, snippet: snippetFor(m.text, q), score: r.score };
						if (m.entryId === null) {
							if (firstLine < 0) firstLine = linesBefore(fd, at[0]) + 1;
							hit.line = firstLine + m.lineInBlock;
						}
						matches.push(hit);
					}
					if (matches.length >= perSession) break;
				}
			} catch {
				// The file went away since it was indexed: the session is listed without its entries.
			} finally {
				if (fd !== null) closeSync(fd);
			}
			out.sessions.push({ path: h.path, sessionId: st.sessionId, title: st.title, score: h.score, matches, matchCount, matchingBlocks: h.results.length });
		}
		return out;
	}

	/** The entries of one block whose words hold every query term (each as a prefix). */
	#entriesIn(fd: number, offset: number, length: number, terms: string[]): { entryId: string | null; lineInBlock: number; kind: string; text: string }[] {
		const buf = Buffer.allocUnsafe(length);
		const n = readSync(fd, buf, 0, length, offset);
		const out: { entryId: string | null; lineInBlock: number; kind: string; text: string }[] = [];
		const lines = buf.toString("utf8", 0, n).split("\n");
		for (const [lineInBlock, line] of lines.entries()) {
			if (!line) continue;
			// The raw line holds every word of its text (JSON escapes only separators): a cheap first filter.
			const rawLower = line.toLowerCase();
			if (!terms.every((term) => rawLower.includes(term))) continue;
			let o: Loose;
			try {
				o = JSON.parse(line) as Loose;
			} catch {
				continue;
			}
			const t = entryText(o);
			if (!t) continue;
			const lower = t.text.toLowerCase();
			if (!terms.every((term) => hasWordStartingWith(lower, term))) continue;
			out.push({ entryId: typeof o.id === "string" ? o.id : null, lineInBlock, kind: t.kind, text: t.text });
		}
		return out;
	}

	/** Deletes the index's own files (never another file in its folder). */
	clear(): void {
		const holder = this.#guard(() => this.#store.lock());
		if (holder) throw new IndexBusyError(this.dir, holder);
		try {
			this.#store.clear();
			this.#terms = new TermTable();
		} finally {
			this.#store.unlock();
		}
	}
}

/** Line feeds in the file before byte `offset` (a block starts at a line start): read in 1 MiB steps. */
function linesBefore(fd: number, offset: number): number {
	const buf = Buffer.allocUnsafe(Math.min(offset, 1 << 20));
	let count = 0;
	for (let at = 0; at < offset;) {
		const n = readSync(fd, buf, 0, Math.min(buf.length, offset - at), at);
		if (n <= 0) break;
		for (let i = 0; i < n; i++) if (buf[i] === 10) count++;
		at += n;
	}
	return count;
}
