// Entry bodies on demand: entries stay on disk (byte offset + length per entry in the columns) and are read
// with positional reads and parsed when asked for, through a small LRU. Entries that exist only in memory
// (migrated legacy files, recovered glued records, in-memory sessions, our own appends) stay resident.

import { closeSync, openSync, readSync } from "node:fs";
import type { SessionEntry } from "../../shared/entries";
import { EntryFlag } from "../../shared/skeleton";
import { SessionFileError, ioError } from "./errors";
import type { SessionFormat } from "./formats/format";
import type { Columns } from "./store";

const LRU_MAX_ENTRIES = 4096;
/** Entries read at once when a stand-in of a path is first used (kept under the LRU's batch limit). */
const READAHEAD = 512;
/** Entry type per EntryKind code (unknown types need a parse). */
const TYPE_OF_KIND: (string | undefined)[] = [
	"message",
	"message",
	"message",
	"message",
	"message",
	"message",
	"compaction",
	"branch_summary",
	"custom_message",
	"custom",
	"label",
	"model_change",
	"thinking_level_change",
	"session_info",
	undefined,
];
const LRU_MAX_BYTES = 64 * 1024 * 1024;
/** Files below this size keep every parsed entry (cheap, and avoids re-reading on every walk). */
export const SMALL_FILE_BYTES = 16 * 1024 * 1024;

export class EntryCache {
	readonly #cols: Columns;
	#file: string | undefined;
	#mapper: SessionFormat | undefined;
	#resident: (SessionEntry | undefined)[] = [];
	#lru = new Map<number, SessionEntry>();
	#views: (SessionEntry | undefined)[] = [];
	#handler: LazyEntry | undefined;
	#lruBytes = 0;
	/** The latest list of indices handed out as stand-ins, and each index's position in it (read-ahead). */
	#path: ArrayLike<number> | undefined;
	#pathPos: Int32Array | undefined;

	constructor(cols: Columns) {
		this.#cols = cols;
	}

	/** The file the bodies are read back from; a foreign format's (not `readsAsPi`) lines are mapped by its `toEntry`. */
	setFile(file: string, format?: SessionFormat): void {
		this.#file = file;
		this.#mapper = format && !format.readsAsPi ? format : undefined;
	}

	put(i: number, entry: SessionEntry, keep: boolean): void {
		if (keep) this.#resident[i] = entry;
		else this.#remember(i, entry);
	}

	clear(): void {
		this.#lru.clear();
		this.#lruBytes = 0;
	}

