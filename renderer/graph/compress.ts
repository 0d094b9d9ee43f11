// Folds and chain compression: turns the visible tree into the smaller graph that gets laid out.
// A linear run of single-child entries collapses into one "+N" segment node, but never over an entry
// the user needs to see or reach (see `mustStayVisible`), so compression can hide detail, not landmarks.

import { EntryFlag, EntryKind, type Skeleton } from "../../shared/skeleton";
import { hasIndex, treeBase } from "../../shared/tree-view";
import { GraphNodeKind, type GraphModel, type GraphTreeInput } from "./model";

export interface CompressOptions {
	/** Entry ids whose visible subtree is folded (pi's fold: descendants drop out, a "+N hidden" stub stays). */
	folds?: ReadonlySet<string>;
	/** Segments the user expanded, keyed by the id of the segment's first entry (stable while the chain grows). */
	expanded?: ReadonlySet<string>;
	/** Search matches (entry indices): never hidden inside a segment. */
	matches?: ReadonlySet<number> | null;
	/** Selected entry index (-1 none): never hidden inside a segment. */
	selected?: number;
	/** Shortest run worth collapsing; a "+1" segment would save nothing. */
	minRun?: number;
	/** Turn compression off (every visible entry gets its own card). */
	compress?: boolean;
	/** A live pi's in-memory leaf (entry index, -1 none): always its own card, like the leaf. */
	liveLeaf?: number;
}

