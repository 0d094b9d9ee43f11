// The path-only reader's row table (formats/pi/path-reader.ts): one row per entry line with its id and parent id kept
// as bytes in one pool and hashed (FNV-1a), so no string or Map entry is made per line; and its fallback
// signal.

/** Thrown when the file needs SessionManager's full read; the reason says why. */
export class Fallback extends Error {}

const decoder = new TextDecoder();

export const fallback = (reason: string): never => {
	throw new Fallback(reason);
};

/** Growable columns, one row per entry line (the header and blank lines are not rows). */
export class Rows {
	n = 0;
	offset: Float64Array;
	length: Int32Array;
	idAt: Int32Array; // into pool
	idLen: Int32Array;
	idHash: Int32Array;
	/** 1: a string (bytes at parAt, hashed into parHash), -1: null, -2: absent or not a string. */
	par: Int8Array;
	parAt: Int32Array;
	parLen: Int32Array;
	parHash: Int32Array;
	pool: Uint8Array;
	poolUsed = 0;

	constructor(cap: number) {
		this.offset = new Float64Array(cap);
		this.length = new Int32Array(cap);
		this.idAt = new Int32Array(cap);
		this.idLen = new Int32Array(cap);
		this.idHash = new Int32Array(cap);
		this.par = new Int8Array(cap);
		this.parAt = new Int32Array(cap);
		this.parLen = new Int32Array(cap);
		this.parHash = new Int32Array(cap);
		this.pool = new Uint8Array(cap * 24);
	}

	grow(): void {
		const cap = this.offset.length * 2;
		const g = <T extends Float64Array | Int32Array | Int8Array>(a: T): T => {
			const b = new (a.constructor as new (n: number) => T)(cap);
			b.set(a);
			return b;
		};
		this.offset = g(this.offset);
		this.length = g(this.length);
		this.idAt = g(this.idAt);
		this.idLen = g(this.idLen);
		this.idHash = g(this.idHash);
		this.par = g(this.par);
		this.parAt = g(this.parAt);
		this.parLen = g(this.parLen);
		this.parHash = g(this.parHash);
	}

	/** Copies src[s, e) into the pool; returns its position. */
	keep(src: Uint8Array, s: number, e: number): number {
		const len = e - s;
		if (this.poolUsed + len > this.pool.length) {
			let cap = this.pool.length * 2;
			while (cap < this.poolUsed + len) cap *= 2;
			const b = new Uint8Array(cap);
			b.set(this.pool.subarray(0, this.poolUsed));
			this.pool = b;
		}
		const at = this.poolUsed;
		const pool = this.pool;
		if (len <= 24) for (let k = 0; k < len; k++) pool[at + k] = src[s + k];
		else pool.set(src.subarray(s, e), at);
		this.poolUsed += len;
		return at;
	}

	idLatin1(i: number): string {
		return Buffer.from(this.pool.buffer, this.pool.byteOffset + this.idAt[i], this.idLen[i]).toString("latin1");
	}

	idText(i: number): string {
		return decoder.decode(this.pool.subarray(this.idAt[i], this.idAt[i] + this.idLen[i]));
	}
}

export function hashBytes(b: Uint8Array, s: number, e: number): number {
	let h = 0x811c9dc5 | 0;
	for (let k = s; k < e; k++) h = Math.imul(h ^ b[k], 0x01000193);
	return h;
}

export function sameBytes(b: Uint8Array, a1: number, l1: number, a2: number, l2: number): boolean {
	if (l1 !== l2) return false;
	for (let k = 0; k < l1; k++) if (b[a1 + k] !== b[a2 + k]) return false;
	return true;
}
