// Live pi on the graph: its in-memory leaf gets its own badge (kept out of "+N" segments, distinct from the
// file's last line), and streamed assistant messages are drawn as streaming cards under their parent,
// past the parent's existing children.
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EntryKind, type Skeleton } from "../../../shared/skeleton";
import { computeTreeView } from "../../../shared/tree-view";
import { SessionGraph, type SessionGraphProps } from "../SessionGraph";
import { createGraph, GraphContext, type Graph } from "../store";
import { STREAM_SIZE, type StreamCard } from "../streaming";
import { skeletonOf } from "./helpers";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let graph: Graph;
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

// A user message and a chain of tool calls (which compresses), then two arms under e5; the file's last line is e7.
function sample(): Skeleton {
	return skeletonOf(
		[
			{ kind: EntryKind.user, parent: -1 },
			{ kind: EntryKind.assistant, parent: 0 },
			{ kind: EntryKind.toolResult, parent: 1 },
			{ kind: EntryKind.assistant, parent: 2 },
			{ kind: EntryKind.toolResult, parent: 3 },
			{ kind: EntryKind.assistant, parent: 4 },
			{ kind: EntryKind.user, parent: 5 },
			{ kind: EntryKind.user, parent: 5 },
		],
		{ leaf: 7, resumeLeaf: 7 },
	);
}

async function mount(over: Partial<SessionGraphProps> = {}): Promise<void> {
	const s = over.skeleton ?? sample();
	const props: SessionGraphProps = {
		sessionKey: "s1",
		skeleton: s,
		view: computeTreeView(s, { filter: "all" }),
		selectedIndex: -1,
		previews: () => "text",
		onSelect: vi.fn(),
		...over,
	};
	await act(async () => {
		root.render(
			<GraphContext.Provider value={graph}>
				<SessionGraph {...props} />
			</GraphContext.Provider>,
		);
	});
	await act(async () => {
		await new Promise((r) => setTimeout(r, 20));
	});
}

const nodePos = (id: string): { x: number; y: number } => {
	const el = container.querySelector<HTMLElement>(`.react-flow__node[data-id="${id}"]`);
	const m = /translate\(([-\d.e]+)px,\s*([-\d.e]+)px\)/.exec(el?.style.transform ?? "");
	if (!m) throw new Error(`node ${id} not mounted`);
	return { x: Number(m[1]), y: Number(m[2]) };
};

describe("live pi on the graph", () => {
	it("marks pi's in-memory leaf with its own badge, even inside what would be a +N chain, apart from the file's last line", async () => {
		await mount();
		expect(container.querySelector("[data-testid=pi-leaf-badge]")).toBeNull();
		// File mode: e3 sits inside the compressed chain.
		expect(container.querySelector('[data-testid=arbor-card][data-entry="3"]')).toBeNull();
		// pi moved to e3 without writing anything: its leaf is not the file's last line.
		await mount({ liveLeaf: 3 });
		const badges = [...container.querySelectorAll<HTMLElement>("[data-testid=pi-leaf-badge]")];
		expect(badges).toHaveLength(1);
		const card = badges[0].closest<HTMLElement>("[data-testid=arbor-card]");
		expect(card?.dataset.entry).toBe("3");
		expect(badges[0].textContent).toBe("pi is here");
		expect(card?.getAttribute("aria-label")).toContain("the running pi is here");
		// The file's last line is labelled as such (not "pi resumes here": the running pi is elsewhere).
		const last = container.querySelector<HTMLElement>('[data-testid=arbor-card][data-entry="7"] [data-testid=resume-badge]');
		expect(last?.textContent).toBe("last line");
		expect(last?.title).toContain("where pi resumes if it is restarted");
		expect(container.querySelector('[data-testid=arbor-card][data-entry="7"] [data-testid=leaf-badge]')).not.toBeNull();
		// Arbor's leaf on pi's: one badge, pi's, and no "last line" (pi is on it).
		await mount({ liveLeaf: 7 });
		expect(container.querySelectorAll("[data-testid=leaf-badge]")).toHaveLength(0);
		expect(container.querySelector('[data-testid=arbor-card][data-entry="7"] [data-testid=pi-leaf-badge]')).not.toBeNull();
		expect(container.querySelector("[data-testid=resume-badge]")).toBeNull();
	});

	it("draws a streaming card under its parent, past the parent's children, and nothing once streams are gone", async () => {
		const stream: StreamCard = {
			key: "0:0",
			parentIndex: 5,
			text: "Looking at the parser now",
			tools: [{ name: "read", args: "src/parser.ts" }],
			thinking: false,
			done: false,
		};
		await mount({ liveLeaf: 5, streaming: [stream] });
		const el = container.querySelector<HTMLElement>("[data-testid=stream-card]");
		expect(el).not.toBeNull();
		expect(el?.querySelector("[data-testid=stream-text]")?.textContent).toBe("Looking at the parser now");
		expect(el?.querySelector("[data-testid=stream-tools]")?.textContent).toContain("read(src/parser.ts)");
		expect(el?.getAttribute("aria-label")).toContain("pi is answering (streaming…)");
		const p = nodePos("stream:0:0");
		const parent = nodePos("e5");
		expect(p.y).toBeGreaterThan(parent.y);
		// Right of both existing children (e6, e7): it covers neither.
		for (const id of ["e6", "e7"]) expect(p.x).toBeGreaterThanOrEqual(nodePos(id).x + 240);
		expect(container.querySelector(".react-flow__edge.is-streaming")).not.toBeNull();
		// Clicking it selects nothing: it is not an entry.
		const onSelect = vi.fn();
		await mount({ liveLeaf: 5, streaming: [{ ...stream, done: true }], onSelect });
		expect(container.querySelector<HTMLElement>("[data-testid=stream-card]")?.dataset.done).toBe("true");
		expect(container.querySelector("[data-testid=stream-status]")?.textContent).toBe("writing to the file…");
		await act(async () => container.querySelector<HTMLElement>(`.react-flow__node[data-id="stream:0:0"]`)?.click());
		expect(onSelect).not.toHaveBeenCalled();
		await mount({ liveLeaf: 5, streaming: [] });
		expect(container.querySelector("[data-testid=stream-card]")).toBeNull();
		expect(STREAM_SIZE.w).toBeGreaterThan(0);
	});
});
