// Tidy-tree layout of a compressed graph with d3-hierarchy's `tree()` (Reingold-Tilford/Buchheim, linear
// time; dagre/ELK are ~100x slower at 10k nodes). Pure: runs on the UI thread or in layout.worker.ts.

import { hierarchy, tree, type HierarchyNode, type HierarchyPointNode } from "d3-hierarchy";
import { GAP, NODE_SIZE, nodeSizeOf, type Direction, type GraphLayout, type GraphModel } from "./model";

/** What the layout needs of a model: small enough to transfer to a worker. */
export interface LayoutInput {
	/** Parent node per node, pre-order (-1 = root). */
	parent: Int32Array;
	/** GraphNodeKind per node (decides the card size). */
	kind: Uint8Array;
	direction: Direction;
}

/** Lay out a model: the timing entry point for benchmarks (`computeGraphLayout(model, "TB")`). */
export function computeGraphLayout(model: Pick<GraphModel, "parent" | "kind">, direction: Direction): GraphLayout {
	return layoutTree({ parent: model.parent, kind: model.kind, direction });
}

/**
 * d3's `hierarchy()` computes node heights by walking up from every node, which is quadratic on the
 * deep chains sessions produce (7k levels: ~150 ms at 25k nodes). We build the same node objects, on
 * d3's own prototype, in linear time; `tree()` then runs unchanged.
 */
function buildHierarchy(n: number, parent: Int32Array, childStart: Int32Array, childList: Int32Array): HierarchyNode<number> {
	const proto: object = Object.getPrototypeOf(hierarchy<number>(0));
	const nodes = new Array<HierarchyNode<number>>(n + 1);
	const make = (data: number): HierarchyNode<number> => {
		const node = Object.create(proto) as HierarchyNode<number>;
		node.data = data;
		(node as { depth: number }).depth = 0;
		(node as { height: number }).height = 0;
		node.parent = null;
		return node;
	};
	nodes[n] = make(n);
	for (let i = 0; i < n; i++) nodes[i] = make(i);
	// Pre-order: a parent is built before its children, so depths fill in one pass.
	for (let i = 0; i < n; i++) {
		const p = nodes[parent[i] >= 0 ? parent[i] : n];
		nodes[i].parent = p;
		(nodes[i] as { depth: number }).depth = p.depth + 1;
	}
	for (let d = 0; d <= n; d++) {
		const a = childStart[d];
		const b = childStart[d + 1];
		if (a === b) continue;
		const kids = new Array<HierarchyNode<number>>(b - a);
		for (let k = a; k < b; k++) kids[k - a] = nodes[childList[k]];
		nodes[d].children = kids;
	}
	for (let i = n - 1; i >= 0; i--) {
		const p = nodes[i].parent as HierarchyNode<number>;
		if (p.height < nodes[i].height + 1) (p as { height: number }).height = nodes[i].height + 1;
	}
	return nodes[n];
}

export function layoutTree(input: LayoutInput): GraphLayout {
	const { parent, kind, direction } = input;
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

	// Children lists in pre-order (= display order). Several roots hang under a virtual root (-1 -> index n).
	const childStart = new Int32Array(n + 2);
	for (let i = 0; i < n; i++) childStart[(parent[i] >= 0 ? parent[i] : n) + 1]++;
	for (let i = 0; i <= n; i++) childStart[i + 1] += childStart[i];
	const fill = childStart.slice(0, n + 1);
	const childList = new Int32Array(n);
	for (let i = 0; i < n; i++) childList[fill[parent[i] >= 0 ? parent[i] : n]++] = i;

	const tb = direction === "TB";
	// Breadth = the axis siblings spread along (x in TB, y in LR); depth step fits the largest card.
	const breadthOf = (i: number): number => (i === n ? 0 : tb ? w[i] : h[i]);
	const depthStep = (tb ? NODE_SIZE.entry.h : NODE_SIZE.entry.w) + GAP.depth;

	const root = buildHierarchy(n, parent, childStart, childList);
	// nodeSize [1, step] makes separation() a distance in px: half of each card plus a gap, so adjacent
	// cards on one level never overlap whatever their sizes.
	const laid = tree<number>()
		.nodeSize([1, depthStep])
		.separation((a, b) => (breadthOf(a.data) + breadthOf(b.data)) / 2 + (a.parent === b.parent ? GAP.breadth : GAP.breadth + GAP.cousin))(root);

	let minX = Infinity;
	let minY = Infinity;
	let maxX = -Infinity;
	let maxY = -Infinity;
	const cardDepth = tb ? NODE_SIZE.entry.h : NODE_SIZE.entry.w;
	laid.each((node: HierarchyPointNode<number>) => {
		const i = node.data;
		if (i === n) return;
		const depth = node.y - depthStep; // the virtual root takes depth 0
		const along = node.x;
		// Smaller nodes (segments, stubs) sit centred in the card's slot so edges stay straight.
		if (tb) {
			x[i] = along - w[i] / 2;
			y[i] = depth + (cardDepth - h[i]) / 2;
		} else {
			x[i] = depth + (cardDepth - w[i]) / 2;
			y[i] = along - h[i] / 2;
		}
		if (x[i] < minX) minX = x[i];
		if (y[i] < minY) minY = y[i];
		if (x[i] + w[i] > maxX) maxX = x[i] + w[i];
		if (y[i] + h[i] > maxY) maxY = y[i] + h[i];
	});
	return { n, x, y, w, h, direction, minX, minY, maxX, maxY };
}
