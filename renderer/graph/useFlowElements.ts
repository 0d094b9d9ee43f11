// The graph's React Flow elements hook: nodes and edges for the mounted set, and previews asked for the
// mounted cards. Node objects are kept by id across layouts and reused while their position, size and
// data are unchanged, so after a re-layout (a segment opened, an append) React Flow and the memoized
// cards only redo the nodes that actually moved.

import { useEffect, useMemo, useRef } from "react";
import { Position, type Edge, type NodeHandle } from "@xyflow/react";
import type { Laid } from "./laid";
import { GraphNodeKind, type Direction } from "./model";
import type { GraphFlowNode } from "./nodes";
import type { XY } from "./store";

const KIND_TYPE = ["entry", "segment", "foldStub"] as const;
/** One empty list: a new [] on every layout would make React Flow re-run every node's selectors. */
const NO_EDGES: Edge[] = [];

/**
 * What every node of the graph is in React Flow (entry cards here, streaming cards in streaming.tsx):
 * nothing to drag, select, connect, delete or focus. Card dragging moved a card and nothing else (and
 * xyflow's auto-pan could outlive an aborted drag); steering by drag uses the leaf badge (nodes.tsx
 * startLeafDrag). The graph is one WAI-ARIA tree: the cards inside are its treeitems, the wrapper adds
 * nothing.
 */
export const INERT_NODE = {
	draggable: false,
	selectable: false,
	connectable: false,
	deletable: false,
	focusable: false,
	ariaRole: "none",
	domAttributes: { "aria-roledescription": undefined },
} as const satisfies Partial<GraphFlowNode>;

/** Edges are drawn lines inside the tree, not content: not selectable, no role, no "Edge from <hex> to <hex>" label. */
export const INERT_EDGE = {
	selectable: false,
	focusable: false,
	ariaRole: "none",
	domAttributes: { "aria-roledescription": undefined, "aria-label": undefined } as Edge["domAttributes"],
} as const satisfies Partial<Edge>;

export interface FlowElementsInput {
	laid: Laid | null;
	mounted: number[];
	overrides: ReadonlyMap<number, XY>;
	direction: Direction;
	activePath: Uint8Array;
	previews(index: number): string | undefined;
	requestPreviews?: (indices: number[]) => void;
}

export function useFlowElements({ laid, mounted, overrides, direction, activePath, previews, requestPreviews }: FlowElementsInput): {
	nodes: GraphFlowNode[];
	edges: Edge[];
} {
	const nodeCache = useRef<Map<string, GraphFlowNode>>(new Map());
	const nodes = useMemo(() => {
		if (!laid) return [];
		const cache = nodeCache.current;
		const next = new Map<string, GraphFlowNode>();
		const out = mounted.map((g) => {
			const fresh = makeNode(laid, g, overrides.get(g), direction);
			const old = cache.get(fresh.id);
			const node = old && sameNode(old, fresh) ? old : fresh;
			next.set(node.id, node);
			return node;
		});
		nodeCache.current = next;
		return out;
	}, [laid, mounted, overrides, direction]);

	const edges = useMemo(() => {
		// The rows view draws its lanes itself (RowLanes.tsx): an edge there can span thousands of rows.
		if (!laid || laid.layout.direction === "rows") return NO_EDGES;
		const { model: m } = laid;
		const inSet = new Set(mounted);
		const out: Edge[] = [];
		for (const g of mounted) {
			const p = m.parent[g];
			if (p < 0 || !inSet.has(p)) continue;
			const active = activePath[m.entry[g]] === 1 && activePath[m.entry[p]] === 1 && m.kind[g] !== GraphNodeKind.foldStub;
			out.push({
				id: `e:${m.ids[g]}`,
				source: m.ids[p],
				target: m.ids[g],
				className: active ? "arbor-edge is-active" : "arbor-edge",
				...INERT_EDGE,
			});
		}
		return out;
	}, [laid, mounted, activePath]);

	// ---- previews for the mounted cards
	useEffect(() => {
		if (!requestPreviews || !laid || mounted.length === 0) return;
		const t = setTimeout(() => {
			const missing: number[] = [];
			for (const g of mounted) if (laid.model.kind[g] === GraphNodeKind.entry && previews(laid.model.entry[g]) === undefined) missing.push(laid.model.entry[g]);
			if (missing.length > 0) requestPreviews(missing);
		}, 30);
		return () => clearTimeout(t);
	}, [mounted, laid, previews, requestPreviews]);

	return { nodes, edges };
}

function sameNode(a: GraphFlowNode, b: GraphFlowNode): boolean {
	return (
		a.type === b.type &&
		a.position.x === b.position.x &&
		a.position.y === b.position.y &&
		a.width === b.width &&
		a.height === b.height &&
		a.data.entry === b.data.entry &&
		a.data.count === b.data.count &&
		a.handles?.[0]?.position === b.handles?.[0]?.position
	);
}

function makeNode(l: Laid, g: number, override: XY | undefined, direction: Direction): GraphFlowNode {
	const { model: m, layout } = l;
	const w = layout.w[g];
	const h = layout.h[g];
	const kind = m.kind[g];
	const tb = direction === "TB";
	// Handles given up front: edges draw without waiting for DOM measurement of each card.
	const handles: NodeHandle[] = [
		tb
			? { type: "target", position: Position.Top, x: w / 2, y: 0, width: 1, height: 1 }
			: { type: "target", position: Position.Left, x: 0, y: h / 2, width: 1, height: 1 },
	];
	if (kind !== GraphNodeKind.foldStub) {
		handles.push(
			tb
				? { type: "source", position: Position.Bottom, x: w / 2, y: h - 1, width: 1, height: 1 }
				: { type: "source", position: Position.Right, x: w - 1, y: h / 2, width: 1, height: 1 },
		);
	}
	return {
		id: m.ids[g],
		type: KIND_TYPE[kind] ?? "entry",
		position: override ?? { x: layout.x[g], y: layout.y[g] },
		data: { entry: m.entry[g], count: kind === GraphNodeKind.entry ? m.childCount[g] : m.count[g] },
		width: w,
		height: h,
		measured: { width: w, height: h },
		handles,
		...INERT_NODE,
	};
}