/** Ids and structure of a compressed graph; see GraphModel. */
export function buildGraphModel(s: Skeleton, tree: GraphTreeInput, opts: CompressOptions = {}): GraphModel {
	const m = tree.rows.length;
	const folds = opts.folds ?? new Set<string>();
	const expanded = opts.expanded ?? new Set<string>();
	const matches = opts.matches ?? null;
	const selected = opts.selected ?? -1;
	const minRun = Math.max(2, opts.minRun ?? 2);
	const compress = opts.compress ?? true;

	const posOf = new Int32Array(s.count).fill(-1);
	const entryAt = new Int32Array(m);
	const vparent = new Int32Array(m);
	for (let i = 0; i < m; i++) {
		const e = tree.rows[i];
		entryAt[i] = e;
		if (e >= 0 && e < s.count) posOf[e] = i;
		const p = tree.visibleParent[e];
		// A parent that is not drawn before its child (bad input) makes the child a root instead of a cycle.
		const pp = p >= 0 && p < s.count ? posOf[p] : -1;
		vparent[i] = pp >= 0 && pp < i ? pp : -1;
	}

	// Folds: a fold hides every visible descendant of the folded entry; nested folds count once, at the top.
	const folded = new Uint8Array(m);
	const hiddenUnder = new Int32Array(m).fill(-1);
	const hiddenCount = new Int32Array(m);
	const liveChildren = new Int32Array(m);
	for (let i = 0; i < m; i++) {
		const p = vparent[i];
		if (p >= 0) {
			if (hiddenUnder[p] >= 0) hiddenUnder[i] = hiddenUnder[p];
			else if (folded[p]) hiddenUnder[i] = p;
		}
		if (hiddenUnder[i] >= 0) hiddenCount[hiddenUnder[i]]++;
		else {
			if (p >= 0) liveChildren[p]++;
			if (folds.size > 0 && folds.has(s.ids[entryAt[i]])) folded[i] = 1;
		}
	}
	// Folds the view already applied: the entry is visible, its descendants are gone; count them in the file.
	if (tree.folded) {
		for (let i = 0; i < m; i++) {
			if (folded[i] || hiddenUnder[i] >= 0 || !hasIndex(tree.folded, entryAt[i])) continue;
			const hidden = descendantCount(s, entryAt[i]);
			if (hidden > 0 && liveChildren[i] === 0) {
				folded[i] = 1;
				hiddenCount[i] = hidden;
			}
		}
	}
	// A fold on an entry without visible children hides nothing: no stub for it.
	for (let i = 0; i < m; i++) if (folded[i] && hiddenCount[i] === 0) folded[i] = 0;

	const labelled = new Uint8Array(s.count);
	for (const l of s.labels) if (l.target >= 0 && l.target < s.count) labelled[l.target] = 1;
	// The leaf and where pi resumes always show, on their nearest shown ancestor when the view hides them.
	const nearestShown = (e: number): number => {
		for (let guard = 0; e >= 0 && e < s.count && guard <= s.count; guard++) {
			const pos = posOf[e];
			if (pos >= 0) return hiddenUnder[pos] >= 0 ? entryAt[hiddenUnder[pos]] : e;
			e = s.parent[e];
		}
		return -1;
	};
	const leafCard = nearestShown(s.leaf);
	const resumeCard = nearestShown(s.resumeLeaf);
	const liveCard = opts.liveLeaf !== undefined && opts.liveLeaf >= 0 ? nearestShown(opts.liveLeaf) : -1;
	const keep = new Uint8Array(m);
	for (let i = 0; i < m; i++) {
		if (hiddenUnder[i] >= 0) continue;
		const e = entryAt[i];
		keep[i] =
			!compress ||
			e === leafCard ||
			e === resumeCard ||
			e === liveCard ||
			mustStayVisible(s, e, vparent[i] < 0, liveChildren[i], folded[i] === 1, labelled, matches, selected)
				? 1
				: 0;
	}

	// Emit in pre-order. A non-kept entry has exactly one live child, which pre-order puts right after it,
	// so a run is a contiguous stretch of `order`.
	// At most one node per visible entry plus one stub per fold: preallocate and trim at the end.
	const cap = m + m;
	const kind = new Uint8Array(cap);
	const entry = new Int32Array(cap);
	const count = new Int32Array(cap);
	const parent = new Int32Array(cap);
	const segStart = new Int32Array(cap);
	const ids: string[] = [];
	const segMembers = new Int32Array(m);
	let segFill = 0;
	let nodes = 0;
	const nodeOfEntry = new Int32Array(s.count).fill(-1);
	const gOf = new Int32Array(m).fill(-1);
	const push = (k: number, e: number, c: number, p: number, id: string, start: number): number => {
		kind[nodes] = k;
		entry[nodes] = e;
		count[nodes] = c;
		parent[nodes] = p;
		segStart[nodes] = start;
		ids.push(id);
		return nodes++;
	};
	const parentNode = (i: number): number => (vparent[i] >= 0 ? gOf[vparent[i]] : -1);
	const nodeId = duplicateSafeIds(s);

	let i = 0;
	while (i < m) {
		if (hiddenUnder[i] >= 0) {
			i++;
			continue;
		}
		if (!keep[i]) {
			let j = i;
			while (j + 1 < m && !keep[j + 1] && hiddenUnder[j + 1] < 0 && vparent[j + 1] === j) j++;
			const len = j - i + 1;
			const firstId = s.ids[entryAt[i]];
			if (len >= minRun && !expanded.has(firstId)) {
				const start = segFill;
				const g = push(GraphNodeKind.segment, entryAt[i], len, parentNode(i), `seg:${nodeId(entryAt[i])}:${nodeId(entryAt[j])}`, start);
				for (let k = i; k <= j; k++) {
					segMembers[segFill++] = entryAt[k];
					gOf[k] = g;
					nodeOfEntry[entryAt[k]] = g;
				}
				i = j + 1;
				continue;
			}
			for (let k = i; k <= j; k++) emitEntry(k);
			i = j + 1;
			continue;
		}
		emitEntry(i);
		i++;
	}

	function emitEntry(k: number): void {
		const e = entryAt[k];
		const g = push(GraphNodeKind.entry, e, 1, parentNode(k), nodeId(e), -1);
		gOf[k] = g;
		nodeOfEntry[e] = g;
		if (folded[k]) push(GraphNodeKind.foldStub, e, hiddenCount[k], g, `fold:${nodeId(e)}`, -1);
	}

	const n = nodes;
	const childCount = new Int32Array(n);
	for (let g = 0; g < n; g++) if (parent[g] >= 0) childCount[parent[g]]++;
	return {
		n,
		kind: kind.slice(0, n),
		entry: entry.slice(0, n),
		count: count.slice(0, n),
		parent: parent.slice(0, n),
		ids,
		segStart: segStart.slice(0, n),
		segMembers: segMembers.slice(0, segFill),
		nodeOfEntry,
		childCount,
		leafCard,
		resumeCard,
		liveCard,
	};
}

