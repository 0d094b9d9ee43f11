// Entry bodies on demand: entries stay on disk (byte offset + length per entry in the columns) and are read
// with positional reads and parsed when asked for, through a small LRU. Entries that exist only in memory
// (migrated legacy files, recovered glued records, in-memory sessions, our own appends) stay resident.

import { closeSync, openSync, readSync } from "node:fs";
import type { SessionEntry } from "../../shared/entries";
import { EntryFlag } from "../../shared/skeleton";
import { SessionFileError, ioError } from "./errors";
import type { Columns } from "./store";

const LRU_MAX_ENTRIES = 4096;
const LRU_MAX_BYTES = 64 * 1024 * 1024;
/** Files below this size keep every parsed entry (cheap, and avoids re-reading on every walk). */
export const SMALL_FILE_BYTES = 16 * 1024 * 1024;

export class EntryCache {
	readonly #cols: Columns;
	#file: string | undefined;
	#resident: (SessionEntry | undefined)[] = [];
	#lru = new Map<number, SessionEntry>();
	#lruBytes = 0;

	constructor(cols: Columns) {
		this.#cols = cols;
	}

	setFile(file: string, _legacy: boolean): void {
		this.#file = file;
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
		return this.getMany([i])[0];
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
		const raw = this.readRawLines(want);
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
		const o = obj as { id?: unknown };
		if (this.#cols.flags[i] & EntryFlag.syntheticId) {
			if (o.id !== undefined && typeof o.id === "string") throw new SessionFileError("conflict", file, "the file changed under the open session (entry moved); reload it", line);
			o.id = this.#cols.ids[i];
		} else if (o.id !== this.#cols.ids[i]) {
			throw new SessionFileError("conflict", file, "the file changed under the open session (entry moved); reload it", line);
		}
		return obj as SessionEntry;
	}

	/** Raw line bytes (without "\n") of on-disk entries, read with as few positional reads as possible. */
	readRawLines(indices: number[]): Map<number, Buffer> {
		const out = new Map<number, Buffer>();
		const c = this.#cols;
		const onDisk = indices.filter((i) => c.offset[i] >= 0).sort((a, b) => c.offset[a] - c.offset[b]);
		if (onDisk.length === 0) return out;
		const file = this.#file;
		if (!file) return out;
		let fd: number;
		try {
			fd = openSync(file, "r");
		} catch (err) {
			throw ioError(file, err, "reading entries");
		}
		try {
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
				let got = 0;
				while (got < buf.length) {
					const n = readSync(fd, buf, got, buf.length - got, start + got);
					if (n <= 0) break;
					got += n;
				}
				for (let q = k; q < m; q++) {
					const i = onDisk[q];
					const s = c.offset[i] - start;
					if (s + c.length[i] <= got) out.set(i, buf.subarray(s, s + c.length[i]));
				}
				k = m;
			}
		} finally {
			closeSync(fd);
		}
		return out;
	}
}