	#remember(i: number, entry: SessionEntry): void {
		const len = this.#cols.length[i];
		if (len > LRU_MAX_BYTES / 4) return;
		this.#lru.delete(i);
		this.#lru.set(i, entry);
		this.#lruBytes += len;
		while (this.#lru.size > LRU_MAX_ENTRIES || this.#lruBytes > LRU_MAX_BYTES) {
			const oldest = this.#lru.keys().next().value as number;
			this.#lru.delete(oldest);
			this.#lruBytes -= this.#cols.length[oldest];
		}
	}

	#cached(i: number): SessionEntry | undefined {
		const r = this.#resident[i];
		if (r) return r;
		const hit = this.#lru.get(i);
		if (hit) {
			this.#lru.delete(i);
			this.#lru.set(i, hit);
		}
		return hit;
	}

	get(i: number): SessionEntry {
		const hit = this.#cached(i);
		if (hit) return hit;
		// A stand-in of the latest handed-out path is being read: callers walk paths in order, so read the next
		// stretch of it in one batch (one positional read for neighbouring lines) instead of a read per entry.
		const path = this.#path;
		const at = this.#pathPos && i < this.#pathPos.length ? this.#pathPos[i] : -1;
		if (path && at >= 0 && at < path.length && path[at] === i) {
			const want = [i];
			for (let k = at + 1; k < path.length && want.length < READAHEAD; k++) {
				const j = path[k];
				if (!this.#resident[j] && !this.#lru.has(j)) want.push(j);
			}
			return this.getMany(want)[0];
		}
		return this.getMany([i])[0];
	}

	/**
	 * The entry if it is in memory, else a lazy stand-in that reads and parses it on first use. Lets getBranch
	 * and getTree answer for 100k-entry paths in milliseconds: most callers only look at a few fields.
	 * The stand-in behaves as the plain object for reads, JSON.stringify, spreading and deep equality.
	 */
	view(i: number): SessionEntry {
		const hit = this.#cached(i);
		if (hit) return hit;
		// One stand-in per entry for the life of the index: repeated walks allocate nothing.
		let v = this.#views[i];
		if (!v) {
			this.#handler ??= new LazyEntry(this);
			v = new Proxy({ [INDEX]: i } as unknown as SessionEntry, this.#handler);
			this.#views[i] = v;
		}
		return v;
	}

	/**
	 * An array whose elements are made on first access: returning a 100k-entry path costs one index walk.
	 * It is a real Array underneath (Array.isArray, length, iteration, map/filter, JSON all behave).
	 */
	lazyViews(indices: ArrayLike<number>): SessionEntry[] {
		const n = indices.length;
		this.#notePath(indices);
		const target: SessionEntry[] = new Array(n);
		let filled = 0;
		const fill = (k: number): void => {
			if (target[k] === undefined) {
				target[k] = this.view(indices[k]);
				filled++;
			}
		};
		const fillAll = (): void => {
			if (filled < n) for (let k = 0; k < n; k++) fill(k);
		};
		const asIndex = (prop: string | symbol): number => {
			if (typeof prop !== "string") return -1;
			const k = Number(prop);
			return Number.isInteger(k) && k >= 0 && k < target.length && String(k) === prop ? k : -1;
		};
		return new Proxy(target, {
			get(t, prop, receiver) {
				const k = asIndex(prop);
				if (k >= 0 && k < n) fill(k);
				return Reflect.get(t, prop, receiver);
			},
			has(t, prop) {
				const k = asIndex(prop);
				if (k >= 0 && k < n) return true;
				return Reflect.has(t, prop);
			},
			ownKeys(t) {
				fillAll();
				return Reflect.ownKeys(t);
			},
			getOwnPropertyDescriptor(t, prop) {
				const k = asIndex(prop);
				if (k >= 0 && k < n) fill(k);
				return Reflect.getOwnPropertyDescriptor(t, prop);
			},
			set(t, prop, value) {
				// Writers (push, sort, splice...) see every element first, then an ordinary array.
				fillAll();
				filled = Number.POSITIVE_INFINITY;
				return Reflect.set(t, prop, value);
			},
			deleteProperty(t, prop) {
				fillAll();
				filled = Number.POSITIVE_INFINITY;
				return Reflect.deleteProperty(t, prop);
			},
		});
	}

	/** Remembers the latest list handed out (a path, a child list, all entries) for read-ahead. */
	#notePath(indices: ArrayLike<number>): void {
		const count = this.#cols.count;
		if (!this.#pathPos || this.#pathPos.length < count) this.#pathPos = new Int32Array(Math.max(count, 1024) * 2);
		const pos = this.#pathPos;
		for (let k = 0; k < indices.length; k++) pos[indices[k]] = k;
		this.#path = indices;
	}

	/** Structure-only answers for the lazy stand-in (no parse needed). */
	quick(i: number, prop: string): { value: unknown } | undefined {
		const c = this.#cols;
		if (prop === "id") return { value: c.ids[i] };
		if (prop === "type") {
			const t = TYPE_OF_KIND[c.kind[i]];
			return t === undefined ? undefined : { value: t };
		}
		return undefined;
	}

	getMany(indices: ArrayLike<number>): SessionEntry[] {
		const out: SessionEntry[] = new Array(indices.length);
		const missing: number[] = [];
		for (let k = 0; k < indices.length; k++) {
			const e = this.#cached(indices[k]);
			if (e) out[k] = e;
			else missing.push(k);
		}
		if (missing.length === 0) return out;
		const want = missing.map((k) => indices[k]);
		const raw = this.#readRawLines(want);
		for (const k of missing) {
			const i = indices[k];
			const bytes = raw.get(i);
			const e = this.#parse(i, bytes);
			out[k] = e;
			// Large batches (whole-file walks) bypass the LRU so they cannot evict the working set.
			if (missing.length <= LRU_MAX_ENTRIES / 4) this.#remember(i, e);
		}
		return out;
	}

	#parse(i: number, bytes: Buffer | undefined): SessionEntry {
		const file = this.#file ?? "(memory)";
		const line = this.#cols.line[i];
		if (!bytes) throw new SessionFileError("conflict", file, "entry is no longer readable; reload the session", line);
		let obj: unknown;
		try {
			obj = JSON.parse(bytes.toString("utf8"));
		} catch {
			throw new SessionFileError("conflict", file, "the file changed under the open session (entry no longer parses); reload it", line);
		}
		if (typeof obj !== "object" || obj === null) {
			throw new SessionFileError("conflict", file, "the file changed under the open session (entry moved); reload it", line);
		}
		if (this.#mapper) return this.#mapped(i, obj as Record<string, unknown>);
		const o = obj as { id?: unknown };
		if (this.#cols.flags[i] & EntryFlag.syntheticId) {
			if (o.id !== undefined && typeof o.id === "string")
				throw new SessionFileError("conflict", file, "the file changed under the open session (entry moved); reload it", line);
			o.id = this.#cols.ids[i];
		} else if (o.id !== this.#cols.ids[i]) {
			throw new SessionFileError("conflict", file, "the file changed under the open session (entry moved); reload it", line);
		}
		return obj as SessionEntry;
	}

	/** A foreign format's entry from its raw record, with the row's id, parent and part (rows of one record share its offset). */
	#mapped(i: number, raw: Record<string, unknown>): SessionEntry {
		const c = this.#cols;
		let part = 0;
		for (let j = i - 1; j >= 0 && c.offset[j] === c.offset[i]; j--) part++;
		const p = c.rawParent[i];
		return (this.#mapper as SessionFormat).toEntry(raw, { id: c.ids[i], parentId: typeof p === "string" ? p : null, part });
	}

	/**
	 * Streams the raw lines of on-disk entries (given in file order) in chunks of about 8 MB: `visit` gets the
	 * chunk and, per entry, [index, start, end] within it.
	 */
	scanRaw(indices: number[], visit: (chunk: Buffer, lines: [number, number, number][]) => void): void {
		const c = this.#cols;
		const file = this.#file;
		if (!file || indices.length === 0) return;
		withFile(file, (fd) => {
			let k = 0;
			while (k < indices.length) {
				const start = c.offset[indices[k]];
				let end = start + c.length[indices[k]];
				let m = k + 1;
				while (m < indices.length && c.offset[indices[m]] + c.length[indices[m]] - start <= 8 * 1024 * 1024) {
					end = Math.max(end, c.offset[indices[m]] + c.length[indices[m]]);
					m++;
				}
				const buf = Buffer.allocUnsafe(end - start);
				const got = readFully(fd, buf, 0, buf.length, start);
				const lines: [number, number, number][] = [];
				for (let q = k; q < m; q++) {
					const i = indices[q];
					const s = c.offset[i] - start;
					if (s + c.length[i] <= got) lines.push([i, s, s + c.length[i]]);
				}
				visit(buf.subarray(0, got), lines);
				k = m;
			}
		});
	}

	/**
	 * Copies on-disk lines into `out`: `items` are [entry index, position in out] in path order, each line
	 * followed by "\n". Lines that follow each other in the file are read together straight into `out` (one
	 * positional read per run, the "\n" between them included), so no per-line buffers are made.
	 * Returns false if the file ended early (it changed under the session).
	 */
	copyLinesInto(items: ArrayLike<number>, positions: ArrayLike<number>, out: Buffer): boolean {
		const c = this.#cols;
		const file = this.#file;
		if (items.length === 0) return true;
		if (!file) return false;
		return withFile(file, (fd) => {
			let k = 0;
			while (k < items.length) {
				const first = items[k];
				const start = c.offset[first];
				let end = start + c.length[first] + 1;
				let m = k + 1;
				while (m < items.length && c.offset[items[m]] === end && positions[m] === positions[k] + (end - start) && end - start < 64 * 1024 * 1024) {
					end += c.length[items[m]] + 1;
					m++;
				}
				// The last line of a run may be the file's final line without "\n": read it alone, add the "\n".
				const want = end - start - 1;
				if (readFully(fd, out, positions[k], want, start) < want) return false;
				out[positions[k] + want] = 10;
				k = m;
			}
			return true;
		});
	}

	/** Raw line bytes (without "\n") of on-disk entries, read with as few positional reads as possible. */
	#readRawLines(indices: number[]): Map<number, Buffer> {
		const out = new Map<number, Buffer>();
		const c = this.#cols;
		const onDisk = indices.filter((i) => c.offset[i] >= 0).sort((a, b) => c.offset[a] - c.offset[b]);
		if (onDisk.length === 0) return out;
		const file = this.#file;
		if (!file) return out;
		withFile(file, (fd) => {
			let k = 0;
			while (k < onDisk.length) {
				// Coalesce neighbouring lines (a linear path is usually contiguous in the file).
				const start = c.offset[onDisk[k]];
				let end = start + c.length[onDisk[k]];
				let m = k + 1;
				while (m < onDisk.length && c.offset[onDisk[m]] <= end + 1 && c.offset[onDisk[m]] + c.length[onDisk[m]] - start < 32 * 1024 * 1024) {
					end = Math.max(end, c.offset[onDisk[m]] + c.length[onDisk[m]]);
					m++;
				}
				const buf = Buffer.allocUnsafe(end - start);
				const got = readFully(fd, buf, 0, buf.length, start);
				for (let q = k; q < m; q++) {
					const i = onDisk[q];
					const s = c.offset[i] - start;
					if (s + c.length[i] <= got) out.set(i, buf.subarray(s, s + c.length[i]));
				}
				k = m;
			}
		});
		return out;
	}
}

