// The context panel on an omp file (jsdom, fake client): it says whose rules built the view, shows omp's facts,
// hides pi 1.6's context-edit notes under omp's rules, and its switch asks for the other rules for that file
// only; pi files show no rules line and ask as before.
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { ContextView } from "../../shared/api";
import type { SessionEntry } from "../../shared/entries";
import { ContextPanel } from "../panels/ContextPanel";
import { FakeClient, type FakeEntry } from "./fake-client";
import { harness } from "./harness";
import { click, render, waitFor, type Rendered } from "./render";

const T = "2026-06-01T09:00:00.000Z";
const msg = (id: string, parentId: string | null, message: Record<string, unknown>): SessionEntry =>
	({ type: "message", id, parentId, timestamp: T, message }) as SessionEntry;

const ENTRIES: FakeEntry[] = [
	{ id: "u1", parent: null, kind: "user", text: "user: one", entry: msg("u1", null, { role: "user", content: "one" }) },
	{
		id: "ce",
		parent: "u1",
		kind: "contextEdit",
		entry: { type: "context_edit", id: "ce", parentId: "u1", timestamp: T, targetId: "u1", replacement: null } as SessionEntry,
	},
	{ id: "rb", parent: "ce", kind: "resetBoundary", entry: { type: "reset_boundary", id: "rb", parentId: "ce", timestamp: T } as SessionEntry },
	{ id: "u2", parent: "rb", kind: "user", text: "user: two", entry: msg("u2", "rb", { role: "user", content: "two" }) },
];

const base = { leafId: "u2", thinkingLevel: "high", model: { provider: "anthropic", modelId: "claude-x" }, compactionId: null, writer: "omp" as const };
const OMP: ContextView = {
	...base,
	rules: "omp",
	totalEstimatedTokens: 1,
	messages: [{ entryId: "u2", message: { role: "user", content: "two" } as never, estimatedTokens: 1 }],
	omp: {
		models: { default: "anthropic/claude-x", smol: "openai/mini" },
		serviceTier: "priority",
		thinkingLevel: "high",
		configuredThinkingLevel: "auto",
		injectedTtsrRules: ["no-any"],
		mode: "plan",
	},
};
const PI: ContextView = {
	...base,
	rules: "pi",
	totalEstimatedTokens: 2,
	messages: [{ entryId: "u2", message: { role: "user", content: "two" } as never, estimatedTokens: 1 }],
};

let view: Rendered | null = null;
afterEach(() => {
	view?.unmount();
	view = null;
});

function client(): FakeClient {
	const c = new FakeClient(ENTRIES, { leaf: "u2" });
	c.on("getCardFacts", ({ indices }) =>
		indices.map((i) => (i === 1 ? { kind: 17, type: "context_edit", text: "", contextEdit: { targetId: "u1", mode: "omit", replacementText: "" } } : null)),
	);
	return c;
}

describe("context panel: whose rules", () => {
	it("an omp file: omp's rules and facts, no pi edit notes; the switch shows pi's and back", async () => {
		const c = client();
		c.on("getContext", (p) => (p.as === "pi" ? PI : OMP));
		const h = await harness(c);
		h.rt.store.getState().select("u2");
		view = await render(<ContextPanel />, h.rt);
		await waitFor(() => view?.byTestId("context-rules"));
		expect(c.callsOf("getContext").at(-1)).toEqual({ sessionId: "s1", leafId: "u2" });
		expect(view.byTestId("context-rules-name")?.textContent).toBe("As omp 18.3 sends it");
		const facts = view.byTestId("context-omp-facts")?.textContent ?? "";
		for (const s of ["default: anthropic/claude-x · smol: openai/mini", "priority", "high (configured auto)", "no-any", "plan"]) expect(facts).toContain(s);
		expect(view.byTestId("context-omitted")).toBeNull();
		await click(view.byTestId("context-rules-switch"));
		await waitFor(() => view?.byTestId("context-rules")?.getAttribute("data-rules") === "pi");
		expect(c.callsOf("getContext").at(-1)).toEqual({ sessionId: "s1", leafId: "u2", as: "pi" });
		expect(view.byTestId("context-rules-name")?.textContent).toBe("As pi 1.6 sends it");
		expect(view.byTestId("context-omp-facts")).toBeNull();
		// pi's rules: the omit edit on the path is listed again.
		await waitFor(() => view?.byTestId("context-omitted"));
		// The choice stays while the selection moves.
		await act(async () => h.rt.store.getState().select("rb"));
		await waitFor(() => c.callsOf("getContext").at(-1)?.leafId === "rb");
		expect(c.callsOf("getContext").at(-1)).toEqual({ sessionId: "s1", leafId: "rb", as: "pi" });
		await waitFor(() => view?.byTestId("context-rules-switch"));
		await click(view.byTestId("context-rules-switch"));
		await waitFor(() => c.callsOf("getContext").at(-1)?.as === "omp");
	});

	it("a pi file: no rules line, the request as before", async () => {
		const c = client();
		c.on("getContext", () => ({ ...PI, writer: "pi" }));
		const h = await harness(c);
		h.rt.store.getState().select("u2");
		view = await render(<ContextPanel />, h.rt);
		await waitFor(() => view?.byTestId("context-total"));
		expect(view.byTestId("context-rules")).toBeNull();
		expect(c.callsOf("getContext").at(-1)).toEqual({ sessionId: "s1", leafId: "u2" });
	});
});
