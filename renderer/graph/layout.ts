// Tidy-tree layout of a compressed graph with d3-hierarchy's `tree()` (Reingold-Tilford/Buchheim, linear
// time; dagre/ELK are ~100x slower at 10k nodes). Pure: runs on the UI thread or in layout.worker.ts.
//
// "+N" segments take no level of their own: they always have exactly one child (runs end before a kept
// entry), so the tree is laid out without them and each segment is placed on its edge, midway between
// its parent and its child. That halves the nodes d3 has to place and the depth of the drawing.

import { hierarchy, tree, type HierarchyNode, type HierarchyPointNode } from "d3-hierarchy";
import { layoutRows } from "./layoutRows";
import { GAP, GraphNodeKind, NODE_SIZE, nodeSizeOf, type Direction, type GraphLayout, type GraphModel } from "./model";
import { buildChildIndex, type ChildIndex } from "./cull";
import { buildSpatialIndex, type SpatialIndex } from "./spatial";

/** What the layout needs of a model: small enough to transfer to a worker. */
export interface LayoutInput {
	/** Parent node per node, pre-order (-1 = root). */
	parent: Int32Array;
	/** GraphNodeKind per node (decides the card size, and segments ride on edges). */
	kind: Uint8Array;
	direction: Direction;
}

/** Lay out a model: the timing entry point for benchmarks (`computeGraphLayout(model, "TB")`). */
export function computeGraphLayout(model: Pick<GraphModel, "parent" | "kind">, direction: Direction): GraphLayout {
	return layoutTree({ parent: model.parent, kind: model.kind, direction });
}

/**
 * Positions and the spatial index over them, which always travel together, and the per-node lookups a
 * new layout needs on its first frame (culling's children, the cards' tree depth): on a 100k-entry
 * session each is a pass over ~90k nodes better done in the worker than in that frame.
 */
export interface LaidOut {
	layout: GraphLayout;
	index: SpatialIndex;
	children: ChildIndex;
	/** Tree depth of every node, 1 for a root (the cards' aria-level). */
	depth: Int32Array;
}

/** What layout.worker.ts sends back of the index: all of it but `layout` (the same object, sent once). */
export type WorkerIndex = Omit<SpatialIndex, "layout">;

/** Layout and spatial index in one step (the layout runner's unit of work, on either thread). */
export function layOut(input: LayoutInput): LaidOut {
	const layout = layoutTree(input);
	return { layout, index: buildSpatialIndex(layout), children: buildChildIndex(input.parent), depth: treeDepth(input.parent) };
}

/** Depth of every node of a pre-order tree (a parent comes before its children), 1 for a root. */
export function treeDepth(parent: Int32Array): Int32Array {
	const depth = new Int32Array(parent.length);
	for (let g = 0; g < parent.length; g++) depth[g] = parent[g] >= 0 ? depth[parent[g]] + 1 : 1;
	return depth;
}

