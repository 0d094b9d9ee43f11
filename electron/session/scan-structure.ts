// Structure-only skim of JSONL lines, for opens that only build model contexts (`arbor context`): checks a
// line's JSON grammar and reads its top-level "type", "id", "parentId" and its message's "role", nothing
// else. It answers only for lines of the plain shape pi writes; for anything else it answers undefined and
// the caller reads the line the ordinary way (skimLine, then JSON.parse), so those lines end up exactly as
// a full open reads them. The entry kind comes from
// classify.ts (kindOf / roleKind, the rules skimLine must agree with); the other skeleton facts (flags,
// time, tokens) are not read.
//
// Two passes, exact by construction: a line is answered only when it is valid JSON, and a valid line is
// one both skimLine and JSON.parse would read the same way.
// - chunk(): once per chunk read, four bytes at a time (SWAR on an Int32Array view), finds the bytes that
//   make a string invalid JSON: raw control bytes and backslashes that start no valid escape.
// - line(): one flat loop over the line's grammar (objects, arrays, members, numbers, literals checked as
//   JSON defines them), skipping string bodies with a native search for the closing quote.
// (Checking string bytes loosely instead, as skimLine does, saved a fifth of the scan but answered lines
// skimLine refuses and JSON.parse rejects, e.g. raw control bytes in non-ASCII text: not done.)

import { EntryKind, type EntryKindCode } from "../../shared/skeleton";
import { kindOf, roleKind } from "./classify";

const Q = 0x22; // "
const BS = 0x5c; // \
const LB = 0x7b; // {
const RB = 0x7d; // }
const LA = 0x5b; // [
const RA = 0x5d; // ]
const COMMA = 0x2c;
const COLON = 0x3a;
const NL = 0x0a;
/** Deeper values are left to the ordinary reader. */
const MAX_DEPTH = 256;

export interface StructureSkim {
	type: string;
	id: string;
	parentId: string | null;
	kind: EntryKindCode;
}

