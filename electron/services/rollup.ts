// Inputs of the subtree roll-ups (shared/rollup.ts) that the skeleton does not carry yet: the cost of each
// entry (assistant usage.cost.total; pi 1.x `usage` records and compaction usage too) and which records
// are `usage` entries (their cost counts into the entry they hang under). Only entries that can carry a
// cost are read (assistant messages, compactions, branch summaries, usage and unknown-type records),
// picked by the skeleton's kinds.
// Files touched are computed per subtree on demand.

import { sideFacts, type SideFiles } from "../../shared/compare";
import type { SessionEntry } from "../../shared/entries";
import { computeRollups, rollupAt, type SubtreeRollup } from "../../shared/rollup";
import { EntryKind } from "../../shared/skeleton";
import type { SessionManager } from "../session";
import { ArborServiceError } from "./errors";

export interface RollupCosts {
	/** Cost per entry index (0 for entries without one). */
	costs: number[];
	/** Indices of pi 1.x `usage` records (their cost belongs to their parent entry). */
	usage: number[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

function costOf(usage: unknown): number {
	if (!isRecord(usage) || !isRecord(usage.cost)) return 0;
	const t = usage.cost.total;
	return typeof t === "number" && Number.isFinite(t) ? t : 0;
}

export function rollupCosts(sm: SessionManager): RollupCosts {
	const sk = sm.getSkeleton();
	const costs: number[] = new Array(sk.count).fill(0);
	const usage: number[] = [];
	for (let i = 0; i < sk.count; i++) {
		const k = sk.kind[i];
		// pi 1.6's `usage` records have a kind of their own since the pi 1.6 entry types (unknown before),
		// and its branch summaries carry the summarizer's usage.
		if (k !== EntryKind.assistant && k !== EntryKind.compaction && k !== EntryKind.branchSummary && k !== EntryKind.usage && k !== EntryKind.unknown) continue;
		const e = sm.getEntryAt(i) as Record<string, unknown> | undefined;
		if (!e) continue;
		if (k === EntryKind.assistant) costs[i] = isRecord(e.message) ? costOf(e.message.usage) : 0;
		else costs[i] = costOf(e.usage);
		if (e.type === "usage") usage.push(i);
	}
	return { costs, usage };
}

/** The inspector's figures for the subtree under `id`: the roll-up plus the files its tool calls touched. */
export function subtreeStats(sm: SessionManager, id: string): SubtreeRollup & { files: SideFiles } {
	const root = sm.indexOf(id);
	if (root < 0) throw new ArborServiceError("not_found", `no entry "${id}" in this session`);
	const sk = sm.getSkeleton();
	const children: number[][] = Array.from({ length: sk.count }, () => []);
	for (let i = 0; i < sk.count; i++) if (sk.parent[i] >= 0) children[sk.parent[i]].push(i);
	const members: number[] = [];
	const stack = [root];
	const seen = new Uint8Array(sk.count);
	while (stack.length > 0) {
		const j = stack.pop() as number;
		if (seen[j]) continue;
		seen[j] = 1;
		members.push(j);
		for (const c of children[j]) stack.push(c);
	}
	members.sort((x, y) => x - y);
	const entries: SessionEntry[] = [];
	for (const j of members) {
		const k = sk.kind[j];
		if (k !== EntryKind.assistant && k !== EntryKind.toolResult) continue;
		const e = sm.getEntryAt(j);
		if (e) entries.push(e);
	}
	const { costs, usage } = rollupCosts(sm);
	const usageSet = new Set(usage);
	const r = computeRollups(sk, { costs, attachToParent: (i) => usageSet.has(i) });
	return { ...rollupAt(r, root), files: sideFacts(entries).files };
}
