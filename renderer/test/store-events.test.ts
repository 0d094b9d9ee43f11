import { describe, expect, it } from "vitest";
import { ArborRequestError } from "../../shared/api";
import { activeSkeleton, selectTreeView } from "../store/selectors";
import { FakeClient, flush, makeDelta, makeSkeleton, makeSummary, BRANCHED } from "./fake-client";
import { harness } from "./harness";
import type { TabStorage } from "../kept-tabs";

describe("boot", () => {
	it("opens the host's initial sessions and selects the leaf", async () => {
		const h = await harness();
		const st = h.rt.store.getState();
		expect(st.activeSessionId).toBe("s1");
		expect(activeSkeleton(st)?.count).toBe(6);
		expect(st.selectedId).toBe("a3");
		expect(st.booting).toBe(false);
	});

	it("shows the session library when the host opened nothing", async () => {
		const client = new FakeClient();
		client.on("getInitialSessions", () => []);
		const h = await harness(client);
		expect(h.rt.store.getState().dialog).toEqual({ kind: "library" });
		expect(h.rt.store.getState().activeSessionId).toBeNull();
	});

	it("starts with pi's treeFilterMode setting", async () => {
		const client = new FakeClient();
		client.settings = { ...client.settings, treeFilterMode: "no-tools" };
		const h = await harness(client);
		expect(h.rt.store.getState().filter).toBe("no-tools");
	});
});

describe("events are the only source of skeleton changes", () => {
	it("session_appended applies the delta to the skeleton", async () => {
		const h = await harness();
		const sk = activeSkeleton(h.rt.store.getState())!;
		h.client.emit({ type: "session_appended", sessionId: "s1", delta: makeDelta(sk, [{ id: "u4", parent: "a3", kind: "user" }]) });
		const next = activeSkeleton(h.rt.store.getState())!;
		expect(next.count).toBe(7);
		expect(next.ids[6]).toBe("u4");
		expect(next.parent[6]).toBe(5);
		expect(next.leaf).toBe(6);
	});

	it("a delta that does not continue our copy makes the store refetch the skeleton", async () => {
		const h = await harness();
		const sk = activeSkeleton(h.rt.store.getState())!;
		const before = h.client.callsOf("getSkeleton").length;
		const delta = { ...makeDelta(sk, [{ id: "x", parent: null, kind: "user" }]), start: 99 };
		h.client.emit({ type: "session_appended", sessionId: "s1", delta });
		await flush();
		expect(h.client.callsOf("getSkeleton").length).toBe(before + 1);
		expect(activeSkeleton(h.rt.store.getState())!.count).toBe(6);
	});

	it("an append keeps the selection where it was (live tail does not steal it)", async () => {
		const h = await harness();
		h.rt.store.getState().select("u2");
		const sk = activeSkeleton(h.rt.store.getState())!;
		h.client.emit({ type: "session_appended", sessionId: "s1", delta: makeDelta(sk, [{ id: "u4", parent: "a3", kind: "user" }]) });
		expect(h.rt.store.getState().selectedId).toBe("u2");
	});

	it("leaf_changed moves the leaf and the resume point", async () => {
		const h = await harness();
		h.client.emit({ type: "leaf_changed", sessionId: "s1", leafId: "a2", resumeLeafId: "a3" });
		const sk = activeSkeleton(h.rt.store.getState())!;
		expect(sk.leaf).toBe(3);
		expect(sk.resumeLeaf).toBe(5);
		h.client.emit({ type: "leaf_changed", sessionId: "s1", leafId: null, resumeLeafId: "a3" });
		expect(activeSkeleton(h.rt.store.getState())!.leaf).toBe(-1);
	});

	it("labels_changed refetches the skeleton and picks up the new labels", async () => {
		const h = await harness();
		h.client.skeleton = makeSkeleton(BRANCHED, { labels: { u2: "left" } });
		h.client.emit({ type: "labels_changed", sessionId: "s1" });
		await flush();
		expect(activeSkeleton(h.rt.store.getState())!.labels).toEqual([expect.objectContaining({ target: 2, label: "left" })]);
	});

	it("session_reloaded refetches, drops cached previews and keeps the selection or its nearest visible ancestor", async () => {
		const h = await harness();
		await h.rt.store.getState().ensurePreviews("s1", [0, 1]);
		h.rt.store.getState().select("a2");
		h.client.skeleton = makeSkeleton(BRANCHED.slice(0, 3));
		h.client.emit({ type: "session_reloaded", sessionId: "s1", session: makeSummary("s1", { fileSize: 10 }), reason: "file shrank" });
		await flush();
		const st = h.rt.store.getState();
		expect(activeSkeleton(st)!.count).toBe(3);
		expect(st.previews.s1).toBeUndefined();
		expect(st.sessions.s1.summary.fileSize).toBe(10);
		// a2 is gone: the selection falls back to pi's opening row (the leaf, u2).
		expect(st.selectedId).toBe("u2");
	});

	it("error events and request failures show as error toasts with file and line", async () => {
		const h = await harness();
		h.client.emit({ type: "error", sessionId: "s1", error: { code: "bad_file", message: "malformed line", file: "/tmp/s1.jsonl", line: 12 } });
		expect(h.rt.store.getState().toasts.at(-1)).toMatchObject({ level: "error", message: "malformed line", file: "/tmp/s1.jsonl", line: 12 });
		h.rt.store.getState().reportError(new ArborRequestError({ code: "io", message: "EACCES", file: "/x.jsonl" }));
		expect(h.rt.store.getState().toasts.at(-1)).toMatchObject({ message: "EACCES", file: "/x.jsonl" });
	});

	it("progress events show while running and disappear when done", async () => {
		const h = await harness();
		h.client.emit({ type: "progress", sessionId: null, task: "Opening big.jsonl", done: 10, total: 100 });
		expect(Object.keys(h.rt.store.getState().progress)).toEqual(["Opening big.jsonl"]);
		h.client.emit({ type: "progress", sessionId: null, task: "Opening big.jsonl", done: 100, total: 100 });
		expect(h.rt.store.getState().progress).toEqual({});
	});

	it("session_loaded (Open Recent in the menu bar) adds the session as the active tab", async () => {
		const h = await harness();
		h.client.emit({ type: "session_loaded", session: makeSummary("s9") });
		await flush();
		expect(h.rt.store.getState().order).toEqual(["s1", "s9"]);
		expect(h.rt.store.getState().activeSessionId).toBe("s9");
	});

	it("session_closed removes the tab", async () => {
		const h = await harness();
		h.client.emit({ type: "session_closed", sessionId: "s1" });
		expect(h.rt.store.getState().activeSessionId).toBeNull();
		expect(h.rt.store.getState().order).toEqual([]);
	});
});

