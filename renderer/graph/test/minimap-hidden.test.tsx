// Issue #12: the minimap draws what the graph draws. A branch hidden with "Hide branch" (shared/tree-view
// `hidden`) leaves the minimap's picture with the same render that removes its cards; before, the picture
// waited for re-layouts to pause for 250 ms and kept the hidden branch meanwhile (for as long as an agent
// kept appending).
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EntryKind } from "../../../shared/skeleton";
import { computeTreeView } from "../../../shared/tree-view";
import { SessionGraph, type SessionGraphProps } from "../SessionGraph";
import { createGraph, GraphContext, type Graph } from "../store";
import { skeletonOf } from "./helpers";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// 0 user -> 1 assistant -> 2 user (branch point) -> {3 assistant -> 4 user (leaf), 5 assistant -> 6 user}
const sk = skeletonOf(
	[
		{ kind: EntryKind.user, parent: -1 },
		{ kind: EntryKind.assistant, parent: 0 },
		{ kind: EntryKind.user, parent: 1 },
		{ kind: EntryKind.assistant, parent: 2 },
		{ kind: EntryKind.user, parent: 3 },
		{ kind: EntryKind.assistant, parent: 2 },
		{ kind: EntryKind.user, parent: 5 },
	],
	{ leaf: 4, resumeLeaf: 4 },
);

let graph: Graph;
let container: HTMLDivElement;
let root: Root;
let skew = 0;

beforeEach(() => {
	// jsdom has no canvas: a 2D context that accepts every call, and Path2D.
	const measureText = (t: string) => ({ width: t.length * 7 });
	const ctx = new Proxy({}, { get: (_, k) => (k === "measureText" ? measureText : () => undefined), set: () => true });
	vi.spyOn(HTMLCanvasElement.prototype, "getContext").mockImplementation(() => ctx as unknown as CanvasRenderingContext2D);
	(globalThis as Record<string, unknown>).Path2D ??= class {
		moveTo() {}
		lineTo() {}
		rect() {}
		arc() {}
		closePath() {}
	};
	// The clock the minimap paces its redraws by: frozen, and moved on by hand only, so how long the machine
	// takes between two renders (a loaded CI box) cannot change what is drawn.
	const base = performance.now();
	skew = 0;
	vi.spyOn(performance, "now").mockImplementation(() => base + skew);
	graph = createGraph();
	container = document.createElement("div");
	container.style.width = "1000px";
	container.style.height = "800px";
	document.body.appendChild(container);
	root = createRoot(container);
});

afterEach(() => {
	act(() => root.unmount());
	container.remove();
	vi.restoreAllMocks();
});

async function show(view: SessionGraphProps["view"]): Promise<void> {
	const props: SessionGraphProps = { sessionKey: "s1", skeleton: sk, view, selectedIndex: -1, previews: () => undefined, onSelect: () => {}, compress: false };
	await act(async () => {
		root.render(
			<GraphContext.Provider value={graph}>
				<SessionGraph {...props} />
			</GraphContext.Provider>,
		);
	});
	// The layout resolves asynchronously (a resolved promise here).
	await act(async () => {
		await new Promise((r) => setTimeout(r, 20));
	});
}

const drawnByMinimap = (): string | null => container.querySelector("[data-testid=arbor-minimap]")?.getAttribute("data-nodes") ?? null;
const drawnByGraph = (): string | null => container.querySelector("[data-testid=arbor-graph]")?.getAttribute("data-nodes") ?? null;

describe("minimap", () => {
	it("leaves out a hidden branch as soon as the graph does", async () => {
		await show(computeTreeView(sk, { filter: "all" }));
		expect(drawnByGraph()).toBe("7");
		expect(drawnByMinimap()).toBe("7");

		skew += 1000;
		await show(computeTreeView(sk, { filter: "all", hidden: new Set([5]) }));
		expect(graph.store.getState().model?.nodeOfEntry[5]).toBe(-1);
		expect(drawnByGraph()).toBe("5");
		expect(drawnByMinimap()).toBe("5");
	});

	it("is not held back while changes keep coming (an agent appending, a walk through segments)", async () => {
		await show(computeTreeView(sk, { filter: "all" }));
		// Changes 100 ms apart by the minimap's clock: the ones inside the pause wait, but the picture is
		// redrawn once a pause has passed since the last one, not only when the changes stop.
		skew += 100;
		await show(computeTreeView(sk, { filter: "all", hidden: new Set([3]) }));
		skew += 100;
		await show(computeTreeView(sk, { filter: "all" }));
		skew += 100;
		await show(computeTreeView(sk, { filter: "all", hidden: new Set([5]) }));
		expect(drawnByGraph()).toBe("5");
		expect(drawnByMinimap()).toBe("5");
	});
});
