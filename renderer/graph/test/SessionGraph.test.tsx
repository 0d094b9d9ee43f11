import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EntryFlag, EntryKind } from "../../../shared/skeleton";
import { computeTreeView } from "../../../shared/tree-view";
import { SessionGraph, type SessionGraphProps } from "../SessionGraph";
import { createGraph, GraphContext, type Graph } from "../store";

let graph: Graph;
import { generateSkeleton, skeletonOf } from "./helpers";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const U = EntryKind.user;
const A = EntryKind.assistant;
const T = EntryKind.toolResult;

// 0 user -> 1 asst -> 2 tool -> 3 asst -> 4 tool -> 5 asst(error) -> 6 user (branch point) -> {7 asst (leaf), 8 asst}
const small = skeletonOf(
	[
		{ kind: U, parent: -1 },
		{ kind: A, parent: 0, flags: EntryFlag.hasToolCalls },
		{ kind: T, parent: 1 },
		{ kind: A, parent: 2, flags: EntryFlag.hasToolCalls },
		{ kind: T, parent: 3 },
		{ kind: A, parent: 4, flags: EntryFlag.error },
		{ kind: U, parent: 5 },
		{ kind: A, parent: 6 },
		{ kind: A, parent: 6 },
	],
	{ leaf: 7, resumeLeaf: 8, labels: [{ target: 6, label: "checkpoint", time: Date.now() }] },
);
const PREVIEWS: Record<number, string> = {
	0: "user: <img src=x onerror=alert(1)> fix the parser",
	1: "assistant: looking",
	2: "[read: src/parser.ts:1-40]",
	6: "user: try again",
	7: "assistant: done",
	8: "assistant: other attempt",
};

let container: HTMLDivElement;
let root: Root;

beforeEach(() => {
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
});

async function mount(over: Partial<SessionGraphProps> = {}): Promise<SessionGraphProps> {
	const props: SessionGraphProps = {
		sessionKey: "s1",
		skeleton: small,
		view: computeTreeView(small, { filter: "all" }),
		selectedIndex: -1,
		previews: (i) => PREVIEWS[i],
		onSelect: vi.fn(),
		onActivate: vi.fn(),
		onContextMenu: vi.fn(),
		...over,
	};
	await act(async () => {
		root.render(
			<GraphContext.Provider value={graph}>
				<SessionGraph {...props} />
			</GraphContext.Provider>,
		);
	});
	// Layout resolves asynchronously (a worker in the browser, a resolved promise here).
	await act(async () => {
		await new Promise((r) => setTimeout(r, 20));
	});
	return props;
}

/**
 * Animated viewport moves finish on timers, much slower on a busy machine: poll for the outcome. The
 * bound only keeps a broken build from hanging; it is generous because CI shares two cores with every
 * other runner (5 s was too short there for the 20k-entry overview).
 */
async function waitFor(cond: () => boolean, timeoutMs = 25_000): Promise<void> {
	const start = Date.now();
	while (!cond()) {
		if (Date.now() - start > timeoutMs) throw new Error("waitFor: condition not met in time");
		await act(async () => {
			await new Promise((r) => setTimeout(r, 50));
		});
	}
}

const cards = (): HTMLElement[] => Array.from(container.querySelectorAll<HTMLElement>("[data-testid=arbor-card]"));
const cardOf = (entry: number): HTMLElement => {
	const el = container.querySelector<HTMLElement>(`[data-entry="${entry}"]`);
	if (!el) throw new Error(`no card for entry ${entry}`);
	return el;
};

