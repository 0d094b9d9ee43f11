// The Branches panel's filter: which branches hold the typed words in a user prompt (or a label) anywhere
// on their path from the first entry to their leaf. The words are matched by the session's own search in
// the main process (pi's query rules, its search index), because the renderer holds only the previews it
// has asked for, and asking for every prompt of a 100k-entry session would load thousands of them; the
// matches are then carried down the tree in one pass (shared/branches.ts).

import { useEffect, useMemo, useState } from "react";
import { nearestMarkedOnPath, promptOrLabelMatches } from "../../shared/branches";
import { partIndices } from "../../shared/first-skeleton";
import type { ArborClient } from "../../shared/api";
import type { Skeleton } from "../../shared/skeleton";
import { SEARCH_DEBOUNCE_MS } from "../store/view";
import { errorText } from "../../shared/guards";

export interface BranchFilter {
	/** Per entry, the nearest match on its path (-1: none); null while there is no filter or no answer yet. */
	match: Int32Array | null;
	/** A search for the current text is running. */
	pending: boolean;
	error: string | null;
}

export function useBranchFilter(
	client: ArborClient,
	sessionId: string | null,
	sk: Skeleton | null,
	labels: ReadonlyMap<number, string>,
	query: string,
): BranchFilter {
	const text = query.trim();
	const [answer, setAnswer] = useState<{ key: string; hits: number[] } | { key: string; error: string } | null>(null);
	const key = `${sessionId ?? ""}\u0000${sk?.count ?? 0}\u0000${text}`;
	useEffect(() => {
		if (!sessionId || text === "") return;
		let live = true;
		// Asked as the panel's own: the toolbar's search runs beside it, and only a newer filter text stops it
		// (then this effect is gone and its answer unwanted).
		const ask = async (): Promise<void> => {
			try {
				const hits = await client.request("search", { sessionId, query: text, scope: "pi", by: "branches" });
				if (live) setAnswer({ key, hits });
			} catch (err) {
				if (live) setAnswer({ key, error: errorText(err) });
			}
		};
		const timer = setTimeout(() => void ask(), SEARCH_DEBOUNCE_MS);
		return () => {
			live = false;
			clearTimeout(timer);
		};
	}, [client, sessionId, text, key]);
	const current = answer?.key === key ? answer : null;
	const match = useMemo(() => {
		if (!sk || !current || !("hits" in current)) return null;
		// Hits are file-order indices; a first skeleton (a big file still opening) holds some of them.
		return nearestMarkedOnPath(sk, promptOrLabelMatches(sk, partIndices(sk, current.hits), labels, text));
	}, [sk, current, labels, text]);
	if (text === "") return { match: null, pending: false, error: null };
	return { match, pending: current === null, error: current && "error" in current ? current.error : null };
}
