import { describe, expect, it } from "vitest";
import { ArborRequestError } from "../../shared/api";
import { makeContext } from "../commands/registry";
import { draftOf } from "../store/selectors";
import { BRANCHED, FakeClient, flush, makeSummary } from "./fake-client";
import { harness } from "./harness";

describe("command registry", () => {
	it("declares every command id once and every id has a label and a perform", async () => {
		const h = await harness();
		const ids = h.rt.registry.all().map((c) => c.id);
		expect(new Set(ids).size).toBe(ids.length);
		for (const id of [
			"navigate.here",
			"navigate.summary",
			"branch.toFile",
			"label.edit",
			"entry.copyText",
			"entry.copyId",
			"position.save",
			"context.show",
			"fold.toggle",
			"segment.expand",
			"filter.default",
			"filter.noTools",
			"filter.userOnly",
			"filter.labeledOnly",
			"filter.all",
			"filter.cycle",
			"filter.cycleBack",
			"search.focus",
			"search.next",
			"search.prev",
			"label.next",
			"label.prev",
			"view.zoomToLeaf",
			"view.fit",
			"view.zoomIn",
			"view.zoomOut",
			"history.back",
			"history.forward",
			"file.open",
			"library.open",
			"palette.open",
			"pi.tree",
			"pi.branch",
			"app.escape",
		]) {
			expect(ids, id).toContain(id);
		}
	});

	it("a command whose when() is false does not run", async () => {
		const h = await harness();
		// a3 is an assistant message: "Branch to new file" only applies to user messages.
		expect(await h.run("branch.toFile", { targetId: "a3" })).toBe(false);
		expect(h.client.callsOf("branchToFile")).toHaveLength(0);
	});

	it("the context menu of a user message offers branching, an assistant's does not", async () => {
		const h = await harness();
		const deps = h.rt.services.deps;
		const user = h.rt.registry.contextMenu(makeContext(deps, { targetId: "u2" })).map((c) => c.id);
		const asst = h.rt.registry.contextMenu(makeContext(deps, { targetId: "a2" })).map((c) => c.id);
		expect(user).toContain("branch.toFile");
		expect(asst).not.toContain("branch.toFile");
		for (const id of ["navigate.here", "navigate.summary", "label.edit", "entry.copyText", "entry.copyId", "context.show"]) expect(asst).toContain(id);
	});
});

describe("filter commands (pi's keys)", () => {
	it("Ctrl+U toggles user-only and back to default", async () => {
		const h = await harness();
		expect(h.press("Ctrl+U")).toBe(true);
		expect(h.rt.store.getState().filter).toBe("user-only");
		h.press("Ctrl+U");
		expect(h.rt.store.getState().filter).toBe("default");
	});

	it("Ctrl+O cycles default → no-tools → user-only → labeled-only → all → default, Shift+Ctrl+O backwards", async () => {
		const h = await harness();
		const seen: string[] = [];
		for (let i = 0; i < 5; i++) {
			h.press("Ctrl+O");
			seen.push(h.rt.store.getState().filter);
		}
		expect(seen).toEqual(["no-tools", "user-only", "labeled-only", "all", "default"]);
		h.press("Ctrl+Shift+O");
		expect(h.rt.store.getState().filter).toBe("all");
	});

	it("Ctrl+T, Ctrl+L, Ctrl+A toggle their mode; Ctrl+D sets default", async () => {
		const h = await harness();
		h.press("Ctrl+T");
		expect(h.rt.store.getState().filter).toBe("no-tools");
		h.press("Ctrl+L");
		expect(h.rt.store.getState().filter).toBe("labeled-only");
		h.press("Ctrl+A");
		expect(h.rt.store.getState().filter).toBe("all");
		h.press("Ctrl+D");
		expect(h.rt.store.getState().filter).toBe("default");
	});

	it("a filter change keeps the selection or moves it to its nearest visible ancestor", async () => {
		const h = await harness();
		h.rt.store.getState().select("a2");
		h.press("Ctrl+U");
		// a2 (assistant) is hidden in user-only: its nearest visible ancestor is u2.
		expect(h.rt.store.getState().selectedId).toBe("u2");
		h.press("Ctrl+U");
		expect(h.rt.store.getState().selectedId).toBe("u2");
	});

	it("a filter that shows nothing keeps the previous selection for later", async () => {
		const h = await harness();
		h.rt.store.getState().select("u3");
		h.press("Ctrl+L"); // no labels: empty tree
		expect(h.rt.store.getState().selectedId).toBe("u3");
	});
});

