// A laid-out graph: the compressed model and the positions computed for it, which always travel together
// (useGraphLayout builds it), plus lookups over it shared by the graph's hooks.

import type { Skeleton } from "../../shared/skeleton";
import type { GraphLayout, GraphModel } from "./model";
import type { SpatialIndex } from "./spatial";
import type { XY } from "./store";

/** Mounted, laid-out state: the model and the positions computed for it always travel together. */
export interface Laid {
	model: GraphModel;
	layout: GraphLayout;
	index: SpatialIndex;
	/** Tree depth of every graph node, 1 for a root (the cards' aria-level). */
	depth: Int32Array;
	/** React Flow id -> graph node; built on first use (only dragged positions need it). */
	nodeById(id: string): number | undefined;
	/** Session it was computed for: another session's layout is never drawn with this one's skeleton. */
	key: string;
}

export function lazyIdIndex(model: GraphModel): (id: string) => number | undefined {
	let map: Map<string, number> | null = null;
	return (id) => {
		if (!map) {
			map = new Map();
			for (let g = 0; g < model.n; g++) map.set(model.ids[g], g);
		}
		return map.get(id);
	};
}

/** Same parents and node kinds in the same order: the previous positions still fit (ids may differ). */
export function sameStructure(a: GraphModel, b: GraphModel): boolean {
	if (a.n !== b.n) return false;
	for (let i = 0; i < a.n; i++) if (a.parent[i] !== b.parent[i] || a.kind[i] !== b.kind[i]) return false;
	return true;
}

/** Graph node showing an entry, or its nearest drawn ancestor (-1 if none). */
export function nodeAt(l: Laid, entry: number, s: Skeleton): number {
	let e = entry;
	for (let guard = 0; e >= 0 && e < l.model.nodeOfEntry.length && guard < 1_000_000; guard++) {
		const g = l.model.nodeOfEntry[e];
		if (g >= 0) return g;
		e = s.parent[e];
	}
	return -1;
}

/** Center of the node showing an entry; an entry not drawn (hidden, folded) falls back to its nearest drawn ancestor. */
export function nodeCenter(l: Laid, entry: number, s?: Skeleton): XY | null {
	let e = entry;
	for (let guard = 0; e >= 0 && e < l.model.nodeOfEntry.length && guard < 1_000_000; guard++) {
		const g = l.model.nodeOfEntry[e];
		if (g >= 0) return { x: l.layout.x[g] + l.layout.w[g] / 2, y: l.layout.y[g] + l.layout.h[g] / 2 };
		if (!s) return null;
		e = s.parent[e];
	}
	return null;
}
