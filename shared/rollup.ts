// Subtree roll-ups for the whole tree from the skeleton: per entry, the number of entries, tokens, cost,
// errors (and aborts) and the time span of the subtree it roots. One pass, O(n), no entry parsed: what
// every fold pill, branch point and the inspector show. Files touched are per subtree on demand (the
// services read the subtree's tool calls), not in this table.
//
// Cost comes from the skeleton's cost column (`sk.cost`: assistant usage.cost.total, pi 1.x `usage`
// records, omp `model_usage` records, summarizer calls), filled by the main process's scan. Lines no tree
// shows (pi 1.x `usage`: cache warming, side calls; omp `model_usage`) are records of their own; their cost
// counts into the entry they hang under (`attachToParent`), so a pill on that entry shows it even though the
// record is hidden. Both can be overridden (`RollupInput`).

import { EntryFlag, EntryKind, type Skeleton } from "./skeleton";

export interface Rollups {
	count: number;
	/** Entries in the subtree, the root included. */
	entries: Int32Array;
	/** Assistant usage tokens (compactions' tokensBefore is a context size and does not count). */
	tokens: Float64Array;
	cost: Float64Array;
	/** Entries flagged error (assistant stopReason error, failed tool result, bash exit != 0). */
	errors: Int32Array;
	aborts: Int32Array;
	/** Earliest / latest finite timestamp in the subtree (NaN when none). */
	first: Float64Array;
	last: Float64Array;
}

export interface RollupInput {
	/** Cost per entry index (length >= skeleton.count); default: the skeleton's cost column (absent = 0 everywhere). */
	costs?: ArrayLike<number>;
	/** Entry indices whose own cost belongs to their parent entry; default: pi 1.x `usage` and omp `model_usage` records. */
	attachToParent?: (i: number) => boolean;
}

/** Records whose cost bills the entry they hang under: lines no tree shows (pi 1.x `usage`, omp `model_usage`). */
export function billsParent(kind: number): boolean {
	return kind === EntryKind.usage || kind === EntryKind.modelUsage;
}

/**
 * Entries in a parent-first order (BFS from the roots over children in CSR form, a counting sort by parent):
 * every entry comes after its parent. `count` is how many entries the order holds (all of a forest).
 */
export function parentFirstOrder(parent: ArrayLike<number>, n: number): { order: Int32Array; count: number } {
	const start = new Int32Array(n + 1);
	for (let i = 0; i < n; i++) {
		const p = parent[i];
		if (p >= 0 && p < n) start[p + 1]++;
	}
	for (let i = 0; i < n; i++) start[i + 1] += start[i];
	const fill = start.slice(0, n);
	const kids = new Int32Array(n);
	const order = new Int32Array(n);
	let tail = 0;
	for (let i = 0; i < n; i++) {
		const p = parent[i];
		if (p >= 0 && p < n) kids[fill[p]++] = i;
		else order[tail++] = i;
	}
	for (let h = 0; h < tail; h++) {
		const v = order[h];
		for (let k = start[v]; k < start[v + 1]; k++) order[tail++] = kids[k];
	}
	return { order, count: tail };
}