describe("acting on an entry", () => {
	it("navigate here on the leaf says 'Already at this point' without asking the main process", async () => {
		const h = await harness();
		await h.run("navigate.here", { targetId: "a3" });
		expect(h.client.callsOf("previewNavigation")).toHaveLength(0);
		expect(h.rt.store.getState().toasts.map((t) => t.message)).toContain("Already at this point");
	});

	it("branch to new file opens the new session and prefills the composer", async () => {
		const client = new FakeClient();
		client.on("branchToFile", () => ({
			cancelled: false,
			path: "/tmp/new.jsonl",
			editorText: "try the left way",
			session: makeSummary("s2", { path: "/tmp/new.jsonl" }),
		}));
		const h = await harness(client);
		expect(await h.run("branch.toFile", { targetId: "u2" })).toBe(true);
		await flush();
		expect(client.callsOf("branchToFile")).toEqual([{ sessionId: "s1", entryId: "u2" }]);
		const st = h.rt.store.getState();
		expect(st.activeSessionId).toBe("s2");
		expect(st.order).toEqual(["s1", "s2"]);
		// The text is the new file's draft; the tab it was branched from keeps an empty composer.
		expect(draftOf(st, "s2")).toBe("try the left way");
		expect(draftOf(st, "s1")).toBe("");
		expect(client.callsOf("setSettings").at(-1)?.settings.recentFiles?.[0]).toBe("/tmp/new.jsonl");
	});

	it("edit label opens the editor prefilled; saving trims, empty clears, unchanged writes nothing", async () => {
		const client = new FakeClient(BRANCHED, { labels: { u2: "left" } });
		client.on("setLabel", () => undefined);
		const h = await harness(client);
		await h.run("label.edit", { targetId: "u2" });
		const d = h.rt.store.getState().dialog;
		expect(d).toEqual({ kind: "labelEditor", entryId: "u2", initial: "left" });
		await h.rt.store.getState().saveLabel("u2", "  left  ");
		expect(client.callsOf("setLabel")).toHaveLength(0);
		await h.rt.store.getState().saveLabel("u2", "  better  ");
		await h.rt.store.getState().saveLabel("u2", "   ");
		expect(client.callsOf("setLabel")).toEqual([
			{ sessionId: "s1", entryId: "u2", label: "better" },
			{ sessionId: "s1", entryId: "u2", label: null },
		]);
		expect(h.rt.store.getState().dialog).toBeNull();
	});

	it("a label refused because the entry has no id in the file shows one line saying why (issue 39)", async () => {
		const client = new FakeClient(BRANCHED);
		const raw = "/tmp/s.jsonl: entry ~arbor:no-id:2:1 has no id in the file, so pi could not resolve a label on it; nothing was written";
		client.on("setLabel", () => {
			throw new ArborRequestError({ code: "no_entry_id", message: raw, file: "/tmp/s.jsonl" });
		});
		const h = await harness(client);
		await h.rt.store.getState().saveLabel("u2", "keep");
		const toast = h.rt.store.getState().toasts.at(-1);
		expect(toast).toMatchObject({
			level: "error",
			message: "Could not save the label: this entry has no id in the file, so pi could not resolve a label on it. Nothing was written.",
		});
		expect(toast?.message).not.toContain("\n");
	});

	it("Shift+L opens the label editor on the selection", async () => {
		const h = await harness();
		h.rt.store.getState().select("a1");
		expect(h.press("Shift+L")).toBe(true);
		expect(h.rt.store.getState().dialog).toMatchObject({ kind: "labelEditor", entryId: "a1" });
	});

	it("copy text copies the entry's text, copy id its id", async () => {
		const h = await harness();
		await h.run("entry.copyText", { targetId: "u2" });
		await h.run("entry.copyId", { targetId: "u2" });
		expect(h.copied).toEqual(["user: try the left way", "u2"]);
	});

	it("save position applies only when the leaf differs from where pi resumes", async () => {
		const same = await harness();
		expect(await same.run("position.save")).toBe(false);
		const client = new FakeClient(BRANCHED, { leaf: "a2", resumeLeaf: "a3" });
		client.on("savePosition", () => ({ entryId: "p1" }));
		const h = await harness(client);
		expect(await h.run("position.save")).toBe(true);
		expect(client.callsOf("savePosition")).toEqual([{ sessionId: "s1" }]);
	});

	it("show context here selects the entry and switches to the context panel", async () => {
		const h = await harness();
		await h.run("context.show", { targetId: "u2" });
		expect(h.rt.store.getState().selectedId).toBe("u2");
		expect(h.rt.store.getState().panel).toBe("context");
	});

	it("fold applies to a segment start (a child of a branch point) and toggles", async () => {
		const h = await harness();
		expect(await h.run("fold.toggle", { targetId: "a1" })).toBe(false); // a1's parent does not branch
		expect(await h.run("fold.toggle", { targetId: "u2" })).toBe(true);
		expect([...h.rt.store.getState().folded]).toEqual(["u2"]);
		expect(await h.run("fold.toggle", { targetId: "u2" })).toBe(true);
		expect(h.rt.store.getState().folded.size).toBe(0);
	});

	it("expand segment applies only to entries inside a +N segment", async () => {
		const h = await harness();
		expect(await h.run("segment.expand", { targetId: "a2" })).toBe(false);
		h.segmentEntries.add("a2");
		expect(await h.run("segment.expand", { targetId: "a2" })).toBe(true);
		expect(h.graphCalls).toContain("expand:a2");
	});

	it("view commands drive the graph", async () => {
		const h = await harness();
		h.rt.store.getState().select("u1");
		h.press("Ctrl+G");
		// Zoom to leaf also selects the leaf (it used to move the view and keep the old selection).
		expect(h.rt.store.getState().selectedId).not.toBe("u1");
		h.press("Ctrl+0");
		h.press("Ctrl+=");
		h.press("Ctrl+-");
		expect(h.graphCalls).toEqual(["zoomToLeaf", "fit", "zoomIn", "zoomOut"]);
	});

	it("toggling the layout direction saves the setting, and the arrows follow it", async () => {
		const h = await harness();
		await h.run("view.toggleDirection");
		expect(h.client.callsOf("setSettings").at(-1)).toEqual({ settings: { layoutDirection: "LR" } });
		expect(h.rt.store.getState().settings?.layoutDirection).toBe("LR");
		h.rt.store.getState().select("u3");
		h.press("Left");
		expect(h.rt.store.getState().selectedId).toBe("a1");
	});

	it("leaf history uses Ctrl+[ / Ctrl+] and selects the returned leaf", async () => {
		const client = new FakeClient();
		client.on("leafHistory", ({ direction }) => ({
			leafId: direction === "back" ? "a2" : "a3",
			canBack: direction !== "back",
			canForward: direction === "back",
		}));
		const h = await harness(client);
		h.press("Ctrl+[");
		await flush();
		expect(client.callsOf("leafHistory")).toEqual([{ sessionId: "s1", direction: "back" }]);
		expect(h.rt.store.getState().selectedId).toBe("a2");
		// canBack is now false: back does not apply until forward was used.
		expect(h.press("Ctrl+[")).toBe(false);
		h.press("Ctrl+]");
		await flush();
		expect(h.rt.store.getState().selectedId).toBe("a3");
	});

	it("a failing command reports its error as a toast with file and line", async () => {
		const client = new FakeClient();
		client.on("savePosition", () => {
			throw new ArborRequestError({ code: "conflict", message: "file changed on disk", file: "/tmp/s1.jsonl", line: 7 });
		});
		client.skeleton = { ...client.skeleton, leaf: 3 };
		const h = await harness(client);
		await h.run("position.save");
		const t = h.rt.store.getState().toasts.at(-1);
		expect(t).toMatchObject({ level: "error", file: "/tmp/s1.jsonl", line: 7 });
		expect(t?.message).toContain("file changed on disk");
	});
});