/**
 * The model `buildGraphModel` would return with `firstIds` added to `expanded`, patched from `model` in
 * one linear copy instead of re-running folds and compression over the whole visible tree: opening a
 * segment only replaces its node by its member entries, in place (pre-order keeps a run contiguous).
 * Runs do not depend on expansions, so an id that starts no segment of `model` changes nothing.
 * Returns `model` itself when nothing opens.
 */
export function expandSegments(s: Skeleton, model: GraphModel, firstIds: ReadonlySet<string>): GraphModel {
	const opened = openedSegments(s, model, firstIds);
	if (opened.length === 0) return model;
	let extra = 0;
	for (const g of opened) extra += model.count[g] - 1;
	const n = model.n + extra;
	// Old node -> new node; an opened segment maps to its last member, the parent of the segment's child.
	const moved = new Int32Array(model.n);
	for (let g = 0, k = 0, shift = 0; g < model.n; g++) {
		if (k < opened.length && opened[k] === g) {
			shift += model.count[g] - 1;
			k++;
		}
		moved[g] = g + shift;
	}
	const kind = new Uint8Array(n);
	const entry = new Int32Array(n);
	const count = new Int32Array(n);
	const parent = new Int32Array(n);
	const segStart = new Int32Array(n);
	const ids: string[] = [];
	const nodeId = duplicateSafeIds(s);
	// Copy the untouched stretches between opened segments in bulk, then write each segment's members.
	let from = 0;
	const copyUpTo = (end: number): void => {
		if (end <= from) return;
		const to = from === 0 ? 0 : moved[from - 1] + 1;
		kind.set(model.kind.subarray(from, end), to);
		entry.set(model.entry.subarray(from, end), to);
		count.set(model.count.subarray(from, end), to);
		// Segments keep pointing into the same segMembers; opened ones' slots are simply no longer read.
		segStart.set(model.segStart.subarray(from, end), to);
		for (let g = from; g < end; g++) {
			const p = model.parent[g];
			parent[to + g - from] = p >= 0 ? moved[p] : -1;
			ids.push(model.ids[g]);
		}
	};
	for (const g of opened) {
		copyUpTo(g);
		const first = moved[g] - (model.count[g] - 1);
		const p = model.parent[g];
		const start = model.segStart[g];
		for (let j = 0; j < model.count[g]; j++) {
			const e = model.segMembers[start + j];
			const k = first + j;
			kind[k] = GraphNodeKind.entry;
			entry[k] = e;
			count[k] = 1;
			parent[k] = j === 0 ? (p >= 0 ? moved[p] : -1) : k - 1;
			segStart[k] = -1;
			ids.push(nodeId(e));
		}
		from = g + 1;
	}
	copyUpTo(model.n);
	const nodeOfEntry = new Int32Array(model.nodeOfEntry.length);
	for (let e = 0; e < nodeOfEntry.length; e++) {
		const g = model.nodeOfEntry[e];
		nodeOfEntry[e] = g >= 0 ? moved[g] : -1;
	}
	for (const g of opened) {
		const first = moved[g] - (model.count[g] - 1);
		const start = model.segStart[g];
		for (let j = 0; j < model.count[g]; j++) nodeOfEntry[model.segMembers[start + j]] = first + j;
	}
	const childCount = new Int32Array(n);
	for (let g = 0; g < n; g++) if (parent[g] >= 0) childCount[parent[g]]++;
	return {
		n,
		kind,
		entry,
		count,
		parent,
		ids,
		segStart,
		segMembers: model.segMembers,
		nodeOfEntry,
		childCount,
		leafCard: model.leafCard,
		resumeCard: model.resumeCard,
		liveCard: model.liveCard,
	};
}

