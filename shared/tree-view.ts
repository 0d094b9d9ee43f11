// Tree view: pi's tree-selector visibility pipeline over a Skeleton, computed once and shared by the CLI
// (text/JSON tree) and the renderer (graph, keyboard). Pure functions over typed arrays: no Node, no DOM.
// Rules follow ../shared/notes/PEERS.md (d). Every pass is iterative and O(n) (plus sorting siblings), because
// the renderer re-runs the pipeline on every search keystroke of a 100k-entry session.

import { EntryFlag, EntryKind, type Skeleton } from "./skeleton";

/** pi's tree-selector filter modes, in its Ctrl+O cycle order. */
export type FilterMode = "default" | "no-tools" | "user-only" | "labeled-only" | "all";
export const FILTER_MODES: readonly FilterMode[] = ["default", "no-tools", "user-only", "labeled-only", "all"];

/** A set of entry indices: a per-entry byte mask (non-zero = member) or a Set. */
export type IndexSet = Uint8Array | ReadonlySet<number>;

export interface TreeViewOptions {
	filter?: FilterMode;
	/** Search result (indices of matching entries); null/undefined = no search active. */
	matches?: IndexSet | null;
	/** Folded entries: their descendants (by real parent links) are hidden. */
	folded?: IndexSet | null;
	/**
	 * Hidden branches ("Hide branch", view state): these entries and all their descendants are left out of the
	 * view. An entry on the active path (root -> leaf) is never hidden, so the leaf always stays visible.
	 */
	hidden?: IndexSet | null;
	/** Leaf to mark and order by; defaults to skeleton.leaf. -1 = no leaf. */
	leaf?: number;
}

/** The full tree in pi's getTree order: roots in file order, children oldest first. */
export interface TreeBase {
	count: number;
	roots: Int32Array;
	/** Children of entry i are children[childStart[i] .. childStart[i + 1]). */
	childStart: Int32Array;
	children: Int32Array;
}

/** Row layout bits (pi's flatten rules). */
export const RowFlag = {
	/** Parent (visible) has >= 2 visible children: the row draws ├─ / └─. */
	connector: 1,
	/** Last among its visible siblings (└─ rather than ├─). */
	last: 2,
	/** Root under the virtual root of a multi-root tree: connector suppressed. */
	virtualRootChild: 4,
} as const;

export interface TreeView {
	skeleton: Skeleton;
	filter: FilterMode;
	leaf: number;
	/** Visible entries in display order (pre-order, active branch first). */
	rows: Int32Array;
	/** Entry index -> row, -1 when hidden. */
	rowOf: Int32Array;
	/** Entry index -> nearest visible ancestor, -1 for visible roots (meaningful for visible entries only). */
	visibleParent: Int32Array;
	/** Visible children of the entry in row r: childEntries[childStart[r] .. childStart[r + 1]), display order. */
	childStart: Int32Array;
	childEntries: Int32Array;
	/** Visible roots, display order. */
	roots: Int32Array;
	/** More than one visible root: pi hangs them under a virtual root shifted one level left. */
	multipleRoots: boolean;
	/** Per entry: 1 when on the path root -> leaf (real parent links). */
	activePath: Uint8Array;
	/** Per row: pi's indent level (before the multi-root shift; see displayIndent). */
	indent: Int32Array;
	/** Per row: RowFlag bits. */
	rowFlags: Uint8Array;
	/**
	 * Per row: head of its gutter list, as a row index g (-1 = none). Row g contributes the gutter
	 * { position: connectorPosition(g), show: !last(g) } and the list continues at gutterHead[g].
	 */
	gutterHead: Int32Array;
	/** Folded entries as given (for fold markers). */
	folded: IndexSet | null;
	/** Hidden-branch heads that took effect (given, in range, off the active path), ascending. */
	hiddenBranches: Int32Array;
}

const baseCache = new WeakMap<Skeleton, TreeBase>();

export function hasIndex(set: IndexSet | null | undefined, i: number): boolean {
	if (!set) return false;
	if (set instanceof Uint8Array) return set[i] !== 0 && set[i] !== undefined;
	return set.has(i);
}

