// The first skeleton of a big session (docs/session-core.md "Progressive open"): the part of the file the
// app draws first, sent before the whole skeleton so the first entries are on screen at once. Building the
// view, the layout and the minimap of 100k entries takes the renderer a second or more; a part under the
// layout worker's threshold is drawn in one frame. The part is the leaf's path back from the leaf and the
// newest entries of the file (where a session opens: its recent past), in file order.

import type { Skeleton } from "./skeleton";

/** Sessions with fewer entries open in one piece: their whole skeleton is drawn about as fast. */
export const FIRST_SKELETON_MIN_ENTRIES = 20_000;
/** Entries in a first skeleton: under the layout worker's threshold (renderer/graph/layoutRunner.ts). */
export const FIRST_SKELETON_SIZE = 2_000;

/**
 * The first part of `sk`: up to `size` entries — the leaf's path (at most half of them, from the leaf up),
 * the resume point's, then the newest entries in file order. Parents outside the part become roots (-1);
 * labels, leaf and resume point are carried over. Null when the session is smaller than `minEntries`.
 */
export function firstSkeletonOf(sk: Skeleton, size = FIRST_SKELETON_SIZE, minEntries = FIRST_SKELETON_MIN_ENTRIES): Skeleton | null {
	const n = sk.count;
	if (n < minEntries || n <= size) return null;
	const inPart = new Uint8Array(n);
	let taken = 0;
	const take = (i: number): boolean => {
		if (i < 0 || i >= n || inPart[i]) return false;
		inPart[i] = 1;
		taken++;
		return true;
	};
	const pathUp = (from: number, budget: number): void => {
		// A cut cycle leaves parent -1, so this walk ends; `budget` bounds a path deeper than the part.
		for (let i = from, k = 0; i >= 0 && k < budget && taken < size; i = sk.parent[i], k++) take(i);
	};
	pathUp(sk.leaf, size >> 1);
	pathUp(sk.resumeLeaf, size >> 2);
	for (let i = n - 1; i >= 0 && taken < size; i--) take(i);

	const fileIndex = new Int32Array(taken);
	const at = new Int32Array(n).fill(-1);
	for (let i = 0, k = 0; i < n; i++) {
		if (!inPart[i]) continue;
		fileIndex[k] = i;
		at[i] = k++;
	}
	const pick = <T extends Int32Array | Uint8Array | Uint16Array | Float64Array>(col: T, out: T): T => {
		for (let k = 0; k < taken; k++) out[k] = col[fileIndex[k]];
		return out;
	};
	const parent = new Int32Array(taken);
	for (let k = 0; k < taken; k++) {
		const p = sk.parent[fileIndex[k]];
		parent[k] = p >= 0 ? at[p] : -1;
	}
	const ids = new Array<string>(taken);
	for (let k = 0; k < taken; k++) ids[k] = sk.ids[fileIndex[k]];
	return {
		count: taken,
		ids,
		parent,
		kind: pick(sk.kind, new Uint8Array(taken)),
		flags: pick(sk.flags, new Uint16Array(taken)),
		time: pick(sk.time, new Float64Array(taken)),
		tokens: pick(sk.tokens, new Float64Array(taken)),
		cost: pick(sk.cost, new Float64Array(taken)),
		labels: sk.labels.filter((l) => at[l.target] >= 0).map((l) => ({ ...l, target: at[l.target] })),
		leaf: sk.leaf >= 0 ? at[sk.leaf] : -1,
		resumeLeaf: sk.resumeLeaf >= 0 ? at[sk.resumeLeaf] : -1,
		first: { fileIndex, total: n },
	};
}

/** File-order indices of a skeleton's indices (the same ones for a whole skeleton). */
export function fileIndices(sk: Skeleton | null | undefined, indices: readonly number[]): number[] {
	const f = sk?.first;
	return f ? indices.map((i) => f.fileIndex[i]) : [...indices];
}

/** A skeleton's indices of file-order indices; those outside a first skeleton are left out. */
export function partIndices(sk: Skeleton | null | undefined, fileOrder: readonly number[]): number[] {
	const f = sk?.first;
	if (!f) return [...fileOrder];
	const out: number[] = [];
	for (const i of fileOrder) {
		// fileIndex is ascending: binary search.
		let lo = 0;
		let hi = f.fileIndex.length - 1;
		while (lo <= hi) {
			const mid = (lo + hi) >> 1;
			const v = f.fileIndex[mid];
			if (v === i) {
				out.push(mid);
				break;
			}
			if (v < i) lo = mid + 1;
			else hi = mid - 1;
		}
	}
	return out;
}
