import { afterEach, describe, expect, it } from "vitest";
import { ArborRequestError, type NavigateResult, type NavigationPreview } from "../../shared/api";
import { App } from "../App";
import { draftOf } from "../store/selectors";
import { FakeClient } from "./fake-client";
import { harness, type Harness } from "./harness";
import { click, render, settle, typeInto, type Rendered } from "./render";

const PREVIEW: NavigationPreview = {
	targetId: "u2",
	oldLeafId: "a3",
	commonAncestorId: "a1",
	entriesToSummarize: ["u3", "a3"],
	newLeafId: "a1",
	editorText: "try the left way",
	isNoop: false,
	estimatedTokens: 420,
};

function deferred<T>(): { promise: Promise<T>; resolve(v: T): void; reject(e: unknown): void } {
	let resolve!: (v: T) => void;
	let reject!: (e: unknown) => void;
	const promise = new Promise<T>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}

let view: Rendered | null = null;
afterEach(() => {
	view?.unmount();
	view = null;
});

async function mountApp(client: FakeClient): Promise<{ h: Harness; view: Rendered }> {
	// harness() does not start the runtime; App does (events, keyboard, boot).
	const h = await harness(client, { boot: false });
	view = await render(<App runtime={h.rt} />);
	await settle();
	return { h, view };
}

