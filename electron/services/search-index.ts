// Search across all sessions: a persisted full-text index of every session file's entries, kept under
// Arbor's own folder (~/.arbor/search-index by default), never next to the session files.
//
// Engine: Arbor's own small inverted index in plain JSON files (pure JS; no native module, so it runs on
// Node 20 and inside Electron with no rebuild at install). Documents are blocks of consecutive lines of one
// file. The dictionary is split by the first three characters of a term into `d-<hex>.json` files holding
// term -> postings [fileId, block, ...]; each file has a block table `b-<fileId>.json` (byte offset and
// length of each block). A query reads only the dictionary files its terms start with (a few, kept in a
// bounded cache), intersects postings per block, ranks by idf, then reads the matching entries from the
// session files' bytes. An append adds postings for the new tail only. docs/app.md "Search across all
// sessions" says why this design and what the limits are.
//
// Incremental rule: the manifest records for each file its size, mtime, the byte offset indexed up to (the
// end of its last complete line) and a hash of its first 4 KiB. A file that grew with the same first 4 KiB
// is append-only: only the bytes after the indexed offset are read. A file that shrank, or whose first
// 4 KiB changed (replaced or rewritten), is re-indexed from scratch. A file that vanished is dropped.
//
// Building is a generator (see ../session/steps.ts): the CLI runs it in one piece, the app's main process
// in cooperative slices so requests keep being answered while thousands of files are indexed.

import { createHash } from "node:crypto";
import { closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type LibraryOptions, defaultSessionRoots, sessionFilesIn } from "../session/library";
import { runSteps } from "../session/steps";

const INDEX_VERSION = 2;
const HEAD_BYTES = 4096;
/** Text indexed per entry (the rest of a huge tool output is not searchable). */
const ENTRY_TEXT_MAX = 32 * 1024;
const CHUNK = 1 << 20;
/** Lines parsed between two yields. */
const LINES_PER_STEP = 50;
/** Matching blocks of one session read for its matching entries. */
const BLOCKS_READ = 4;

/**
 * One indexed document: a block of consecutive complete lines of one file (up to BLOCK_BYTES of entry
 * text), with each word of its entries once. A query finds blocks; the entries that match are then read
 * from the block's bytes only (a few KiB), never from the rest of the file.
 */
interface ShardDoc {
	id: string;
	text: string;
	/** Byte offset of the block's first line. */
	o: number;
	/** Byte length of the block. */
	n: number;
}

