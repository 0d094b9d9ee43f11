// Per-entry skeleton facts (kind code, flag bits, tokens, cost, time) computed from a parsed entry. The fast line
// scanner (formats/pi/scan-line.ts) computes the same facts from raw bytes; both must agree (tested in skeleton.test.ts).

import { EntryFlag, EntryKind, type EntryKindCode, kindOf } from "../../shared/skeleton";
import { isRecord } from "../../shared/guards";
import { contentText } from "../../shared/content-text";

export interface EntryFacts {
	kind: EntryKindCode;
	flags: number;
	tokens: number;
	/** usage.cost.total where the entry carries one (costCarrier), else 0. */
	cost: number;
	time: number;
}

/** pi's timestamp ordering key: `new Date(ts).getTime()` (NaN when missing or unparsable). */
export function timeOf(ts: unknown): number {
	if (ts === undefined || ts === null) return Number.NaN;
	if (typeof ts === "string" || typeof ts === "number") return new Date(ts).getTime();
	return Number.NaN;
}

/** Same test as pi's tree selector: a text block (or string content) with non-whitespace text. */
export function hasTextContent(content: unknown): boolean {
	return contentText(content, "").trim().length > 0;
}

function contentFlags(content: unknown): number {
	let f = 0;
	if (!Array.isArray(content)) return f;
	for (const c of content) {
		if (!isRecord(c)) continue;
		if (c.type === "thinking") f |= EntryFlag.hasThinking;
		else if (c.type === "toolCall") f |= EntryFlag.hasToolCalls;
		else if (c.type === "image") f |= EntryFlag.hasImage;
	}
	return f;
}

export function usageTokens(usage: unknown): number {
	if (!isRecord(usage)) return 0;
	if (typeof usage.totalTokens === "number" && Number.isFinite(usage.totalTokens)) return usage.totalTokens;
	const i = typeof usage.input === "number" ? usage.input : 0;
	const o = typeof usage.output === "number" ? usage.output : 0;
	const s = i + o;
	return Number.isFinite(s) ? s : 0;
}

/** usage.cost.total when it is a finite number, else 0. */
export function usageCost(usage: unknown): number {
	if (!isRecord(usage) || !isRecord(usage.cost)) return 0;
	const t = usage.cost.total;
	return typeof t === "number" && Number.isFinite(t) ? t : 0;
}

/**
 * Where an entry of this kind keeps the cost the roll-ups count: an assistant turn in `message.usage`; pi
 * 1.x `usage` records, omp `model_usage` records (its ModelUsageEntry: the side call's `usage` with
 * `cost.total`), compaction / branch_summary summarizer calls (pi 1.x) and unknown types in a top-level
 * `usage`; every other kind has none.
 */
export function costCarrier(kind: number): "message" | "usage" | null {
	switch (kind) {
		case EntryKind.assistant:
			return "message";
		case EntryKind.compaction:
		case EntryKind.branchSummary:
		case EntryKind.usage:
		case EntryKind.modelUsage:
		case EntryKind.unknown:
			return "usage";
		default:
			return null;
	}
}

/** stopReason-driven flags shared by the parsed and the byte-scanned paths. */
export function assistantFlags(hasText: boolean, stopReason: unknown): number {
	let f = 0;
	// pi hides an assistant row unless it has text or a truthy stopReason other than stop/toolUse.
	const errorish = typeof stopReason === "string" ? stopReason !== "" && stopReason !== "stop" && stopReason !== "toolUse" : Boolean(stopReason);
	if (!hasText && !errorish) f |= EntryFlag.toolOnly;
	if (stopReason === "error") f |= EntryFlag.error;
	if (stopReason === "aborted") f |= EntryFlag.aborted;
	if (stopReason === "length") f |= EntryFlag.truncated;
	return f;
}

export function factsOf(entry: Record<string, unknown>): EntryFacts {
	const kind = kindOf(entry);
	let flags = 0;
	let tokens = 0;
	const m = isRecord(entry.message) ? entry.message : undefined;
	switch (kind) {
		case EntryKind.assistant:
			if (m) {
				flags |= contentFlags(m.content) | assistantFlags(hasTextContent(m.content), m.stopReason);
				tokens = usageTokens(m.usage);
			}
			break;
		case EntryKind.toolResult:
			if (m) {
				flags |= contentFlags(m.content) & EntryFlag.hasImage;
				if (m.isError === true) flags |= EntryFlag.error;
			}
			break;
		case EntryKind.bashExecution:
			if (m) {
				if (typeof m.exitCode === "number" && m.exitCode !== 0) flags |= EntryFlag.error;
				if (m.cancelled === true) flags |= EntryFlag.aborted;
			}
			break;
		case EntryKind.user:
		case EntryKind.system:
		case EntryKind.otherRole:
			if (m) flags |= contentFlags(m.content) & EntryFlag.hasImage;
			break;
		case EntryKind.customMessageRole:
			if (m) {
				flags |= contentFlags(m.content) & EntryFlag.hasImage;
				if (m.display === false) flags |= EntryFlag.hidden;
			}
			break;
		case EntryKind.customMessage:
			flags |= contentFlags(entry.content) & EntryFlag.hasImage;
			if (entry.display === false) flags |= EntryFlag.hidden;
			break;
		case EntryKind.compaction:
			tokens = typeof entry.tokensBefore === "number" && Number.isFinite(entry.tokensBefore) ? entry.tokensBefore : 0;
			break;
		case EntryKind.usage:
		case EntryKind.modelUsage:
			tokens = usageTokens(entry.usage);
			break;
	}
	const carrier = costCarrier(kind);
	const cost = carrier === "message" ? (m ? usageCost(m.usage) : 0) : carrier === "usage" ? usageCost(entry.usage) : 0;
	return { kind, flags, tokens, cost, time: timeOf(entry.timestamp) };
}