describe("navigate dialog", () => {
	it("shows what would be summarized, highlights it, streams the summary, and Escape cancels with nothing changed", async () => {
		const client = new FakeClient();
		client.on("previewNavigation", () => PREVIEW);
		const nav = deferred<NavigateResult>();
		client.on("navigate", () => nav.promise);
		client.on("cancel", () => {
			nav.resolve({ cancelled: true, reason: "aborted", newLeafId: null, oldLeafId: "a3" });
		});
		const { h, view } = await mountApp(client);
		const st = h.rt.store.getState;
		expect(view.byTestId("status-bar")).not.toBeNull();

		await settle(() => h.run("navigate.here", { targetId: "u2" }));
		expect(view.byTestId("navigate-dialog")).not.toBeNull();
		expect(view.byTestId("navigate-preview")?.textContent).toContain("2");
		expect(view.byTestId("navigate-preview")?.textContent).toContain("420");
		expect([...(st().abandoned ?? [])]).toEqual(["u3", "a3"]);

		await click(view.byTestId("navigate-summarize"));
		expect(client.callsOf("navigate")).toEqual([{ sessionId: "s1", targetId: "u2", summarize: true }]);
		expect(view.byTestId("navigate-progress")).not.toBeNull();
		await settle(() => {
			client.emit({ type: "summary_progress", sessionId: "s1", phase: "start", text: "" });
			client.emit({ type: "summary_progress", sessionId: "s1", phase: "delta", text: "The user tried " });
			client.emit({ type: "summary_progress", sessionId: "s1", phase: "delta", text: "the right way." });
		});
		expect(view.byTestId("navigate-summary-text")?.textContent).toBe("The user tried the right way.");

		await settle(() => window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })));
		expect(client.callsOf("cancel")).toEqual([{ sessionId: "s1" }]);
		await settle();
		expect(view.byTestId("navigate-dialog")).toBeNull();
		expect(st().abandoned).toBeNull();
		expect(draftOf(st())).toBe("");
		expect(st().toasts.at(-1)?.message).toContain("nothing changed");
		// The leaf only changes through leaf_changed events; none came.
		expect(st().sessions.s1.skeleton?.leaf).toBe(5);
	});

	it("No summary navigates and prefills the composer with the user message's text", async () => {
		const client = new FakeClient();
		client.on("previewNavigation", () => PREVIEW);
		client.on("navigate", () => ({ cancelled: false, newLeafId: "a1", oldLeafId: "a3", editorText: "try the left way" }));
		const { h, view } = await mountApp(client);
		await settle(() => h.run("navigate.here", { targetId: "u2" }));
		await click(view.byTestId("navigate-no-summary"));
		expect(client.callsOf("navigate")).toEqual([{ sessionId: "s1", targetId: "u2", summarize: false }]);
		expect(view.byTestId("navigate-dialog")).toBeNull();
		expect((view.byTestId("composer") as HTMLTextAreaElement).value).toBe("try the left way");
		await settle(() => client.emit({ type: "leaf_changed", sessionId: "s1", leafId: "a1", resumeLeafId: "a3" }));
		expect(view.byTestId("status-leaf")?.textContent).toContain("pi resumes at: assistant");
		expect(view.byTestId("status-save-position")).not.toBeNull();
	});

	it("custom prompt sends the instructions and the replace flag", async () => {
		const client = new FakeClient();
		client.on("previewNavigation", () => PREVIEW);
		client.on("navigate", () => ({ cancelled: false, newLeafId: "a1", oldLeafId: "a3" }));
		const { h, view } = await mountApp(client);
		await settle(() => h.run("navigate.here", { targetId: "u2" }));
		await click(view.byTestId("navigate-custom"));
		await typeInto(view.byTestId("navigate-custom-prompt"), "Focus on the API decisions");
		await click(view.byTestId("navigate-replace-prompt"));
		await click(view.byTestId("navigate-custom-submit"));
		expect(client.callsOf("navigate")).toEqual([
			{ sessionId: "s1", targetId: "u2", summarize: true, customInstructions: "Focus on the API decisions", replaceInstructions: true },
		]);
	});

	it("a summary error (no model) is shown plainly in the dialog", async () => {
		const client = new FakeClient();
		client.on("previewNavigation", () => PREVIEW);
		client.on("navigate", () => {
			throw new ArborRequestError({ code: "no_model", message: "No model configured: set one in Arbor settings or pi's settings.json" });
		});
		const { h, view } = await mountApp(client);
		await settle(() => h.run("navigate.here", { targetId: "u2" }));
		await click(view.byTestId("navigate-summarize"));
		expect(view.byTestId("navigate-error")?.textContent).toContain("No model configured");
		await click(view.byTestId("navigate-close"));
		expect(view.byTestId("navigate-dialog")).toBeNull();
	});

	it("a summary_progress error replaces the stream with the error", async () => {
		const client = new FakeClient();
		client.on("previewNavigation", () => PREVIEW);
		client.on("navigate", () => new Promise<NavigateResult>(() => {}));
		const { h, view } = await mountApp(client);
		await settle(() => h.run("navigate.here", { targetId: "u2" }));
		await click(view.byTestId("navigate-summarize"));
		await settle(() => client.emit({ type: "summary_progress", sessionId: "s1", phase: "error", text: "HTTP 500 from http://127.0.0.1:9/v1" }));
		expect(view.byTestId("navigate-error")?.textContent).toBe("HTTP 500 from http://127.0.0.1:9/v1");
	});

	it("with pi's branchSummary.skipPrompt the navigation runs at once without a summary", async () => {
		const client = new FakeClient();
		client.settings = { ...client.settings, skipSummaryPrompt: true };
		client.on("previewNavigation", () => PREVIEW);
		client.on("navigate", () => ({ cancelled: false, newLeafId: "a1", oldLeafId: "a3" }));
		const { h } = await mountApp(client);
		await settle(() => h.run("navigate.here", { targetId: "u2" }));
		expect(client.callsOf("navigate")).toEqual([{ sessionId: "s1", targetId: "u2", summarize: false }]);
		expect(h.rt.store.getState().dialog).toBeNull();
	});

	it("a preview that says no-op closes with 'Already at this point'", async () => {
		const client = new FakeClient();
		client.on("previewNavigation", () => ({ ...PREVIEW, isNoop: true, entriesToSummarize: [] }));
		const { h } = await mountApp(client);
		await settle(() => h.run("navigate.here", { targetId: "a1" }));
		expect(h.rt.store.getState().dialog).toBeNull();
		expect(h.rt.store.getState().toasts.at(-1)?.message).toBe("Already at this point");
	});
});