describe("pi's slash commands and Escape", () => {
	it("/branch opens the user-message list; with doubleEscapeAction 'tree' it focuses the graph", async () => {
		const h = await harness();
		await h.run("pi.branch");
		expect(h.rt.store.getState().dialog).toEqual({ kind: "branchList" });
		const client = new FakeClient();
		client.settings = { ...client.settings, doubleEscapeAction: "tree" };
		const t = await harness(client);
		const before = t.rt.store.getState().graphFocusTick;
		await t.run("pi.branch");
		expect(t.rt.store.getState().dialog).toBeNull();
		expect(t.rt.store.getState().graphFocusTick).toBe(before + 1);
	});

	it("/tree focuses the graph", async () => {
		const h = await harness();
		await h.run("pi.tree");
		expect(h.rt.store.getState().graphFocusTick).toBe(1);
	});

	it("Escape closes a dialog first, then clears the search, and a double Escape opens the doubleEscapeAction selector", async () => {
		const h = await harness();
		h.rt.store.getState().openDialog({ kind: "warnings" });
		h.press("Escape");
		expect(h.rt.store.getState().dialog).toBeNull();
		h.rt.store.getState().setSearchQuery("left");
		h.press("Escape");
		expect(h.rt.store.getState().search.query).toBe("");
		h.setNow(20_000);
		h.press("Escape");
		h.setNow(20_300);
		h.press("Escape");
		await flush();
		expect(h.rt.store.getState().dialog).toEqual({ kind: "branchList" });
	});

	it("two Escapes far apart do nothing", async () => {
		const h = await harness();
		h.setNow(20_000);
		h.press("Escape");
		h.setNow(25_000);
		h.press("Escape");
		expect(h.rt.store.getState().dialog).toBeNull();
	});
});

