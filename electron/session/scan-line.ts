// Fast structural skim of one JSONL line, straight from the bytes: walks the JSON structure without
// building it, skipping string bodies with native searches (tool outputs, base64 images), and extracts only
// what the index needs (type, id, parentId, timestamp, role and the skeleton facts). Throws nothing: returns
// undefined when unsure (odd shapes, values of unexpected types, trailing bytes) and the caller then
// JSON.parses the line. Must agree with classify.ts factsOf (checked by skim.test.ts).
// Written as flat loops with results in fields: this runs once per line of files with 1M lines.

import { ENTRY_TYPE_KINDS, EntryFlag, EntryKind, type EntryKindCode } from "../../shared/skeleton";
import { timeOf } from "./classify";

export interface Skim {
	type: string;
	/** undefined when absent or not a string (the entry then gets a synthetic id). */
	id: string | undefined;
	/** string, null, or undefined when absent / not a string. */
	parentId: string | null | undefined;
	kind: EntryKindCode;
	flags: number;
	tokens: number;
	time: number;
	/** label entries only. */
	timestamp?: string;
	targetId?: string;
	label?: string | null;
}

const Q = 0x22; // "
const BS = 0x5c; // \
const LB = 0x7b; // {
const RB = 0x7d; // }
const LA = 0x5b; // [
const RA = 0x5d; // ]
const COMMA = 0x2c;
const COLON = 0x3a;

class Unsure extends Error {}
const UNSURE = new Unsure();

const enc = (s: string): Uint8Array => Buffer.from(s, "utf8");

// Key codes (0 = a key we do not need).
const K_TYPE = 1, K_ID = 2, K_PARENT = 3, K_TS = 4, K_MESSAGE = 5, K_CONTENT = 6, K_DISPLAY = 7, K_TOKENS_BEFORE = 8,
	K_TARGET = 9, K_LABEL = 10, K_ROLE = 11, K_STOP = 12, K_USAGE = 13, K_IS_ERROR = 14, K_EXIT = 15, K_CANCELLED = 16,
	K_TEXT = 17, K_TOTAL = 18, K_INPUT = 19, K_OUTPUT = 20;
const KEYS_BY_LEN: [Uint8Array, number][][] = [];
for (const [k, code] of [
	["type", K_TYPE], ["id", K_ID], ["parentId", K_PARENT], ["timestamp", K_TS], ["message", K_MESSAGE], ["content", K_CONTENT],
	["display", K_DISPLAY], ["tokensBefore", K_TOKENS_BEFORE], ["targetId", K_TARGET], ["label", K_LABEL], ["role", K_ROLE],
	["stopReason", K_STOP], ["usage", K_USAGE], ["isError", K_IS_ERROR], ["exitCode", K_EXIT], ["cancelled", K_CANCELLED],
	["text", K_TEXT], ["totalTokens", K_TOTAL], ["input", K_INPUT], ["output", K_OUTPUT],
] as [string, number][]) (KEYS_BY_LEN[k.length] ??= []).push([enc(k), code]);

const TYPE_NAMES: [Uint8Array, string, number][] = [
	["message", -1], ...[...ENTRY_TYPE_KINDS].map(([n, k]) => [n, k] as [string, number]), ["session", -2],
].map(([n, k]) => [enc(n as string), n as string, k as number]);
const ROLE_NAMES: [Uint8Array, number][] = [
	["user", EntryKind.user], ["assistant", EntryKind.assistant], ["toolResult", EntryKind.toolResult],
	["bashExecution", EntryKind.bashExecution], ["custom", EntryKind.customMessageRole], ["hookMessage", EntryKind.customMessageRole],
	["system", EntryKind.system],
].map(([n, k]) => [enc(n as string), k as number]);
// Block types; 0 = other.
const B_TEXT = 1, B_THINKING = 2, B_TOOLCALL = 3, B_IMAGE = 4;
const BLOCK_NAMES: [Uint8Array, number][] = [["text", B_TEXT], ["thinking", B_THINKING], ["toolCall", B_TOOLCALL], ["image", B_IMAGE]]
	.map(([n, k]) => [enc(n as string), k as number]);
// stopReason: 0 absent/empty/stop/toolUse-like neutral, else flags.
const S_NONE = 0, S_NEUTRAL = 1, S_ERROR = 2, S_ABORTED = 3, S_LENGTH = 4, S_OTHER = 5;
const STOP_NAMES: [Uint8Array, number][] = [["stop", S_NEUTRAL], ["toolUse", S_NEUTRAL], ["error", S_ERROR], ["aborted", S_ABORTED], ["length", S_LENGTH], ["", S_NONE]]
	.map(([n, k]) => [enc(n as string), k as number]);

