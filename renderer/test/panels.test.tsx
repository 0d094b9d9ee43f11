import { afterEach, describe, expect, it } from "vitest";
import type { ContextView } from "../../shared/api";
import { ContextPanel } from "../panels/ContextPanel";
import { LabelList } from "../panels/LabelList";
import { StatusBar } from "../panels/StatusBar";
import { BRANCHED, FakeClient, makeSummary } from "./fake-client";
import { harness } from "./harness";
import { click, render, settle, waitFor, type Rendered } from "./render";

let view: Rendered | null = null;
afterEach(() => {
	view?.unmount();
	view = null;
});

const CONTEXT: ContextView = {
	leafId: "u2",
	thinkingLevel: "high",
	model: { provider: "anthropic", modelId: "claude-x" },
	compactionId: "c1",
	totalEstimatedTokens: 1234,
	messages: [
		{ entryId: "c1", message: { role: "compactionSummary", summary: "Earlier: set up the repo", tokensBefore: 50000, timestamp: 1 }, estimatedTokens: 200 },
		{ entryId: "a1", message: { role: "assistant", content: [{ type: "text", text: "first answer" }] }, estimatedTokens: 34 },
		{ entryId: "u2", message: { role: "user", content: "try the left way" }, estimatedTokens: 1000 },
	],
};

describe("context panel", () => {
	it("shows what the model sees at the selection, with token estimates, and clicking a message selects its entry", async () => {
		const client = new FakeClient();
		client.on("getContext", () => CONTEXT);
		const h = await harness(client);
		h.rt.store.getState().select("u2");
		view = await render(<ContextPanel />, h.rt);
		await waitFor(() => view?.byTestId("context-total"));
		expect(client.callsOf("getContext").at(-1)).toEqual({ sessionId: "s1", leafId: "u2" });
		expect(view.byTestId("context-total")?.textContent).toContain("1,234");
		const items = view.allByTestId("context-message");
		expect(items.map((li) => li.textContent)).toEqual([
			"compactionSummaryEarlier: set up the repo≈200",
			"assistantfirst answer≈34",
			"usertry the left way≈1,000",
		]);
		expect(view.container.textContent).toContain("compaction c1");
		await click(items[1].querySelector("button"));
		expect(h.rt.store.getState().selectedId).toBe("a1");
		expect(h.graphCalls).toContain("reveal:a1");
	});
});

describe("label list", () => {
	it("lists labels in file order; clicking one selects it; next/previous run the label commands", async () => {
		const h = await harness(new FakeClient(BRANCHED, { labels: { u3: "right", u1: "start" } }));
		view = await render(<LabelList />, h.rt);
		const texts = view.allByTestId("label-item").map((b) => b.textContent ?? "");
		expect(texts).toHaveLength(2);
		expect(texts[0]).toContain("start");
		expect(texts[1]).toContain("right");
		await click(view.allByTestId("label-item")[1]);
		expect(h.rt.store.getState().selectedId).toBe("u3");
		await click(view.byTestId("label-prev"));
		expect(h.rt.store.getState().selectedId).toBe("u1");
	});
});

describe("status bar", () => {
	it("shows the file, entry count, and where pi resumes when it differs from the leaf", async () => {
		const client = new FakeClient(BRANCHED, { leaf: "a2", resumeLeaf: "a3" });
		client.on("getInitialSessions", () => [makeSummary("s1", { warningCount: 2, warnings: [] })]);
		const h = await harness(client);
		view = await render(<StatusBar />, h.rt);
		await settle();
		expect(view.byTestId("status-file")?.textContent).toBe("/tmp/s1.jsonl");
		expect(view.byTestId("status-entries")?.textContent).toBe("6 entries");
		// Entry text, never hex ids; both are buttons that go there.
		expect(view.byTestId("status-go-leaf")?.textContent).toMatch(/^Leaf: assistant/);
		expect(view.byTestId("status-go-resume")?.textContent).toMatch(/^pi resumes at: assistant/);
		expect(view.byTestId("status-leaf")?.textContent).not.toContain("a2");
		expect(view.byTestId("status-warnings")?.textContent).toBe("2 warnings");
		await settle(() => client.emit({ type: "progress", sessionId: "s1", task: "Summarizing", done: 1, total: 4 }));
		expect(view.byTestId("status-progress")?.textContent).toContain("Summarizing 25%");
	});
});
