// The graph model: what the pure pipeline (folds -> chain compression -> layout -> spatial index) passes
// along. Structure-of-arrays so a 100k-entry session stays a few typed arrays, and the layout can cross
// into a Web Worker by transfer.

import type { IndexSet } from "../../shared/tree-view";

/**
 * The visible tree the graph draws: a shared/tree-view `TreeView` fits as is (filter, search and pi's
 * folds already applied; hidden entries re-parented to their nearest visible ancestor).
 */
export interface GraphTreeInput {
	/** Visible entry indices in display order: pre-order, each node's children in display order. */
	rows: ArrayLike<number>;
	/** Per entry index: nearest visible ancestor (-1 = root); read for visible entries only. */
	visibleParent: ArrayLike<number>;
	/** Entries folded by the view (their descendants are already gone): they get a "+N hidden" stub. */
	folded?: IndexSet | null;
}

export const GraphNodeKind = {
	/** One entry, drawn as a card; React Flow id = entry id. */
	entry: 0,
	/** A collapsed linear chain of entries ("+N"); id `seg:<firstId>:<lastId>`. */
	segment: 1,
	/** The "+N hidden" stub under a folded entry; id `fold:<entryId>`. */
	foldStub: 2,
} as const;

/** Compressed graph, nodes in pre-order (a parent always comes before its children). */
export interface GraphModel {
	n: number;
	kind: Uint8Array;
	/** Entry index: the entry itself, a segment's first entry, or the folded entry of a stub. */
	entry: Int32Array;
	/** Segments: number of entries inside; stubs: number of hidden visible descendants; entries: 1. */
	count: Int32Array;
	/** Parent graph node, -1 = root. */
	parent: Int32Array;
	/** React Flow node ids. */
	ids: string[];
	/** Segments' member entries, chain order, flat: members of node k are segMembers[segStart[k] .. +count[k]]. */
	segStart: Int32Array;
	segMembers: Int32Array;
	/** Per entry index (skeleton.count long): graph node that shows it (entry or segment), -1 = not drawn. */
	nodeOfEntry: Int32Array;
	/** Per graph node index, number of graph children (cheap "is branch point" for the UI). */
	childCount: Int32Array;
	/**
	 * Entry whose card carries the leaf badge: the leaf, or its nearest shown ancestor when the filter
	 * hides the leaf (a label, a saved position, a `usage` line as the file's last line); -1 = none.
	 */
	leafCard?: number;
	/** Same for where pi resumes (the file's last line). */
	resumeCard?: number;
	/** Same for a live pi's in-memory leaf (-1 or absent: no live pi). */
	liveCard?: number;
}

/** "rows": one row per entry in pi's order, branches as lanes (layoutRows.ts); "TB" / "LR": tidy tree. */
export type Direction = "TB" | "LR" | "rows";

/** Positions of a GraphModel (top-left corner, flow coordinates). */
export interface GraphLayout {
	n: number;
	x: Float64Array;
	y: Float64Array;
	w: Float32Array;
	h: Float32Array;
	direction: Direction;
	/** Rows layout only: the lane (column of the branch graph) of every node. */
	lane?: Int32Array;
	/** Rows layout only: 1 where a branch found no free lane, so its long branch-off is drawn as two stubs. */
	laneCut?: Uint8Array;
	minX: number;
	minY: number;
	maxX: number;
	maxY: number;
}

/** Card sizes in px; the depth step is the largest card plus a gap. */
export const NODE_SIZE = {
	entry: { w: 240, h: 80 },
	segment: { w: 112, h: 30 },
	foldStub: { w: 120, h: 30 },
} as const;
/**
 * Gaps between cards. "+N" segments sit in the gap between two levels (on their edge), so the gap along
 * the depth axis must hold one: 30 px high in TB, 112 px wide in LR.
 */
export const GAP = { breadth: 24, depthTB: 56, depthLR: 144, cousin: 16 } as const;

/**
 * Rows layout: a row is ROW.h high (a ROW.card-high card and a 2 px gap), lanes are ROW.lane apart, and a
 * row's card starts after the lanes that run past it.
 */
export const ROW = { h: 24, card: 22, w: 560, lane: 14, pad: 10 } as const;

export function nodeSizeOf(kind: number): { w: number; h: number } {
	return kind === GraphNodeKind.entry ? NODE_SIZE.entry : kind === GraphNodeKind.segment ? NODE_SIZE.segment : NODE_SIZE.foldStub;
}

export interface Rect {
	x: number;
	y: number;
	w: number;
	h: number;
}