/** Children lists sorted the way pi's getTree does; cached per skeleton object. */
export function treeBase(s: Skeleton): TreeBase {
	const cached = baseCache.get(s);
	if (cached && cached.count === s.count) return cached;
	const n = s.count;
	const parent = s.parent;
	const childStart = new Int32Array(n + 1);
	let rootCount = 0;
	for (let i = 0; i < n; i++) {
		const p = parent[i];
		if (p >= 0 && p < n && p !== i) childStart[p + 1]++;
		else rootCount++;
	}
	for (let i = 0; i < n; i++) childStart[i + 1] += childStart[i];
	const children = new Int32Array(childStart[n]);
	const fill = childStart.slice(0, n);
	const roots = new Int32Array(rootCount);
	let r = 0;
	for (let i = 0; i < n; i++) {
		const p = parent[i];
		if (p >= 0 && p < n && p !== i) children[fill[p]++] = i;
		else roots[r++] = i;
	}
	const time = s.time;
	for (let p = 0; p < n; p++) {
		const a = childStart[p];
		const b = childStart[p + 1];
		if (b - a > 1) sortSiblings(children, a, b, time);
	}
	const base = { count: n, roots, childStart, children };
	baseCache.set(s, base);
	return base;
}

// Oldest first, stable by file order. An entry without a usable time (NaN) gets the key of the sibling
// before it in file order, so it stays right after that sibling instead of landing at an engine-dependent
// place (pi's comparator returns NaN there, which makes its order depend on the sort algorithm).
function sortSiblings(children: Int32Array, a: number, b: number, time: Float64Array): void {
	let sorted = true;
	let prevKey = -Infinity;
	const keys: number[] = [];
	for (let k = a; k < b; k++) {
		const t = time[children[k]];
		const key = Number.isNaN(t) ? prevKey : t;
		if (key < prevKey) sorted = false;
		keys.push(key);
		prevKey = key;
	}
	if (sorted) return;
	const idx: number[] = [];
	for (let k = 0; k < b - a; k++) idx.push(k);
	idx.sort((x, y) => keys[x] - keys[y] || children[a + x] - children[a + y]);
	const copy = children.slice(a, b);
	for (let k = 0; k < idx.length; k++) children[a + k] = copy[idx[k]];
}

/** Per entry: 1 when on the path from a root to `leaf` (real parent links; cycle-safe). */
export function activePathMask(s: Skeleton, leaf: number): Uint8Array {
	const mask = new Uint8Array(s.count);
	let cur = leaf;
	for (let steps = 0; cur >= 0 && cur < s.count && steps <= s.count; steps++) {
		if (mask[cur]) break;
		mask[cur] = 1;
		const p = s.parent[cur];
		cur = p === cur ? -1 : p;
	}
	return mask;
}

/** Full pre-order (every reachable entry) with the branch holding the leaf first at each level (pi). */
export function fullPreorder(s: Skeleton, active: Uint8Array): Int32Array {
	const base = treeBase(s);
	const n = s.count;
	const order = new Int32Array(n);
	const stack = new Int32Array(n + 1);
	let sp = 0;
	let out = 0;
	const pushGroup = (list: Int32Array, a: number, b: number): void => {
		// Pushed in reverse so pops come in display order: non-active siblings (reversed), then the active one.
		let activeChild = -1;
		for (let k = b - 1; k >= a; k--) {
			const c = list[k];
			if (active[c] && activeChild < 0) activeChild = c;
			else stack[sp++] = c;
		}
		if (activeChild >= 0) stack[sp++] = activeChild;
	};
	pushGroup(base.roots, 0, base.roots.length);
	const seen = new Uint8Array(n);
	while (sp > 0) {
		const e = stack[--sp];
		if (seen[e]) continue;
		seen[e] = 1;
		order[out++] = e;
		const a = base.childStart[e];
		const b = base.childStart[e + 1];
		if (b > a) pushGroup(base.children, a, b);
	}
	return out === n ? order : order.slice(0, out);
}

