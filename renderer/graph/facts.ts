// Card facts (getCardFacts) and usage roll-ups (getUsageRollup) in the renderer: fetched on demand for the
// kinds whose card needs more than the skeleton and the preview line (pi 1.6 system messages and context
// edits, omp records), batched per tick, cached per session until the file grows.

import { useEffect, useState } from "react";
import type { ArborClient } from "../../shared/api";
import type { CardFacts, UsageRollup } from "../../shared/card-facts";
import { EntryKind, type Skeleton } from "../../shared/skeleton";

/** Kinds whose card text comes from card facts (their preview line says little or nothing). */
export function needsCardFacts(kind: number): boolean {
	return kind >= EntryKind.system && kind !== EntryKind.usage;
}

interface FactsCache {
	facts: Map<number, CardFacts | null>;
	waiting: Set<number>;
	listeners: Set<() => void>;
	timer: ReturnType<typeof setTimeout> | null;
}

const factsBySession = new Map<string, FactsCache>();

function cacheOf(sessionId: string): FactsCache {
	let c = factsBySession.get(sessionId);
	if (!c) {
		c = { facts: new Map(), waiting: new Set(), listeners: new Set(), timer: null };
		factsBySession.set(sessionId, c);
	}
	return c;
}

function requestFacts(client: ArborClient, sessionId: string, index: number): void {
	const c = cacheOf(sessionId);
	if (c.facts.has(index) || c.waiting.has(index)) return;
	c.waiting.add(index);
	if (c.timer) return;
	c.timer = setTimeout(() => {
		c.timer = null;
		const indices = [...c.waiting];
		client.request("getCardFacts", { sessionId, indices }).then(
			(r) => {
				indices.forEach((i, k) => {
					c.waiting.delete(i);
					c.facts.set(i, r[k] ?? null);
				});
				for (const l of [...c.listeners]) l();
			},
			() => {
				for (const i of indices) {
					c.waiting.delete(i);
					c.facts.set(i, null);
				}
				for (const l of [...c.listeners]) l();
			},
		);
	}, 0);
}

/** Card facts of entry `index` (undefined while loading, null when the main process has none). */
export function useCardFacts(client: ArborClient | null, sessionId: string | null, index: number, enabled = true): CardFacts | null | undefined {
	const [, bump] = useState(0);
	const on = enabled && client !== null && sessionId !== null && index >= 0;
	useEffect(() => {
		if (!on) return;
		const c = cacheOf(sessionId!);
		const l = (): void => bump((n) => n + 1);
		c.listeners.add(l);
		requestFacts(client!, sessionId!, index);
		return () => {
			c.listeners.delete(l);
		};
	}, [on, client, sessionId, index]);
	if (!on) return undefined;
	return factsBySession.get(sessionId!)?.facts.get(index);
}

interface RollupCache {
	count: number;
	byAnchor: Map<number, UsageRollup>;
}
const rollupBySession = new Map<string, RollupCache>();
const rollupPending = new Map<string, Promise<void>>();

function fetchRollup(client: ArborClient, sessionId: string, count: number): Promise<void> {
	const key = `${sessionId}:${count}`;
	let p = rollupPending.get(key);
	if (!p) {
		p = client.request("getUsageRollup", { sessionId }).then(
			(r) => {
				rollupBySession.set(sessionId, { count, byAnchor: new Map(r.map((u) => [u.anchor, u])) });
			},
			() => undefined,
		);
		rollupPending.set(key, p);
	}
	return p;
}

/**
 * Usage lines (pi's cache warmer `usage`, omp's `model_usage`: hidden in every tree mode) folded into the
 * entry they hang under: its roll-up, or null when none hangs there. Refetched when the file grows.
 */
export function useUsageRollup(client: ArborClient | null, sessionId: string | null, sk: Skeleton | null, index: number): UsageRollup | null {
	const [, bump] = useState(0);
	const count = sk?.count ?? 0;
	// A first skeleton (shared/first-skeleton.ts): roll-up anchors are file-order indices, its are not.
	const part = sk?.first !== undefined;
	useEffect(() => {
		if (!client || !sessionId || count === 0 || part) return;
		const have = rollupBySession.get(sessionId);
		if (have && have.count === count) return;
		let live = true;
		void fetchRollup(client, sessionId, count).then(() => live && bump((n) => n + 1));
		return () => {
			live = false;
		};
	}, [client, sessionId, count, part]);
	if (!sessionId || index < 0 || part) return null;
	return rollupBySession.get(sessionId)?.byAnchor.get(index) ?? null;
}

/** Forget cached facts when a session's file is rewritten or reloaded (indices may change meaning). */
export function clearFactsCache(sessionId?: string): void {
	if (sessionId === undefined) {
		factsBySession.clear();
		rollupBySession.clear();
		rollupPending.clear();
		return;
	}
	factsBySession.delete(sessionId);
	rollupBySession.delete(sessionId);
}
