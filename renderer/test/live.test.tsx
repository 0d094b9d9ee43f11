// Live pi in the app (docs/app.md "Live pi"): the badge, pi's busy refusal with Wait / Stop, Send and Stop
// through pi, streamed messages, and falling back to the file when pi goes away without losing the draft.

import { afterEach, describe, expect, it } from "vitest";
import { ArborRequestError, type LiveSessionInfo, type NavigateResult, type NavigationPreview } from "../../shared/api";
import type { AssistantMessage } from "../../shared/entries";
import type { TryState } from "../../shared/tries";
import { triesRunning } from "../tries/commands";
import { tries } from "../tries/store";
import { App } from "../App";
import { draftOf, leafId } from "../store/selectors";
import { FakeClient, makeDelta, makeSummary } from "./fake-client";
import { harness, type Harness } from "./harness";
import { click, render, settle, typeInto, type Rendered } from "./render";

const LIVE: LiveSessionInfo = {
	pid: 4242,
	agent: "pi",
	agentVersion: "1.6.0",
	extensionVersion: "0.1.0",
	model: { provider: "local", modelId: "arbor-test-model" },
	thinkingLevel: "off",
	status: "idle",
	leafId: "a3",
	sessionFile: "/tmp/s1.jsonl",
	capabilities: ["navigate", "summarize", "fork", "label", "send", "abort", "stream"],
	otherPids: [],
};

const PREVIEW: NavigationPreview = {
	targetId: "a2",
	oldLeafId: "a3",
	commonAncestorId: "a1",
	entriesToSummarize: ["u3", "a3"],
	newLeafId: "a2",
	isNoop: false,
	estimatedTokens: 120,
};

let view: Rendered | null = null;
afterEach(() => {
	view?.unmount();
	view = null;
});

function liveClient(live: LiveSessionInfo | null = LIVE): FakeClient {
	const client = new FakeClient();
	client.on("getInitialSessions", () => [makeSummary("s1", { live })]);
	return client;
}

async function mountApp(client: FakeClient): Promise<{ h: Harness; view: Rendered }> {
	const h = await harness(client, { boot: false });
	view = await render(<App runtime={h.rt} />);
	await settle();
	return { h, view };
}

const assistant = (text: string): AssistantMessage => ({ role: "assistant", content: [{ type: "text", text }] });

describe("live badge", () => {
	it("shows pi's version, pid, model and idle / working, and Stop (by the composer) aborts the turn", async () => {
		const client = liveClient();
		client.on("abort", () => ({ via: "pi", pid: 4242, wasStreaming: true }));
		const { view } = await mountApp(client);
		const badge = view.byTestId("live-badge");
		expect(badge).not.toBeNull();
		expect(badge?.textContent).toContain("pi 1.6.0");
		expect(view.byTestId("live-pid")?.textContent).toBe("pid 4242");
		expect(view.byTestId("live-model")?.textContent).toBe("arbor-test-model");
		expect(view.byTestId("live-state")?.textContent).toBe("idle");
		expect(badge?.getAttribute("aria-label")).toContain("pi 1.6.0 (pid 4242)");
		expect(badge?.getAttribute("aria-label")).toContain("local/arbor-test-model");
		expect(view.byTestId("composer-stop")).toBeNull();
		expect(view.byTestId("composer-target")?.textContent).toBe("Send to pi");
		// The status bar names where the running pi is (its in-memory leaf), not the file's positions.
		expect(view.byTestId("status-go-pi")?.textContent).toContain("right answer");
		expect(view.byTestId("status-save-position")).toBeNull();
		// pi moved: the main process moves the session's leaf to pi's first, then says what pi reports.
		await settle(() => client.emit({ type: "leaf_changed", sessionId: "s1", leafId: "a1", resumeLeafId: "a3" }));
		await settle(() => client.emit({ type: "live_state", sessionId: "s1", live: { ...LIVE, leafId: "a1" } }));
		expect(view.byTestId("status-go-pi")?.textContent).toContain("first answer");

		await settle(() => client.emit({ type: "live_state", sessionId: "s1", live: { ...LIVE, status: "streaming" } }));
		expect(view.byTestId("live-state")?.textContent).toBe("working…");
		expect(view.byTestId("live-badge")?.dataset.status).toBe("streaming");
		expect(view.byTestId("composer-target")?.textContent).toBe("Queue for pi");
		await click(view.byTestId("composer-stop"));
		expect(client.callsOf("abort")).toEqual([{ sessionId: "s1" }]);
	});

	it("is absent in file mode, and Escape while pi works stops its turn", async () => {
		const client = liveClient(null);
		client.on("abort", () => ({ via: "pi", pid: 4242, wasStreaming: true }));
		const { view } = await mountApp(client);
		expect(view.byTestId("live-badge")).toBeNull();
		expect(view.byTestId("composer-target")?.textContent).toBe("s1.jsonl");
		// pi connects while the session is open: announced.
		await settle(() => client.emit({ type: "live_state", sessionId: "s1", live: { ...LIVE, status: "streaming" } }));
		expect(view.byTestId("live-badge")).not.toBeNull();
		await settle(() => window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })));
		expect(client.callsOf("abort")).toEqual([{ sessionId: "s1" }]);
	});
});

