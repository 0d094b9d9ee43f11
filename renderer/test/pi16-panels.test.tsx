// Inspector, context panel and the resume-point banner on pi 1.6 / omp 18.3 entries (jsdom, fake client).
import { afterEach, describe, expect, it } from "vitest";
import type { ContextView, ResumePointInfo } from "../../shared/api";
import type { SessionEntry } from "../../shared/entries";
import { ContextPanel } from "../panels/ContextPanel";
import { Inspector } from "../panels/Inspector";
import { ResumeBanner, resetResumeBannerDismissals } from "../panels/ResumeBanner";
import { FakeClient, type FakeEntry } from "./fake-client";
import { harness } from "./harness";
import { click, render, settle, waitFor, type Rendered } from "./render";

const T = "2026-06-01T09:00:00.000Z";
const msg = (id: string, parentId: string | null, message: Record<string, unknown>): SessionEntry =>
	({ type: "message", id, parentId, timestamp: T, message }) as SessionEntry;

function entries(): FakeEntry[] {
	return [
		{ id: "u1", parent: null, kind: "user", text: "user: Find the flaky test", entry: msg("u1", null, { role: "user", content: "Find the flaky test" }) },
		{
			id: "a1",
			parent: "u1",
			kind: "assistant",
			text: "assistant: It sleeps",
			entry: msg("a1", "u1", { role: "assistant", content: [{ type: "text", text: "It sleeps" }] }),
		},
		{
			id: "sys2",
			parent: "a1",
			kind: "system",
			text: "[system]",
			entry: msg("sys2", "a1", {
				role: "system",
				content: [],
				sections: { style: "Answer in full sentences.", tests: null },
				toolsAdded: [{ name: "grep" }],
				toolsRemoved: [{ name: "ls" }],
			}),
		},
		{
			id: "w1",
			parent: "sys2",
			kind: "usage",
			entry: {
				type: "usage",
				id: "w1",
				parentId: "sys2",
				timestamp: T,
				kind: "cache_warm",
				provider: "p",
				model: "m",
				usage: { totalTokens: 900, cost: { total: 0.0012 } },
			} as SessionEntry,
		},
		{
			id: "ce1",
			parent: "w1",
			kind: "contextEdit",
			entry: { type: "context_edit", id: "ce1", parentId: "w1", timestamp: T, targetId: "u1", replacement: { content: "Find it (edited)" } } as SessionEntry,
		},
		{
			id: "ce2",
			parent: "ce1",
			kind: "contextEdit",
			entry: { type: "context_edit", id: "ce2", parentId: "ce1", timestamp: T, targetId: "a1", replacement: null } as SessionEntry,
		},
		{
			id: "o1",
			parent: "ce2",
			kind: "credentialPin",
			entry: { type: "credential_pin", id: "o1", parentId: "ce2", timestamp: T, provider: "anthropic", hash: "ab12" } as SessionEntry,
		},
		{
			id: "a3",
			parent: "o1",
			kind: "assistant",
			text: "assistant: Two more in the live tests.",
			entry: msg("a3", "o1", { role: "assistant", content: [{ type: "text", text: "Two more in the live tests." }] }),
		},
		{ id: "l1", parent: "a1", kind: "label", text: "[label: diagnosis]" },
	];
}

let view: Rendered | null = null;
afterEach(() => {
	view?.unmount();
	view = null;
	resetResumeBannerDismissals();
});

function client(opts: { leaf?: string } = {}): FakeClient {
	const c = new FakeClient(entries(), { leaf: opts.leaf ?? "a3" });
	c.on("getUsageRollup", () => [{ anchor: 2, lines: 1, tokens: 900, cost: 0.0012 }]);
	c.on("getCardFacts", ({ indices }) =>
		indices.map((i) => (i === 5 ? { kind: 17, type: "context_edit", text: "", contextEdit: { targetId: "a1", mode: "omit", replacementText: "" } } : null)),
	);
	return c;
}

