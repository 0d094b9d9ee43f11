// Byte-level JSON reading for the line skimmer (formats/pi/scan-line.ts): whitespace, strings, numbers, literals,
// skipping any value without building it, object keys by code, and a "non-blank text" test. Works on one
// line's bytes [start, end) of a shared buffer; anything it cannot judge exactly throws UNSURE and the
// caller JSON.parses the line instead.

export const Q = 0x22; // "
export const BS = 0x5c; // \
export const LB = 0x7b; // {
export const RB = 0x7d; // }
export const LA = 0x5b; // [
export const RA = 0x5d; // ]
export const COMMA = 0x2c;
export const COLON = 0x3a;

export class Unsure extends Error {}
export const UNSURE = new Unsure();

export const enc = (s: string): Uint8Array => Buffer.from(s, "utf8");

/** Key tables by byte length: `[bytes, code]` pairs; a key not listed reads as code 0. */
export type KeyTable = [Uint8Array, number][][];

export function keyTable(keys: [string, number][]): KeyTable {
	const t: KeyTable = [];
	for (const [k, code] of keys) (t[k.length] ??= []).push([enc(k), code]);
	return t;
}

// Exact powers of ten (literals), for decimal().
const POW10 = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

export class JsonBytes {
	b: Buffer = Buffer.alloc(0);
	end = 0;
	/** Code of the last key read by key(). */
	kc = 0;
	/** Value of the last number() / literal() read (literal: true=1 false=0 null=2). */
	nv = 0;
	lv = 0;

	constructor(readonly keys: KeyTable) {}

	ws(p: number): number {
		const b = this.b;
		const end = this.end;
		while (p < end) {
			const c = b[p];
			if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
			else break;
		}
		return p;
	}

	/** p at the opening quote; returns the index just past the closing quote. */
	skipString(p: number): number {
		const b = this.b;
		const end = this.end;
		let i = p + 1;
		const lim = i + 16 < end ? i + 16 : end;
		for (; i < lim; i++) {
			const c = b[i];
			if (c === Q) return i + 1;
			if (c === BS) i++;
			else if (c < 0x20) throw UNSURE; // raw control character: JSON.parse rejects the line
		}
		if (i >= end) throw UNSURE;
		for (;;) {
			const q = b.indexOf(Q, i);
			if (q < 0 || q >= end) throw UNSURE;
			let k = q - 1;
			while (b[k] === BS) k--;
			// A run of backslashes right before the quote: an odd count escapes it.
			if (((q - 1 - k) & 1) === 0) return q + 1;
			i = q + 1;
		}
	}

	hasEscape(a: number, z: number): boolean {
		const b = this.b;
		for (let i = a; i < z; i++) if (b[i] === BS) return true;
		return false;
	}

	/** Decodes the string whose quotes are at a-1 and z. */
	str(a: number, z: number): string {
		if (this.hasEscape(a, z)) return JSON.parse(this.b.toString("utf8", a - 1, z + 1)) as string;
		return this.b.toString("utf8", a, z);
	}

	eq(a: number, z: number, bytes: Uint8Array): boolean {
		if (z - a !== bytes.length) return false;
		const b = this.b;
		for (let i = 0; i < bytes.length; i++) if (b[a + i] !== bytes[i]) return false;
		return true;
	}

	/** Code of the string at quotes (a-1, z) in `table`, 0 if absent. Escaped strings are decoded first. */
	lookup<T extends [Uint8Array, ...unknown[]]>(a: number, z: number, table: T[]): T | undefined {
		if (this.hasEscape(a, z)) {
			const s = Buffer.from(this.str(a, z), "utf8");
			for (const t of table) if (Buffer.compare(s, t[0]) === 0) return t;
			return undefined;
		}
		for (const t of table) if (this.eq(a, z, t[0])) return t;
		return undefined;
	}

	number(p: number): number {
		const b = this.b;
		let i = p;
		let neg = false;
		if (b[i] === 0x2d) {
			neg = true;
			i++;
		}
		let v = 0;
		const start = i;
		while (i < this.end) {
			const c = b[i] - 0x30;
			if (c < 0 || c > 9) break;
			v = v * 10 + c;
			i++;
		}
		if (i === start) throw UNSURE;
		const c = b[i];
		if (i - start < 16 && c !== 0x2e && c !== 0x65 && c !== 0x45) {
			this.nv = neg ? -v : v;
			return i;
		}
		// Fractions, exponents, long digit runs: let Number() do the exact conversion.
		const z = this.skipNumber(p);
		const n = Number(b.toString("latin1", p, z));
		if (Number.isNaN(n)) throw UNSURE;
		this.nv = n;
		return z;
	}

