// Hand-built skeletons for the tree-view tests: a compact description -> the typed arrays of shared/skeleton.ts.
import { EntryFlag, EntryKind, type EntryKindCode, type Skeleton } from "../skeleton";

export interface NodeSpec {
	id: string;
	/** Parent id; null = root; an unknown id = orphan (root). */
	parent: string | null;
	kind?: EntryKindCode;
	/** Minutes after a fixed epoch; NaN allowed. Defaults to the file position. */
	t?: number;
	toolOnly?: boolean;
	label?: string;
}

const T0 = Date.UTC(2026, 0, 1);

export function skeleton(nodes: NodeSpec[], leafId?: string | null): Skeleton {
	const n = nodes.length;
	const ids = nodes.map((x) => x.id);
	const index = new Map(ids.map((id, i) => [id, i]));
	const parent = new Int32Array(n);
	const kind = new Uint8Array(n);
	const flags = new Uint16Array(n);
	const time = new Float64Array(n);
	nodes.forEach((x, i) => {
		parent[i] = x.parent === null ? -1 : (index.get(x.parent) ?? -1);
		kind[i] = x.kind ?? EntryKind.user;
		flags[i] = x.toolOnly ? EntryFlag.toolOnly : 0;
		time[i] = x.t === undefined ? T0 + i * 60_000 : Number.isNaN(x.t) ? Number.NaN : T0 + x.t * 60_000;
	});
	const labels = nodes.flatMap((x, i) => (x.label ? [{ target: i, label: x.label, time: Number.NaN }] : []));
	const leaf = leafId === undefined ? n - 1 : leafId === null ? -1 : (index.get(leafId) ?? -1);
	return { count: n, ids, parent, kind, flags, time, tokens: new Float64Array(n), cost: new Float64Array(n), labels, leaf, resumeLeaf: n - 1 };
}

/** A linear chain of n user entries e0 <- e1 <- ... (for deep-tree tests). */
export function chain(n: number): Skeleton {
	const parent = new Int32Array(n);
	for (let i = 0; i < n; i++) parent[i] = i - 1;
	const time = new Float64Array(n);
	for (let i = 0; i < n; i++) time[i] = T0 + i;
	return {
		count: n,
		ids: Array.from({ length: n }, (_, i) => `e${i}`),
		parent,
		kind: new Uint8Array(n),
		flags: new Uint16Array(n),
		time,
		tokens: new Float64Array(n),
		cost: new Float64Array(n),
		labels: [],
		leaf: n - 1,
		resumeLeaf: n - 1,
	};
}