/** Roll-ups of every subtree of the skeleton. Cycle-safe: the skeleton's parents are already a forest. */
export function computeRollups(sk: Skeleton, input: RollupInput = {}): Rollups {
	const n = sk.count;
	const parent = sk.parent;
	// Reversed, the parent-first order puts every child before its parent: one backward sweep adds each
	// subtree into its parent.
	const { order, count: tail } = parentFirstOrder(parent, n);

	const entries = new Int32Array(n);
	const tokens = new Float64Array(n);
	const cost = new Float64Array(n);
	const errors = new Int32Array(n);
	const aborts = new Int32Array(n);
	const first = new Float64Array(n);
	const last = new Float64Array(n);
	const flags = sk.flags;
	const costs: ArrayLike<number> | undefined = input.costs ?? sk.cost;
	const kinds = sk.kind;
	const attach = input.attachToParent ?? ((i: number) => billsParent(kinds[i]));
	for (let i = 0; i < n; i++) {
		entries[i] = 1;
		// A compaction's skeleton tokens are the context size before it (tokensBefore), not tokens spent.
		tokens[i] = sk.kind[i] === EntryKind.compaction ? 0 : sk.tokens[i];
		const f = flags[i];
		errors[i] = f & EntryFlag.error ? 1 : 0;
		aborts[i] = f & EntryFlag.aborted ? 1 : 0;
		const t = sk.time[i];
		first[i] = t;
		last[i] = t;
	}
	if (costs) {
		for (let i = 0; i < n; i++) {
			const c = costs[i];
			if (!(c > 0) && !(c < 0)) continue;
			const p = parent[i];
			if (attach && p >= 0 && attach(i)) cost[p] += c;
			else cost[i] += c;
		}
	}
	// Entries never reached from a root (impossible for a forest; kept safe) are left as their own values.
	for (let h = tail - 1; h >= 0; h--) {
		const v = order[h];
		const p = parent[v];
		if (p < 0 || p >= n) continue;
		entries[p] += entries[v];
		tokens[p] += tokens[v];
		cost[p] += cost[v];
		errors[p] += errors[v];
		aborts[p] += aborts[v];
		const fv = first[v],
			lv = last[v];
		if (fv < first[p] || first[p] !== first[p]) first[p] = fv;
		if (lv > last[p] || last[p] !== last[p]) last[p] = lv;
	}
	return { count: n, entries, tokens, cost, errors, aborts, first, last };
}

/** One subtree's roll-up as a plain object (the inspector, a pill's tooltip). */
export interface SubtreeRollup {
	entries: number;
	tokens: number;
	cost: number;
	errors: number;
	aborts: number;
	/** ms since epoch, null when no entry of the subtree has a timestamp. */
	first: number | null;
	last: number | null;
	spanMs: number | null;
}

export function rollupAt(r: Rollups, i: number): SubtreeRollup {
	const first = Number.isFinite(r.first[i]) ? r.first[i] : null;
	const last = Number.isFinite(r.last[i]) ? r.last[i] : null;
	return {
		entries: r.entries[i],
		tokens: r.tokens[i],
		cost: r.cost[i],
		errors: r.errors[i],
		aborts: r.aborts[i],
		first,
		last,
		spanMs: first !== null && last !== null ? last - first : null,
	};
}

/** Compact figures for a pill: "42 entries · 1.2M tok · $0.84 · 2 err · 3h 5m". */
export function formatRollup(r: SubtreeRollup): string {
	const parts = [`${r.entries} ${r.entries === 1 ? "entry" : "entries"}`];
	if (r.tokens > 0) parts.push(`${formatTokens(r.tokens)} tok`);
	if (r.cost > 0) parts.push(`$${r.cost < 0.01 ? r.cost.toFixed(4) : r.cost.toFixed(2)}`);
	if (r.errors > 0) parts.push(`${r.errors} err`);
	if (r.spanMs !== null && r.spanMs > 0) parts.push(formatSpan(r.spanMs));
	return parts.join(" · ");
}

export function formatTokens(t: number): string {
	if (t >= 1e6) return `${(t / 1e6).toFixed(1)}M`;
	if (t >= 1e3) return `${(t / 1e3).toFixed(1)}k`;
	return String(Math.round(t));
}

export function formatSpan(ms: number): string {
	const s = Math.round(ms / 1000);
	if (s < 60) return `${s}s`;
	const m = Math.floor(s / 60);
	if (m < 60) return `${m}m`;
	const h = Math.floor(m / 60);
	if (h < 48) return `${h}h ${m % 60}m`;
	return `${Math.floor(h / 24)}d ${h % 24}h`;
}
