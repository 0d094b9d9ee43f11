// Hooks over the store's card data (cards.ts) for panels: read what is cached, ask for what is missing.

import { useEffect } from "react";
import type { CardFacts, UsageRollup } from "../../shared/card-facts";
import { useApp } from "./index";

/** Card facts of entry `index` (undefined while loading, null when the main process has none). */
export function useCardFacts(sessionId: string | null, index: number, enabled = true): CardFacts | null | undefined {
	const on = enabled && sessionId !== null && index >= 0;
	const facts = useApp((s) => (on ? s.cardFacts[sessionId!]?.get(index) : undefined));
	const ensure = useApp((s) => s.ensureCardFacts);
	useEffect(() => {
		if (on) ensure(sessionId!, [index]);
	}, [on, ensure, sessionId, index]);
	return facts;
}

/** The usage roll-up folded into entry `index` of a file of `count` entries, or null (refetched as it grows). */
export function useUsageRollup(sessionId: string | null, count: number, index: number): UsageRollup | null {
	const rollup = useApp((s) => (sessionId && index >= 0 ? s.usageRollups[sessionId]?.byAnchor.get(index) : undefined));
	const ensure = useApp((s) => s.ensureUsageRollups);
	useEffect(() => {
		if (sessionId) ensure(sessionId, count);
	}, [ensure, sessionId, count]);
	return rollup ?? null;
}
