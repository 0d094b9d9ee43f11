// The naive baseline for `npm run bench:ui`: what a plain React Flow app does with a session. It fetches
// every entry (prepared by prep.ts), lays all of them out with d3-hierarchy (stratify + tree), and mounts
// one default React Flow node per entry and one edge per parent link: no filter, no chain compression,
// no culling. The view starts at zoom 1 centred on the leaf, as Arbor's does.
import { stratify, tree } from "d3-hierarchy";
import { type Edge, type Node, ReactFlow } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { createRoot } from "react-dom/client";

interface Data {
	ids: string[];
	parent: number[];
	kind: string[];
	text: string[];
	leaf: number;
}
interface Row {
	id: string;
	p: string;
}
declare global {
	interface Window {
		__baseline?: { fetchMs: number; layoutMs: number; nodes: number; edges: number };
	}
}

const NODE_W = 200;
const NODE_H = 80;

async function main(): Promise<void> {
	const params = new URLSearchParams(location.search);
	const src = params.get("data") ?? "data.json";
	// ?limit=K: only the first K entries (a prefix of an append-only file is a tree): the environment's floor.
	const limit = Number(params.get("limit") ?? Number.POSITIVE_INFINITY);
	const t0 = performance.now();
	const data = (await (await fetch(src)).json()) as Data;
	const t1 = performance.now();
	const n = Math.min(data.ids.length, limit);
	const rows: Row[] = [{ id: "__root", p: "" }];
	for (let i = 0; i < n; i++) rows.push({ id: String(i), p: data.parent[i] >= 0 && data.parent[i] < n ? String(data.parent[i]) : "__root" });
	const root = stratify<Row>()
		.id((r) => r.id)
		.parentId((r) => (r.p === "" ? null : r.p))(rows);
	const laid = tree<Row>().nodeSize([NODE_W, NODE_H])(root);
	const nodes: Node[] = [];
	const edges: Edge[] = [];
	let leafX = 0;
	let leafY = 0;
	laid.each((d) => {
		if (d.data.id === "__root") return;
		const i = Number(d.data.id);
		nodes.push({ id: data.ids[i], position: { x: d.x, y: d.y }, data: { label: `${data.kind[i]}: ${data.text[i]}` } });
		if (data.parent[i] >= 0 && data.parent[i] < n) edges.push({ id: `e${i}`, source: data.ids[data.parent[i]], target: data.ids[i] });
		if (i === (data.leaf < n ? data.leaf : n - 1)) {
			leafX = d.x;
			leafY = d.y;
		}
	});
	const t2 = performance.now();
	window.__baseline = { fetchMs: t1 - t0, layoutMs: t2 - t1, nodes: nodes.length, edges: edges.length };
	const w = window.innerWidth;
	const h = window.innerHeight;
	createRoot(document.getElementById("root") as HTMLElement).render(
		<div style={{ width: "100vw", height: "100vh" }}>
			<ReactFlow defaultNodes={nodes} defaultEdges={edges} defaultViewport={{ x: w / 2 - leafX - 75, y: h / 2 - leafY, zoom: 1 }} minZoom={0.05} />
		</div>,
	);
}

void main();
