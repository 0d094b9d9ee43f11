// The message-level part of the line skimmer (scan-line.ts): a `message` object (role, content blocks,
// stopReason, usage, tool-result / bash / custom fields) and a `usage` object (tokens and cost.total),
// read from the bytes with JsonBytes. The skeleton facts come out in fields; nothing is built.

import { EntryFlag, EntryKind, ROLE_KINDS } from "../../../../shared/skeleton";
import { COMMA, JsonBytes, LA, LB, Q, RA, RB, UNSURE, enc, keyTable } from "../../scan-json";

// Key codes of every key the skimmer reads, at any level (0 = a key we do not need).
export const K_TYPE = 1,
	K_ID = 2,
	K_PARENT = 3,
	K_TS = 4,
	K_MESSAGE = 5,
	K_CONTENT = 6,
	K_DISPLAY = 7,
	K_TOKENS_BEFORE = 8,
	K_TARGET = 9,
	K_LABEL = 10,
	K_ROLE = 11,
	K_STOP = 12,
	K_USAGE = 13,
	K_IS_ERROR = 14,
	K_EXIT = 15,
	K_CANCELLED = 16,
	K_TEXT = 17,
	K_TOTAL_TOKENS = 18,
	K_INPUT = 19,
	K_OUTPUT = 20,
	K_COST = 21,
	K_TOTAL = 22;
export const KEYS = keyTable([
	["type", K_TYPE],
	["id", K_ID],
	["parentId", K_PARENT],
	["timestamp", K_TS],
	["message", K_MESSAGE],
	["content", K_CONTENT],
	["display", K_DISPLAY],
	["tokensBefore", K_TOKENS_BEFORE],
	["targetId", K_TARGET],
	["label", K_LABEL],
	["role", K_ROLE],
	["stopReason", K_STOP],
	["usage", K_USAGE],
	["isError", K_IS_ERROR],
	["exitCode", K_EXIT],
	["cancelled", K_CANCELLED],
	["text", K_TEXT],
	["totalTokens", K_TOTAL_TOKENS],
	["input", K_INPUT],
	["output", K_OUTPUT],
	["cost", K_COST],
	["total", K_TOTAL],
]);

const ROLE_NAMES: [Uint8Array, number][] = [...ROLE_KINDS].map(([n, k]) => [enc(n), k]);
// Block types; 0 = other.
const B_TEXT = 1,
	B_THINKING = 2,
	B_TOOLCALL = 3,
	B_IMAGE = 4;
const BLOCK_NAMES: [Uint8Array, number][] = [
	["text", B_TEXT],
	["thinking", B_THINKING],
	["toolCall", B_TOOLCALL],
	["image", B_IMAGE],
].map(([n, k]) => [enc(n as string), k as number]);
// stopReason: 0 absent/empty/stop/toolUse-like neutral, else flags.
export const S_NONE = 0,
	S_NEUTRAL = 1,
	S_ERROR = 2,
	S_ABORTED = 3,
	S_LENGTH = 4,
	S_OTHER = 5;
const STOP_NAMES: [Uint8Array, number][] = [
	["stop", S_NEUTRAL],
	["toolUse", S_NEUTRAL],
	["error", S_ERROR],
	["aborted", S_ABORTED],
	["length", S_LENGTH],
	["", S_NONE],
].map(([n, k]) => [enc(n as string), k as number]);

export class MessageScan extends JsonBytes {
	hasMessage = false;
	roleKind: number = EntryKind.otherRole;
	stop = S_NONE;
	hasText = false;
	contentFlags = 0;
	/**
	 * The message's usage tokens / cost.total (0 without a usage object). Cost fields start as NaN (reset to
	 * 0 per line) so V8 stores them as doubles from the start: a field turning from small integer to double
	 * mid-scan changes the object's map and throws away the optimized scanner code.
	 */
	tokens = 0;
	cost = Number.NaN;
	isError = false;
	exitCode: number | undefined;
	cancelled = false;
	msgDisplayFalse = false;
	/** Results of the last usage(): totalTokens (or input + output) and cost.total (0 when absent or not a finite number). */
	uTokens = 0;
	uCost = Number.NaN;
	/** Result of costTotal(). */
	costV = Number.NaN;

	constructor() {
		super(KEYS);
	}