	/**
	 * A JSON number at p into `dv` (a separate field from nv so fractions never turn nv into a double);
	 * returns the index after it. Short decimals (no exponent, at most 15 digits) are m / 10^k, which is
	 * exactly what Number() gives (both exact doubles, one correctly rounded division); others go through Number().
	 */
	decimal(p: number): number {
		const b = this.b;
		const end = this.end;
		let i = p;
		const neg = b[i] === 0x2d;
		if (neg) i++;
		let m = 0;
		let digits = 0;
		let frac = -1;
		for (; i < end; i++) {
			const c = b[i];
			if (c >= 0x30 && c <= 0x39) {
				m = m * 10 + (c - 0x30);
				digits++;
			} else if (c === 0x2e && frac < 0) frac = i;
			else break;
		}
		const c = b[i];
		if (digits > 0 && digits <= 15 && c !== 0x65 && c !== 0x45 && c !== 0x2b && c !== 0x2d && (frac < 0 || frac < i - 1)) {
			const k = frac < 0 ? 0 : i - frac - 1;
			const v = k === 0 ? m : m / POW10[k];
			this.dv = neg ? -v : v;
			return i;
		}
		const z = this.skipNumber(p);
		const n = Number(b.toString("latin1", p, z));
		if (Number.isNaN(n)) throw UNSURE;
		this.dv = n;
		return z;
	}
	dv = Number.NaN;

	skipNumber(p: number): number {
		const b = this.b;
		let i = p;
		while (i < this.end) {
			const c = b[i];
			if ((c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45) i++;
			else break;
		}
		if (i === p) throw UNSURE;
		return i;
	}

	/** true / false / null (sets lv to 1 / 0 / 2). */
	literal(p: number): number {
		const b = this.b;
		if (p + 4 > this.end) throw UNSURE;
		if (b[p] === 0x74 && b[p + 1] === 0x72 && b[p + 2] === 0x75 && b[p + 3] === 0x65) {
			this.lv = 1;
			return p + 4;
		}
		if (p + 5 <= this.end && b[p] === 0x66 && b[p + 1] === 0x61 && b[p + 2] === 0x6c && b[p + 3] === 0x73 && b[p + 4] === 0x65) {
			this.lv = 0;
			return p + 5;
		}
		if (b[p] === 0x6e && b[p + 1] === 0x75 && b[p + 2] === 0x6c && b[p + 3] === 0x6c) {
			this.lv = 2;
			return p + 4;
		}
		throw UNSURE;
	}

	isNum(c: number): boolean {
		return (c >= 0x30 && c <= 0x39) || c === 0x2d;
	}

	isLit(c: number): boolean {
		return c === 0x74 || c === 0x66 || c === 0x6e;
	}

	/** Skips any value without building it (iterative: hostile nesting cannot overflow the stack). */
	skipValue(p: number): number {
		const b = this.b;
		const c = b[p];
		if (c === Q) return this.skipString(p);
		if (c === LB || c === LA) {
			let depth = 0;
			let i = p;
			const end = this.end;
			while (i < end) {
				const x = b[i];
				if (x === Q) {
					i = this.skipString(i);
					continue;
				}
				if (x === LB || x === LA) depth++;
				else if (x === RB || x === RA) {
					if (--depth === 0) return i + 1;
				}
				i++;
			}
			throw UNSURE;
		}
		if (this.isLit(c)) return this.literal(p);
		return this.skipNumber(p);
	}

	keyCode(a: number, z: number): number {
		const cands = this.keys[z - a];
		if (cands === undefined) return 0;
		for (let k = 0; k < cands.length; k++) if (this.eq(a, z, cands[k][0])) return cands[k][1];
		return 0;
	}

	/** Reads `"key":` at p; returns the index of the value. Sets `kc` to the key code. */
	key(p: number): number {
		const b = this.b;
		if (b[p] !== Q) throw UNSURE;
		const z = this.skipString(p);
		this.kc = this.keyCode(p + 1, z - 1);
		p = this.ws(z);
		if (b[p] !== COLON) throw UNSURE;
		p = this.ws(p + 1);
		if (p >= this.end) throw UNSURE;
		return p;
	}

	/** After a member value: "," (returns the next key index) or "}" (returns -(index after it) - 1). */
	next(p: number, close: number): number {
		const b = this.b;
		p = this.ws(p);
		if (b[p] === COMMA) return this.ws(p + 1);
		if (b[p] === close) return -(p + 1) - 1;
		throw UNSURE;
	}

	/** Whether the JSON string at quotes (p, end-1) holds a character that String.prototype.trim keeps. */
	nonBlank(p: number, end: number): boolean {
		const b = this.b;
		for (let i = p + 1; i < end - 1; i++) {
			const c = b[i];
			if (c === 0x20 || c === 0x0b) continue;
			if (c === BS) {
				const e = b[i + 1];
				if (e === 0x6e || e === 0x74 || e === 0x72 || e === 0x66) {
					i++;
					continue;
				}
				if (e === 0x75) {
					if (isJsSpace(parseInt(b.toString("latin1", i + 2, i + 6), 16))) {
						i += 5;
						continue;
					}
					return true;
				}
				return true;
			}
			// Non-ASCII may be a Unicode space (NBSP, U+2000.., U+3000, BOM...): decode and let JS decide.
			if (c >= 0x80) return (JSON.parse(b.toString("utf8", p, end)) as string).trim().length > 0;
			return true;
		}
		return false;
	}
}

export function isJsSpace(cp: number): boolean {
	return (
		cp === 0x20 ||
		(cp >= 0x09 && cp <= 0x0d) ||
		cp === 0xa0 ||
		cp === 0x1680 ||
		(cp >= 0x2000 && cp <= 0x200a) ||
		cp === 0x2028 ||
		cp === 0x2029 ||
		cp === 0x202f ||
		cp === 0x205f ||
		cp === 0x3000 ||
		cp === 0xfeff
	);
}
