// The index row of a record a foreign format maps onto Arbor's entry model (Claude Code, Codex): the facts come
// from the mapped entry (classify.ts factsOf, the rule pi's own records get), only the tokens are the format's
// own count. One home, so the two readers cannot drift apart in what a row holds.

import type { SessionEntry } from "../../../shared/entries";
import { type EntryFacts, factsOf } from "../classify";
import type { IndexRow } from "./format";

/** Where the row sits: its id and parent as the format read them (undefined: none), and its part of the record. */
export interface RowPlace {
	id: string | undefined;
	parentId: string | null | undefined;
	part: number;
}

export function mappedRow(entry: SessionEntry, raw: Record<string, unknown>, place: RowPlace, tokensOf: (facts: EntryFacts) => number): IndexRow {
	const f = factsOf(entry as unknown as Record<string, unknown>);
	return {
		id: place.id,
		parentId: place.parentId,
		kind: f.kind,
		flags: f.flags,
		tokens: tokensOf(f),
		cost: 0,
		time: f.time,
		timestamp: typeof raw.timestamp === "string" ? raw.timestamp : undefined,
		part: place.part,
	};
}
