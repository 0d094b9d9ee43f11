// The graph store is per runtime (renderer/runtime.ts creates it next to the app store): two runtimes —
// two windows, two tests — showing the same session never see each other's selection, expanded
// segments, dragged positions or viewports.
import { afterEach, describe, expect, it } from "vitest";
import { App } from "../App";
import { FakeClient } from "./fake-client";
import { harness } from "./harness";
import { render, settle, type Rendered } from "./render";

const views: Rendered[] = [];
afterEach(() => {
	for (const v of views.splice(0)) v.unmount();
});

/** The ids of the cards drawn as selected in one app. */
function selectedCards(view: Rendered): string[] {
	return [...view.container.querySelectorAll<HTMLElement>(".react-flow__node")].filter((n) => n.querySelector(".is-selected")).map((n) => n.dataset.id ?? "");
}

async function twoApps() {
	const a = await harness(new FakeClient(), { boot: false });
	const b = await harness(new FakeClient(), { boot: false });
	const va = await render(<App runtime={a.rt} />);
	views.push(va);
	const vb = await render(<App runtime={b.rt} />);
	views.push(vb);
	await settle();
	await settle();
	return { a, b, va, vb };
}

describe("two runtimes", () => {
	it("show the same session without sharing graph state", async () => {
		const { a, b, va, vb } = await twoApps();
		// Both show session s1 with its cards.
		expect(va.container.querySelector('.react-flow__node[data-id="a2"]')).not.toBeNull();
		expect(vb.container.querySelector('.react-flow__node[data-id="a2"]')).not.toBeNull();
		expect(a.rt.graph).not.toBe(b.rt.graph);

		await settle(() => a.rt.store.getState().select("u2"));
		await settle(() => b.rt.store.getState().select("a3"));
		await settle();
		expect(selectedCards(va)).toEqual(["u2"]);
		expect(selectedCards(vb)).toEqual(["a3"]);
		expect(a.rt.graph.store.getState().selected).not.toBe(b.rt.graph.store.getState().selected);

		// Dragged positions, viewports and the forgetting of a session stay in their own runtime.
		await settle(() => {
			a.rt.graph.actions.setNodePosition("u2", { x: 500, y: 500 });
			a.rt.graph.actions.saveViewport({ x: 1, y: 2, zoom: 0.5 });
		});
		expect(a.rt.graph.store.getState().positions.s1?.get("u2")).toEqual({ x: 500, y: 500 });
		expect(b.rt.graph.store.getState().positions.s1?.get("u2")).toBeUndefined();
		expect(b.rt.graph.store.getState().viewports.s1).not.toEqual({ x: 1, y: 2, zoom: 0.5 });
		await settle(() => b.rt.graph.actions.forgetSession("s1"));
		expect(a.rt.graph.store.getState().viewports.s1).toEqual({ x: 1, y: 2, zoom: 0.5 });
	});
});