describe("search", () => {
	it("asks the main process with the chosen scope and keeps only the latest answer", async () => {
		const client = new FakeClient();
		const resolvers: ((v: number[]) => void)[] = [];
		client.on("search", () => new Promise<number[]>((r) => resolvers.push(r)));
		const h = await harness(client);
		const st = h.rt.store.getState;
		st().setSearchQuery("left");
		const first = st().runSearch();
		st().setSearchScope("full");
		const second = st().runSearch();
		expect(client.callsOf("search").map((c) => c.scope)).toContain("full");
		resolvers[resolvers.length - 1]([2]);
		await second;
		resolvers[0]([0, 1, 2, 3]);
		await first;
		expect(st().search.matches).toEqual([2]);
	});

	it("asks again once when the main process stopped the query for a newer one from elsewhere", async () => {
		const client = new FakeClient();
		let calls = 0;
		client.on("search", () => {
			calls++;
			if (calls === 1) throw new ArborRequestError({ code: "cancelled", message: "search superseded by a newer query (or the session was closed)" });
			return [1];
		});
		const h = await harness(client);
		const st = h.rt.store.getState;
		st().setSearchQuery("left");
		await st().runSearch();
		expect(st().search).toMatchObject({ matches: [1], pending: false, error: null });
		// Twice in a row: the second refusal is shown, not retried forever.
		calls = 0;
		client.on("search", () => {
			calls++;
			throw new ArborRequestError({ code: "cancelled", message: "search superseded" });
		});
		await st().runSearch();
		expect(calls).toBe(2);
		expect(st().search.error).toMatch(/superseded/);
	});

	it("an empty query clears the matches without asking", async () => {
		const h = await harness();
		h.rt.store.getState().setSearchQuery("   ");
		await flush();
		expect(h.client.callsOf("search")).toHaveLength(0);
		expect(h.rt.store.getState().search.matches).toEqual([]);
	});

	it("a filter change clears folds (pi)", async () => {
		const h = await harness();
		h.rt.store.getState().setFolded("u2", true);
		h.rt.store.getState().setFilter("no-tools");
		expect(h.rt.store.getState().folded.size).toBe(0);
	});

	it("a search text change clears folds (pi): typing, Backspace and Escape, so a match in a folded branch is reached", async () => {
		const client = new FakeClient();
		// "left" matches u2 and a2; a2 sits under u2, off the active branch.
		client.on("search", ({ query }) => (query.startsWith("lef") ? [2, 3] : []));
		const h = await harness(client);
		const st = () => h.rt.store.getState();
		st().setFolded("u2", true);
		st().setSearchQuery("left");
		expect(st().folded.size).toBe(0);
		await st().runSearch();
		st().select("u2");
		st().stepMatch(1);
		expect(st().selectedId).toBe("a2");

		st().setFolded("u2", true);
		st().setSearchQuery("lef"); // Backspace
		expect(st().folded.size).toBe(0);
		st().setFolded("u2", true);
		st().setSearchQuery("lef"); // the same text again (a re-render): nothing changed, folds stay
		expect(st().folded.has("u2")).toBe(true);
		st().clearSearch(); // Escape
		expect(st().folded.size).toBe(0);
		st().setFolded("u2", true);
		st().clearSearch(); // Escape with no search text leaves the folds alone
		expect(st().folded.has("u2")).toBe(true);
	});
});