// Settings / bookkeeping rows, hidden in "default" and "no-tools": pi 1.6's list (context_edit added in 0.87),
// then omp 18.3's (its HTML export's list: mode_change, ttsr_injection, session_init, credential_pin) and the
// two omp settings records it leaves out (service_tier_change, title_change; Arbor's choice, see
// docs/compatibility.md).
const SETTINGS_KINDS = new Uint8Array(32);
for (const k of [
	EntryKind.label,
	EntryKind.contextEdit,
	EntryKind.custom,
	EntryKind.modelChange,
	EntryKind.thinkingLevelChange,
	EntryKind.sessionInfo,
	EntryKind.modeChange,
	EntryKind.ttsrInjection,
	EntryKind.sessionInit,
	EntryKind.credentialPin,
	EntryKind.serviceTierChange,
	EntryKind.titleChange,
]) {
	SETTINGS_KINDS[k] = 1;
}

/** Kinds no filter mode shows: pi 1.6's `usage` (the cache warmer's), and omp's `model_usage` alike. */
export function isAlwaysHiddenKind(kind: number): boolean {
	return kind === EntryKind.usage || kind === EntryKind.modelUsage;
}

/** Per entry: 1 when the entry has a resolved label. */
export function labelMask(s: Skeleton): Uint8Array {
	const mask = new Uint8Array(s.count);
	for (const l of s.labels) if (l.target >= 0 && l.target < s.count && l.label) mask[l.target] = 1;
	return mask;
}

/** Steps 1-3 of pi's pipeline for one entry: tool-only hiding, filter mode, search. */
export function passesFilter(s: Skeleton, i: number, filter: FilterMode, leaf: number, labelled: Uint8Array, matches: IndexSet | null | undefined): boolean {
	const kind = s.kind[i];
	// pi 1.6 hides usage entries in every mode, before any other rule (even when it is the leaf).
	if (isAlwaysHiddenKind(kind)) return false;
	// Tool-only assistant turns are hidden in every mode; the leaf stays so the position is visible.
	if (kind === EntryKind.assistant && (s.flags[i] & EntryFlag.toolOnly) !== 0 && i !== leaf) return false;
	switch (filter) {
		case "user-only":
			if (kind !== EntryKind.user) return false;
			break;
		case "no-tools":
			if (SETTINGS_KINDS[kind] || kind === EntryKind.toolResult) return false;
			break;
		case "labeled-only":
			if (!labelled[i]) return false;
			break;
		case "all":
			break;
		default:
			if (SETTINGS_KINDS[kind]) return false;
	}
	if (matches && !hasIndex(matches, i)) return false;
	return true;
}

// The display order depends only on the skeleton and the leaf, not on filter/search/folds: keep the last one
// per skeleton so that re-running the pipeline per search keystroke skips the tree walk.
const orderCache = new WeakMap<Skeleton, { leaf: number; count: number; active: Uint8Array; order: Int32Array }>();
function orderFor(s: Skeleton, leaf: number): { active: Uint8Array; order: Int32Array } {
	const hit = orderCache.get(s);
	if (hit && hit.leaf === leaf && hit.count === s.count) return hit;
	const active = activePathMask(s, leaf);
	const entry = { leaf, count: s.count, active, order: fullPreorder(s, active) };
	orderCache.set(s, entry);
	return entry;
}

