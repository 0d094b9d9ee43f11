import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { applySkeletonDelta, EntryKind, type Skeleton } from "../../../shared/skeleton";
import { computeTreeView } from "../../../shared/tree-view";
import type { GraphControls } from "../../commands/registry";
import { NODE_SIZE } from "../model";
import { SessionGraph, type SessionGraphProps } from "../SessionGraph";
import { createGraph, GraphContext, type Graph } from "../store";

let graph: Graph;
import { skeletonOf } from "./helpers";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// A turn, then a branch point with two arms; the leaf is at the end of the first arm.
function base(): Skeleton {
	return skeletonOf(
		[
			{ kind: EntryKind.user, parent: -1 },
			{ kind: EntryKind.assistant, parent: 0 },
			{ kind: EntryKind.user, parent: 1 },
			{ kind: EntryKind.assistant, parent: 2 },
			{ kind: EntryKind.assistant, parent: 2 },
		],
		{ leaf: 3, resumeLeaf: 4 },
	);
}

/** Entries appended under the leaf, as a live `session_appended` delta would bring them. */
function append(s: Skeleton, kinds: number[], under = s.leaf): Skeleton {
	const n = kinds.length;
	const parent = new Int32Array(n);
	for (let k = 0; k < n; k++) parent[k] = k === 0 ? under : s.count + k - 1;
	return applySkeletonDelta(s, {
		start: s.count,
		ids: kinds.map((_, k) => `e${s.count + k}`),
		parent,
		kind: Uint8Array.from(kinds),
		flags: new Uint16Array(n),
		time: Float64Array.from(kinds.map((_, k) => 1_800_000_000_000 + k)),
		tokens: new Float64Array(n),
		cost: new Float64Array(n),
		labels: s.labels,
		leaf: s.count + n - 1,
		resumeLeaf: s.count + n - 1,
	});
}

let container: HTMLDivElement;
let root: Root;

beforeEach(() => {
	graph = createGraph();
	container = document.createElement("div");
	container.style.width = "1200px";
	container.style.height = "900px";
	document.body.appendChild(container);
	root = createRoot(container);
});

afterEach(() => {
	act(() => root.unmount());
	container.remove();
});

function propsFor(s: Skeleton, over: Partial<SessionGraphProps> = {}): SessionGraphProps {
	return { sessionKey: "live", skeleton: s, view: computeTreeView(s, { filter: "all" }), selectedIndex: 2, previews: () => "text", onSelect: vi.fn(), ...over };
}

async function render(p: SessionGraphProps): Promise<void> {
	await act(async () => {
		root.render(
			<GraphContext.Provider value={graph}>
				<SessionGraph {...p} />
			</GraphContext.Provider>,
		);
	});
	await act(async () => {
		await new Promise((r) => setTimeout(r, 20));
	});
}

/** Let animated viewport moves (d3 transitions, slower on a busy machine) finish: wait for a still frame. */
async function settle(): Promise<void> {
	let last = "";
	for (let k = 0; k < 100; k++) {
		await act(async () => {
			await new Promise((r) => setTimeout(r, 250));
		});
		const now = container.querySelector<HTMLElement>(".react-flow__viewport")?.style.transform ?? "";
		if (now === last) return;
		last = now;
	}
}

function viewport(): { x: number; y: number; zoom: number } {
	const el = container.querySelector<HTMLElement>(".react-flow__viewport");
	const m = /translate\(([-\d.e]+)px,\s*([-\d.e]+)px\)\s*scale\(([-\d.e]+)\)/.exec(el?.style.transform ?? "");
	if (!m) throw new Error(`no viewport transform: ${el?.style.transform}`);
	return { x: Number(m[1]), y: Number(m[2]), zoom: Number(m[3]) };
}

function nodePos(id: string): { x: number; y: number } {
	const el = container.querySelector<HTMLElement>(`.react-flow__node[data-id="${id}"]`);
	const m = /translate\(([-\d.e]+)px,\s*([-\d.e]+)px\)/.exec(el?.style.transform ?? "");
	if (!m) throw new Error(`node ${id} not mounted`);
	return { x: Number(m[1]), y: Number(m[2]) };
}

function screenPos(id: string): { x: number; y: number } {
	const v = viewport();
	const p = nodePos(id);
	return { x: v.x + p.x * v.zoom, y: v.y + p.y * v.zoom };
}

