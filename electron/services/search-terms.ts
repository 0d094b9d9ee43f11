// Search across sessions, part 2 of 5: the build's tokeniser and postings buffer. The words of an entry are
// found with a char-code loop over its lower-cased text (search-text.ts's isWordUnit, written inline) and
// interned in an open-addressing table keyed by a hash of their code units, so a word seen before costs no
// string; a block keeps each word once (a stamp per word); a finished block appends (file id, block) to
// each of its words' postings, held in typed arrays until they are merged into the dictionary files.

/** Longer words are not indexed. */
const TERM_MAX = 64;

/** Characters of a term naming its dictionary file. */
export const PREFIX_CHARS = 3;

function hexOf(s: string): string {
	return Buffer.from(s, "utf8").toString("hex");
}

/** Name of the dictionary file holding the terms that start like `term` (its first three characters). */
export function dictName(term: string): string {
	return `d-${hexOf(term.slice(0, PREFIX_CHARS))}.json`;
}

/** True when dictionary file `name` may hold words starting with `term` (UTF-8 is prefix-free). */
export function dictMayHold(name: string, term: string): boolean {
	return term.length >= PREFIX_CHARS ? name === dictName(term) : name.startsWith(`d-${hexOf(term)}`);
}

// The hot loop keeps its state in plain fields (private `#` members cost a brand check per access and
// were 2x slower here) and locals.
export class TermTable {
	/** Word of each term id. */
	readonly words: string[] = [];
	private hashes = new Int32Array(1024);
	/** Open addressing: term id + 1, 0 = empty. */
	private slots = new Int32Array(2048);
	/** Block serial in which each term was last seen. */
	private stamp = new Int32Array(1024);
	private serial = 1;
	/** Term ids of the current block. */
	private block = new Int32Array(4096);
	private blockLen = 0;
	/** Pending postings of each term: [fid, block, ...] (first `postLen[id]` numbers). */
	private post: (Int32Array | null)[] = [];
	private postLen = new Int32Array(1024);
	/** Dictionary file -> term ids with pending postings. */
	readonly pending = new Map<string, number[]>();
	/** Pending numbers (two per posting). */
	pendingCount = 0;

	get size(): number {
		return this.words.length;
	}

	/** Adds the words of `lower` (lower-cased entry text) to the current block. */
	addText(lower: string): void {
		const n = lower.length;
		const words = this.words;
		let i = 0;
		while (i < n) {
			let c = lower.charCodeAt(i);
			if (!(c >= 0xc0 || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95)) {
				i++;
				continue;
			}
			const start = i;
			let h = 0x811c9dc5;
			for (;;) {
				h = Math.imul(h ^ c, 0x01000193);
				if (++i >= n) break;
				c = lower.charCodeAt(i);
				if (!(c >= 0xc0 || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95)) break;
			}
			const len = i - start;
			if (len > TERM_MAX) continue;
			// Probe: same hash, same length, same code units.
			const slots = this.slots;
			const mask = slots.length - 1;
			let at = h & mask;
			let id = -1;
			for (;;) {
				const v = slots[at];
				if (v === 0) break;
				if (this.hashes[v - 1] === h) {
					const w = words[v - 1];
					if (w.length === len) {
						let k = 0;
						while (k < len && w.charCodeAt(k) === lower.charCodeAt(start + k)) k++;
						if (k === len) {
							id = v - 1;
							break;
						}
					}
				}
				at = (at + 1) & mask;
			}
			if (id < 0) {
				const word = copyOf(lower, start, i);
				// Not a key a plain object can hold as its own (the dictionary files are objects).
				if (word === "__proto__") continue;
				id = this.newTerm(word, h, at);
			}
			if (this.stamp[id] !== this.serial) {
				this.stamp[id] = this.serial;
				if (this.blockLen >= this.block.length) this.block = grow(this.block, this.block.length * 2);
				this.block[this.blockLen++] = id;
			}
		}
	}

	private newTerm(word: string, h: number, at: number): number {
		const id = this.words.length;
		this.words.push(word);
		if (id >= this.hashes.length) {
			this.hashes = grow(this.hashes, id * 2);
			this.stamp = grow(this.stamp, id * 2);
			this.postLen = grow(this.postLen, id * 2);
		}
		this.hashes[id] = h;
		this.post.push(null);
		this.slots[at] = id + 1;
		if ((id + 1) * 2 > this.slots.length) this.rehash();
		return id;
	}

	private rehash(): void {
		const slots = new Int32Array(this.slots.length * 2);
		const mask = slots.length - 1;
		for (let id = 0; id < this.words.length; id++) {
			let at = this.hashes[id] & mask;
			while (slots[at] !== 0) at = (at + 1) & mask;
			slots[at] = id + 1;
		}
		this.slots = slots;
	}

	/** Ends the current block: each of its words gets the posting (fid, block). */
	endBlock(fid: number, block: number): void {
		for (let k = 0; k < this.blockLen; k++) {
			const id = this.block[k];
			let len = this.postLen[id];
			let list = this.post[id] ?? (this.post[id] = new Int32Array(4));
			if (len === 0) {
				const name = dictName(this.words[id]);
				const ids = this.pending.get(name);
				if (ids) ids.push(id);
				else this.pending.set(name, [id]);
			}
			if (len + 2 > list.length) list = this.post[id] = grow(list, list.length * 2);
			list[len++] = fid;
			list[len++] = block;
			this.postLen[id] = len;
		}
		this.pendingCount += this.blockLen * 2;
		this.blockLen = 0;
		this.serial++;
	}

	/** Forgets the current block's words (a block cut short). */
	dropBlock(): void {
		this.blockLen = 0;
		this.serial++;
	}

	/** Pending postings of term `id`: [fid, block, ...]. */
	postings(id: number): Int32Array {
		return (this.post[id] as Int32Array).subarray(0, this.postLen[id]);
	}

	/** Marks the pending postings of dictionary file `name` as merged. */
	merged(name: string): void {
		const ids = this.pending.get(name);
		if (!ids) return;
		for (const id of ids) {
			this.pendingCount -= this.postLen[id];
			this.postLen[id] = 0;
			this.post[id] = null;
		}
		this.pending.delete(name);
	}

	/** Forgets every word (memory stays bounded on a large vocabulary); only between blocks, nothing pending. */
	reset(): void {
		if (this.pendingCount || this.blockLen) throw new Error("TermTable.reset with pending postings");
		this.words.length = 0;
		this.post.length = 0;
		this.slots = new Int32Array(2048);
		this.hashes = new Int32Array(1024);
		this.stamp = new Int32Array(1024);
		this.postLen = new Int32Array(1024);
		this.serial = 1;
	}
}

/**
 * A flat copy of a piece of `s`: V8 keeps a slice of 13+ characters as a view that holds the whole entry
 * text alive, and the table keeps its words for the whole build.
 */
function copyOf(s: string, start: number, end: number): string {
	const w = s.slice(start, end);
	return w.length < 13 ? w : Buffer.from(w, "utf16le").toString("utf16le");
}

function grow(a: Int32Array, size: number): Int32Array<ArrayBuffer> {
	const b = new Int32Array(Math.max(size, 4));
	b.set(a);
	return b;
}