/** Runs `fn` with the session file open for reading; an open failure is an io error naming the file. */
function withFile<T>(file: string, fn: (fd: number) => T): T {
	let fd: number;
	try {
		fd = openSync(file, "r");
	} catch (err) {
		throw ioError(file, err, "reading entries");
	}
	try {
		return fn(fd);
	} finally {
		closeSync(fd);
	}
}

/** Reads up to `length` bytes at `position` into `buf` at `offset`; returns how many arrived (less at EOF). */
function readFully(fd: number, buf: Buffer, offset: number, length: number, position: number): number {
	let got = 0;
	while (got < length) {
		const n = readSync(fd, buf, offset + got, length - got, position + got);
		if (n <= 0) break;
		got += n;
	}
	return got;
}

/** Where a stand-in's target keeps its entry index (one shared handler serves every stand-in). */
const INDEX = Symbol("arbor.entryIndex");
type Target = SessionEntry & { [INDEX]: number };

class LazyEntry implements ProxyHandler<SessionEntry> {
	readonly #cache: EntryCache;

	constructor(cache: EntryCache) {
		this.#cache = cache;
	}

	// Not memoized here: the body lives in the cache's LRU, so holding stand-ins never pins parsed entries.
	#load(t: SessionEntry): Record<string | symbol, unknown> {
		return this.#cache.get((t as Target)[INDEX]) as unknown as Record<string | symbol, unknown>;
	}

	get(t: SessionEntry, prop: string | symbol): unknown {
		if (typeof prop === "string") {
			const q = this.#cache.quick((t as Target)[INDEX], prop);
			if (q) return q.value;
		}
		return this.#load(t)[prop];
	}

	set(t: SessionEntry, prop: string | symbol, value: unknown): boolean {
		this.#load(t)[prop] = value;
		return true;
	}

	has(t: SessionEntry, prop: string | symbol): boolean {
		return prop in this.#load(t);
	}

	ownKeys(t: SessionEntry): (string | symbol)[] {
		return Reflect.ownKeys(this.#load(t));
	}

	getOwnPropertyDescriptor(t: SessionEntry, prop: string | symbol): PropertyDescriptor | undefined {
		const real = this.#load(t);
		if (!Object.prototype.hasOwnProperty.call(real, prop)) return undefined;
		return { value: real[prop], writable: true, enumerable: true, configurable: true };
	}

	deleteProperty(t: SessionEntry, prop: string | symbol): boolean {
		return delete this.#load(t)[prop];
	}
}

/**
 * A plain deep copy of entries / tree nodes / paths. On large files getBranch, getEntries, getChildren and
 * getTree hand out lazy stand-ins (Proxies), which structuredClone and postMessage reject: copy them with
 * this before sending them across a process or worker boundary.
 */
export function toPlain<T>(value: T): T {
	return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