describe("SessionGraph with a live session", () => {
	it("keeps the selected card where it was on screen when entries are appended", async () => {
		const s0 = base();
		await render(propsFor(s0));
		const before = screenPos("e2");
		const flowBefore = nodePos("e2");
		// pi moved back to e1 and continued there: the new active branch is drawn first (left), so the
		// old subtree shifts right in flow coordinates.
		const s1 = append(s0, [EntryKind.user, EntryKind.assistant, EntryKind.toolResult, EntryKind.assistant, EntryKind.user], 1);
		await render(propsFor(s1));
		expect(container.querySelector('[data-entry="9"]')?.textContent).toContain("leaf");
		expect(nodePos("e2").x).not.toBeCloseTo(flowBefore.x, 0);
		const after = screenPos("e2");
		expect(after.x).toBeCloseTo(before.x, 3);
		expect(after.y).toBeCloseTo(before.y, 3);
	});

	it("keeps a dragged card where it was dropped until re-layout", async () => {
		const s0 = base();
		await render(propsFor(s0));
		const laidOut = nodePos("e4");
		await act(async () => graph.actions.setNodePosition("e4", { x: laidOut.x + 300, y: laidOut.y + 40 }));
		expect(nodePos("e4")).toEqual({ x: laidOut.x + 300, y: laidOut.y + 40 });
		// Still there after an unrelated re-render (new skeleton object, same session).
		await render(propsFor(append(s0, [EntryKind.assistant])));
		expect(nodePos("e4")).toEqual({ x: laidOut.x + 300, y: laidOut.y + 40 });
		await act(async () => graph.actions.relayout());
		expect(nodePos("e4")).toEqual(laidOut);
	});

	it("does not move a card dragged with the mouse (card dragging is off: it steered nothing)", async () => {
		const s0 = base();
		await render(propsFor(s0));
		const start = nodePos("e4");
		const el = container.querySelector<HTMLElement>('.react-flow__node[data-id="e4"]') as HTMLElement;
		const at = (type: string, x: number, y: number, target: EventTarget): void => {
			const ev = new MouseEvent(type, { bubbles: true, cancelable: true, clientX: x, clientY: y, button: 0, buttons: 1 });
			// d3-drag listens on event.view; vitest's jsdom window fails MouseEvent's own check for it.
			Object.defineProperty(ev, "view", { value: window });
			target.dispatchEvent(ev);
		};
		await act(async () => {
			at("mousedown", 100, 100, el);
			at("mousemove", 110, 110, document);
			at("mousemove", 160, 130, document);
			at("mousemove", 200, 150, document);
		});
		await act(async () => {
			at("mouseup", 200, 150, document);
		});
		expect(nodePos("e4")).toEqual(start);
		expect(graph.store.getState().positions.live?.get("e4")).toBeUndefined();
	});

	it("lays out left to right when asked", async () => {
		const s0 = base();
		await render(propsFor(s0, { direction: "LR" }));
		expect(nodePos("e1").x).toBeGreaterThan(nodePos("e0").x);
		expect(nodePos("e1").y).toBe(nodePos("e0").y);
		expect(container.querySelector(".arbor-graph--LR")).not.toBeNull();
	});

	it("zooms to the leaf and fits on request", async () => {
		const s0 = base();
		await render(propsFor(s0));
		await act(async () => graph.actions.fit());
		await settle();
		const fitted = viewport();
		await act(async () => graph.actions.zoomOut());
		await settle();
		expect(viewport().zoom).toBeLessThan(fitted.zoom);
		await act(async () => graph.actions.zoomToLeaf());
		await settle();
		const leaf = screenPos("e3");
		// Leaf card centred in the pane, which the jsdom setup sizes 1000x800.
		expect(viewport().zoom).toBe(1);
		expect(leaf.x + NODE_SIZE.entry.w / 2).toBeCloseTo(500, 0);
		expect(leaf.y + NODE_SIZE.entry.h / 2).toBeCloseTo(400, 0);
	});

	it("switching sessions restores each session's own viewport", async () => {
		const s0 = base();
		await render(propsFor(s0));
		await act(async () => graph.actions.zoomToLeaf());
		await settle();
		const first = viewport();
		await render(propsFor(s0, { sessionKey: "other" }));
		await act(async () => graph.actions.fit());
		await settle();
		await render(propsFor(s0, { sessionKey: "live" }));
		expect(viewport()).toEqual(first);
	});
});

describe("graphActions", () => {
	it("fit the command registry's GraphControls", () => {
		const controls: GraphControls = graph.actions;
		expect(typeof controls.reveal).toBe("function");
	});

	it("report and expand the segment holding an entry", async () => {
		const s = skeletonOf([
			{ kind: EntryKind.user, parent: -1 },
			{ kind: EntryKind.assistant, parent: 0 },
			{ kind: EntryKind.toolResult, parent: 1 },
			{ kind: EntryKind.assistant, parent: 2 },
			{ kind: EntryKind.user, parent: 3 },
		]);
		await render(propsFor(s, { selectedIndex: 4 }));
		expect(graph.actions.inSegment("e2")).toBe(true);
		expect(graph.actions.inSegment("e4")).toBe(false);
		expect(graph.actions.expandSegment("e4")).toBe(false);
		await act(async () => {
			expect(graph.actions.expandSegment("e2")).toBe(true);
		});
		await act(async () => {
			await new Promise((r) => setTimeout(r, 20));
		});
		expect(graph.actions.inSegment("e2")).toBe(false);
		expect(container.querySelector('[data-entry="2"]')).not.toBeNull();
		await act(async () => graph.actions.collapseSegment("e1"));
		await act(async () => {
			await new Promise((r) => setTimeout(r, 20));
		});
		expect(graph.actions.inSegment("e2")).toBe(true);
	});
});