describe("navigate while pi is busy", () => {
	function busyClient(): FakeClient {
		const client = liveClient({ ...LIVE, status: "streaming" });
		client.on("previewNavigation", () => PREVIEW);
		client.on("navigate", (p) => {
			if (!p.waitForIdle) throw new ArborRequestError({ code: "busy", message: "pi is streaming a turn" });
			return { cancelled: false, oldLeafId: "a3", newLeafId: "a2", via: "pi", pid: 4242 } satisfies NavigateResult;
		});
		client.on("abort", () => ({ via: "pi", pid: 4242, wasStreaming: true }));
		return client;
	}

	it("says so in plain words; Wait for pi to finish sends the same move with waitForIdle", async () => {
		const client = busyClient();
		const { h, view } = await mountApp(client);
		await settle(() => h.run("navigate.here", { targetId: "a2" }));
		await click(view.byTestId("navigate-no-summary"));
		const busy = view.byTestId("navigate-busy");
		expect(busy?.textContent).toContain("pi is busy with a turn right now");
		expect(busy?.textContent).toContain("Nothing was changed");
		expect(view.byTestId("navigate-wait")?.textContent).toBe("Wait for pi to finish");
		expect(view.byTestId("navigate-stop-turn")?.textContent).toBe("Stop pi's turn");
		await click(view.byTestId("navigate-wait"));
		expect(client.callsOf("navigate")).toEqual([
			{ sessionId: "s1", targetId: "a2", summarize: false },
			{ sessionId: "s1", targetId: "a2", summarize: false, waitForIdle: true },
		]);
		expect(client.callsOf("abort")).toEqual([]);
		expect(view.byTestId("navigate-dialog")).toBeNull();
		expect(h.rt.store.getState().toasts.at(-1)?.message).toContain("pi (pid 4242) moved its leaf");
	});

	it("Stop pi's turn aborts the turn, then moves (a summary request keeps its choice)", async () => {
		const client = busyClient();
		const { h, view } = await mountApp(client);
		await settle(() => h.run("navigate.here", { targetId: "a2" }));
		await click(view.byTestId("navigate-summarize"));
		expect(view.byTestId("navigate-busy")).not.toBeNull();
		await click(view.byTestId("navigate-stop-turn"));
		expect(client.calls.filter((c) => c.name === "abort" || c.name === "navigate").map((c) => c.name)).toEqual(["navigate", "abort", "navigate"]);
		expect(client.callsOf("navigate")[1]).toEqual({ sessionId: "s1", targetId: "a2", summarize: true, waitForIdle: true });
	});
});