/** Run the whole pipeline: visible tree, display order, re-parenting, and pi's row layout. */
export function computeTreeView(s: Skeleton, options: TreeViewOptions = {}): TreeView {
	const n = s.count;
	const filter = options.filter ?? "default";
	const leaf = options.leaf ?? s.leaf;
	const folded = options.folded ?? null;
	const hidden = options.hidden ?? null;
	const matches = options.matches ?? null;
	const { active, order } = orderFor(s, leaf);
	const labelled = labelMask(s);
	const parent = s.parent;

	// Visibility, then folds: pre-order guarantees a parent's fold state is known before its children.
	const visible = new Uint8Array(n);
	const underFold = new Uint8Array(n);
	const underHidden = new Uint8Array(n);
	const nearest = new Int32Array(n).fill(-1);
	const hiddenHeads: number[] = [];
	for (let k = 0; k < order.length; k++) {
		const i = order[k];
		const p = parent[i];
		const hasParent = p >= 0 && p < n && p !== i;
		if (hasParent && (underFold[p] || hasIndex(folded, p))) underFold[i] = 1;
		if (hasParent && underHidden[p]) underHidden[i] = 1;
		if (hidden !== null && !active[i] && hasIndex(hidden, i)) {
			underHidden[i] = 1;
			hiddenHeads.push(i);
		}
		if (!underFold[i] && !underHidden[i] && passesFilter(s, i, filter, leaf, labelled, matches)) visible[i] = 1;
		// Re-parent: nearest visible ancestor through hidden ones.
		if (hasParent) nearest[i] = visible[p] ? p : nearest[p];
	}

	let rowCount = 0;
	for (let k = 0; k < order.length; k++) if (visible[order[k]]) rowCount++;
	const rows = new Int32Array(rowCount);
	const rowOf = new Int32Array(n).fill(-1);
	let rootCount = 0;
	const childCount = new Int32Array(rowCount + 1);
	for (let k = 0, r = 0; k < order.length; k++) {
		const i = order[k];
		if (!visible[i]) continue;
		rows[r] = i;
		rowOf[i] = r;
		r++;
		const vp = nearest[i];
		if (vp < 0) rootCount++;
		else childCount[rowOf[vp] + 1]++;
	}
	const childStart = new Int32Array(rowCount + 1);
	for (let r = 0; r < rowCount; r++) childStart[r + 1] = childStart[r] + childCount[r + 1];
	const childEntries = new Int32Array(childStart[rowCount]);
	const fill = childStart.slice(0, Math.max(rowCount, 1));
	const roots = new Int32Array(rootCount);
	for (let r = 0, ri = 0; r < rowCount; r++) {
		const i = rows[r];
		const vp = nearest[i];
		if (vp < 0) roots[ri++] = i;
		else childEntries[fill[rowOf[vp]]++] = i;
	}

	// pi's indent/connector/gutter rules, recomputed on the visible tree. Parents precede children in rows.
	const multipleRoots = rootCount > 1;
	const indent = new Int32Array(rowCount);
	const rowFlags = new Uint8Array(rowCount);
	const gutterHead = new Int32Array(rowCount).fill(-1);
	const justBranched = new Uint8Array(rowCount);
	for (let k = 0; k < rootCount; k++) {
		const r = rowOf[roots[k]];
		indent[r] = multipleRoots ? 1 : 0;
		rowFlags[r] = k === rootCount - 1 ? RowFlag.last : 0;
		if (multipleRoots) {
			justBranched[r] = 1;
			rowFlags[r] |= RowFlag.connector | RowFlag.virtualRootChild;
		}
	}
	for (let r = 0; r < rowCount; r++) {
		const a = childStart[r];
		const b = childStart[r + 1];
		if (a === b) continue;
		const multi = b - a > 1;
		const childIndent = multi || (justBranched[r] && indent[r] > 0) ? indent[r] + 1 : indent[r];
		const f = rowFlags[r];
		const connectorShown = (f & RowFlag.connector) !== 0 && (f & RowFlag.virtualRootChild) === 0;
		const childGutter = connectorShown ? r : gutterHead[r];
		for (let k = a; k < b; k++) {
			const c = rowOf[childEntries[k]];
			indent[c] = childIndent;
			justBranched[c] = multi ? 1 : 0;
			rowFlags[c] = (multi ? RowFlag.connector : 0) | (k === b - 1 ? RowFlag.last : 0);
			gutterHead[c] = childGutter;
		}
	}

	const visibleParent = nearest;
	return {
		skeleton: s,
		filter,
		leaf,
		rows,
		rowOf,
		visibleParent,
		childStart,
		childEntries,
		roots,
		multipleRoots,
		activePath: active,
		indent,
		rowFlags,
		gutterHead,
		folded,
		hiddenBranches: Int32Array.from(hiddenHeads).sort(),
	};
}

// ---------------------------------------------------------------- layout accessors

/** Indent in columns/3 as drawn: a multi-root tree is shifted one level left. */
export function displayIndent(v: TreeView, row: number): number {
	return v.multipleRoots ? Math.max(0, v.indent[row] - 1) : v.indent[row];
}

/** Column level (0-based, 3 chars each) where the row's own connector sits, -1 when it draws none. */
export function connectorLevel(v: TreeView, row: number): number {
	const f = v.rowFlags[row];
	if ((f & RowFlag.connector) === 0 || (f & RowFlag.virtualRootChild) !== 0) return -1;
	return displayIndent(v, row) - 1;
}