interface FileState {
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

interface Manifest {
	version: number;
	files: Record<string, FileState>;
	nextFid: number;
}

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

/** Word separators: everything but ASCII letters, digits and "_", and any non-ASCII letter. */
const SEPARATORS = /[^a-z0-9_\u00c0-\uffff]+/;
/** Entry text gathered into one indexed block. */
const BLOCK_TEXT = 24 * 1024;

const WORD_CHAR = /[a-z0-9_\u00c0-\uffff]/;

/** True when a word of `lower` (already lower-cased) starts with `term`: the index's prefix rule. */
export function hasWordStartingWith(lower: string, term: string): boolean {
	for (let at = lower.indexOf(term); at >= 0; at = lower.indexOf(term, at + 1)) {
		if (at === 0 || !WORD_CHAR.test(lower[at - 1])) return true;
	}
	return false;
}

/** The words of a query, lower-cased. */
export function queryTerms(q: string): string[] {
	return q.toLowerCase().split(SEPARATORS).filter(Boolean);
}

/**
 * Words of an entry, lower-cased, each once: the index's cost is per term occurrence, and an entry is a
 * hit or not whatever the count, so a word repeated in a 30 KiB tool output is indexed once.
 */
function uniqueTerms(text: string): string[] {
	const seen = new Set<string>();
	for (const t of text.toLowerCase().split(SEPARATORS)) if (t && t.length <= 64) seen.add(t);
	return [...seen];
}

type Loose = Record<string, unknown>;

function textOf(content: unknown, out: string[]): void {
	if (typeof content === "string") {
		out.push(content);
		return;
	}
	if (!Array.isArray(content)) return;
	for (const b of content) {
		if (typeof b !== "object" || b === null) continue;
		const x = b as Loose;
		if (typeof x.text === "string") out.push(x.text);
		else if (typeof x.thinking === "string") out.push(x.thinking);
		else if (x.type === "toolCall") {
			if (typeof x.name === "string") out.push(x.name);
			if (x.arguments !== undefined) out.push(JSON.stringify(x.arguments));
		}
	}
}

/** The searchable text of one entry and its kind, or null for lines that carry none. */
export function entryText(o: Loose): { text: string; kind: string } | null {
	const parts: string[] = [];
	let kind = typeof o.type === "string" ? o.type : "entry";
	if (o.type === "message" && typeof o.message === "object" && o.message !== null) {
		const m = o.message as Loose;
		if (typeof m.role === "string") kind = m.role;
		textOf(m.content, parts);
		if (typeof m.command === "string") parts.push(m.command);
		if (typeof m.output === "string") parts.push(m.output);
		if (typeof m.summary === "string") parts.push(m.summary);
		if (typeof m.errorMessage === "string") parts.push(m.errorMessage);
	} else if (o.type === "custom_message") {
		textOf(o.content, parts);
	} else if (typeof o.summary === "string") {
		parts.push(o.summary);
	} else if (o.type === "session_info" && typeof o.name === "string") {
		parts.push(o.name);
	} else if (o.type === "label" && typeof o.label === "string") {
		parts.push(o.label);
	}
	const text = parts.join("\n");
	if (!text.trim()) return null;
	return { text: text.length > ENTRY_TEXT_MAX ? text.slice(0, ENTRY_TEXT_MAX) : text, kind };
}

function headHash(fd: number, size: number): string {
	const n = Math.min(size, HEAD_BYTES);
	const buf = Buffer.alloc(n);
	readSync(fd, buf, 0, n, 0);
	return createHash("sha1").update(buf).digest("hex");
}

/** True when the byte before `at` is a newline (or `at` is 0): the indexed part still ends where it did. */
function endsLine(fd: number, at: number): boolean {
	if (at === 0) return true;
	const b = Buffer.alloc(1);
	return readSync(fd, b, 0, 1, at - 1) === 1 && b[0] === 10;
}

function writeAtomic(file: string, data: string): void {
	const tmp = `${file}.${process.pid}.tmp`;
	writeFileSync(tmp, data);
	renameSync(tmp, file);
}

function oneLine(s: string): string {
	return s.replace(/\s+/g, " ").trim();
}

/** A short piece of `text` around the first query term found in it. */
export function snippetFor(text: string, query: string, width = 160): string {
	const flat = oneLine(text);
	const lower = flat.toLowerCase();
	let at = -1;
	for (const term of query.toLowerCase().split(/[\s\p{P}]+/u).filter(Boolean)) {
		at = lower.indexOf(term);
		if (at >= 0) break;
	}
	if (at < 0) return flat.length > width ? `${flat.slice(0, width)}…` : flat;
	const from = Math.max(0, at - Math.floor(width / 3));
	const piece = flat.slice(from, from + width);
	return `${from > 0 ? "…" : ""}${piece}${from + width < flat.length ? "…" : ""}`;
}

/** Every file the index covers: pi's and omp's session folders, or the given folders. */
export function indexedFileList(dirs: string[] | undefined, options: LibraryOptions = {}): string[] {
	const roots = dirs && dirs.length ? dirs : defaultSessionRoots(options).map((r) => r.dir);
	const seen = new Set<string>();
	for (const r of roots) for (const f of sessionFilesIn(r)) seen.add(f);
	return [...seen];
}

/** Characters of a term naming its dictionary file. */
const PREFIX_CHARS = 3;

function hexOf(s: string): string {
	return Buffer.from(s, "utf8").toString("hex");
}

/** Name of the dictionary file holding the terms that start like `term` (its first three characters). */
function dictName(term: string): string {
	return `d-${hexOf(term.slice(0, PREFIX_CHARS))}.json`;
}

/** True when dictionary file `name` may hold words starting with `term` (UTF-8 is prefix-free). */
function dictMayHold(name: string, term: string): boolean {
	return term.length >= PREFIX_CHARS ? name === dictName(term) : name.startsWith(`d-${hexOf(term)}`);
}

/** Dictionary files kept parsed in memory at most (each holds the terms of one three-character prefix). */
const DICT_CACHE = 48;
/** Pending postings (numbers) buffered during a build before they are merged into the dictionary files. */
const PENDING_MAX = 4_000_000;
/** Blocks of one file addressable in a posting key (fid * BLOCK_SPAN + block). */
const BLOCK_SPAN = 1 << 22;

/** A dictionary file: term -> postings [fid, block, fid, block, ...]. */
type Dict = Record<string, number[]>;

export class SearchIndex {
	readonly dir: string;
	#manifest: Manifest;
	/** fid -> path of the files the manifest holds now (postings of other fids are stale: skipped). */
	#byFid = new Map<number, string>();
	/** Parsed dictionary files, least recently used first. */
	#dicts = new Map<string, Dict>();
	/** Postings not yet merged into the dictionary files: file name -> term -> postings. */
	#pendingPostings = new Map<string, Map<string, number[]>>();
	#pendingCount = 0;
	/** Block tables changed since the last save: fid -> [offset, length] of every block. */
	#blocks = new Map<number, [number, number][]>();
	#dirty = new Set<number>();
	#pending = 0;
	#reserved = 0;
	/** Names of the dictionary files on disk, listed once when a short term needs them. */
	#names: Set<string> | null = null;
	#older = false;

