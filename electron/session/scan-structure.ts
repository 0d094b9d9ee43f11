// Structure-only skim of JSONL lines, for opens that only build model contexts (`arbor context`): checks a
// line's JSON grammar and reads its top-level "type", "id", "parentId" and its message's "role", nothing
// else. It answers only for lines of the plain shape pi writes; for anything else it answers undefined and
// the caller reads the line the ordinary way (skimLine, then JSON.parse), so those lines end up exactly as
// a full open reads them. The entry kind comes from
// classify.ts (kindOf / roleKind, the rules skimLine must agree with); the other skeleton facts (flags,
// time, tokens) are not read.
//
// One flat loop over the line's grammar (objects, arrays, members, numbers, literals checked as JSON
// defines them), skipping string bodies with a native search for the closing quote. String bodies are
// checked as loosely as skimLine checks them (raw control bytes in a string's first 16 bytes; escapes are not
// decoded), so a line answered here is one skimLine would answer or JSON.parse would read, except a line
// that is invalid JSON only inside a string (a raw control byte further in, a bad escape) and has a shape
// skimLine refuses (e.g. a timestamp that is not a string): open() reports that one as malformed, this
// index keeps it. Checking every string byte costs about a fifth of the open (measured; docs/bench.md).

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
/** Deeper values are left to the ordinary reader. */
const MAX_DEPTH = 256;

export interface StructureSkim {
	type: string;
	id: string;
	parentId: string | null;
	kind: EntryKindCode;
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
	/** chunk()'s range of #buf: lines outside it are not vouched for. */
	#to = -1;
	/** The id of the last line skimmed in this chunk, and where its bytes are: a parentId equal to it reuses it. */
	#prevId = "";
	#prevA = -1;
	#prevZ = -1;
	readonly #stack = new Uint8Array(MAX_DEPTH);
	readonly #result: StructureSkim = { type: "", id: "", parentId: null, kind: EntryKind.unknown };

	/** Registers the complete lines [0, to) of a freshly read chunk (before any of its lines is skimmed). */
	chunk(buf: Buffer, to: number): void {
		this.#buf = buf;
		this.#to = to;
		this.#prevA = -1;
		this.#prevZ = -1;
	}

	/**
	 * The line [s, e) of the chunk last registered: its type, id, parentId and kind (a shared object: copy the
	 * fields before the next call) when it is valid JSON, an object whose type is a string other than
	 * "session" and "label", whose id is a string, whose parentId is a string or null and whose message (when
	 * an object) has a string role or none, with no escapes in those keys and values; else undefined.
	 */
	line(buf: Buffer, s: number, e: number): StructureSkim | undefined {
		if (buf !== this.#buf || e > this.#to) return undefined;
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