export function layoutTree(input: LayoutInput): GraphLayout {
	const { parent, kind, direction } = input;
	if (direction === "rows") return layoutRows(parent);
	const n = parent.length;
	const x = new Float64Array(n);
	const y = new Float64Array(n);
	const w = new Float32Array(n);
	const h = new Float32Array(n);
	for (let i = 0; i < n; i++) {
		const sz = nodeSizeOf(kind[i]);
		w[i] = sz.w;
		h[i] = sz.h;
	}
	if (n === 0) return { n, x, y, w, h, direction, minX: 0, minY: 0, maxX: 0, maxY: 0 };

	const isSeg = (i: number): boolean => kind[i] === GraphNodeKind.segment;
	// Parent in the laid-out tree: through a segment to the entry above it. Index n = virtual root.
	const lparent = new Int32Array(n);
	const segChild = new Int32Array(n).fill(-1);
	for (let i = 0; i < n; i++) {
		let p = parent[i];
		if (p >= 0 && isSeg(p)) {
			if (segChild[p] < 0) segChild[p] = i;
			p = parent[p];
		}
		lparent[i] = p >= 0 && p < i ? p : n;
	}

	// Children lists in pre-order (= display order), segments left out.
	const childStart = new Int32Array(n + 2);
	for (let i = 0; i < n; i++) if (!isSeg(i)) childStart[lparent[i] + 1]++;
	for (let i = 0; i <= n; i++) childStart[i + 1] += childStart[i];
	const fill = childStart.slice(0, n + 1);
	const childList = new Int32Array(childStart[n + 1]);
	for (let i = 0; i < n; i++) if (!isSeg(i)) childList[fill[lparent[i]]++] = i;

	const tb = direction === "TB";
	// Breadth = the axis siblings spread along (x in TB, y in LR).
	const breadthOf = (i: number): number => (i === n ? 0 : tb ? w[i] : h[i]);
	const cardDepth = tb ? NODE_SIZE.entry.h : NODE_SIZE.entry.w;
	const depthGap = tb ? GAP.depthTB : GAP.depthLR;
	const depthStep = cardDepth + depthGap;

	const root = buildHierarchy(n, lparent, childStart, childList, isSeg);
	// nodeSize [1, step] makes separation() a distance in px: half of each card plus a gap, so adjacent
	// cards on one level never overlap whatever their sizes.
	const laid = tree<number>()
		.nodeSize([1, depthStep])
		.separation((a, b) => (breadthOf(a.data) + breadthOf(b.data)) / 2 + (a.parent === b.parent ? GAP.breadth : GAP.breadth + GAP.cousin))(root);

	laid.each((node: HierarchyPointNode<number>) => {
		const i = node.data;
		if (i === n) return;
		const depth = node.y - depthStep; // the virtual root takes depth 0
		const along = node.x;
		// Smaller nodes (fold stubs) sit centred in the card's slot so edges stay straight.
		if (tb) {
			x[i] = along - w[i] / 2;
			y[i] = depth + (cardDepth - h[i]) / 2;
		} else {
			x[i] = depth + (cardDepth - w[i]) / 2;
			y[i] = along - h[i] / 2;
		}
	});

	// Segments: centred on the edge, in the gap between their parent's level and their child's.
	for (let s = 0; s < n; s++) {
		if (!isSeg(s)) continue;
		const p = parent[s];
		const c = segChild[s];
		const pcx = p >= 0 ? x[p] + w[p] / 2 : 0;
		const pcy = p >= 0 ? y[p] + h[p] / 2 : 0;
		if (tb) {
			const top = p >= 0 ? y[p] + h[p] + (cardDepth - h[p]) / 2 : -depthGap;
			const cx = c >= 0 ? (pcx + x[c] + w[c] / 2) / 2 : pcx;
			x[s] = cx - w[s] / 2;
			y[s] = top + (depthGap - h[s]) / 2;
		} else {
			const left = p >= 0 ? x[p] + w[p] + (cardDepth - w[p]) / 2 : -depthGap;
			const cy = c >= 0 ? (pcy + y[c] + h[c] / 2) / 2 : pcy;
			x[s] = left + (depthGap - w[s]) / 2;
			y[s] = cy - h[s] / 2;
		}
	}

	let minX = Infinity;
	let minY = Infinity;
	let maxX = -Infinity;
	let maxY = -Infinity;
	for (let i = 0; i < n; i++) {
		if (x[i] < minX) minX = x[i];
		if (y[i] < minY) minY = y[i];
		if (x[i] + w[i] > maxX) maxX = x[i] + w[i];
		if (y[i] + h[i] > maxY) maxY = y[i] + h[i];
	}
	return { n, x, y, w, h, direction, minX, minY, maxX, maxY };
}

/**
 * d3's `hierarchy()` computes node heights by walking up from every node, which is quadratic on the
 * deep chains sessions produce (7k levels: ~150 ms at 25k nodes). We build the same node objects, on
 * d3's own prototype, in linear time; `tree()` then runs unchanged.
 */
function buildHierarchy(n: number, lparent: Int32Array, childStart: Int32Array, childList: Int32Array, skip: (i: number) => boolean): HierarchyNode<number> {
	const proto: object = Object.getPrototypeOf(hierarchy<number>(0));
	const nodes = new Array<HierarchyNode<number> | undefined>(n + 1);
	const make = (data: number): HierarchyNode<number> => {
		const node = Object.create(proto) as HierarchyNode<number>;
		node.data = data;
		(node as { depth: number }).depth = 0;
		(node as { height: number }).height = 0;
		node.parent = null;
		return node;
	};
	const rootNode = make(n);
	nodes[n] = rootNode;
	// Pre-order: a parent is built before its children, so depths fill in one pass.
	for (let i = 0; i < n; i++) {
		if (skip(i)) continue;
		const node = make(i);
		const p = nodes[lparent[i]] ?? rootNode;
		node.parent = p;
		(node as { depth: number }).depth = p.depth + 1;
		nodes[i] = node;
	}
	for (let d = 0; d <= n; d++) {
		const a = childStart[d];
		const b = childStart[d + 1];
		const node = nodes[d];
		if (a === b || !node) continue;
		const kids = new Array<HierarchyNode<number>>(b - a);
		for (let k = a; k < b; k++) kids[k - a] = nodes[childList[k]] as HierarchyNode<number>;
		node.children = kids;
	}
	for (let i = n - 1; i >= 0; i--) {
		const node = nodes[i];
		if (!node) continue;
		const p = node.parent as HierarchyNode<number>;
		if (p.height < node.height + 1) (p as { height: number }).height = node.height + 1;
	}
	return rootNode;
}
