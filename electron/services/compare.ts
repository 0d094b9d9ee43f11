// Compare two branches of one open session: the common ancestor, then each side's entries and facts
// (shared/compare.ts), the prompts aligned side by side, and a word-level diff of the final answers.

import { diffWords } from "diff";
import { alignTurns, type CompareResult, type CompareSide, type CompareView, finalAnswer, sideFacts, sideTurns } from "../../shared/compare";
import type { SessionEntry } from "../../shared/entries";
import type { SessionManager } from "../session";
import { ArborServiceError } from "./errors";

interface SideData {
	side: CompareSide;
	entries: SessionEntry[];
	aborts: number;
}

function entryAt(sm: SessionManager, i: number): SessionEntry {
	const e = sm.getEntryAt(i);
	if (!e) throw new ArborServiceError("internal", `entry ${sm.idAt(i)} could not be read`);
	return e;
}

function side(sm: SessionManager, path: Int32Array, from: number, ancestorIndex: number): SideData {
	const entries: SessionEntry[] = [];
	const ids: string[] = [];
	for (let k = from; k < path.length; k++) {
		entries.push(entryAt(sm, path[k]));
		ids.push(sm.idAt(path[k]));
	}
	const f = sideFacts(entries);
	// Time from the common ancestor (where both sides started) to the side's last entry.
	let start = f.firstTime;
	if (ancestorIndex >= 0) {
		const t = new Date((entryAt(sm, ancestorIndex) as { timestamp?: string }).timestamp ?? Number.NaN).getTime();
		if (Number.isFinite(t)) start = t;
	}
	const durationMs = entries.length > 0 && Number.isFinite(start) && Number.isFinite(f.lastTime) ? Math.max(0, f.lastTime - start) : null;
	return {
		side: {
			leafId: sm.idAt(path[path.length - 1]),
			entries: ids,
			tokens: f.tokens,
			cost: f.cost,
			files: f.files,
			errors: f.errors,
			durationMs,
		},
		entries,
		aborts: f.aborts,
	};
}

function resolve(sm: SessionManager, id: string): number {
	const i = sm.indexOf(id);
	if (i < 0) throw new ArborServiceError("not_found", `no entry "${id}" in this session`);
	return i;
}

function compareData(sm: SessionManager, idA: string, idB: string): { result: CompareResult; a: SideData; b: SideData } {
	const pa = sm.pathIndices(resolve(sm, idA));
	const pb = sm.pathIndices(resolve(sm, idB));
	let k = 0;
	while (k < pa.length && k < pb.length && pa[k] === pb[k]) k++;
	const ancestor = k > 0 ? pa[k - 1] : -1;
	const a = side(sm, pa, k, ancestor);
	const b = side(sm, pb, k, ancestor);
	return { result: { commonAncestorId: ancestor >= 0 ? sm.idAt(ancestor) : null, a: a.side, b: b.side }, a, b };
}

/** `arbor compare --json`: exactly { commonAncestorId, a, b }. */
export function compareBranches(sm: SessionManager, idA: string, idB: string): CompareResult {
	return compareData(sm, idA, idB).result;
}

/** The app's compare view: the CLI shape plus aligned turns, final answers and their word diff. */
export function compareView(sm: SessionManager, idA: string, idB: string): CompareView {
	const { result, a, b } = compareData(sm, idA, idB);
	const fa = finalAnswer(a.entries);
	const fb = finalAnswer(b.entries);
	const answerDiff = diffWords(fa.text, fb.text).map((p) => {
		const part: { value: string; added?: boolean; removed?: boolean } = { value: p.value };
		if (p.added) part.added = true;
		if (p.removed) part.removed = true;
		return part;
	});
	return {
		...result,
		aborts: { a: a.aborts, b: b.aborts },
		rows: alignTurns(sideTurns(a.entries), sideTurns(b.entries)),
		finalAnswer: { a: fa, b: fb },
		answerDiff,
	};
}
