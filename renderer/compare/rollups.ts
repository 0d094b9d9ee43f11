// Subtree roll-ups in the renderer: computed once per skeleton (shared/rollup.ts, O(n)) from the skeleton
// alone: its cost column comes with it (and with every live delta), so no request is made.

import type { ArborClient } from "../../shared/api";
import { computeRollups, formatRollup, rollupAt, type Rollups, type SubtreeRollup } from "../../shared/rollup";
import type { Skeleton } from "../../shared/skeleton";

const cache = new WeakMap<Skeleton, Rollups>();

export function rollupsOf(sk: Skeleton): Rollups {
	let rollups = cache.get(sk);
	if (!rollups) {
		rollups = computeRollups(sk);
		cache.set(sk, rollups);
	}
	return rollups;
}

/**
 * The roll-up of the subtree under entry `index` (null without a skeleton). The client and session id are
 * not needed any more (the cost column is in the skeleton); kept so callers stay as they are.
 */
export function useSubtreeRollup(_client: ArborClient, _sessionId: string | null, sk: Skeleton | null, index: number): SubtreeRollup | null {
	if (!sk || index < 0 || index >= sk.count) return null;
	return rollupAt(rollupsOf(sk), index);
}

/** For graph cards: the roll-up text of the subtree under `index` ("42 entries · 1.2k tok · $0.84 · 3m"). */
export function useRollupText(services: { client: ArborClient; sessionId: string | null } | null, sk: Skeleton | null, index: number): string | null {
	const r = useSubtreeRollup(services?.client ?? NO_CLIENT, services?.sessionId ?? null, services ? sk : null, index);
	return r ? formatRollup(r) : null;
}

const NO_CLIENT = { request: () => Promise.reject(new Error("no client")) } as unknown as ArborClient;
