// Node side of `npm run bench:ui` (bundled by bench/ui.mjs with esbuild, one process per session file):
// 1. times Arbor's pure graph pipeline on the session's skeleton (visible tree -> compression ->
//    computeGraphLayout -> spatial index), CPU ms, median of a few runs;
// 2. times the naive layout the baseline page does (d3-hierarchy stratify + tree over every entry);
// 3. writes the baseline page's data: every entry (id, parent index, kind, one-line preview), JSON.
// Prints one JSON line with the timings and counts.
//   node prep.mjs <session.jsonl> <baseline-data.json> [runs]
import { writeFileSync } from "node:fs";
import { stratify, tree } from "d3-hierarchy";
import { SessionManager } from "../../electron/session/index";
import { ENTRY_KIND_NAMES } from "../../shared/skeleton";
import { computeTreeView } from "../../shared/tree-view";
import { buildGraphModel } from "../../renderer/graph/compress";
import { computeGraphLayout } from "../../renderer/graph/layout";
import { GraphNodeKind } from "../../renderer/graph/model";
import { buildSpatialIndex } from "../../renderer/graph/spatial";

const [file, dataOut, runsArg] = process.argv.slice(2);
const runs = Number(runsArg ?? 5);
/** CPU time (user + system) in ms: less distorted than wall time on a shared, loaded machine. */
const cpu = (): number => {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
};
function median<T>(fn: () => T, n: number): { ms: number; value: T } {
	const times: number[] = [];
	let value = fn(); // warm-up (JIT), not counted
	for (let k = 0; k < n; k++) {
		const t = cpu();
		value = fn();
		times.push(cpu() - t);
	}
	times.sort((a, b) => a - b);
	return { ms: times[Math.floor(times.length / 2)], value };
}

const t0 = cpu();
const sm = SessionManager.open(file);
const openMs = cpu() - t0;
const sk = sm.getSkeleton();

// ---- Arbor: the same calls, with the same options, as renderer/store/selectors.ts and SessionGraph.tsx
// make for a freshly opened session (default filter, no folds, nothing expanded, no search).
const view = median(() => computeTreeView(sk, { filter: "default", leaf: sk.leaf }), runs);
const model = median(() => buildGraphModel(sk, view.value, { expanded: new Set(), matches: null, compress: true }), runs);
const layout = median(() => computeGraphLayout(model.value, "TB"), runs);
const spatial = median(() => buildSpatialIndex(layout.value), runs);
let segments = 0;
for (let g = 0; g < model.value.n; g++) if (model.value.kind[g] === GraphNodeKind.segment) segments++;

// ---- Baseline data: every entry, no filter, no compression (what a plain React Flow app would draw).
const n = sk.count;
const previews = sm.getPreviews(Array.from({ length: n }, (_, i) => i));
const parent: number[] = new Array(n);
for (let i = 0; i < n; i++) parent[i] = sk.parent[i];
const data = {
	ids: sk.ids,
	parent,
	kind: Array.from(sk.kind, (k) => ENTRY_KIND_NAMES[k] ?? "unknown"),
	text: previews.map((p) => (p.length > 60 ? `${p.slice(0, 60)}…` : p).replace(/\s+/g, " ")),
	leaf: sk.leaf,
};
writeFileSync(dataOut, JSON.stringify(data));

// ---- Baseline layout, as the page runs it (the textbook d3 way: stratify + tree().nodeSize()). Timed
// once: stratify's height pass walks up from every node, so it grows with depth x nodes on long chains.
type Row = { id: string; p: string };
const rows: Row[] = [{ id: "__root", p: "" }];
for (let i = 0; i < n; i++) rows.push({ id: String(i), p: parent[i] >= 0 ? String(parent[i]) : "__root" });
const tb = cpu();
const root = stratify<Row>()
	.id((r) => r.id)
	.parentId((r) => (r.p === "" ? null : r.p))(rows);
tree<Row>().nodeSize([200, 80])(root);
const baselineLayoutMs = cpu() - tb;

console.log(
	JSON.stringify({
		entries: n,
		openMs,
		visibleRows: view.value.rows.length,
		graphNodes: model.value.n,
		segments,
		treeViewMs: view.ms,
		compressMs: model.ms,
		layoutMs: layout.ms,
		spatialMs: spatial.ms,
		baselineLayoutMs,
	}),
);