	/** Resets the message facts before a line. */
	resetMessage(): void {
		this.hasMessage = false;
		this.roleKind = EntryKind.otherRole;
		this.stop = S_NONE;
		this.hasText = false;
		this.contentFlags = 0;
		this.tokens = 0;
		this.cost = 0;
		this.isError = false;
		this.exitCode = undefined;
		this.cancelled = false;
		this.msgDisplayFalse = false;
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
			if (b[p] === COMMA) {
				p = this.ws(p + 1);
				continue;
			}
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
				if (b[p] === Q) {
					textA = p;
					textZ = this.skipString(p);
					p = textZ;
					textOdd = false;
				} else {
					textOdd = true;
					p = this.skipValue(p);
				}
			} else p = this.skipValue(p);
			const n = this.next(p, RB);
			if (n < 0) {
				p = -n - 1;
				break;
			}
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

	/** A usage object: sets uTokens (totalTokens, else input + output) and uCost (cost.total). */
	usage(p: number): number {
		const b = this.b;
		let total = Number.NaN;
		let hasTotal = false;
		let input = 0;
		let output = 0;
		let cost = 0;
		p = this.ws(p + 1);
		if (b[p] !== RB) {
			for (;;) {
				p = this.key(p);
				const kc = this.kc;
				if (kc === K_TOTAL_TOKENS || kc === K_INPUT || kc === K_OUTPUT) {
					if (this.isNum(b[p])) {
						p = this.number(p);
						if (kc === K_TOTAL_TOKENS) {
							total = this.nv;
							hasTotal = true;
						} else if (kc === K_INPUT) input = this.nv;
						else output = this.nv;
					} else throw UNSURE;
				} else if (kc === K_COST) {
					if (b[p] === LB) {
						p = this.costTotal(p);
						cost = this.costV;
					} else {
						cost = 0;
						p = this.skipValue(p);
					}
				} else p = this.skipValue(p);
				const n = this.next(p, RB);
				if (n < 0) {
					p = -n - 1;
					break;
				}
				p = n;
			}
		} else p++;
		const s = hasTotal && Number.isFinite(total) ? total : input + output;
		this.uTokens = Number.isFinite(s) ? s : 0;
		this.uCost = cost;
		return p;
	}

	/** A cost object: leaves its `total` in costV (0 when absent, not a number or not finite). */
	costTotal(p: number): number {
		const b = this.b;
		let total = 0;
		p = this.ws(p + 1);
		if (b[p] === RB) {
			this.costV = 0;
			return p + 1;
		}
		for (;;) {
			p = this.key(p);
			if (this.kc === K_TOTAL && this.isNum(b[p])) {
				p = this.decimal(p);
				total = Number.isFinite(this.dv) ? this.dv : 0;
			} else {
				if (this.kc === K_TOTAL) total = 0;
				p = this.skipValue(p);
			}
			const n = this.next(p, RB);
			if (n < 0) {
				p = -n - 1;
				break;
			}
			p = n;
		}
		this.costV = total;
		return p;
	}

	message(p: number): number {
		const b = this.b;
		this.hasMessage = true;
		this.roleKind = EntryKind.otherRole;
		// A repeated "message" key: JSON.parse keeps the last object whole.
		this.tokens = 0;
		this.cost = 0;
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
					if (b[p] === LB) {
						p = this.usage(p);
						this.tokens = this.uTokens;
						this.cost = this.uCost;
					} else {
						this.tokens = 0;
						this.cost = 0;
						p = this.skipValue(p);
					}
					break;
				case K_IS_ERROR:
					if (this.isLit(b[p])) {
						p = this.literal(p);
						this.isError = this.lv === 1;
					} else {
						this.isError = false;
						p = this.skipValue(p);
					}
					break;
				case K_EXIT:
					if (this.isNum(b[p])) {
						p = this.number(p);
						this.exitCode = this.nv;
					} else {
						this.exitCode = undefined;
						p = this.skipValue(p);
					}
					break;
				case K_CANCELLED:
					if (this.isLit(b[p])) {
						p = this.literal(p);
						this.cancelled = this.lv === 1;
					} else {
						this.cancelled = false;
						p = this.skipValue(p);
					}
					break;
				case K_DISPLAY:
					if (this.isLit(b[p])) {
						p = this.literal(p);
						this.msgDisplayFalse = this.lv === 0;
					} else {
						this.msgDisplayFalse = false;
						p = this.skipValue(p);
					}
					break;
				default:
					p = this.skipValue(p);
			}
			const n = this.next(p, RB);
			if (n < 0) return -n - 1;
			p = n;
		}
	}
}
