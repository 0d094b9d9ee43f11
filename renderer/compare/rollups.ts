// Subtree roll-ups in the renderer: computed once per skeleton (shared/rollup.ts, O(n)) with the cost
// column the main process sends once per session (getRollupCosts; refreshed when entries are appended).

import { useEffect, useState } from "react";
import type { ArborClient } from "../../shared/api";
import { computeRollups, formatRollup, rollupAt, type Rollups, type SubtreeRollup } from "../../shared/rollup";
import type { Skeleton } from "../../shared/skeleton";

interface Costs { count: number; costs: number[]; usage: Set<number> }

const costsBySession = new Map<string, Costs>();
const pending = new Map<string, Promise<void>>();
const cache = new WeakMap<Skeleton, { costs: Costs | undefined; rollups: Rollups }>();

function fetchCosts(client: ArborClient, sessionId: string, count: number): Promise<void> {
	const key = `${sessionId}:${count}`;
	let p = pending.get(key);
	if (!p) {
		p = client.request("getRollupCosts", { sessionId }).then(
			(r) => {
				costsBySession.set(sessionId, { count: r.costs.length, costs: r.costs, usage: new Set(r.usage) });
			},
			() => undefined,
		);
		pending.set(key, p);
	}
	return p;
}

export function rollupsOf(sk: Skeleton, sessionId: string | null): Rollups {
	const costs = sessionId ? costsBySession.get(sessionId) : undefined;
	const hit = cache.get(sk);
	if (hit && hit.costs === costs) return hit.rollups;
	const rollups = computeRollups(sk, costs ? { costs: costs.costs, attachToParent: (i) => costs.usage.has(i) } : {});
	cache.set(sk, { costs, rollups });
	return rollups;
}

/** The roll-up of the subtree under entry `index` (null without a skeleton); re-renders once costs arrive. */
export function useSubtreeRollup(client: ArborClient, sessionId: string | null, sk: Skeleton | null, index: number): SubtreeRollup | null {
	const [, bump] = useState(0);
	useEffect(() => {
		if (!sessionId || !sk) return;
		const have = costsBySession.get(sessionId);
		if (have && have.count === sk.count) return;
		let live = true;
		void fetchCosts(client, sessionId, sk.count).then(() => live && bump((n) => n + 1));
		return () => {
			live = false;
		};
	}, [client, sessionId, sk]);
	if (!sk || index < 0 || index >= sk.count) return null;
	return rollupAt(rollupsOf(sk, sessionId), index);
}

/** For graph cards: the roll-up text of the subtree under `index` ("42 entries · 1.2k tok · $0.84 · 3m"). */
export function useRollupText(services: { client: ArborClient; sessionId: string | null } | null, sk: Skeleton | null, index: number): string | null {
	const r = useSubtreeRollup(services?.client ?? NO_CLIENT, services?.sessionId ?? null, services ? sk : null, index);
	return r ? formatRollup(r) : null;
}

const NO_CLIENT = { request: () => Promise.reject(new Error("no client")) } as unknown as ArborClient;