describe("inspector on pi 1.6 / omp entries", () => {
	it("a system patch lists its sections (the removed one marked) and the tools added and removed", async () => {
		const h = await harness(client());
		h.rt.store.getState().select("sys2");
		view = await render(<Inspector />, h.rt);
		await waitFor(() => view?.byTestId("inspector-system"));
		const sections = view.container.querySelectorAll('[data-testid="system-section"]');
		expect([...sections].map((s) => s.querySelector("strong")?.textContent)).toEqual(["style", "tests"]);
		expect(sections[0].textContent).toContain("Answer in full sentences.");
		expect(sections[1].querySelector('[data-testid="system-section-removed"]')).not.toBeNull();
		expect(view.byTestId("system-tools-added")?.textContent).toBe("grep");
		expect(view.byTestId("system-tools-removed")?.textContent).toBe("ls");
		// The cache-warmer line under it is folded in.
		await waitFor(() => view?.byTestId("inspector-usage-rollup"));
		expect(view.byTestId("inspector-usage-rollup")?.textContent).toBe("cache warming: 1 call, $0.0012 (900 tokens)");
	});

	it("a context edit shows its target (clickable), the original text and the edited text or 'omitted'", async () => {
		const h = await harness(client());
		h.rt.store.getState().select("ce1");
		view = await render(<Inspector />, h.rt);
		await waitFor(() => view?.byTestId("context-edit-original")?.textContent === "Find the flaky test");
		expect(view.byTestId("context-edit-new")?.textContent).toBe("Find it (edited)");
		await click(view.byTestId("context-edit-target"));
		expect(h.graphCalls).toContain("reveal:u1");
		await settle(() => h.rt.store.getState().select("ce2"));
		await waitFor(() => view?.byTestId("context-edit-original")?.textContent === "It sleeps");
		expect(view.byTestId("context-edit-new")?.textContent).toBe("omitted");
	});

	it("usage lines and omp records get their own view, never the raw JSON fallback only", async () => {
		const h = await harness(client());
		h.rt.store.getState().select("w1");
		view = await render(<Inspector />, h.rt);
		await waitFor(() => view?.byTestId("inspector-usage-line"));
		expect(view.byTestId("inspector-usage-line")?.textContent).toContain("cache_warm");
		expect(view.byTestId("inspector-usage-line")?.textContent).toContain("$0.0012");
		await settle(() => h.rt.store.getState().select("o1"));
		await waitFor(() => view?.byTestId("inspector-omp"));
		expect(view.byTestId("inspector-omp")?.textContent).toContain("anthropic");
	});
});

describe("context panel with context edits", () => {
	it("tags the replaced message with its edit and lists the omitted target", async () => {
		const c = client();
		const ctx: ContextView = {
			leafId: "a3",
			thinkingLevel: "off",
			model: null,
			compactionId: null,
			totalEstimatedTokens: 10,
			messages: [
				{ entryId: "u1", message: { role: "user", content: "Find it (edited)" } as never, estimatedTokens: 4, contextEditId: "ce1" },
				{ entryId: "sys2", message: { role: "system", content: "", sections: { style: "x" } } as never, estimatedTokens: 1 },
				{ entryId: "a3", message: { role: "assistant", content: [{ type: "text", text: "Two more" }] } as never, estimatedTokens: 5 },
			],
		};
		c.on("getContext", () => ctx);
		const h = await harness(c);
		h.rt.store.getState().select("a3");
		view = await render(<ContextPanel />, h.rt);
		await waitFor(() => view?.byTestId("context-edited-tag"));
		expect(view.byTestId("context-edited-tag")?.textContent).toBe("edited by ce1");
		expect(view.container.querySelector(".role-system")?.textContent).toContain("[1 section]");
		await waitFor(() => view?.byTestId("context-omitted"));
		expect(view.byTestId("context-omitted")?.textContent).toContain("a1 is not sent to the model");
		await click(view.byTestId("context-edited-tag"));
		expect(h.graphCalls).toContain("reveal:ce1");
	});
});

describe("resume-point banner", () => {
	const stale: ResumePointInfo = { resumeLeafId: "l1", anchorId: "l1", newestConversationId: "a3", stale: true, suggestedId: "a3" };

	it("names the newest conversation; Save position saves that entry in one request (no navigate first)", async () => {
		const c = client({ leaf: "l1" });
		c.on("getResumePoint", () => stale);
		c.on("savePosition", () => ({ entryId: "p1" }));
		const h = await harness(c);
		view = await render(<ResumeBanner />, h.rt);
		await waitFor(() => view?.byTestId("resume-banner"));
		expect(view.byTestId("resume-banner")?.textContent).toContain("pi will resume on another branch than your latest conversation");
		expect(view.byTestId("resume-banner-entry")?.textContent).toContain("Two more in the live tests.");
		await click(view.byTestId("resume-banner-save"));
		await waitFor(() => c.callsOf("savePosition").length === 1);
		expect(c.callsOf("savePosition")).toEqual([{ sessionId: "s1", entryId: "a3" }]);
		expect(c.callsOf("navigate")).toEqual([]);
	});

	it("steps aside once the user moved the leaf off the resume point: that leaf is their choice (issue 39)", async () => {
		// The leaf on a1, pi resumes at l1: the status bar's Save position saves a1; the banner would move it back.
		const c = client({ leaf: "a1" });
		c.on("getResumePoint", () => stale);
		const h = await harness(c);
		view = await render(<ResumeBanner />, h.rt);
		await waitFor(() => c.callsOf("getResumePoint").length > 0);
		await settle();
		expect(view.byTestId("resume-banner")).toBeNull();
	});

	it("stays away when the resume point is on the newest conversation's branch, and can be dismissed", async () => {
		const c = client({ leaf: "l1" });
		c.on("getResumePoint", () => ({ ...stale, stale: false, suggestedId: null }));
		const h = await harness(c);
		view = await render(<ResumeBanner />, h.rt);
		await waitFor(() => c.callsOf("getResumePoint").length > 0);
		expect(view.byTestId("resume-banner")).toBeNull();
		view.unmount();
		c.on("getResumePoint", () => stale);
		view = await render(<ResumeBanner />, h.rt);
		await waitFor(() => view?.byTestId("resume-banner"));
		await click(view.byTestId("resume-banner-dismiss"));
		expect(view.byTestId("resume-banner")).toBeNull();
	});
});