class Skimmer {
	b: Buffer = Buffer.alloc(0);
	end = 0;

	// per-line results
	typeKind = 0;
	typeName = "";
	id: string | undefined;
	parentId: string | null | undefined;
	tsStart = -1;
	tsEnd = -1;
	tsOdd = false;
	hasMessage = false;
	roleKind: number = EntryKind.otherRole;
	stop = S_NONE;
	hasText = false;
	blockFlags = 0;
	tokens = 0;
	isError = false;
	exitCode: number | undefined;
	cancelled = false;
	msgDisplayFalse = false;
	displayFalse = false;
	tokensBefore = 0;
	targetId: string | undefined;
	label: string | null | undefined;
	labelOdd = false;
	contentFlags = 0;
	/** usage.totalTokens (or input + output) of a top-level `usage` object (usage / model_usage entries). */
	topTokens = 0;

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
		if (b[i] === 0x2d) { neg = true; i++; }
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
	nv = 0;

	/** true=1 false=0 null=2 */
	literal(p: number): number {
		const b = this.b;
		if (p + 4 > this.end) throw UNSURE;
		if (b[p] === 0x74 && b[p + 1] === 0x72 && b[p + 2] === 0x75 && b[p + 3] === 0x65) { this.lv = 1; return p + 4; }
		if (p + 5 <= this.end && b[p] === 0x66 && b[p + 1] === 0x61 && b[p + 2] === 0x6c && b[p + 3] === 0x73 && b[p + 4] === 0x65) { this.lv = 0; return p + 5; }
		if (b[p] === 0x6e && b[p + 1] === 0x75 && b[p + 2] === 0x6c && b[p + 3] === 0x6c) { this.lv = 2; return p + 4; }
		throw UNSURE;
	}
	lv = 0;

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
				if (x === Q) { i = this.skipString(i); continue; }
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
		const cands = KEYS_BY_LEN[z - a];
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
	kc = 0;

	/** After a member value: "," (returns the next key index) or "}" (returns -(index after it) - 1). */
	next(p: number, close: number): number {
		const b = this.b;
		p = this.ws(p);
		if (b[p] === COMMA) return this.ws(p + 1);
		if (b[p] === close) return -(p + 1) - 1;
		throw UNSURE;
	}

	/** Content: string (text check) or array of blocks; sets hasText / contentFlags. */
	content(p: number): number {
		const b = this.b;
		if (b[p] === Q) {
			const z = this.skipString(p);
			if (!this.hasText && this.nonBlank(p, z)) this.hasText = true;
			return z;
		}
		if (b[p] !== LA) return this.skipValue(p);
		p = this.ws(p + 1);
		if (b[p] === RA) return p + 1;
		for (;;) {
			if (b[p] === LB) p = this.block(p);
			else p = this.skipValue(p);
			p = this.ws(p);
			if (b[p] === COMMA) { p = this.ws(p + 1); continue; }
			if (b[p] === RA) return p + 1;
			throw UNSURE;
		}
	}

	block(p: number): number {
		const b = this.b;
		let btype = 0;
		let textA = -1;
		let textZ = -1;
		let textOdd = false;
		p = this.ws(p + 1);
		if (b[p] === RB) return p + 1;
		for (;;) {
			p = this.key(p);
			const kc = this.kc;
			if (kc === K_TYPE && b[p] === Q) {
				const z = this.skipString(p);
				const t = this.lookup(p + 1, z - 1, BLOCK_NAMES);
				btype = t ? t[1] : 0;
				p = z;
			} else if (kc === K_TYPE) {
				btype = 0;
				p = this.skipValue(p);
			} else if (kc === K_TEXT) {
				if (b[p] === Q) { textA = p; textZ = this.skipString(p); p = textZ; textOdd = false; }
				else { textOdd = true; p = this.skipValue(p); }
			} else p = this.skipValue(p);
			const n = this.next(p, RB);
			if (n < 0) { p = -n - 1; break; }
			p = n;
		}
		if (btype === B_TEXT) {
			if (textOdd) throw UNSURE;
			if (!this.hasText && textA >= 0 && this.nonBlank(textA, textZ)) this.hasText = true;
		} else if (btype === B_THINKING) this.contentFlags |= EntryFlag.hasThinking;
		else if (btype === B_TOOLCALL) this.contentFlags |= EntryFlag.hasToolCalls;
		else if (btype === B_IMAGE) this.contentFlags |= EntryFlag.hasImage;
		return p;
	}