/** Gutter position a row contributes to its descendants (pi: max(0, displayIndent - 1)). */
export function gutterPosition(v: TreeView, row: number): number {
	return Math.max(0, displayIndent(v, row) - 1);
}

// ---------------------------------------------------------------- structure queries (entry indices)

export function isVisible(v: TreeView, i: number): boolean {
	return i >= 0 && i < v.rowOf.length && v.rowOf[i] >= 0;
}

/** Visible parent of a visible entry, -1 for a root or a hidden entry. */
export function parentOf(v: TreeView, i: number): number {
	return isVisible(v, i) ? v.visibleParent[i] : -1;
}

/** Visible children of a visible entry, in display order. */
export function childrenOf(v: TreeView, i: number): Int32Array {
	if (!isVisible(v, i)) return new Int32Array(0);
	const r = v.rowOf[i];
	return v.childEntries.subarray(v.childStart[r], v.childStart[r + 1]);
}

export function childCountOf(v: TreeView, i: number): number {
	if (!isVisible(v, i)) return 0;
	const r = v.rowOf[i];
	return v.childStart[r + 1] - v.childStart[r];
}

export function firstChildOf(v: TreeView, i: number): number {
	return childCountOf(v, i) > 0 ? v.childEntries[v.childStart[v.rowOf[i]]] : -1;
}

function siblingsOf(v: TreeView, i: number): Int32Array {
	const p = parentOf(v, i);
	return p < 0 ? v.roots : childrenOf(v, p);
}

/** Next (+1) or previous (-1) visible sibling, -1 when none (no wrap). */
export function siblingOf(v: TreeView, i: number, direction: 1 | -1): number {
	if (!isVisible(v, i)) return -1;
	const sibs = siblingsOf(v, i);
	const k = sibs.indexOf(i);
	const j = k + direction;
	return k >= 0 && j >= 0 && j < sibs.length ? sibs[j] : -1;
}

/** pi: foldable = has visible children and is a root or the start of a segment (its parent branches). */
export function isFoldable(v: TreeView, i: number): boolean {
	if (childCountOf(v, i) === 0) return false;
	const p = parentOf(v, i);
	return p < 0 || childCountOf(v, p) > 1;
}

/** Visible children of visible entry i that fold state would hide: true when i itself is folded. */
export function isFolded(v: TreeView, i: number): boolean {
	return hasIndex(v.folded, i);
}

// ---------------------------------------------------------------- selection

/** The entry itself when visible, else its nearest visible ancestor (real parent links), else -1. */
export function nearestVisible(v: TreeView, i: number): number {
	const s = v.skeleton;
	let cur = i;
	for (let steps = 0; cur >= 0 && cur < s.count && steps <= s.count; steps++) {
		if (v.rowOf[cur] >= 0) return cur;
		const p = s.parent[cur];
		cur = p === cur ? -1 : p;
	}
	return -1;
}

/**
 * pi's selection rule: keep `i` (or its nearest visible ancestor); with nothing to keep, the last row.
 * Use `initialSelection` when opening. Returns -1 only when no row is visible.
 */
export function keepSelection(v: TreeView, i: number): number {
	if (v.rows.length === 0) return -1;
	const kept = nearestVisible(v, i);
	return kept >= 0 ? kept : v.rows[v.rows.length - 1];
}

/** Opening selection: the leaf, else its nearest visible ancestor, else the last row. */
export function initialSelection(v: TreeView): number {
	return keepSelection(v, v.leaf);
}

// ---------------------------------------------------------------- pi's Ctrl/Alt+← and Ctrl/Alt+→

export type TreeKeyAction = { kind: "fold" | "unfold" | "select"; index: number };

/**
 * Ctrl/Alt+←: fold the node when foldable and not folded; otherwise jump to the nearest ancestor (not the
 * node) that starts a segment (its visible parent has >= 2 visible children), else to the root.
 */
export function foldOrUp(v: TreeView, i: number): TreeKeyAction {
	if (!isVisible(v, i)) return { kind: "select", index: i };
	if (isFoldable(v, i) && !isFolded(v, i)) return { kind: "fold", index: i };
	return { kind: "select", index: segmentStart(v, i, "up") };
}