describe("send and streaming through pi", () => {
	it("Send runs a turn in pi (not an append), streamed messages are kept until the file has the entry", async () => {
		const client = liveClient();
		client.on("send", () => ({ via: "pi", pid: 4242, outcome: "started", leafId: "a3" }));
		const { h, view } = await mountApp(client);
		const st = h.rt.store.getState;
		await typeInto(view.byTestId("composer"), "run the tests");
		await click(view.byTestId("composer-send"));
		expect(client.callsOf("send")).toEqual([{ sessionId: "s1", text: "run the tests", wait: "start" }]);
		expect(client.callsOf("appendUserMessage")).toEqual([]);
		expect(draftOf(st())).toBe("");

		// pi appended the user message, then streams its answer under it.
		const sk = st().sessions.s1.skeleton!;
		await settle(() => client.emit({ type: "session_appended", sessionId: "s1", delta: makeDelta(sk, [{ id: "u4", parent: "a3", kind: "user" }]) }));
		await settle(() => client.emit({ type: "live_stream", sessionId: "s1", phase: "start", key: "0:0", parentId: "u4", message: assistant("") }));
		await settle(() => client.emit({ type: "live_stream", sessionId: "s1", phase: "update", key: "0:0", parentId: "u4", message: assistant("All 12 tests") }));
		expect(st().live.s1.streams.map((x) => [x.key, x.done, x.message.content])).toEqual([["0:0", false, [{ type: "text", text: "All 12 tests" }]]]);
		await settle(() =>
			client.emit({ type: "live_stream", sessionId: "s1", phase: "end", key: "0:0", parentId: "u4", message: assistant("All 12 tests pass.") }),
		);
		// Ended but not in the file yet: still drawn.
		expect(st().live.s1.streams).toHaveLength(1);
		const sk2 = st().sessions.s1.skeleton!;
		await settle(() => client.emit({ type: "session_appended", sessionId: "s1", delta: makeDelta(sk2, [{ id: "a4", parent: "u4", kind: "assistant" }]) }));
		expect(st().live.s1.streams).toEqual([]);
	});

	it("live, one leaf: pi's badge sits on the skeleton's leaf (the main process keeps it on pi's), never on a second card", async () => {
		const client = liveClient({ ...LIVE, status: "streaming" });
		const { h, view } = await mountApp(client);
		const st = h.rt.store.getState;
		const sk = st().sessions.s1.skeleton!;
		await settle(() => client.emit({ type: "session_appended", sessionId: "s1", delta: makeDelta(sk, [{ id: "u4", parent: "a3", kind: "user" }]) }));
		await settle(() => client.emit({ type: "leaf_changed", sessionId: "s1", leafId: "u4", resumeLeafId: "u4" }));
		// pi's state still names the leaf it reported before the turn: the drawn leaf is the session's one leaf.
		expect(st().live.s1.state.leafId).toBe("a3");
		expect(leafId(st().sessions.s1.skeleton!)).toBe("u4");
		const badges = [...view.container.querySelectorAll('[data-testid="pi-leaf-badge"]')];
		expect(badges.map((b) => b.closest("[data-id]")?.getAttribute("data-id"))).toEqual(["u4"]);
		expect(view.container.querySelectorAll('[data-testid="leaf-badge"]')).toHaveLength(0);
	});

	it("streams pi never wrote go: unfinished ones when the turn ends, finished ones when the next turn starts", async () => {
		const client = liveClient({ ...LIVE, status: "streaming" });
		const { h } = await mountApp(client);
		const st = h.rt.store.getState;
		await settle(() => client.emit({ type: "live_stream", sessionId: "s1", phase: "update", key: "0:0", parentId: "a3", message: assistant("half") }));
		await settle(() => client.emit({ type: "live_stream", sessionId: "s1", phase: "end", key: "0:1", parentId: "a3", message: assistant("whole") }));
		expect(st().live.s1.streams.map((x) => x.key)).toEqual(["0:0", "0:1"]);
		await settle(() => client.emit({ type: "live_state", sessionId: "s1", live: LIVE }));
		expect(st().live.s1.streams.map((x) => x.key)).toEqual(["0:1"]);
		await settle(() => client.emit({ type: "live_state", sessionId: "s1", live: { ...LIVE, status: "streaming" } }));
		expect(st().live.s1.streams).toEqual([]);
	});

	it("when pi goes away the session falls back to the file, says so, and the draft is kept", async () => {
		const client = liveClient();
		client.on("appendUserMessage", () => ({ entryId: "u9" }));
		const { h, view } = await mountApp(client);
		const st = h.rt.store.getState;
		await typeInto(view.byTestId("composer"), "half-written thought");
		await settle(() => client.emit({ type: "live_stream", sessionId: "s1", phase: "update", key: "0:0", parentId: "a3", message: assistant("partial") }));
		await settle(() => client.emit({ type: "live_state", sessionId: "s1", live: null, reason: "pi exited" }));
		expect(view.byTestId("live-badge")).toBeNull();
		expect(st().live.s1).toBeUndefined();
		const toast = st().toasts.at(-1);
		expect(toast?.level).toBe("info");
		expect(toast?.message).toBe("pi (pid 4242) is no longer connected: pi exited. Arbor works on the file again. Your draft is kept.");
		// A reason that already says so is not repeated.
		await settle(() => client.emit({ type: "live_state", sessionId: "s1", live: LIVE }));
		await settle(() => client.emit({ type: "live_state", sessionId: "s1", live: null, reason: "pi 4242 closed the connection: Arbor acts on the file" }));
		expect(st().toasts.at(-1)?.message).toBe("pi (pid 4242) closed the connection: Arbor acts on the file. Your draft is kept.");
		expect(st().toasts.some((t) => t.level === "error")).toBe(false);
		expect((view.byTestId("composer") as HTMLTextAreaElement).value).toBe("half-written thought");
		expect(view.byTestId("composer-target")?.textContent).toBe("s1.jsonl");
		// Send now appends to the file, as without pi.
		await click(view.byTestId("composer-send"));
		expect(client.callsOf("appendUserMessage")).toEqual([{ sessionId: "s1", text: "half-written thought" }]);
		expect(client.callsOf("send")).toEqual([]);
	});

	it("a send that finds pi gone keeps the message in the composer and says how to append it", async () => {
		const client = liveClient();
		client.on("send", () => {
			throw new ArborRequestError({ code: "no_live_agent", message: "no live agent holds /tmp/s1.jsonl" });
		});
		const { h, view } = await mountApp(client);
		await typeInto(view.byTestId("composer"), "are you there?");
		await click(view.byTestId("composer-send"));
		expect((view.byTestId("composer") as HTMLTextAreaElement).value).toBe("are you there?");
		expect(h.rt.store.getState().toasts.at(-1)?.message).toContain("still in the composer");
	});
});

