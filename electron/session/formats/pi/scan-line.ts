// Fast structural skim of one JSONL line, straight from the bytes: walks the JSON structure without
// building it, skipping string bodies with native searches (tool outputs, base64 images), and extracts only
// what the index needs (type, id, parentId, timestamp, role and the skeleton facts, cost included). Throws
// nothing: returns undefined when unsure (odd shapes, values of unexpected types, trailing bytes) and the
// caller then JSON.parses the line. Must agree with classify.ts factsOf (checked by skim.test.ts).
// Written as flat loops with results in fields: this runs once per line of files with 1M lines.
// Parts: scan-json.ts (JSON bytes), scan-message.ts (message and usage objects), this file (the entry line).

import { ENTRY_TYPE_KINDS, EntryFlag, EntryKind, type EntryKindCode } from "../../../../shared/skeleton";
import { costCarrier, timeOf } from "../../classify";
import type { IndexRow } from "../format";
import { COLON, LB, Q, RB, Unsure, UNSURE, enc } from "../../scan-json";
import {
	K_CONTENT,
	K_DISPLAY,
	K_ID,
	K_LABEL,
	K_MESSAGE,
	K_PARENT,
	K_TARGET,
	K_TOKENS_BEFORE,
	K_TS,
	K_TYPE,
	K_USAGE,
	MessageScan,
	S_ABORTED,
	S_ERROR,
	S_LENGTH,
	S_OTHER,
} from "./scan-message";

/** A skimmed entry line: the index row (format.ts) plus the record's `type` (the caller tells a header by it). */
export interface Skim extends IndexRow {
	type: string;
}

const TYPE_NAMES: [Uint8Array, string, number][] = [["message", -1], ...[...ENTRY_TYPE_KINDS].map(([n, k]) => [n, k] as [string, number]), ["session", -2]].map(
	([n, k]) => [enc(n as string), n as string, k as number],
);

class Skimmer extends MessageScan {
	// per-line results (the message's are in MessageScan)
	typeKind = 0;
	typeName = "";
	id: string | undefined;
	parentId: string | null | undefined;
	tsStart = -1;
	tsEnd = -1;
	tsOdd = false;
	displayFalse = false;
	tokensBefore = 0;
	targetId: string | undefined;
	label: string | null | undefined;
	labelOdd = false;
	/** usage.totalTokens (or input + output) and cost.total of a top-level `usage` object. */
	topTokens = 0;
	topCost = Number.NaN;

	timeValue(): number {
		const a = this.tsStart;
		const z = this.tsEnd;
		if (a < 0) return Number.NaN;
		const b = this.b;
		// Fast path for the exact shape pi writes (toISOString): YYYY-MM-DDTHH:MM:SS.sssZ.
		if (
			z - a === 24 &&
			b[a + 4] === 0x2d &&
			b[a + 7] === 0x2d &&
			b[a + 10] === 0x54 &&
			b[a + 13] === COLON &&
			b[a + 16] === COLON &&
			b[a + 19] === 0x2e &&
			b[a + 23] === 0x5a
		) {
			const d = (i: number, n: number): number => {
				let v = 0;
				for (let k = 0; k < n; k++) {
					const c = b[a + i + k] - 0x30;
					if (c < 0 || c > 9) return -1;
					v = v * 10 + c;
				}
				return v;
			};
			const Y = d(0, 4),
				M = d(5, 2),
				D = d(8, 2),
				h = d(11, 2),
				m = d(14, 2),
				s = d(17, 2),
				ms = d(20, 3);
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
		this.resetMessage();
		this.displayFalse = false;
		this.tokensBefore = 0;
		this.targetId = undefined;
		this.label = undefined;
		this.labelOdd = false;
		this.topTokens = 0;
		this.topCost = 0;
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
					if (t) {
						this.typeKind = t[2];
						this.typeName = t[1];
					} else {
						this.typeKind = EntryKind.unknown;
						this.typeName = this.str(p + 1, z - 1);
					}
					haveType = true;
					p = z;
					break;
				}
				case K_ID:
					if (c === Q) {
						const z = this.skipString(p);
						this.id = this.str(p + 1, z - 1);
						p = z;
					} else {
						this.id = undefined;
						p = this.skipValue(p);
					}
					break;
				case K_PARENT:
					if (c === Q) {
						const z = this.skipString(p);
						this.parentId = this.str(p + 1, z - 1);
						p = z;
					} else if (c === 0x6e) {
						p = this.literal(p);
						this.parentId = this.lv === 2 ? null : undefined;
					} else {
						this.parentId = undefined;
						p = this.skipValue(p);
					}
					break;
				case K_TS:
					if (c === Q) {
						const z = this.skipString(p);
						this.tsStart = p + 1;
						this.tsEnd = z - 1;
						this.tsOdd = false;
						p = z;
					} else {
						this.tsOdd = true;
						p = this.skipValue(p);
					}
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
					// A top-level usage: the tokens of usage / model_usage entries, and the cost of the entries that
					// carry one there (costCarrier); the kind is known only at the end of the line.
					if (c === LB) {
						p = this.usage(p);
						this.topTokens = this.uTokens;
						this.topCost = this.uCost;
					} else {
						this.topTokens = 0;
						this.topCost = 0;
						p = this.skipValue(p);
					}
					break;
				case K_DISPLAY:
					if (this.isLit(c)) {
						p = this.literal(p);
						this.displayFalse = this.lv === 0;
					} else {
						this.displayFalse = false;
						p = this.skipValue(p);
					}
					break;
				case K_TOKENS_BEFORE:
					if (this.isNum(c)) {
						p = this.number(p);
						this.tokensBefore = Number.isFinite(this.nv) ? this.nv : 0;
					} else {
						this.tokensBefore = 0;
						p = this.skipValue(p);
					}
					break;
				case K_TARGET:
					if (c === Q) {
						const z = this.skipString(p);
						this.targetId = this.str(p + 1, z - 1);
						p = z;
					} else {
						this.targetId = undefined;
						p = this.skipValue(p);
					}
					break;
				case K_LABEL:
					if (c === Q) {
						const z = this.skipString(p);
						this.label = this.str(p + 1, z - 1);
						this.labelOdd = false;
						p = z;
					} else if (c === 0x6e) {
						p = this.literal(p);
						this.label = null;
						this.labelOdd = this.lv !== 2;
					} else {
						this.labelOdd = true;
						p = this.skipValue(p);
					}
					break;
				default:
					p = this.skipValue(p);
			}
			const n = this.next(p, RB);
			if (n < 0) {
				p = -n - 1;
				break;
			}
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
		let cost = 0;
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
						cost = this.cost;
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
			if (costCarrier(kind) === "usage") cost = this.topCost;
		}
		const out: Skim = {
			type: this.typeName,
			id: this.id,
			parentId: this.parentId,
			kind: kind as EntryKindCode,
			flags,
			tokens,
			cost: Number.NaN,
			time: this.timeValue(),
		};
		out.cost = cost; // created as a double (NaN) so the record's map never changes when costs arrive
		if (isLabel) {
			out.timestamp = this.tsStart >= 0 ? this.str(this.tsStart, this.tsEnd) : undefined;
			out.targetId = this.targetId;
			out.label = this.label;
		}
		return out;
	}
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