describe("SessionGraph", () => {
	it("renders a card per kept entry and a +N segment for the compressed chain", async () => {
		await mount();
		expect(
			cards()
				.map((c) => Number(c.dataset.entry))
				.sort(),
		).toEqual([0, 6, 7, 8]);
		const seg = container.querySelector("[data-testid=arbor-segment]");
		expect(seg?.textContent).toContain("+5");
		expect(seg?.getAttribute("title")).toContain("1 error");
		expect(container.querySelectorAll(".react-flow__node").length).toBe(5);
	});

	it("shows session text as text, never as HTML", async () => {
		await mount();
		const card = cardOf(0);
		expect(card.textContent).toContain("<img src=x onerror=alert(1)> fix the parser");
		expect(card.querySelector("img")).toBeNull();
	});

	it("marks the leaf, where pi resumes, labels with their time and the active path", async () => {
		await mount();
		expect(cardOf(7).textContent).toContain("leaf");
		expect(cardOf(7).classList.contains("is-active")).toBe(true);
		expect(cardOf(8).textContent).toContain("pi resumes here");
		expect(cardOf(8).classList.contains("is-active")).toBe(false);
		// The label on the card; its time (one format with the label list) in the tooltip.
		expect(cardOf(6).textContent).toContain("checkpoint");
		expect(cardOf(6).querySelector(".arbor-badge--label")?.getAttribute("title")).toMatch(/checkpoint — label set .*\d\d:\d\d/);
		expect(cardOf(6).textContent).toContain("⎇ 2");
		const activeEdges = container.querySelectorAll(".react-flow__edge.is-active");
		expect(activeEdges.length).toBeGreaterThanOrEqual(2);
	});

	it("calls onSelect on click, onActivate on double-click and onContextMenu on right-click", async () => {
		const props = await mount();
		const node = cardOf(6).closest(".react-flow__node") as HTMLElement;
		await act(async () => {
			node.dispatchEvent(new MouseEvent("click", { bubbles: true, clientX: 5, clientY: 5 }));
		});
		expect(props.onSelect).toHaveBeenCalledWith(6);
		await act(async () => {
			node.dispatchEvent(new MouseEvent("dblclick", { bubbles: true }));
		});
		expect(props.onActivate).toHaveBeenCalledWith(6);
		await act(async () => {
			node.dispatchEvent(new MouseEvent("contextmenu", { bubbles: true, cancelable: true, clientX: 40, clientY: 50 }));
		});
		expect(props.onContextMenu).toHaveBeenCalledWith(6, 40, 50);
	});

	it("rings the selected card and dims search non-matches", async () => {
		await mount({ selectedIndex: 7, searchMatches: [6] });
		expect(cardOf(7).classList.contains("is-selected")).toBe(true);
		expect(cardOf(6).classList.contains("is-match")).toBe(true);
		expect(cardOf(0).classList.contains("is-dimmed")).toBe(true);
	});

	it("expands a segment when it is clicked, revealing its entries", async () => {
		await mount();
		const seg = container.querySelector("[data-testid=arbor-segment]")?.closest(".react-flow__node") as HTMLElement;
		await act(async () => {
			seg.dispatchEvent(new MouseEvent("click", { bubbles: true }));
		});
		await act(async () => {
			await new Promise((r) => setTimeout(r, 20));
		});
		await act(async () => graph.actions.fit());
		expect(cards().length).toBe(9);
		expect(cardOf(2).textContent).toContain("[read: src/parser.ts:1-40]");
		expect(cardOf(5).querySelector(".arbor-marker--error")).not.toBeNull();
	});

	it("counts the closed segments of the whole graph on data-segments, one fewer per clicked pill", async () => {
		// Opened on the leaf at zoom 1, most pills are culled: the count must not depend on what is mounted.
		const big = generateSkeleton(3000, 7);
		await mount({ skeleton: big, view: computeTreeView(big), selectedIndex: big.leaf, previews: () => undefined });
		const graph = container.querySelector<HTMLElement>("[data-testid=arbor-graph]") as HTMLElement;
		const closed = (): number => Number(graph.dataset.segments);
		const pills = (): HTMLElement[] => Array.from(container.querySelectorAll<HTMLElement>("[data-testid=arbor-segment]"));
		const before = closed();
		expect(pills().length).toBeGreaterThan(0);
		expect(before).toBeGreaterThan(pills().length);
		// An expansion re-lays out and keeps the leaf in place, so the next pill may have left the view.
		let clicked = 0;
		while (clicked < 3 && pills().length > 0) {
			await act(async () => {
				pills()[0]
					.closest(".react-flow__node")
					?.dispatchEvent(new MouseEvent("click", { bubbles: true }));
			});
			clicked++;
			await waitFor(() => closed() === before - clicked);
			expect(closed()).toBe(before - clicked);
		}
		expect(clicked).toBeGreaterThan(0);
	});

	it("keeps a small graph as cards below the overview zoom, so Fit shows every card", async () => {
		graph.store.setState({ viewports: { s1: { x: 0, y: 0, zoom: 0.1 } } });
		await mount();
		expect(container.querySelector("[data-testid=arbor-overview]")).toBeNull();
		expect(
			cards()
				.map((c) => Number(c.dataset.entry))
				.sort(),
		).toEqual([0, 6, 7, 8]);
	});

	it("opens the segment that holds the selection", async () => {
		await mount({ selectedIndex: 3 });
		await act(async () => {
			await new Promise((r) => setTimeout(r, 20));
		});
		expect(cardOf(3).classList.contains("is-selected")).toBe(true);
		expect(graph.actions.inSegment("e3")).toBe(false);
	});

	it("highlights the entries a navigation would summarize", async () => {
		await mount({ abandonedPreview: new Set(["e8"]) });
		expect(cardOf(8).classList.contains("is-abandoned")).toBe(true);
		expect(cardOf(7).classList.contains("is-abandoned")).toBe(false);
	});

	it("shows a +N hidden stub under a folded entry and asks to unfold on click", async () => {
		const onToggleFold = vi.fn();
		await mount({ view: computeTreeView(small, { filter: "all", folded: new Set([6]) }), onToggleFold });
		const stub = container.querySelector("[data-testid=arbor-fold-stub]");
		expect(stub?.textContent).toContain("+2 hidden");
		await act(async () => {
			stub?.closest(".react-flow__node")?.dispatchEvent(new MouseEvent("click", { bubbles: true }));
		});
		expect(onToggleFold).toHaveBeenCalledWith(6);
	});

	it("asks for the previews of mounted cards it does not have", async () => {
		const requestPreviews = vi.fn();
		await mount({ previews: () => undefined, requestPreviews });
		await act(async () => {
			await new Promise((r) => setTimeout(r, 60));
		});
		expect(requestPreviews).toHaveBeenCalled();
		expect(requestPreviews.mock.calls[0][0].sort()).toEqual([0, 6, 7, 8]);
	});

	it("mounts only what the viewport shows on a 100k-entry session", async () => {
		const big = generateSkeleton(100_000, 2);
		await mount({ skeleton: big, view: computeTreeView(big), selectedIndex: big.leaf, previews: () => undefined });
		const mounted = container.querySelectorAll(".react-flow__node").length;
		expect(mounted).toBeGreaterThan(0);
		expect(mounted).toBeLessThanOrEqual(1000);
		expect(Number(container.querySelector<HTMLElement>("[data-testid=arbor-graph]")?.dataset.mounted)).toBe(mounted);
		expect(cardOf(big.leaf)).toBeTruthy();
		expect(container.querySelector("[data-testid=arbor-minimap]")).not.toBeNull();
	});

	it("draws a canvas overview instead of cards when Fit or a zoom-out goes below readable text, and cards again when zoomed in", async () => {
		const big = generateSkeleton(20_000, 4);
		await mount({ skeleton: big, view: computeTreeView(big), selectedIndex: big.leaf, previews: () => undefined });
		// Fit on a big graph shows all of it (issue 21): far below readable text, so the overview.
		await act(async () => graph.actions.fit());
		await waitFor(() => container.querySelector("[data-testid=arbor-overview]") !== null);
		expect(graph.store.getState().viewports.s1?.zoom ?? 1).toBeLessThan(0.5);
		await act(async () => graph.actions.zoomToLeaf());
		await waitFor(() => container.querySelector("[data-testid=arbor-overview]") === null);
		expect(cardOf(big.leaf)).toBeTruthy();
		for (let i = 0; i < 12; i++) await act(async () => graph.actions.zoomOut());
		await waitFor(() => container.querySelector("[data-testid=arbor-overview]") !== null);
		expect(container.querySelector("[data-testid=arbor-overview]")).not.toBeNull();
		expect(container.querySelectorAll(".react-flow__node").length).toBe(0);
		await act(async () => graph.actions.zoomToLeaf());
		await waitFor(() => container.querySelector("[data-testid=arbor-overview]") === null);
		expect(container.querySelector("[data-testid=arbor-overview]")).toBeNull();
		expect(cardOf(big.leaf)).toBeTruthy();
	}, 90_000);
});