describe("the host stops (issue 38: the page kept 'Live' and running tries with Stop buttons)", () => {
	const running = (index: number, status: "running" | "done"): TryState => ({
		index,
		sessionFile: `/tmp/try-${index}.jsonl`,
		worktree: `/tmp/wt-${index}`,
		cwd: `/tmp/wt-${index}`,
		prompt: "fix it",
		model: null,
		thinking: null,
		status,
		message: null,
		tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, total: 2 },
		cost: 0,
		startedAt: 1,
		endedAt: status === "done" ? 2 : null,
		files: null,
	});
	afterEach(() => tries.getState().clear());

	it("drops every live badge and every Stop, says the tries' state is unknown, and tells how to start a host again", async () => {
		const { h, view } = await mountApp(liveClient());
		tries
			.getState()
			.started({ runId: "r1", source: "/tmp/s1.jsonl", entryId: "a2", readOnly: false, tries: [running(0, "running"), running(1, "done")], finished: false });
		await settle();
		expect(view.byTestId("live-badge")).toBeTruthy();
		expect(view.byTestId("try-stop-1")).toBeTruthy();
		expect(view.byTestId("tries-stop-all")).toBeTruthy();
		h.client.emit({ type: "host_lost", message: "Lost the connection to Arbor's host: it stopped. Type /arbor in pi again." });
		await settle();
		expect(view.byTestId("live-badge")).toBeNull();
		expect(view.byTestId("try-stop-1")).toBeNull();
		expect(view.byTestId("tries-stop-all")).toBeNull();
		expect(view.byTestId("try-status-1")?.textContent).toBe("unknown");
		// A try that had ended says so still.
		expect(view.byTestId("try-status-2")?.textContent).toBe("done");
		expect(view.byTestId("tries-host-lost")?.textContent).toContain("state is unknown");
		expect(
			h.rt.store
				.getState()
				.toasts.map((t) => t.message)
				.join("\n"),
		).toContain("/arbor in pi again");
		// Escape no longer tries to stop what cannot be reached.
		expect(triesRunning()).toBe(false);
	});

	it("a new run after a new host clears the notice", async () => {
		await mountApp(liveClient(null));
		tries.getState().hostLost();
		tries.getState().started({ runId: "r2", source: "/tmp/s1.jsonl", entryId: "a2", readOnly: false, tries: [running(0, "running")], finished: false });
		expect(tries.getState().lost).toBe(false);
		expect(triesRunning()).toBe(true);
	});
});