describe("extension commands and the menu bar", () => {
	it("extension commands appear in the palette and context menu and run on the target entry", async () => {
		const client = new FakeClient();
		client.on("listCommands", () => [{ name: "bookmark", description: "Bookmark this", extension: "ext.ts" }]);
		client.on("runExtensionCommand", () => undefined);
		const h = await harness(client);
		const ctx = makeContext(h.rt.services.deps, { targetId: "u2" });
		expect(h.rt.registry.palette(ctx).map((c) => c.id)).toContain("ext:bookmark");
		expect(h.rt.registry.contextMenu(ctx).map((c) => c.id)).toContain("ext:bookmark");
		await h.run("ext:bookmark", { targetId: "u2", args: "now" });
		expect(client.callsOf("runExtensionCommand")).toEqual([{ sessionId: "s1", name: "bookmark", entryId: "u2", args: "now" }]);
	});

	it("commands_changed refetches the extension commands", async () => {
		const client = new FakeClient();
		const h = await harness(client);
		client.on("listCommands", () => [{ name: "later", description: "", extension: "x" }]);
		client.emit({ type: "commands_changed" });
		await flush();
		expect(h.rt.registry.get("ext:later")).toBeDefined();
	});

	it("a menu_command event runs the registry command of that id", async () => {
		const h = await harness();
		h.client.emit({ type: "menu_command", command: "filter.userOnly" });
		await flush();
		expect(h.rt.store.getState().filter).toBe("user-only");
		// A menu item named after a mode sets it (only pi's keys toggle back to default).
		h.client.emit({ type: "menu_command", command: "filter.userOnly" });
		await flush();
		expect(h.rt.store.getState().filter).toBe("user-only");
		h.client.emit({ type: "menu_command", command: "no.such.command" });
		await flush();
		expect(h.rt.store.getState().toasts.at(-1)?.message).toContain("Unknown menu command");
	});
});