const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function isHex(c: number): boolean {
	return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

/** p at a backslash: index after the escape, or -1 when it is not one JSON allows. */
function escapeEnd(b: Buffer, p: number, end: number): number {
	if (p + 1 >= end) return -1;
	const c = b[p + 1];
	if (c === Q || c === BS || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74) return p + 2;
	if (c === 0x75 && p + 5 < end && isHex(b[p + 2]) && isHex(b[p + 3]) && isHex(b[p + 4]) && isHex(b[p + 5])) return p + 6;
	return -1;
}

function sameBytes(b: Buffer, a1: number, z1: number, a2: number, z2: number): boolean {
	if (z1 - a1 !== z2 - a2) return false;
	for (let k = 0; k < z1 - a1; k++) if (b[a1 + k] !== b[a2 + k]) return false;
	return true;
}

/** Whether [a, z) holds a backslash (keys and values read here must be plain, unescaped text). */
function hasBackslash(b: Buffer, a: number, z: number): boolean {
	for (let i = a; i < z; i++) if (b[i] === BS) return true;
	return false;
}

// Parser states of line().
const S_VALUE = 0; // a value must come
const S_FIRST_KEY = 1; // after "{": a key or "}"
const S_KEY = 2; // after "," in an object: a key
const S_COLON = 3; // after a key: ":"
const S_AFTER = 4; // after a value: "," or the container's close
const S_FIRST_VALUE = 5; // after "[": a value or "]"

// What the member being read at the top level (depth 1) or in the message object (depth 2) is.
const M_OTHER = 0, M_TYPE = 1, M_ID = 2, M_PARENT = 3, M_MESSAGE = 4, M_ROLE = 5;

const typeKinds = new Map<string, EntryKindCode>();
const roleKinds = new Map<string, EntryKindCode>();
/** Kinds by type name / role, by classify.ts's rules; a few names recur on every line (capped against files that invent one per line). */
function cachedKind(cache: Map<string, EntryKindCode>, name: string, compute: (name: string) => EntryKindCode): EntryKindCode {
	let k = cache.get(name);
	if (k === undefined) {
		k = compute(name);
		if (cache.size < 256) cache.set(name, k);
	}
	return k;
}
const typeKind = (type: string): EntryKindCode => kindOf({ type });

export class StructureScanner {
	#buf: Buffer | undefined;
	#words: Int32Array | undefined;
	/** chunk()'s range of #buf: lines outside it are not vouched for. */
	#to = -1;
	/** Indices in #buf of bytes that make their line invalid, ascending; #next = the first not passed yet. */
	#suspects: number[] = [];
	#next = 0;
	/** The id of the last line skimmed in this chunk, and where its bytes are: a parentId equal to it reuses it. */
	#prevId = "";
	#prevA = -1;
	#prevZ = -1;
	readonly #stack = new Uint8Array(MAX_DEPTH);
	readonly #result: StructureSkim = { type: "", id: "", parentId: null, kind: EntryKind.unknown };

	/**
	 * Registers the complete lines [0, to) of a freshly read chunk (before any of its lines is skimmed) and
	 * finds, four bytes at a time, the bytes that make a string invalid JSON: raw control bytes and
	 * backslashes that start no valid escape. Lines holding one are left to the ordinary reader.
	 */
	chunk(buf: Buffer, to: number): void {
		this.#to = -1;
		this.#prevA = -1;
		this.#prevZ = -1;
		this.#suspects.length = 0;
		this.#next = 0;
		if (to <= 0 || !littleEndian) return;
		if (buf !== this.#buf) {
			this.#buf = buf;
			this.#words = (buf.byteOffset & 3) === 0 ? new Int32Array(buf.buffer, buf.byteOffset, buf.length >> 2) : undefined;
		}
		const w = this.#words;
		if (!w) return;
		const out = this.#suspects;
		const b = buf;
		const last = (to >> 2) - 1;
		let i = 0;
		for (;;) {
			// Whole words while none holds a backslash or a byte below 0x20.
			if ((i & 3) === 0) {
				let k = i >> 2;
				for (; k <= last; k++) {
					const x = w[k];
					const y = x ^ 0x5c5c5c5c;
					if (((((x - 0x20202020) | 0) & ~x) | (((y - 0x01010101) | 0) & ~y)) & 0x80808080) break;
				}
				i = k << 2;
			}
			if (i >= to) break;
			// Byte by byte to the next word boundary (an escape may carry past it).
			const stop = ((i >> 2) + 1) << 2;
			while (i < stop && i < to) {
				const c = b[i];
				if (c === BS) {
					const z = escapeEnd(b, i, to);
					if (z < 0) {
						out.push(i);
						i++;
					} else i = z;
				} else {
					if (c < 0x20 && c !== NL) out.push(i);
					i++;
				}
			}
			if (i >= to) break;
		}
		this.#to = to;
	}

	/**
	 * The line [s, e) of the chunk last registered: its type, id, parentId and kind (a shared object: copy the
	 * fields before the next call) when it is valid JSON, an object whose type is a string other than
	 * "session" and "label", whose id is a string, whose parentId is a string or null and whose message (when
	 * an object) has a string role or none, with no escapes in those keys and values; else undefined.
	 */
	line(buf: Buffer, s: number, e: number): StructureSkim | undefined {
		if (buf !== this.#buf || e > this.#to) return undefined;
		const sus = this.#suspects;
		let n = this.#next;
		while (n < sus.length && sus[n] < s) n++;
		this.#next = n;
		if (n < sus.length && sus[n] < e) return undefined;
		const b = buf;
		const stack = this.#stack;
		let depth = 0;
		let state = S_VALUE;
		/** Member being read: at depth 1, or at depth 2 inside the top-level "message" object. */
		let member = M_OTHER;
		let inMessage = false;
		let type: string | undefined;
		let id: string | undefined;
		let idA = -1;
		let idZ = -1;
		let parentId: string | null | undefined;
		/** The last "message" member: undefined = none or not an object; else its role (null = none). */
		let role: string | null | undefined;
		let i = s;
		for (;;) {
			let c = b[i];
			while (c === 0x20 || c === 0x09 || c === 0x0d) c = b[++i];
			if (i >= e) {
				if (depth === 0 && state === S_AFTER) break;
				return undefined;
			}
			if (state === S_AFTER) {
				if (depth === 0) return undefined; // bytes after the record: glued records, stray text
				const open = stack[depth - 1];
				if (c === COMMA) {
					state = open === LB ? S_KEY : S_VALUE;
					i++;
					continue;
				}
				if (c !== (open === LB ? RB : RA)) return undefined;
				depth--;
				if (depth === 1 && inMessage) inMessage = false;
				i++;
				continue;
			}
			if (state === S_COLON) {
				if (c !== COLON) return undefined;
				state = S_VALUE;
				i++;
				continue;
			}
			if (state === S_FIRST_KEY || state === S_KEY) {
				if (c === RB && state === S_FIRST_KEY) {
					if (depth === 1) return undefined; // {} has no type
					depth--;
					if (depth === 1 && inMessage) inMessage = false;
					state = S_AFTER;
					i++;
					continue;
				}
				if (c !== Q) return undefined;
			} else if (state === S_FIRST_VALUE && c === RA) {
				depth--;
				state = S_AFTER;
				i++;
				continue;
			}
			// A string (key or value), or another value.
			if (c === Q) {
				const a = i + 1;
				let z = a;
				const lim = a + 16 < e ? a + 16 : e;
				for (; z < lim; z++) {
					const x = b[z];
					if (x === Q) break;
					if (x === BS) z++;
					else if (x < 0x20) return undefined;
				}
				if (z >= lim || b[z] !== Q) {
					if (z >= e) return undefined;
					for (;;) {
						const q = b.indexOf(Q, z);
						if (q < 0 || q >= e) return undefined;
						let k = q - 1;
						while (b[k] === BS) k--;
						z = q;
						// A run of backslashes right before the quote: an odd count escapes it.
						if (((q - 1 - k) & 1) === 0) break;
						z = q + 1;
					}
				}
				i = z + 1;
				if (state === S_FIRST_KEY || state === S_KEY) {
					member = M_OTHER;
					if (depth === 1 || (depth === 2 && inMessage)) {
						if (hasBackslash(b, a, z)) return undefined;
						const len = z - a;
						if (depth === 1) {
							if (len === 4 && b[a] === 0x74 && b[a + 1] === 0x79 && b[a + 2] === 0x70 && b[a + 3] === 0x65) member = M_TYPE;
							else if (len === 2 && b[a] === 0x69 && b[a + 1] === 0x64) member = M_ID;
							else if (len === 8 && b[a] === 0x70 && b[a + 1] === 0x61 && b[a + 2] === 0x72 && b[a + 3] === 0x65 && b[a + 4] === 0x6e &&
								b[a + 5] === 0x74 && b[a + 6] === 0x49 && b[a + 7] === 0x64) member = M_PARENT;
							else if (len === 7 && b[a] === 0x6d && b[a + 1] === 0x65 && b[a + 2] === 0x73 && b[a + 3] === 0x73 && b[a + 4] === 0x61 &&
								b[a + 5] === 0x67 && b[a + 6] === 0x65) member = M_MESSAGE;
						} else if (len === 4 && b[a] === 0x72 && b[a + 1] === 0x6f && b[a + 2] === 0x6c && b[a + 3] === 0x65) member = M_ROLE;
					}
					state = S_COLON;
					continue;
				}
				if (member !== M_OTHER) {
					if (hasBackslash(b, a, z)) return undefined;
					if (member === M_PARENT && this.#prevA >= 0 && sameBytes(b, this.#prevA, this.#prevZ, a, z)) {
						// Most entries follow their parent: share the previous line's id string (no new string).
						parentId = this.#prevId;
					} else {
						const v = b.toString("utf8", a, z);
						if (member === M_TYPE) type = v;
						else if (member === M_ID) {
							id = v;
							idA = a;
							idZ = z;
						} else if (member === M_PARENT) parentId = v;
						else if (member === M_ROLE) role = v;
						else return undefined; // a message that is a string
					}
					member = M_OTHER;
				}
				state = S_AFTER;
				continue;
			}
			if (c === LB || c === LA) {
				if (depth === MAX_DEPTH) return undefined;
				if (member !== M_OTHER) {
					if (member !== M_MESSAGE || c !== LB) return undefined;
					inMessage = true;
					role = null;
				} else if (depth === 0 && c !== LB) return undefined;
				member = M_OTHER;
				stack[depth++] = c;
				state = c === LB ? S_FIRST_KEY : S_FIRST_VALUE;
				i++;
				continue;
			}
			// Numbers and literals.
			if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
				if (c === 0x2d) c = b[++i];
				if (c === 0x30) c = b[++i];
				else if (c >= 0x31 && c <= 0x39) while (c >= 0x30 && c <= 0x39) c = b[++i];
				else return undefined;
				if (c === 0x2e) {
					c = b[++i];
					if (!(c >= 0x30 && c <= 0x39)) return undefined;
					while (c >= 0x30 && c <= 0x39) c = b[++i];
				}
				if (c === 0x65 || c === 0x45) {
					c = b[++i];
					if (c === 0x2b || c === 0x2d) c = b[++i];
					if (!(c >= 0x30 && c <= 0x39)) return undefined;
					while (c >= 0x30 && c <= 0x39) c = b[++i];
				}
				if (i > e) return undefined;
				if (member === M_MESSAGE) role = undefined;
				else if (member !== M_OTHER) return undefined;
			} else if (c === 0x6e && b[i + 1] === 0x75 && b[i + 2] === 0x6c && b[i + 3] === 0x6c) {
				i += 4;
				if (member === M_PARENT) parentId = null;
				else if (member === M_MESSAGE) role = undefined;
				else if (member !== M_OTHER) return undefined;
			} else if ((c === 0x74 && b[i + 1] === 0x72 && b[i + 2] === 0x75 && b[i + 3] === 0x65) ||
				(c === 0x66 && b[i + 1] === 0x61 && b[i + 2] === 0x6c && b[i + 3] === 0x73 && b[i + 4] === 0x65)) {
				i += c === 0x74 ? 4 : 5;
				if (member === M_MESSAGE) role = undefined;
				else if (member !== M_OTHER) return undefined;
			} else return undefined;
			if (i > e) return undefined;
			member = M_OTHER;
			state = S_AFTER;
		}
		if (type === undefined || type === "session" || type === "label" || id === undefined || parentId === undefined) return undefined;
		this.#prevId = id;
		this.#prevA = idA;
		this.#prevZ = idZ;
		const r = this.#result;
		r.type = type;
		r.id = id;
		r.parentId = parentId;
		if (type === "message") r.kind = role === undefined ? EntryKind.otherRole : role === null ? roleKind(undefined) : cachedKind(roleKinds, role, roleKind);
		else r.kind = cachedKind(typeKinds, type, typeKind);
		return r;
	}
}
