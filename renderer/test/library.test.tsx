import { afterEach, describe, expect, it } from "vitest";
import type { SessionListItem, SessionSummary } from "../../shared/api";
import { groupSessions, Library } from "../dialogs/Library";
import { FakeClient, flush, makeSummary } from "./fake-client";
import { harness } from "./harness";
import { click, render, settle, typeInto, type Rendered } from "./render";

const item = (path: string, project: string, modifiedMs: number, extra: Partial<SessionListItem> = {}): SessionListItem => ({
	path,
	project,
	source: "pi",
	sessionId: null,
	title: null,
	firstUserMessage: null,
	mtimeMs: modifiedMs,
	modifiedMs,
	size: 100,
	entryCount: 3,
	entryCountExact: true,
	...extra,
});

const LIST = [
	item("/s/a-old.jsonl", "/work/a", 1000, { firstUserMessage: "fix the parser" }),
	item("/s/b.jsonl", "/work/b", 5000, { title: "Refactor tests" }),
	item("/s/a-new.jsonl", "/work/a", 3000, { firstUserMessage: "add a flag" }),
];

let view: Rendered | null = null;
afterEach(() => {
	view?.unmount();
	view = null;
});

describe("session library", () => {
	it("groups by project, newest project first, newest session first", () => {
		const groups = groupSessions(LIST, "");
		expect(groups.map((g) => g.project)).toEqual(["/work/b", "/work/a"]);
		expect(groups[1].items.map((i) => i.path)).toEqual(["/s/a-new.jsonl", "/s/a-old.jsonl"]);
	});

	it("orders by the last conversation (pi's modified), not the file's mtime", () => {
		// a-old got a label just now (newest mtime); its conversation is still the oldest.
		const list = [item("/s/a-old.jsonl", "/work/a", 1000, { mtimeMs: 9000 }), item("/s/a-new.jsonl", "/work/a", 3000, { mtimeMs: 2000 })];
		expect(groupSessions(list, "")[0].items.map((i) => i.path)).toEqual(["/s/a-new.jsonl", "/s/a-old.jsonl"]);
	});

	it("search keeps sessions whose project, title, first message or path has every word", () => {
		expect(groupSessions(LIST, "parser fix").flatMap((g) => g.items.map((i) => i.path))).toEqual(["/s/a-old.jsonl"]);
		expect(groupSessions(LIST, "work/b")).toHaveLength(1);
		expect(groupSessions(LIST, "nothing-like-this")).toHaveLength(0);
	});

	it("clicking a session opens it, remembers it as recent and closes the library", async () => {
		const client = new FakeClient();
		client.on("getInitialSessions", () => []);
		client.on("listSessions", () => LIST);
		const h = await harness(client);
		expect(h.rt.store.getState().dialog).toEqual({ kind: "library" });
		view = await render(<Library />, h.rt);
		await settle();
		expect(view.allByTestId("library-project")).toHaveLength(2);
		await typeInto(view.byTestId("library-search"), "flag");
		expect(view.allByTestId("library-item")).toHaveLength(1);
		await click(view.byTestId("library-item"));
		expect(client.callsOf("openSession")).toEqual([{ path: "/s/a-new.jsonl" }]);
		const st = h.rt.store.getState();
		expect(st.activeSessionId).toBe("s-opened");
		expect(st.dialog).toBeNull();
		expect(st.settings?.recentFiles).toEqual(["/s/a-new.jsonl"]);
	});

	it("a file that fails to open is reported with the path, and the library stays", async () => {
		const client = new FakeClient();
		client.on("getInitialSessions", () => []);
		client.on("listSessions", () => LIST);
		client.on("openSession", () => {
			throw new Error("not a session file (line 1 is not JSON)");
		});
		const h = await harness(client);
		view = await render(<Library />, h.rt);
		await settle();
		await click(view.byTestId("library-item"));
		expect(h.rt.store.getState().toasts.at(-1)?.message).toBe("Could not open /s/b.jsonl: not a session file (line 1 is not JSON)");
		expect(h.rt.store.getState().dialog).toEqual({ kind: "library" });
	});
});

describe("dropping a file", () => {
	const file = (name: string): File => new File(["{}"], name);

	it("refuses files that are not .jsonl", async () => {
		const h = await harness();
		await h.rt.openDropped(file("notes.txt"));
		expect(h.rt.store.getState().toasts.at(-1)?.message).toContain("not a session file");
	});

	it("explains that a browser page cannot open a dropped file by path", async () => {
		const h = await harness();
		await h.rt.openDropped(file("s.jsonl"));
		expect(h.rt.store.getState().toasts.at(-1)?.message).toContain("cannot learn where a dropped file lives");
	});

	it("opens the file through the Electron client's openDroppedFile", async () => {
		const client = new FakeClient() as FakeClient & { openDroppedFile(f: File): Promise<SessionSummary> };
		const dropped: string[] = [];
		client.openDroppedFile = async (f) => {
			dropped.push(f.name);
			return makeSummary("s-drop", { path: "/home/me/s.jsonl" });
		};
		const h = await harness(client);
		await h.rt.openDropped(file("s.jsonl"));
		await flush();
		expect(dropped).toEqual(["s.jsonl"]);
		expect(h.rt.store.getState().activeSessionId).toBe("s-drop");
		expect(h.rt.store.getState().settings?.recentFiles[0]).toBe("/home/me/s.jsonl");
	});
});