const idIndexes = new WeakMap<readonly string[], Map<string, number[]>>();

/** Segment nodes of `model` whose first entry's id is in `firstIds`, ascending. */
function openedSegments(s: Skeleton, model: GraphModel, firstIds: ReadonlySet<string>): number[] {
	// Every entry carrying the id (a damaged file can repeat one; `expanded` holds plain ids, so a
	// segment starting at any of them opens, exactly as in buildGraphModel).
	let byId = idIndexes.get(s.ids);
	if (!byId) {
		byId = new Map();
		for (let i = 0; i < s.count; i++) {
			const list = byId.get(s.ids[i]);
			if (list) list.push(i);
			else byId.set(s.ids[i], [i]);
		}
		idIndexes.set(s.ids, byId);
	}
	const out: number[] = [];
	for (const id of firstIds) {
		for (const e of byId.get(id) ?? []) {
			const g = e < model.nodeOfEntry.length ? model.nodeOfEntry[e] : -1;
			if (g >= 0 && model.kind[g] === GraphNodeKind.segment && model.entry[g] === e) out.push(g);
		}
	}
	return out.sort((a, b) => a - b);
}

/**
 * Entries that always get their own card: roots, branch points and branch ends, folded entries, the leaf,
 * where pi resumes, labelled entries, user messages (the turns people navigate by), compactions and
 * branch summaries (context boundaries), search matches and the selection.
 */
export function mustStayVisible(
	s: Skeleton,
	e: number,
	isRoot: boolean,
	liveChildren: number,
	isFolded: boolean,
	labelled: Uint8Array,
	matches: ReadonlySet<number> | null,
	selected: number,
): boolean {
	if (isRoot || liveChildren !== 1 || isFolded) return true;
	if (e === s.leaf || e === s.resumeLeaf || e === selected || labelled[e]) return true;
	const k = s.kind[e];
	if (k === EntryKind.user || k === EntryKind.compaction || k === EntryKind.branchSummary) return true;
	return matches !== null && matches.has(e);
}

/**
 * React Flow node id of an entry: its own id, except that a hostile or damaged file can repeat an id
 * (flag duplicateId) and React Flow needs unique ids. The last occurrence, the one pi keeps, keeps the
 * plain id; earlier ones get `dup:<index>:<id>`.
 */
export function duplicateSafeIds(s: Skeleton): (e: number) => string {
	let last: Map<string, number> | null = null;
	return (e) => {
		const id = s.ids[e];
		if (!(s.flags[e] & EntryFlag.duplicateId)) return id;
		if (!last) {
			last = new Map();
			for (let i = 0; i < s.count; i++) if (s.flags[i] & EntryFlag.duplicateId) last.set(s.ids[i], i);
		}
		return last.get(id) === e ? id : `dup:${e}:${id}`;
	};
}

/** Entries below `e` by real parent links (what a fold hides, whatever the filter). */
export function descendantCount(s: Skeleton, e: number): number {
	const base = treeBase(s);
	let count = 0;
	const stack = [e];
	// Cycle-safe: treeBase only links children to parents that are not themselves.
	for (let guard = 0; stack.length > 0 && guard <= s.count; guard++) {
		const i = stack.pop() as number;
		for (let k = base.childStart[i]; k < base.childStart[i + 1]; k++) {
			count++;
			stack.push(base.children[k]);
		}
	}
	return count;
}

/** Entry indices inside graph node g (one for entries and stubs' folded entry, the chain for segments). */
export function entriesOfNode(model: GraphModel, g: number): ArrayLike<number> {
	if (model.kind[g] !== GraphNodeKind.segment) return [model.entry[g]];
	const start = model.segStart[g];
	return model.segMembers.subarray(start, start + model.count[g]);
}