describe("previews cache", () => {
	it("fetches only missing indices, in pages of at most 2000", async () => {
		const many = Array.from({ length: 4500 }, (_, i) => ({ id: `e${i}`, parent: i === 0 ? null : `e${i - 1}`, kind: "user" as const, text: `t${i}` }));
		const client = new FakeClient(many);
		const h = await harness(client);
		const all = many.map((_, i) => i);
		await h.rt.store.getState().ensurePreviews("s1", all);
		await h.rt.store.getState().ensurePreviews("s1", all);
		const pages = client.callsOf("getPreviews").map((c) => c.indices.length);
		expect(pages).toEqual([2000, 2000, 500]);
		expect(h.rt.store.getState().previews.s1?.get(4499)).toBe("t4499");
	});
});

describe("the store's caches are per session and go with it (issue #31)", () => {
	it("card facts, usage roll-ups and the tree-view memo are dropped when the session closes or reloads", async () => {
		const client = new FakeClient();
		client.on("getCardFacts", ({ indices }) => indices.map(() => null));
		client.on("getUsageRollup", () => [{ anchor: 1, lines: 2, cost: 0.01, tokens: 10 }] as never);
		const h = await harness(client);
		const st = h.rt.store.getState;
		st().ensureCardFacts("s1", [1, 2]);
		st().ensureUsageRollups("s1", 6);
		await flush();
		await flush();
		expect([...(st().cardFacts.s1?.keys() ?? [])]).toEqual([1, 2]);
		expect(st().usageRollups.s1?.count).toBe(6);
		expect(selectTreeView(st())).not.toBeNull();
		expect(st().caches.treeView.has("s1")).toBe(true);
		// The same tree object while nothing it depends on changed; a leaf move is a new skeleton object that
		// shares the ids, so the id map is not rebuilt.
		expect(selectTreeView(st())).toBe(selectTreeView(st()));
		const before = activeSkeleton(st())!;
		h.client.emit({ type: "leaf_changed", sessionId: "s1", leafId: "a1", resumeLeafId: "a3" });
		expect(activeSkeleton(st())).not.toBe(before);
		expect(activeSkeleton(st())!.ids).toBe(before.ids);

		h.client.emit({ type: "session_reloaded", sessionId: "s1", session: makeSummary("s1"), reason: "file changed on disk" });
		expect(st().cardFacts.s1).toBeUndefined();
		expect(st().usageRollups.s1).toBeUndefined();

		st().ensureCardFacts("s1", [3]);
		await flush();
		await flush();
		expect(st().cardFacts.s1?.has(3)).toBe(true);
		st().removeSession("s1");
		expect(st().cardFacts.s1).toBeUndefined();
		expect(st().caches.treeView.has("s1")).toBe(false);
	});
});

