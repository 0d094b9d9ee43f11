// Compare two branches: two leaves of one open session, or one leaf in each of two session files that share a
// path (forks: pi's /fork and Arbor's tries copy the original's path with the same ids). The common ancestor is the
// last id both root-to-leaf paths share (shared/compare.ts), then each side's entries and facts, the prompts
// aligned side by side, and a word-level diff of the final answers. One engine for both forms.

import { diffWords } from "diff";
import { alignTurns, type CompareResult, type CompareSide, type CompareView, finalAnswer, sharedPrefix, sideFacts, sideTurns } from "../../shared/compare";
import type { SessionEntry } from "../../shared/entries";
import type { SessionManager } from "../session";
import { ArborServiceError } from "./errors";

/** One side's root-to-leaf path in its session: ids, and its entries read on demand (only after the ancestor). */
interface SidePath {
	sm: SessionManager;
	path: Int32Array;
	ids: string[];
}

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

function side(p: SidePath, from: number, ancestorTime: number): SideData {
	const entries: SessionEntry[] = [];
	for (let k = from; k < p.path.length; k++) entries.push(entryAt(p.sm, p.path[k]));
	const f = sideFacts(entries);
	// Time from the common ancestor (where both sides started) to the side's last entry. Across files there is no
	// such start (a fork is made later, its copied labels keep their old times): the side's own first entry.
	const own = entries.find((e) => e.type !== "label") as { timestamp?: string } | undefined;
	const start = Number.isFinite(ancestorTime) ? ancestorTime : own ? new Date(own.timestamp ?? Number.NaN).getTime() : f.firstTime;
	const durationMs = entries.length > 0 && Number.isFinite(start) && Number.isFinite(f.lastTime) ? Math.max(0, f.lastTime - start) : null;
	return {
		side: {
			leafId: p.ids[p.ids.length - 1],
			entries: p.ids.slice(from),
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

/** The root-to-leaf path of `id` in a session; `where` names the session in the error ("this session", a file). */
function sidePath(sm: SessionManager, id: string, where = "this session"): SidePath {
	const i = sm.indexOf(id);
	if (i < 0) throw new ArborServiceError("not_found", `no entry "${id}" in ${where}`);
	const path = sm.pathIndices(i);
	return { sm, path, ids: Array.from(path, (k) => sm.idAt(k)) };
}

function compareData(pa: SidePath, pb: SidePath): { result: CompareResult; a: SideData; b: SideData } {
	const k = sharedPrefix(pa.ids, pb.ids);
	const ancestorTime =
		k > 0 && pa.sm === pb.sm ? new Date((entryAt(pa.sm, pa.path[k - 1]) as { timestamp?: string }).timestamp ?? Number.NaN).getTime() : Number.NaN;
	const a = side(pa, k, ancestorTime);
	const b = side(pb, k, ancestorTime);
	return { result: { commonAncestorId: k > 0 ? pa.ids[k - 1] : null, a: a.side, b: b.side }, a, b };
}

function view({ result, a, b }: { result: CompareResult; a: SideData; b: SideData }): CompareView {
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

/** `arbor compare --json`: exactly { commonAncestorId, a, b }. */
export function compareBranches(sm: SessionManager, idA: string, idB: string): CompareResult {
	return compareData(sidePath(sm, idA), sidePath(sm, idB)).result;
}

/** The app's compare view: the CLI shape plus aligned turns, final answers and their word diff. */
export function compareView(sm: SessionManager, idA: string, idB: string): CompareView {
	return view(compareData(sidePath(sm, idA), sidePath(sm, idB)));
}

/** One side of a compare across files: a session and a leaf in it (null: the session's current leaf). */
export interface FileSide {
	sm: SessionManager;
	leafId: string | null;
	/** The file, for errors. */
	file: string;
}

function fileSidePath(s: FileSide): SidePath {
	const leaf = s.leafId ?? s.sm.getLeafId();
	if (leaf === null) throw new ArborServiceError("not_found", `${s.file} has no entries to compare`, s.file);
	return sidePath(s.sm, leaf, s.file);
}

/** `arbor compare FILE_A FILE_B --json`: exactly { commonAncestorId, a, b }, one leaf in each file. */
export function compareFilesResult(a: FileSide, b: FileSide): CompareResult {
	return compareData(fileSidePath(a), fileSidePath(b)).result;
}

/** The compare view of one leaf in each of two files (the same view as within one session). */
export function compareFilesView(a: FileSide, b: FileSide): CompareView {
	return view(compareData(fileSidePath(a), fileSidePath(b)));
}