describe("the rest of the app shell", () => {
	it("right-click menu lists the registry's commands and runs them on that entry", async () => {
		const client = new FakeClient();
		client.on("branchToFile", () => ({ cancelled: false, path: "/tmp/b.jsonl", editorText: "try the left way", session: null }));
		const { h, view } = await mountApp(client);
		await settle(() => h.rt.store.getState().openContextMenu({ entryId: "u2", x: 10, y: 10 }));
		expect(view.byTestId("context-menu")).not.toBeNull();
		await click(view.byTestId("menu-item-branch.toFile"));
		expect(client.callsOf("branchToFile")).toEqual([{ sessionId: "s1", entryId: "u2" }]);
		expect(view.byTestId("context-menu")).toBeNull();
		expect((view.byTestId("composer") as HTMLTextAreaElement).value).toBe("try the left way");
	});

	it("the composer appends a user message and clears itself", async () => {
		const client = new FakeClient();
		client.on("appendUserMessage", () => ({ entryId: "u9" }));
		const { view } = await mountApp(client);
		await typeInto(view.byTestId("composer"), "next question");
		await click(view.byTestId("composer-send"));
		expect(client.callsOf("appendUserMessage")).toEqual([{ sessionId: "s1", text: "next question" }]);
		expect((view.byTestId("composer") as HTMLTextAreaElement).value).toBe("");
	});

	it("the palette finds /branch and runs it", async () => {
		const { view } = await mountApp(new FakeClient());
		await settle(() => window.dispatchEvent(new KeyboardEvent("keydown", { key: "k", ctrlKey: true, bubbles: true })));
		expect(view.byTestId("command-palette")).not.toBeNull();
		await typeInto(view.byTestId("palette-input"), "/branch");
		await click(view.byTestId("palette-item-pi.branch"));
		expect(view.byTestId("branch-list")).not.toBeNull();
		expect(view.allByTestId("branch-list-item").map((b) => b.textContent)).toEqual([
			"user: try the right way",
			"user: try the left way",
			"user: first question",
		]);
	});

	it("the filter buttons and the search bar drive the store", async () => {
		const client = new FakeClient();
		client.on("search", ({ query }) => (query === "way" ? [2, 4] : []));
		const { h, view } = await mountApp(client);
		await click(view.byTestId("filter-user-only"));
		expect(h.rt.store.getState().filter).toBe("user-only");
		expect(view.byTestId("filter-user-only")?.getAttribute("aria-pressed")).toBe("true");
		await typeInto(view.byTestId("search-input"), "way");
		await settle(() => new Promise((r) => setTimeout(r, 200)));
		expect(client.callsOf("search").at(-1)).toEqual({ sessionId: "s1", query: "way", scope: "pi" });
		expect(view.byTestId("search-count")?.textContent).toContain("/2");
		await click(view.byTestId("search-scope-full"));
		expect(client.callsOf("search").at(-1)?.scope).toBe("full");
	});

	it("a legacy file shows the upgrade banner, which runs upgradeLegacy", async () => {
		const client = new FakeClient();
		client.on("getInitialSessions", () => [
			{
				.../* v2 file */ {
					sessionId: "s1",
					path: "/tmp/old.jsonl",
					header: { type: "session", id: "s1" },
					fileVersion: 2,
					needsUpgrade: true,
					title: null,
					warnings: [{ line: 3, kind: "malformed_line", message: "not JSON" }],
					warningCount: 1,
					fileSize: 9,
				},
			},
		]);
		client.on("upgradeLegacy", () => ({ backupPath: "/tmp/old.jsonl.bak" }));
		const { view } = await mountApp(client);
		expect(view.byTestId("upgrade-banner")?.textContent).toContain("v2");
		await click(view.byTestId("upgrade-button"));
		expect(client.callsOf("upgradeLegacy")).toEqual([{ sessionId: "s1" }]);
		expect(view.byTestId("upgrade-banner")).toBeNull();
		await click(view.byTestId("status-warnings"));
		expect(view.byTestId("warnings-dialog")?.textContent).toContain("line 3");
	});
});