	constructor(options: SearchIndexOptions = {}) {
		this.dir = options.indexDir ?? join(options.home ?? homedir(), ".arbor", "search-index");
		this.#manifest = { version: INDEX_VERSION, files: {}, nextFid: 1 };
		try {
			const m = JSON.parse(readFileSync(join(this.dir, "manifest.json"), "utf8")) as Manifest;
			if (m.version === INDEX_VERSION && typeof m.files === "object" && m.files && typeof m.nextFid === "number") this.#manifest = m;
			// An index an older Arbor wrote (one MiniSearch file per session): removed on the next update.
			else this.#older = true;
		} catch {
			// No index yet (or an unreadable or older one): start empty.
		}
		try {
			const r = JSON.parse(readFileSync(join(this.dir, "reserved.json"), "utf8")) as { upTo?: unknown };
			if (typeof r.upTo === "number" && r.upTo > this.#manifest.nextFid) this.#manifest.nextFid = r.upTo;
		} catch {
			// Nothing reserved yet.
		}
		this.#reserved = this.#manifest.nextFid;
		for (const [path, st] of Object.entries(this.#manifest.files)) this.#byFid.set(st.fid, path);
	}

	/**
	 * A file id never used before in this index folder, even by a process that stopped between writing
	 * postings and writing the manifest: ids are reserved on disk ahead, 1,000 at a time.
	 */
	#newFid(): number {
		const fid = this.#manifest.nextFid++;
		if (fid >= this.#reserved) {
			this.#reserved = fid + 1000;
			mkdirSync(this.dir, { recursive: true });
			writeAtomic(join(this.dir, "reserved.json"), JSON.stringify({ upTo: this.#reserved }));
		}
		return fid;
	}

	get fileCount(): number {
		return Object.keys(this.#manifest.files).length;
	}

	#blocksOf(fid: number): [number, number][] {
		let b = this.#blocks.get(fid);
		if (b) return b;
		try {
			b = JSON.parse(readFileSync(join(this.dir, `b-${fid}.json`), "utf8")) as [number, number][];
		} catch {
			b = [];
		}
		if (!Array.isArray(b)) b = [];
		if (this.#blocks.size > 256) for (const k of this.#blocks.keys()) if (!this.#dirty.has(k)) this.#blocks.delete(k);
		this.#blocks.set(fid, b);
		return b;
	}

	#dict(name: string): Dict {
		let d = this.#dicts.get(name);
		if (d) {
			this.#dicts.delete(name);
			this.#dicts.set(name, d);
			return d;
		}
		try {
			d = JSON.parse(readFileSync(join(this.dir, name), "utf8")) as Dict;
		} catch {
			d = {};
		}
		this.#dicts.set(name, d);
		while (this.#dicts.size > DICT_CACHE) this.#dicts.delete(this.#dicts.keys().next().value as string);
		return d;
	}

	/**
	 * Merges the buffered postings into the dictionary files (read, append, atomic write per file),
	 * yielding after each file so a big merge never holds the main process for long.
	 */
	*#flushPostings(): Generator<void, void> {
		if (!this.#pendingCount) return;
		mkdirSync(this.dir, { recursive: true });
		for (const [name, terms] of [...this.#pendingPostings]) {
			const d = this.#dict(name);
			const live = this.#byFid;
			for (const [term, add] of terms) {
				const old = d[term];
				if (!old) {
					d[term] = add;
					continue;
				}
				// Postings of files dropped or re-indexed since are left out while the list is rewritten.
				const kept: number[] = [];
				for (let i = 0; i < old.length; i += 2) if (live.has(old[i])) kept.push(old[i], old[i + 1]);
				for (const x of add) kept.push(x);
				d[term] = kept;
			}
			writeAtomic(join(this.dir, name), JSON.stringify(d));
			this.#names?.add(name);
			// Merged: queries now find these postings in the file's parsed copy, not twice.
			this.#pendingPostings.delete(name);
			yield;
		}
		this.#pendingCount = 0;
	}

	#post(term: string, fid: number, block: number): void {
		const name = dictName(term);
		let terms = this.#pendingPostings.get(name);
		if (!terms) this.#pendingPostings.set(name, (terms = new Map()));
		const list = terms.get(term);
		if (list) list.push(fid, block);
		else terms.set(term, [fid, block]);
		this.#pendingCount += 2;
	}

	/** Brings the index up to date with `files` (default: pi's and omp's folders). Yields between slices. */
	*updateSteps(files: string[], onProgress?: (p: IndexProgress) => void): Generator<void, IndexProgress> {
		if (this.#older) {
			this.#older = false;
			this.clear();
		}
		mkdirSync(this.dir, { recursive: true });
		const wanted = new Set(files);
		for (const path of Object.keys(this.#manifest.files)) {
			if (wanted.has(path)) continue;
			this.#drop(path);
		}
		const work: { path: string; size: number; mtimeMs: number }[] = [];
		let bytesTotal = 0;
		for (const path of files) {
			let st;
			try {
				st = statSync(path);
			} catch {
				this.#drop(path);
				continue;
			}
			const known = this.#manifest.files[path];
			if (known && known.size === st.size && known.mtimeMs === st.mtimeMs) continue;
			const fromByte = known && st.size >= known.indexedTo ? known.indexedTo : 0;
			bytesTotal += st.size - fromByte;
			work.push({ path, size: st.size, mtimeMs: st.mtimeMs });
		}
		const progress: IndexProgress = { phase: "indexing", filesDone: 0, filesTotal: work.length, bytesDone: 0, bytesTotal };
		this.#pending = work.length;
		onProgress?.({ ...progress });
		yield;
		for (const w of work) {
			const before = progress.bytesDone;
			yield* this.#indexFile(w.path, (n) => {
				progress.bytesDone = before + n;
			});
			if (this.#pendingCount > PENDING_MAX) {
				yield* this.#save();
				yield;
			}
			progress.filesDone++;
			this.#pending--;
			onProgress?.({ ...progress });
			yield;
		}
		yield* this.#save();
		progress.phase = "done";
		onProgress?.({ ...progress });
		return progress;
	}

	/** Runs the whole update at once (CLI). */
	update(files: string[], onProgress?: (p: IndexProgress) => void): IndexProgress {
		return runSteps(this.updateSteps(files, onProgress));
	}

	#drop(path: string): void {
		const st = this.#manifest.files[path];
		if (!st) return;
		delete this.#manifest.files[path];
		this.#byFid.delete(st.fid);
		this.#blocks.delete(st.fid);
		this.#dirty.delete(st.fid);
		rmSync(join(this.dir, `b-${st.fid}.json`), { force: true });
	}

	*#indexFile(path: string, onBytes: (n: number) => void): Generator<void, void> {
		let fd: number;
		try {
			fd = openSync(path, "r");
		} catch {
			this.#drop(path);
			return;
		}
		try {
			const st = fstatSync(fd);
			const head = headHash(fd, st.size);
			let state = this.#manifest.files[path];
			if (!(state && state.head === head && st.size >= state.indexedTo && endsLine(fd, state.indexedTo))) {
				// New, shrunk or replaced: from scratch, under a new file id (the old one's postings go stale).
				if (state) this.#drop(path);
				const fid = this.#newFid();
				state = { size: 0, mtimeMs: 0, indexedTo: 0, head, fid, blocks: 0, sessionId: null, title: null, entries: 0 };
				this.#manifest.files[path] = state;
				this.#byFid.set(fid, path);
				this.#blocks.set(fid, []);
			}
			const fid = state.fid;
			const blocks = this.#blocksOf(fid);
			this.#dirty.add(fid);
			state.head = head;
			let pos = state.indexedTo;
			const buf = Buffer.alloc(CHUNK);
			let carry: Buffer<ArrayBufferLike> = Buffer.alloc(0);
			let carryAt = pos;
			let lines = 0;
			let block: string[] = [];
			let blockChars = 0;
			let blockAt = pos;
			const flush = (endAt: number) => {
				if (block.length) {
					const b = blocks.length;
					blocks.push([blockAt, endAt - blockAt]);
					for (const term of uniqueTerms(block.join("\n"))) this.#post(term, fid, b);
					state.blocks = blocks.length;
				}
				block = [];
				blockChars = 0;
				blockAt = endAt;
			};
			for (;;) {
				const n = pos < st.size ? readSync(fd, buf, 0, Math.min(CHUNK, st.size - pos), pos) : 0;
				if (n <= 0) break;
				const data = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
				const dataAt = carryAt;
				pos += n;
				let start = 0;
				for (;;) {
					const nl = data.indexOf(10, start);
					if (nl < 0) break;
					const t = this.#line(state, data.toString("utf8", start, nl), dataAt + start);
					start = nl + 1;
					state.indexedTo = dataAt + start;
					if (t) {
						block.push(t);
						blockChars += t.length;
					}
					let full = false;
					if (blockChars >= BLOCK_TEXT) {
						flush(state.indexedTo);
						full = true;
					} else if (!block.length) blockAt = state.indexedTo;
					if (++lines % LINES_PER_STEP === 0 || full) {
						onBytes(state.indexedTo);
						yield;
					}
				}
				carry = Buffer.from(data.subarray(start));
				carryAt = dataAt + start;
			}
			// A last line without its newline may still be being written: it is read on the next update.
			flush(state.indexedTo);
			state.size = st.size;
			state.mtimeMs = st.mtimeMs;
			onBytes(st.size);
		} finally {
			closeSync(fd);
		}
	}

	/** Reads one line: header facts into `state`; returns the entry's searchable text, if any. */
	#line(state: FileState, line: string, at: number): string | null {
		if (!line.trim()) return null;
		let o: Loose;
		try {
			o = JSON.parse(at === 0 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line) as Loose;
		} catch {
			return null;
		}
		if (typeof o !== "object" || o === null) return null;
		if (o.type === "session") {
			state.sessionId = typeof o.id === "string" ? o.id : null;
			if (typeof o.title === "string" && o.title) state.title = oneLine(o.title);
			return null;
		}
		if (o.type === "session_info" && typeof o.name === "string" && o.name.trim()) state.title = oneLine(o.name);
		state.entries++;
		return entryText(o)?.text ?? null;
	}

	/** Writes the dictionary postings, then the block tables, then the manifest (which makes them live). */
	*#save(): Generator<void, void> {
		mkdirSync(this.dir, { recursive: true });
		yield* this.#flushPostings();
		let written = 0;
		for (const fid of [...this.#dirty]) {
			const b = this.#blocks.get(fid);
			if (b && this.#byFid.has(fid)) writeAtomic(join(this.dir, `b-${fid}.json`), JSON.stringify(b));
			this.#dirty.delete(fid);
			// A build of thousands of files writes thousands of small tables: a few per slice.
			if (++written % 16 === 0) yield;
		}
		writeAtomic(join(this.dir, "manifest.json"), JSON.stringify(this.#manifest));
	}

	/**
	 * Blocks holding a word that starts with `term`, with a weight: rarer words weigh more (idf), a longer
	 * word that only starts with the term weighs less than the word itself. Key: fid * BLOCK_SPAN + block.
	 */
	#blocksFor(term: string, totalBlocks: number, only: Set<number> | null): Map<number, number> {
		const names = term.length >= PREFIX_CHARS ? [dictName(term)] : this.#dictNamesStartingWith(term);
		const out = new Map<number, number>();
		const lists: [string, number[]][] = [];
		for (const name of names) {
			const d = this.#dict(name);
			for (const word in d) if (word.startsWith(term)) lists.push([word, d[word]]);
		}
		// Postings a build in progress has not merged into the files yet are searchable too.
		for (const [name, terms] of this.#pendingPostings) {
			if (!dictMayHold(name, term)) continue;
			for (const [word, postings] of terms) if (word.startsWith(term)) lists.push([word, postings]);
		}
		{
			for (const [word, postings] of lists) {
				const df = postings.length / 2;
				const idf = Math.log(1 + (totalBlocks - df + 0.5) / (df + 0.5));
				const w = word.length === term.length ? idf : (idf * term.length) / word.length;
				for (let i = 0; i < postings.length; i += 2) {
					const fid = postings[i];
					if (!this.#byFid.has(fid) || (only && !only.has(fid))) continue;
					const key = fid * BLOCK_SPAN + postings[i + 1];
					const had = out.get(key);
					if (had === undefined || had < w) out.set(key, w);
				}
			}
		}
		return out;
	}

	/** Dictionary files that may hold words starting with a term shorter than PREFIX_CHARS. */
	#dictNamesStartingWith(term: string): string[] {
		if (!this.#names) {
			this.#names = new Set();
			try {
				for (const n of readdirSync(this.dir)) if (n.startsWith("d-") && n.endsWith(".json")) this.#names.add(n);
			} catch {
				// No index folder yet.
			}
		}
		return [...this.#names].filter((n) => dictMayHold(n, term));
	}

	/** Query the index: sessions best first, each with its best matching entries. */
	search(query: string, options: { limit?: number; perSession?: number; files?: string[] } = {}): SearchResult {
		const limit = options.limit ?? 50;
		const perSession = options.perSession ?? 5;
		const q = query.trim();
		const out: SearchResult = { query: q, sessions: [], indexedFiles: this.fileCount, partial: this.#pending > 0 };
		if (!q) return out;
		const terms = [...new Set(queryTerms(q))];
		if (!terms.length) return out;
		let only: Set<number> | null = null;
		if (options.files) {
			only = new Set();
			for (const f of options.files) {
				const st = this.#manifest.files[f];
				if (st) only.add(st.fid);
			}
		}
		let totalBlocks = 0;
		for (const st of Object.values(this.#manifest.files)) totalBlocks += st.blocks ?? 1;
		// Terms are ANDed per block: the blocks of the first term, kept only where every other term is.
		let scores: Map<number, number> | null = null;
		for (const term of terms) {
			const m = this.#blocksFor(term, totalBlocks, only);
			if (!scores) scores = m;
			else {
				const next = new Map<number, number>();
				for (const [key, s] of scores) {
					const w = m.get(key);
					if (w !== undefined) next.set(key, s + w);
				}
				scores = next;
			}
			if (!scores.size) break;
		}
		const perFile = new Map<number, { block: number; score: number }[]>();
		for (const [key, score] of scores ?? []) {
			const fid = Math.floor(key / BLOCK_SPAN);
			let list = perFile.get(fid);
			if (!list) perFile.set(fid, (list = []));
			list.push({ block: key % BLOCK_SPAN, score });
		}
		const hits: { path: string; fid: number; score: number; results: { block: number; score: number }[] }[] = [];
		for (const [fid, results] of perFile) {
			results.sort((a, b) => b.score - a.score || a.block - b.block);
			hits.push({ path: this.#byFid.get(fid) as string, fid, score: results[0].score, results });
		}
		hits.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
		for (const h of hits.slice(0, limit)) {
			const st = this.#manifest.files[h.path];
			const table = this.#blocksOf(h.fid);
			const matches: SearchHitEntry[] = [];
			let matchCount = 0;
			let fd: number | null = null;
			try {
				fd = openSync(h.path, "r");
				for (const r of h.results.slice(0, BLOCKS_READ)) {
					const at = table[r.block];
					if (!at) continue;
					for (const m of this.#entriesIn(fd, at[0], at[1], terms, q)) {
						matchCount++;
						if (matches.length < perSession) matches.push({ ...m, score: r.score });
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
	#entriesIn(fd: number, offset: number, length: number, terms: string[], q: string): Omit<SearchHitEntry, "score">[] {
		const buf = Buffer.alloc(length);
		const n = readSync(fd, buf, 0, length, offset);
		const out: Omit<SearchHitEntry, "score">[] = [];
		for (const line of buf.toString("utf8", 0, n).split("\n")) {
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
			out.push({ entryId: typeof o.id === "string" ? o.id : null, kind: t.kind, snippet: snippetFor(t.text, q) });
		}
		return out;
	}

	/** Deletes the whole index folder's contents. */
	clear(): void {
		if (existsSync(this.dir)) rmSync(this.dir, { recursive: true, force: true });
		this.#manifest = { version: INDEX_VERSION, files: {}, nextFid: 1 };
		this.#byFid.clear();
		this.#dicts.clear();
		this.#names = null;
		this.#blocks.clear();
		this.#pendingPostings.clear();
		this.#pendingCount = 0;
		this.#dirty.clear();
		this.#reserved = 0;
	}
}