/** Ctrl/Alt+→: unfold when folded; otherwise follow first children to a branch end or a branch's first child. */
export function unfoldOrDown(v: TreeView, i: number): TreeKeyAction {
	if (!isVisible(v, i)) return { kind: "select", index: i };
	if (isFolded(v, i)) return { kind: "unfold", index: i };
	return { kind: "select", index: segmentStart(v, i, "down") };
}

/** pi's branch-segment jump used by the two keys above. */
export function segmentStart(v: TreeView, i: number, direction: "up" | "down"): number {
	if (!isVisible(v, i)) return i;
	let cur = i;
	if (direction === "down") {
		for (;;) {
			const c = childCountOf(v, cur);
			if (c === 0) return cur;
			const first = firstChildOf(v, cur);
			if (c > 1) return first;
			cur = first;
		}
	}
	const startRow = v.rowOf[i];
	for (;;) {
		const p = parentOf(v, cur);
		if (p < 0) return cur;
		if (childCountOf(v, p) > 1 && v.rowOf[cur] < startRow) return cur;
		cur = p;
	}
}

// ---------------------------------------------------------------- jumps in display order

/** Next (+1) / previous (-1) row after i whose entry has >= 2 visible children; -1 when none (no wrap). */
export function nextBranchPoint(v: TreeView, i: number, direction: 1 | -1): number {
	return scanRows(v, i, direction, (e) => childCountOf(v, e) > 1);
}

/** Next (+1) / previous (-1) row after i whose entry carries a label; -1 when none (no wrap). */
export function nextLabelled(v: TreeView, i: number, direction: 1 | -1): number {
	// Labels are few: pick the nearest labelled row instead of scanning rows (this runs in menu predicates).
	const cur = isVisible(v, i) ? v.rowOf[i] : direction > 0 ? -1 : v.rows.length;
	let best = -1;
	for (const l of v.skeleton.labels) {
		if (!l.label || !isVisible(v, l.target)) continue;
		const r = v.rowOf[l.target];
		if (direction > 0 ? r > cur && (best < 0 || r < best) : r < cur && (best < 0 || r > best)) best = r;
	}
	return best < 0 ? -1 : v.rows[best];
}

function scanRows(v: TreeView, i: number, direction: 1 | -1, test: (entry: number) => boolean): number {
	const n = v.rows.length;
	let r = isVisible(v, i) ? v.rowOf[i] + direction : direction > 0 ? 0 : n - 1;
	for (; r >= 0 && r < n; r += direction) if (test(v.rows[r])) return v.rows[r];
	return -1;
}

// ---------------------------------------------------------------- small helpers for callers

/** Per-entry mask from a list of indices (e.g. SessionManager.search results). */
export function indexMask(count: number, indices: Iterable<number>): Uint8Array {
	const mask = new Uint8Array(count);
	for (const i of indices) if (i >= 0 && i < count) mask[i] = 1;
	return mask;
}

/** Label per entry index (resolved labels only). */
export function labelsByIndex(s: Skeleton): Map<number, string> {
	const m = new Map<number, string>();
	for (const l of s.labels) if (l.target >= 0 && l.target < s.count && l.label) m.set(l.target, l.label);
	return m;
}

/** Entries with >= 2 children in the full tree (ignoring filters). */
export function countBranchPoints(s: Skeleton): number {
	const base = treeBase(s);
	let c = 0;
	for (let i = 0; i < s.count; i++) if (base.childStart[i + 1] - base.childStart[i] > 1) c++;
	return c;
}

/** Depth (entries on the longest root-to-node path) and number of leaves of the full tree. */
export function treeShape(s: Skeleton): { maxDepth: number; leaves: number; roots: number } {
	const base = treeBase(s);
	const order = fullPreorder(s, new Uint8Array(s.count));
	const depth = new Int32Array(s.count);
	let maxDepth = 0;
	let leaves = 0;
	for (let k = 0; k < order.length; k++) {
		const i = order[k];
		const p = s.parent[i];
		depth[i] = p >= 0 && p < s.count && p !== i ? depth[p] + 1 : 1;
		if (depth[i] > maxDepth) maxDepth = depth[i];
		if (base.childStart[i + 1] === base.childStart[i]) leaves++;
	}
	return { maxDepth, leaves, roots: base.roots.length };
}
