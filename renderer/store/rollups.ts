// Subtree roll-ups in the renderer: computed once per file content (shared/rollup.ts, O(n)) from the skeleton
// alone: its cost column comes with it (and with every live delta), so no request is made. Keyed by the ids
// array, which a leaf move keeps (only new entries make a new one), so a move does not recompute 100k rows.

import { computeRollups, formatRollup, rollupAt, type Rollups, type SubtreeRollup } from "../../shared/rollup";
import type { Skeleton } from "../../shared/skeleton";

const cache = new WeakMap<readonly string[], Rollups>();

export function rollupsOf(sk: Skeleton): Rollups {
	let rollups = cache.get(sk.ids);
	if (!rollups) {
		rollups = computeRollups(sk);
		cache.set(sk.ids, rollups);
	}
	return rollups;
}

/** The roll-up of the subtree under entry `index` (null without a skeleton). */
export function subtreeRollup(sk: Skeleton | null, index: number): SubtreeRollup | null {
	if (!sk || index < 0 || index >= sk.count) return null;
	return rollupAt(rollupsOf(sk), index);
}

/** The roll-up text of the subtree under `index` ("42 entries · 1.2k tok · $0.84 · 3m"), for cards. */
export function subtreeRollupText(sk: Skeleton | null, index: number): string | null {
	const r = subtreeRollup(sk, index);
	return r ? formatRollup(r) : null;
}
