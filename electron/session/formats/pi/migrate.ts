// In-memory migrations of legacy files (SESSION-FORMAT §9). Never touches the file: a v1/v2 file is only
// rewritten by an explicit upgradeLegacy().

import { generateEntryId } from "../../ids";

type Loose = Record<string, unknown>;

/** Header version as a number: absent ⇒ 1, strings coerced as JS comparisons would ("2" ⇒ 2). */
export function headerVersion(header: Loose | undefined): number {
	const v = header?.version;
	if (v === undefined || v === null) return 1;
	const n = typeof v === "number" ? v : Number(v);
	return Number.isFinite(n) ? n : 1;
}

/**
 * Mutates `records` (index 0 = header, then the entries in file order) to v3.
 * v1→v2 chains every record after the previous one with fresh ids; a compaction's `firstKeptEntryIndex`
 * indexes this same array (header included), as pi does, and resolves only to a record already given an id.
 */
export function migrateRecords(records: Loose[], version: number): boolean {
	if (version >= 3) return false;
	const header = records[0];
	if (version < 2) {
		const ids = new Set<string>();
		let prev: string | null = null;
		header.version = 2;
		const assigned = new Set<Loose>();
		for (let i = 1; i < records.length; i++) {
			const r = records[i];
			// pi never fills its collision set, so ids are not checked against each other; we do.
			const id = generateEntryId((x) => ids.has(x));
			ids.add(id);
			r.id = id;
			r.parentId = prev;
			assigned.add(r);
			prev = id;
			if (r.type === "compaction" && typeof r.firstKeptEntryIndex === "number") {
				const target = records[r.firstKeptEntryIndex] as Loose | undefined;
				if (target && target !== header && target.type !== "session" && assigned.has(target)) {
					r.firstKeptEntryId = target.id;
				}
				delete r.firstKeptEntryIndex;
			}
		}
	}
	header.version = 3;
	for (let i = 1; i < records.length; i++) {
		const r = records[i];
		if (r.type === "message" && typeof r.message === "object" && r.message !== null) {
			const m = r.message as Loose;
			if (m.role === "hookMessage") m.role = "custom";
		}
	}
	return true;
}