	/** Whether the JSON string at quotes (p, end-1) holds a character that String.prototype.trim keeps. */
	nonBlank(p: number, end: number): boolean {
		const b = this.b;
		for (let i = p + 1; i < end - 1; i++) {
			const c = b[i];
			if (c === 0x20 || c === 0x0b) continue;
			if (c === BS) {
				const e = b[i + 1];
				if (e === 0x6e || e === 0x74 || e === 0x72 || e === 0x66) { i++; continue; }
				if (e === 0x75) {
					if (isJsSpace(parseInt(b.toString("latin1", i + 2, i + 6), 16))) { i += 5; continue; }
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

	usage(p: number): number {
		const b = this.b;
		let total = Number.NaN;
		let hasTotal = false;
		let input = 0;
		let output = 0;
		p = this.ws(p + 1);
		if (b[p] !== RB) {
			for (;;) {
				p = this.key(p);
				const kc = this.kc;
				if (kc === K_TOTAL || kc === K_INPUT || kc === K_OUTPUT) {
					if (this.isNum(b[p])) {
						p = this.number(p);
						if (kc === K_TOTAL) { total = this.nv; hasTotal = true; }
						else if (kc === K_INPUT) input = this.nv;
						else output = this.nv;
					} else throw UNSURE;
				} else p = this.skipValue(p);
				const n = this.next(p, RB);
				if (n < 0) { p = -n - 1; break; }
				p = n;
			}
		} else p++;
		const s = hasTotal && Number.isFinite(total) ? total : input + output;
		this.tokens = Number.isFinite(s) ? s : 0;
		return p;
	}

	message(p: number): number {
		const b = this.b;
		this.hasMessage = true;
		this.roleKind = EntryKind.otherRole;
		p = this.ws(p + 1);
		if (b[p] === RB) return p + 1;
		for (;;) {
			p = this.key(p);
			switch (this.kc) {
				case K_ROLE: {
					if (b[p] === Q) {
						const z = this.skipString(p);
						const r = this.lookup(p + 1, z - 1, ROLE_NAMES);
						this.roleKind = r ? r[1] : EntryKind.otherRole;
						p = z;
					} else {
						this.roleKind = EntryKind.otherRole;
						p = this.skipValue(p);
					}
					break;
				}
				case K_CONTENT:
					this.hasText = false;
					this.contentFlags = 0;
					p = this.content(p);
					break;
				case K_STOP: {
					if (b[p] === Q) {
						const z = this.skipString(p);
						const r = this.lookup(p + 1, z - 1, STOP_NAMES);
						this.stop = r ? r[1] : S_OTHER;
						p = z;
					} else if (b[p] === 0x6e) {
						p = this.literal(p);
						this.stop = S_NONE;
					} else throw UNSURE;
					break;
				}
				case K_USAGE:
					if (b[p] === LB) p = this.usage(p);
					else { this.tokens = 0; p = this.skipValue(p); }
					break;
				case K_IS_ERROR:
					if (this.isLit(b[p])) { p = this.literal(p); this.isError = this.lv === 1; }
					else { this.isError = false; p = this.skipValue(p); }
					break;
				case K_EXIT:
					if (this.isNum(b[p])) { p = this.number(p); this.exitCode = this.nv; }
					else { this.exitCode = undefined; p = this.skipValue(p); }
					break;
				case K_CANCELLED:
					if (this.isLit(b[p])) { p = this.literal(p); this.cancelled = this.lv === 1; }
					else { this.cancelled = false; p = this.skipValue(p); }
					break;
				case K_DISPLAY:
					if (this.isLit(b[p])) { p = this.literal(p); this.msgDisplayFalse = this.lv === 0; }
					else { this.msgDisplayFalse = false; p = this.skipValue(p); }
					break;
				default:
					p = this.skipValue(p);
			}
			const n = this.next(p, RB);
			if (n < 0) return -n - 1;
			p = n;
		}
	}

	timeValue(): number {
		const a = this.tsStart;
		const z = this.tsEnd;
		if (a < 0) return Number.NaN;
		const b = this.b;
		// Fast path for the exact shape pi writes (toISOString): YYYY-MM-DDTHH:MM:SS.sssZ.
		if (z - a === 24 && b[a + 4] === 0x2d && b[a + 7] === 0x2d && b[a + 10] === 0x54 && b[a + 13] === COLON && b[a + 16] === COLON && b[a + 19] === 0x2e && b[a + 23] === 0x5a) {
			const d = (i: number, n: number): number => {
				let v = 0;
				for (let k = 0; k < n; k++) {
					const c = b[a + i + k] - 0x30;
					if (c < 0 || c > 9) return -1;
					v = v * 10 + c;
				}
				return v;
			};
			const Y = d(0, 4), M = d(5, 2), D = d(8, 2), h = d(11, 2), m = d(14, 2), s = d(17, 2), ms = d(20, 3);
			if (Y >= 1000 && M >= 1 && M <= 12 && D >= 1 && D <= 31 && h >= 0 && h <= 23 && m >= 0 && m <= 59 && s >= 0 && s <= 59 && ms >= 0) {
				return Date.UTC(Y, M - 1, D, h, m, s, ms);
			}
		}
		return timeOf(this.str(a, z));
	}

	line(b: Buffer, s: number, e: number): Skim | undefined {
		this.b = b;
		this.end = e;
		this.typeKind = 0;
		this.typeName = "";
		this.id = undefined;
		this.parentId = undefined;
		this.tsStart = -1;
		this.tsEnd = -1;
		this.tsOdd = false;
		this.hasMessage = false;
		this.roleKind = EntryKind.otherRole;
		this.stop = S_NONE;
		this.hasText = false;
		this.contentFlags = 0;
		this.tokens = 0;
		this.isError = false;
		this.exitCode = undefined;
		this.cancelled = false;
		this.msgDisplayFalse = false;
		this.displayFalse = false;
		this.tokensBefore = 0;
		this.targetId = undefined;
		this.label = undefined;
		this.labelOdd = false;
		this.topTokens = 0;
		let msgFlags = 0;
		let msgHasText = false;
		let cmFlags = 0;
		let haveType = false;
		let p = this.ws(s);
		if (b[p] !== LB) throw UNSURE;
		p = this.ws(p + 1);
		if (b[p] === RB) throw UNSURE;
		for (;;) {
			p = this.key(p);
			const c = b[p];
			switch (this.kc) {
				case K_TYPE: {
					if (c !== Q) throw UNSURE;
					const z = this.skipString(p);
					const t = this.lookup(p + 1, z - 1, TYPE_NAMES);
					if (t) { this.typeKind = t[2]; this.typeName = t[1]; }
					else { this.typeKind = EntryKind.unknown; this.typeName = this.str(p + 1, z - 1); }
					haveType = true;
					p = z;
					break;
				}
				case K_ID:
					if (c === Q) { const z = this.skipString(p); this.id = this.str(p + 1, z - 1); p = z; }
					else { this.id = undefined; p = this.skipValue(p); }
					break;
				case K_PARENT:
					if (c === Q) { const z = this.skipString(p); this.parentId = this.str(p + 1, z - 1); p = z; }
					else if (c === 0x6e) { p = this.literal(p); this.parentId = this.lv === 2 ? null : undefined; }
					else { this.parentId = undefined; p = this.skipValue(p); }
					break;
				case K_TS:
					if (c === Q) { const z = this.skipString(p); this.tsStart = p + 1; this.tsEnd = z - 1; this.tsOdd = false; p = z; }
					else { this.tsOdd = true; p = this.skipValue(p); }
					break;
				case K_MESSAGE:
					if (c === LB) {
						this.hasText = false;
						this.contentFlags = 0;
						p = this.message(p);
						msgFlags = this.contentFlags;
						msgHasText = this.hasText;
					} else {
						this.hasMessage = false;
						p = this.skipValue(p);
					}
					break;
				case K_CONTENT:
					this.hasText = false;
					this.contentFlags = 0;
					p = this.content(p);
					cmFlags = this.contentFlags;
					break;
				case K_USAGE:
					// Only usage entries take their tokens from a top-level usage (compaction / branch_summary
					// usage is the summarizer's cost, not the entry's tokens); the type comes first in every writer.
					if ((this.typeKind === 0 || this.typeKind === EntryKind.usage || this.typeKind === EntryKind.modelUsage) && c === LB) {
						const saved = this.tokens;
						p = this.usage(p);
						this.topTokens = this.tokens;
						this.tokens = saved;
					} else p = this.skipValue(p);
					break;
				case K_DISPLAY:
					if (this.isLit(c)) { p = this.literal(p); this.displayFalse = this.lv === 0; }
					else { this.displayFalse = false; p = this.skipValue(p); }
					break;
				case K_TOKENS_BEFORE:
					if (this.isNum(c)) { p = this.number(p); this.tokensBefore = Number.isFinite(this.nv) ? this.nv : 0; }
					else { this.tokensBefore = 0; p = this.skipValue(p); }
					break;
				case K_TARGET:
					if (c === Q) { const z = this.skipString(p); this.targetId = this.str(p + 1, z - 1); p = z; }
					else { this.targetId = undefined; p = this.skipValue(p); }
					break;
				case K_LABEL:
					if (c === Q) { const z = this.skipString(p); this.label = this.str(p + 1, z - 1); this.labelOdd = false; p = z; }
					else if (c === 0x6e) { p = this.literal(p); this.label = null; this.labelOdd = this.lv !== 2; }
					else { this.labelOdd = true; p = this.skipValue(p); }
					break;
				default:
					p = this.skipValue(p);
			}
			const n = this.next(p, RB);
			if (n < 0) { p = -n - 1; break; }
			p = n;
		}
		// Trailing bytes mean glued records: the slow path recovers them.
		if (this.ws(p) !== e) throw UNSURE;
		if (!haveType || this.tsOdd || this.typeKind === -2) throw UNSURE;
		const isLabel = this.typeKind === EntryKind.label;
		if (isLabel && this.labelOdd) throw UNSURE;
		let kind: number;
		let flags = 0;
		let tokens = 0;
		if (this.typeKind === -1) {
			kind = this.hasMessage ? this.roleKind : EntryKind.otherRole;
			if (this.hasMessage) {
				switch (kind) {
					case EntryKind.assistant: {
						flags = msgFlags;
						const errorish = this.stop === S_ERROR || this.stop === S_ABORTED || this.stop === S_LENGTH || this.stop === S_OTHER;
						if (!msgHasText && !errorish) flags |= EntryFlag.toolOnly;
						if (this.stop === S_ERROR) flags |= EntryFlag.error;
						if (this.stop === S_ABORTED) flags |= EntryFlag.aborted;
						if (this.stop === S_LENGTH) flags |= EntryFlag.truncated;
						tokens = this.tokens;
						break;
					}
					case EntryKind.toolResult:
						flags = msgFlags & EntryFlag.hasImage;
						if (this.isError) flags |= EntryFlag.error;
						break;
					case EntryKind.bashExecution:
						if (this.exitCode !== undefined && this.exitCode !== 0) flags |= EntryFlag.error;
						if (this.cancelled) flags |= EntryFlag.aborted;
						break;
					case EntryKind.customMessageRole:
						flags = msgFlags & EntryFlag.hasImage;
						if (this.msgDisplayFalse) flags |= EntryFlag.hidden;
						break;
					default:
						flags = msgFlags & EntryFlag.hasImage;
				}
			}
		} else {
			kind = this.typeKind;
			if (kind === EntryKind.customMessage) {
				flags = cmFlags & EntryFlag.hasImage;
				if (this.displayFalse) flags |= EntryFlag.hidden;
			} else if (kind === EntryKind.compaction) tokens = this.tokensBefore;
			else if (kind === EntryKind.usage || kind === EntryKind.modelUsage) tokens = this.topTokens;
		}
		const out: Skim = {
			type: this.typeName, id: this.id, parentId: this.parentId, kind: kind as EntryKindCode, flags, tokens, time: this.timeValue(),
		};
		if (isLabel) {
			out.timestamp = this.tsStart >= 0 ? this.str(this.tsStart, this.tsEnd) : undefined;
			out.targetId = this.targetId;
			out.label = this.label;
		}
		return out;
	}
}

function isJsSpace(cp: number): boolean {
	return cp === 0x20 || (cp >= 0x09 && cp <= 0x0d) || cp === 0xa0 || cp === 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
		cp === 0x2028 || cp === 0x2029 || cp === 0x202f || cp === 0x205f || cp === 0x3000 || cp === 0xfeff;
}

const skimmer = new Skimmer();

/** Skims the line bytes [s, e); undefined when the line must be JSON.parsed instead. */
export function skimLine(buf: Buffer, s: number, e: number): Skim | undefined {
	try {
		return skimmer.line(buf, s, e);
	} catch (err) {
		if (err instanceof Unsure || err instanceof SyntaxError) return undefined;
		throw err;
	}
}
