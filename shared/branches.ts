// The Branches panel's table: every leaf of the tree (an entry with no children) as one row with the
// figures of its path from the root — entries, assistant usage tokens, cost, errors, the last user prompt
// and the last activity. One pass over the skeleton's columns, O(n): each entry's path figures are its
// parent's plus its own, in a BFS order where a parent always comes first (no per-leaf walk up the tree).
//
// The numbers follow shared/rollup.ts: tokens are assistant usage tokens (a compaction's tokensBefore is a
// context size), and the cost of lines no tree shows (pi 1.x `usage`, omp `model_usage`) bills the entry
// they hang under; those lines are never leaves of their own.

import { queryTokens } from "./preview";
import { billsParent, parentFirstOrder } from "./rollup";
import { EntryFlag, EntryKind, type Skeleton } from "./skeleton";

export interface BranchRow {
	/** Index of the leaf entry (the branch's tip). */
	leaf: number;
	/** Index of the last user message on the path root → leaf, -1 when there is none. */
	prompt: number;
	/** Entries on the path, the root and the leaf included. */
	entries: number;
	tokens: number;
	cost: number;
	errors: number;
	/** Latest finite timestamp on the path (ms), NaN when none. */
	last: number;
	/** The skeleton's in-app leaf is this branch's tip. */
	active: boolean;
}

export type BranchSort = "cost" | "newest" | "entries" | "errors";

export function computeBranches(sk: Skeleton): BranchRow[] {
	const n = sk.count;
	const { parent, kind, flags, time } = sk;
	const costs = sk.cost;
	const { order, count: tail } = parentFirstOrder(parent, n);
	// Own figures; a billing record's cost moves to its parent, and it does not make its parent a branch point.
	const own = new Float64Array(n);
	const realKids = new Int32Array(n);
	for (let i = 0; i < n; i++) {
		const p = parent[i];
		const c = costs ? costs[i] : 0;
		if (billsParent(kind[i]) && p >= 0) {
			if (c > 0 || c < 0) own[p] += c;
		} else {
			if (c > 0 || c < 0) own[i] += c;
			if (p >= 0) realKids[p]++;
		}
	}
	const entries = new Int32Array(n);
	const tokens = new Float64Array(n);
	const cost = new Float64Array(n);
	const errors = new Int32Array(n);
	const prompt = new Int32Array(n);
	const last = new Float64Array(n);
	const rows: BranchRow[] = [];
	for (let h = 0; h < tail; h++) {
		const v = order[h];
		const p = parent[v];
		const hasP = p >= 0 && p < n;
		const t = time[v];
		entries[v] = (hasP ? entries[p] : 0) + 1;
		tokens[v] = (hasP ? tokens[p] : 0) + (kind[v] === EntryKind.compaction ? 0 : sk.tokens[v]);
		cost[v] = (hasP ? cost[p] : 0) + own[v];
		errors[v] = (hasP ? errors[p] : 0) + (flags[v] & EntryFlag.error ? 1 : 0);
		prompt[v] = kind[v] === EntryKind.user ? v : hasP ? prompt[p] : -1;
		const lp = hasP ? last[p] : NaN;
		last[v] = t === t && !(t < lp) ? t : lp;
		if (realKids[v] === 0 && !billsParent(kind[v])) {
			rows.push({ leaf: v, prompt: prompt[v], entries: entries[v], tokens: tokens[v], cost: cost[v], errors: errors[v], last: last[v], active: v === sk.leaf });
		}
	}
	return rows;
}

/** Rows sorted for the panel (a copy): most expensive, newest, longest or most errors first; ties newest first. */
export function sortBranches(rows: readonly BranchRow[], by: BranchSort): BranchRow[] {
	const newest = (a: BranchRow, b: BranchRow): number => (b.last === b.last ? b.last : -Infinity) - (a.last === a.last ? a.last : -Infinity) || b.leaf - a.leaf;
	const key: Record<BranchSort, (r: BranchRow) => number> = {
		cost: (r) => r.cost,
		newest: () => 0,
		entries: (r) => r.entries,
		errors: (r) => r.errors,
	};
	const k = key[by];
	return [...rows].sort((a, b) => k(b) - k(a) || newest(a, b));
}

/**
 * The entries the Branches panel's filter finds: user messages among `hits` (the session search's matches
 * for the query, pi's rules: every word or quoted phrase in the message's text or its label) and entries
 * whose label holds every word. Other kinds of hits (an assistant answer, a tool result) do not name a
 * branch the way the user's own prompts do.
 */
export function promptOrLabelMatches(sk: Skeleton, hits: readonly number[], labels: ReadonlyMap<number, string>, query: string): Uint8Array {
	const marked = new Uint8Array(sk.count);
	for (const i of hits) if (i >= 0 && i < sk.count && sk.kind[i] === EntryKind.user) marked[i] = 1;
	const tokens = queryTokens(query);
	if (tokens.length === 0) return marked;
	for (const [i, label] of labels) {
		const l = label.toLowerCase();
		if (i < sk.count && tokens.every((t) => l.includes(t))) marked[i] = 1;
	}
	return marked;
}

/**
 * For every entry, the nearest marked entry on its path from the root (itself included), -1 when none:
 * a branch's row is found by a match anywhere on the path to its leaf, and shows the match nearest the
 * leaf. One pass in parent-first order, O(n).
 */
export function nearestMarkedOnPath(sk: Skeleton, marked: Uint8Array): Int32Array {
	const n = sk.count;
	const out = new Int32Array(n).fill(-1);
	const { order, count } = parentFirstOrder(sk.parent, n);
	for (let h = 0; h < count; h++) {
		const v = order[h];
		const p = sk.parent[v];
		out[v] = marked[v] ? v : p >= 0 && p < n ? out[p] : -1;
	}
	return out;
}
