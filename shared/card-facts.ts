// What a graph card, the inspector and the context panel need to know about one entry beyond the skeleton:
// pi 1.6's system messages (section / tool changes), context edits (the target and the new text), usage lines
// (tokens, cost, folded into the entry they hang under), omp 18.3 records. Pure (no Node, no DOM); entries are
// untrusted, so every field is read defensively.

import type { SessionEntry, ToolCallBlock } from "./entries";
import { asRecord, safeString } from "./guards";
import { previewText, type PreviewOptions } from "./preview";
import { EntryKind, type EntryKindCode, kindOf } from "./skeleton";
import { systemChangeCounts, systemContentText, type SystemChangeCounts } from "./system-message";
import { isAlwaysHiddenKind } from "./tree-view";
import { contentText } from "./content-text";

type Loose = Record<string, unknown>;

function num(v: unknown): number {
	return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

export interface UsageFacts {
	/** usage.totalTokens, else input + output. */
	tokens: number;
	input: number;
	output: number;
	cacheRead: number;
	cacheWrite: number;
	/** usage.cost.total (dollars), 0 when absent. */
	cost: number;
}

export interface CardFacts {
	kind: EntryKindCode;
	/** `type` field (entries) and `role` (messages). */
	type: string;
	role?: string;
	/** pi's /tree row text (empty for rows pi never shows, such as usage). */
	text: string;
	/** context_edit: which entry it changes and how. */
	contextEdit?: { targetId: string; mode: "omit" | "replace"; replacementText: string };
	/** Usage carried by the entry: an assistant turn, a usage / model_usage line, a summary's summarizer call. */
	usage?: UsageFacts;
	/** usage / model_usage lines: what they were for. */
	usageLine?: { kind: string; provider: string; model: string; note?: string };
	/** role "system": what it changes (the first on a path is the full prompt). */
	system?: SystemChangeCounts & { sectionNames: string[]; toolsAddedNames: string[]; toolsRemovedNames: string[]; contentPreview: string };
	/** compaction: keeps nothing (firstKeptEntryId names itself), carries pi 1.6's systemMessage checkpoint. */
	compaction?: { keepsNothing: boolean; hasSystemCheckpoint: boolean; tokensBefore: number };
	/** branch_summary: the leaf it was written from (pi >= 0.84.3; the destination in older files). */
	branchSummaryFrom?: string | null;
	/** assistant: pi 1.x fields. */
	assistant?: { stopReason?: string; responseModel?: string; model?: string };
	/** omp 18.3 records: a one-line description for the card. */
	omp?: { type: string; summary: string };
}

/** pi-ai's Usage as numbers (absent fields 0). */
export function usageFacts(usage: unknown): UsageFacts | undefined {
	const u = asRecord(usage);
	if (!u) return undefined;
	const input = num(u.input);
	const output = num(u.output);
	const total = typeof u.totalTokens === "number" && Number.isFinite(u.totalTokens) ? u.totalTokens : input + output;
	return { tokens: total, input, output, cacheRead: num(u.cacheRead), cacheWrite: num(u.cacheWrite), cost: num(asRecord(u.cost)?.total) };
}

function names(list: unknown): string[] {
	return Array.isArray(list) ? list.map((t) => safeString(asRecord(t)?.name ?? "")).filter((n) => n !== "") : [];
}

function ompSummary(e: Loose): string {
	switch (e.type) {
		case "model_usage":
			return `${safeString(e.purpose ?? "")} · ${safeString(e.provider ?? "")}/${safeString(e.model ?? "")}`;
		case "service_tier_change":
			return `service tier: ${e.serviceTier === null ? "default" : (JSON.stringify(e.serviceTier) ?? "")}`;
		case "reset_boundary":
			return "context cleared (/clear)";
		case "title_change":
			return `title: ${safeString(e.title ?? "")}${e.previousTitle ? ` (was ${safeString(e.previousTitle)})` : ""}`;
		case "ttsr_injection":
			return `rules: ${Array.isArray(e.injectedRules) ? e.injectedRules.map((r) => safeString(r)).join(", ") : ""}`;
		case "session_init":
			return `subagent ${safeString(e.agent ?? "")}: ${safeString(e.task ?? "").slice(0, 120)}`;
		case "mode_change":
			return `mode: ${safeString(e.mode ?? "")}`;
		case "credential_pin":
			return `account pinned for ${safeString(e.provider ?? "")}`;
		default:
			return "";
	}
}

export function cardFacts(
	entry: SessionEntry,
	findToolCall: (toolCallId: string) => ToolCallBlock | undefined = () => undefined,
	opts: PreviewOptions = {},
): CardFacts {
	const e = entry as Loose;
	const kind = kindOf(e);
	const m = asRecord(e.message);
	const out: CardFacts = { kind, type: safeString(e.type ?? ""), text: previewText(entry, findToolCall, opts) };
	if (m && typeof m.role === "string") out.role = m.role;
	switch (kind) {
		case EntryKind.assistant:
			out.usage = usageFacts(m?.usage);
			out.assistant = {
				stopReason: typeof m?.stopReason === "string" ? m.stopReason : undefined,
				responseModel: typeof m?.responseModel === "string" ? m.responseModel : undefined,
				model: typeof m?.model === "string" ? m.model : undefined,
			};
			break;
		case EntryKind.system: {
			const sections = asRecord(m?.sections) ?? {};
			out.system = {
				...systemChangeCounts(m),
				sectionNames: Object.keys(sections),
				toolsAddedNames: names(m?.toolsAdded),
				toolsRemovedNames: names(m?.toolsRemoved),
				contentPreview: systemContentText(m?.content).slice(0, 200),
			};
			break;
		}
		case EntryKind.contextEdit: {
			const r = e.replacement;
			out.contextEdit = {
				targetId: safeString(e.targetId ?? ""),
				mode: r === null ? "omit" : "replace",
				replacementText: r === null ? "" : contentText(asRecord(r)?.content, "", { nonString: "coerce" }),
			};
			break;
		}
		case EntryKind.usage:
		case EntryKind.modelUsage:
			out.usage = usageFacts(e.usage);
			out.usageLine = {
				kind: safeString(kind === EntryKind.usage ? (e.kind ?? "") : (e.purpose ?? "")),
				provider: safeString(e.provider ?? ""),
				model: safeString(e.model ?? ""),
				...(typeof e.note === "string" ? { note: e.note } : {}),
			};
			if (kind === EntryKind.modelUsage) out.omp = { type: out.type, summary: ompSummary(e) };
			break;
		case EntryKind.compaction:
			out.usage = usageFacts(e.usage);
			out.compaction = {
				keepsNothing: e.firstKeptEntryId === e.id,
				hasSystemCheckpoint: asRecord(e.systemMessage) !== undefined,
				tokensBefore: num(e.tokensBefore),
			};
			break;
		case EntryKind.branchSummary:
			out.usage = usageFacts(e.usage);
			out.branchSummaryFrom = typeof e.fromId === "string" || e.fromId === null ? (e.fromId as string | null) : undefined;
			break;
		default:
			if (kind >= EntryKind.serviceTierChange && kind <= EntryKind.credentialPin) out.omp = { type: out.type, summary: ompSummary(e) };
	}
	if (out.usage === undefined) delete out.usage;
	return out;
}

/** Usage folded into the entry a card shows: per visible anchor, the usage lines hanging below it. */
export interface UsageRollup {
	/** Anchor entry index (the nearest ancestor that is not a usage line). */
	anchor: number;
	lines: number;
	tokens: number;
	cost: number;
}

/**
 * Sums usage / model_usage lines into their nearest non-usage ancestor, so a card can show "cache warm ×3,
 * $0.002" instead of a row per line. `usageAt(i)` gives the facts of usage line i (read from the entry).
 */
export function usageRollup(s: { count: number; parent: Int32Array; kind: Uint8Array }, usageAt: (index: number) => UsageFacts | undefined): UsageRollup[] {
	const byAnchor = new Map<number, UsageRollup>();
	for (let i = 0; i < s.count; i++) {
		if (!isAlwaysHiddenKind(s.kind[i])) continue;
		let a = s.parent[i];
		for (let steps = 0; a >= 0 && steps <= s.count && isAlwaysHiddenKind(s.kind[a]); steps++) a = s.parent[a] === a ? -1 : s.parent[a];
		const u = usageAt(i);
		const r = byAnchor.get(a) ?? { anchor: a, lines: 0, tokens: 0, cost: 0 };
		r.lines++;
		r.tokens += u?.tokens ?? 0;
		r.cost += u?.cost ?? 0;
		byAnchor.set(a, r);
	}
	return [...byAnchor.values()].sort((x, y) => x.anchor - y.anchor);
}
