// Inputs of the subtree roll-ups (shared/rollup.ts) as the API sends them (getRollupCosts): the skeleton's
// cost column (filled by the scan: assistant usage.cost.total, pi 1.x `usage` records, omp `model_usage`,
// compaction / branch_summary summarizer calls, unknown types' top-level usage; electron/session/classify.ts
// costCarrier) and which records bill the entry they hang under. No entry is read: the renderer has the
// same column in its skeleton and computes roll-ups without this request.
// Files touched are computed per subtree on demand.

import { sideFacts, type SideFiles } from "../../shared/compare";
import type { SessionEntry } from "../../shared/entries";
import { billsParent, computeRollups, rollupAt, type SubtreeRollup } from "../../shared/rollup";
import { EntryKind } from "../../shared/skeleton";
import type { SessionManager } from "../session";
import { ArborServiceError } from "./errors";

export interface RollupCosts {
	/** Cost per entry index (0 for entries without one). */
	costs: number[];
	/** Indices of pi 1.x `usage` / omp `model_usage` records (their cost belongs to their parent entry). */
	usage: number[];
}

export function rollupCosts(sm: SessionManager): RollupCosts {
	const sk = sm.getSkeleton();
	const usage: number[] = [];
	for (let i = 0; i < sk.count; i++) if (billsParent(sk.kind[i])) usage.push(i);
	return { costs: Array.from(sk.cost), usage };
}

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
	const r = computeRollups(sk);
	return { ...rollupAt(r, root), files: sideFacts(entries).files };
}
