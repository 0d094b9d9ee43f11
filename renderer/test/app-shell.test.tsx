import { afterEach, describe, expect, it } from "vitest";
import { App } from "../App";
import { SearchBar } from "../panels/SearchBar";
import { FakeClient, makeSummary } from "./fake-client";
import { harness, type Harness } from "./harness";
import { click, render, settle, typeInto, type Rendered } from "./render";

let view: Rendered | null = null;
afterEach(() => {
	view?.unmount();
	view = null;
});

async function mountApp(client: FakeClient): Promise<{ h: Harness; view: Rendered }> {
	const h = await harness(client, { boot: false });
	view = await render(<App runtime={h.rt} />);
	await settle();
	return { h, view };
}

function noSessionClient(recentFiles: string[] = []): FakeClient {
	const client = new FakeClient();
	client.on("getInitialSessions", () => []);
	client.on("listSessions", () => []);
	client.settings = { ...client.settings, recentFiles };
	return client;
}

describe("the window without a session", () => {
	it("leaving the library shows a welcome screen with the recent files, the library and the settings", async () => {
		const { h, view } = await mountApp(noSessionClient(["/home/me/proj/a.jsonl", "/home/me/proj/b.jsonl"]));
		expect(view.byTestId("library")).not.toBeNull();
		await settle(() => h.run("app.escape", { source: "keyboard" }));
		expect(view.byTestId("library")).toBeNull();
		expect(view.byTestId("welcome")).not.toBeNull();
		const recent = view.allByTestId("welcome-recent-item");
		expect(recent.map((b) => b.textContent)).toEqual(["a.jsonl/home/me/proj", "b.jsonl/home/me/proj"]);
		await click(view.byTestId("welcome-settings"));
		expect(view.byTestId("settings-dialog")).not.toBeNull();
		await settle(() => h.run("app.escape", { source: "keyboard" }));
		await click(view.byTestId("welcome-library"));
		expect(view.byTestId("library")).not.toBeNull();
	});

	it("a recent file on the welcome screen opens in one click", async () => {
		const client = noSessionClient(["/home/me/proj/b.jsonl"]);
		const { h, view } = await mountApp(client);
		await settle(() => h.run("app.escape", { source: "keyboard" }));
		await click(view.byTestId("welcome-recent-item"));
		expect(client.callsOf("openSession")).toEqual([{ path: "/home/me/proj/b.jsonl" }]);
		expect(h.rt.store.getState().activeSessionId).toBe("s-opened");
		expect(view.byTestId("welcome")).toBeNull();
	});

	it("Open file… is offered only where there is a native dialog (Electron)", async () => {
		const browser = await mountApp(noSessionClient());
		await settle(() => browser.h.run("app.escape", { source: "keyboard" }));
		expect(browser.view.byTestId("welcome-open-file")).toBeNull();
		expect(browser.view.byTestId("welcome")?.textContent).toContain("arbor serve FILE");
		browser.view.unmount();
		view = null;

		const client = noSessionClient();
		client.host = "electron";
		client.on("showOpenDialog", () => makeSummary("s-picked", { path: "/home/me/picked.jsonl" }));
		const electron = await mountApp(client);
		await settle(() => electron.h.run("app.escape", { source: "keyboard" }));
		await click(electron.view.byTestId("welcome-open-file"));
		expect(electron.h.rt.store.getState().activeSessionId).toBe("s-picked");
	});
});

describe("closing a session", () => {
	it("tells the graph to forget the session's positions, segments and viewport, however it was closed", async () => {
		const client = new FakeClient();
		client.on("getInitialSessions", () => [makeSummary("s1"), makeSummary("s2"), makeSummary("s3")]);
		const { h, view } = await mountApp(client);
		const forgets = () => h.graphCalls.filter((c) => c.startsWith("forget:"));
		expect(view.allByTestId("session-tab")).toHaveLength(3);
		expect(forgets()).toEqual([]);

		// The tab's ×.
		await click(view.allByTestId("session-tab")[2].querySelector('button[title="Close"]'));
		expect(forgets()).toEqual(["forget:s3"]);
		// The Close session command (palette, menu bar).
		await settle(() => h.run("session.close", { source: "menu" }));
		expect(forgets()).toEqual(["forget:s3", "forget:s1"]);
		// The main process closed it.
		await settle(() => client.emit({ type: "session_closed", sessionId: "s2" }));
		expect(forgets()).toEqual(["forget:s3", "forget:s1", "forget:s2"]);
		expect(view.byTestId("welcome")).not.toBeNull();
	});

	it("switching tabs forgets nothing", async () => {
		const client = new FakeClient();
		client.on("getInitialSessions", () => [makeSummary("s1"), makeSummary("s2")]);
		const { h, view } = await mountApp(client);
		await click(view.allByTestId("session-tab")[1].querySelector("button"));
		expect(h.rt.store.getState().activeSessionId).toBe("s2");
		expect(h.graphCalls.filter((c) => c.startsWith("forget:"))).toEqual([]);
	});
});

describe("search count while a search runs", () => {
	it("shows “searching” with the query until the answer, and an older answer never replaces a newer one", async () => {
		const client = new FakeClient();
		const pending = new Map<string, (v: number[]) => void>();
		client.on("search", ({ query }) => new Promise<number[]>((r) => pending.set(query, r)));
		const h = await harness(client);
		view = await render(<SearchBar />, h.rt);
		await typeInto(view.byTestId("search-input"), "left");
		// Before the debounce even sends it, the count already says a search is on its way.
		expect(view.byTestId("search-count")?.textContent).toContain("searching “left”");
		await settle(() => new Promise((r) => setTimeout(r, 200)));
		expect(pending.has("left")).toBe(true);
		expect(view.byTestId("search-count")?.textContent).toContain("searching “left”");

		await typeInto(view.byTestId("search-input"), "right");
		expect(view.byTestId("search-count")?.textContent).toContain("searching “right”");
		await settle(() => new Promise((r) => setTimeout(r, 200)));
		// The selection (the leaf a3, index 5) is the second match.
		await settle(() => pending.get("right")?.([4, 5]));
		expect(view.byTestId("search-count")?.textContent).toBe("2/2");
		// The stale answer for "left" arrives last: ignored.
		await settle(() => pending.get("left")?.([0, 1, 2]));
		expect(h.rt.store.getState().search.matches).toEqual([4, 5]);
		expect(view.byTestId("search-count")?.textContent).toBe("2/2");
	});

	it("clearing the query ends the pending state", async () => {
		const client = new FakeClient();
		client.on("search", () => new Promise<number[]>(() => {}));
		const h = await harness(client);
		view = await render(<SearchBar />, h.rt);
		await typeInto(view.byTestId("search-input"), "x");
		expect(h.rt.store.getState().search.pending).toBe(true);
		await typeInto(view.byTestId("search-input"), "");
		expect(h.rt.store.getState().search.pending).toBe(false);
		expect(view.byTestId("search-count")).toBeNull();
	});
});