describe("each tab keeps its own view (issue 38: switching tabs reset the filter)", () => {
	async function twoTabs() {
		const client = new FakeClient();
		client.on("getInitialSessions", () => [makeSummary("s1"), makeSummary("s2", { path: "/tmp/two.jsonl" })]);
		const h = await harness(client);
		const st = () => h.rt.store.getState();
		st().setActive("s1");
		return { h, st };
	}

	it("the filter, folds and search of a tab come back with it; a tab never seen starts from the setting", async () => {
		const { h, st } = await twoTabs();
		expect(st().activeSessionId).toBe("s1");
		st().setFilter("user-only");
		st().setSearchQuery("fix");
		st().setFolded("u2", true);
		st().setActive("s2");
		// The other tab opens as a new one would: pi's default filter, no folds, no search.
		expect(st().filter).toBe("default");
		expect(st().folded.size).toBe(0);
		expect(st().search.query).toBe("");
		st().setFilter("labeled-only");
		st().setActive("s1");
		expect(st().filter).toBe("user-only");
		expect([...st().folded]).toEqual(["u2"]);
		expect(st().search.query).toBe("fix");
		st().setActive("s2");
		expect(st().filter).toBe("labeled-only");
		expect(st().search.query).toBe("");
		// The restored search is asked again for the tab it belongs to.
		st().setActive("s1");
		await flush();
		expect(h.client.callsOf("search").at(-1)).toMatchObject({ sessionId: "s1", query: "fix" });
	});

	it("a new tab follows pi's treeFilterMode setting, whatever the tab before it showed", async () => {
		const client = new FakeClient();
		client.settings = { ...client.settings, treeFilterMode: "no-tools" };
		client.on("getInitialSessions", () => [makeSummary("s1"), makeSummary("s2", { path: "/tmp/two.jsonl" })]);
		const h = await harness(client);
		const st = () => h.rt.store.getState();
		st().setActive("s1");
		st().setFilter("all");
		st().setActive("s2");
		expect(st().filter).toBe("no-tools");
		st().setActive("s1");
		expect(st().filter).toBe("all");
	});
});

describe("a reload of the page keeps its tabs (issue 38: a reload closed every open session)", () => {
	function memory(): TabStorage & { data: Map<string, string> } {
		const data = new Map<string, string>();
		return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
	}
	/** A host that launched with s1 and opens any other path as a session named after it. */
	function host(): FakeClient {
		const client = new FakeClient();
		client.on("openSession", ({ path }) => makeSummary(`id:${path}`, { path }));
		return client;
	}

	it("the tabs come back in their order with the same one active; the launch session keeps its place", async () => {
		const storage = memory();
		const first = await harness(host(), { tabStorage: storage });
		const st1 = () => first.rt.store.getState();
		await st1().openPath("/tmp/b.jsonl");
		await st1().openPath("/tmp/c.jsonl");
		st1().setActive("id:/tmp/b.jsonl");
		await flush();
		// The page reloads: a new runtime on the same storage, the host still launched with s1 only.
		const second = await harness(host(), { tabStorage: storage });
		await flush();
		const st2 = () => second.rt.store.getState();
		expect(st2().order.map((id) => st2().sessions[id].summary.path)).toEqual(["/tmp/s1.jsonl", "/tmp/b.jsonl", "/tmp/c.jsonl"]);
		expect(st2().activeSessionId).toBe("id:/tmp/b.jsonl");
		expect(st2().dialog).toBeNull();
	});

	it("a closed tab stays closed, a kept path the host refuses is reported and skipped, and no tabs open the library", async () => {
		const storage = memory();
		const first = await harness(host(), { tabStorage: storage });
		const st1 = () => first.rt.store.getState();
		await st1().openPath("/tmp/b.jsonl");
		await st1().openPath("/tmp/gone.jsonl");
		await st1().closeSession("s1");
		await flush();
		const refusing = host();
		refusing.on("getInitialSessions", () => []);
		refusing.on("openSession", ({ path }) => {
			if (path === "/tmp/gone.jsonl") throw new ArborRequestError({ code: "not_found", message: "no such file" });
			return makeSummary(`id:${path}`, { path });
		});
		const second = await harness(refusing, { tabStorage: storage });
		await flush();
		const st2 = () => second.rt.store.getState();
		expect(st2().order.map((id) => st2().sessions[id].summary.path)).toEqual(["/tmp/b.jsonl"]);
		expect(
			st2()
				.toasts.map((t) => `${t.message} ${t.file ?? ""}`)
				.join("\n"),
		).toContain("/tmp/gone.jsonl");
		// Nothing kept and nothing launched: the library, as on a first start.
		const empty = host();
		empty.on("getInitialSessions", () => []);
		const third = await harness(empty, { tabStorage: memory() });
		expect(third.rt.store.getState().dialog).toEqual({ kind: "library" });
	});
});
