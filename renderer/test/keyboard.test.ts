import { describe, expect, it } from "vitest";
import { commandForKey, dispatchKey } from "../commands/keyboard";
import { comboOf, displayShortcut, normalizeShortcut } from "../commands/keys";
import { FakeClient, flush, type FakeEntry } from "./fake-client";
import { harness, parseCombo } from "./harness";

describe("shortcut spelling", () => {
	it("spells modifiers in a fixed order and letters upper-case", () => {
		expect(comboOf({ key: "o", ctrlKey: true, altKey: false, shiftKey: true, metaKey: false })).toBe("Ctrl+Shift+O");
		expect(normalizeShortcut("Shift+Ctrl+o")).toBe("Ctrl+Shift+O");
		expect(comboOf({ key: "L", ctrlKey: false, altKey: false, shiftKey: true, metaKey: false })).toBe("Shift+L");
	});

	it("ignores Shift on printable non-letters, whose Shift depends on the keyboard layout", () => {
		expect(comboOf({ key: "/", ctrlKey: false, altKey: false, shiftKey: true, metaKey: false })).toBe("/");
		expect(normalizeShortcut("Ctrl++")).toBe("Ctrl++");
	});

	it("names arrows and ignores bare modifier presses", () => {
		expect(comboOf({ key: "ArrowLeft", ctrlKey: false, altKey: true, shiftKey: false, metaKey: false })).toBe("Alt+Left");
		expect(comboOf({ key: "Control", ctrlKey: true, altKey: false, shiftKey: false, metaKey: false })).toBeNull();
		expect(displayShortcut("Ctrl+Left")).toBe("Ctrl+←");
	});
});

describe("arrow keys move in the visible tree", () => {
	it("Up goes to the parent, Down to the first visible child (active branch first), Left/Right between siblings", async () => {
		const h = await harness();
		const sel = (): string | null => h.rt.store.getState().selectedId;
		expect(sel()).toBe("a3"); // opens on the leaf
		h.press("Up");
		expect(sel()).toBe("u3");
		h.press("Up");
		expect(sel()).toBe("a1");
		h.press("Down");
		expect(sel()).toBe("u3"); // the branch holding the leaf comes first
		h.press("Right");
		expect(sel()).toBe("u2");
		h.press("Left");
		expect(sel()).toBe("u3");
		expect(h.graphCalls).toContain("reveal:u3");
	});

	it("with a left-to-right layout, Left/Right go to parent/child and Up/Down between siblings", async () => {
		const client = new FakeClient();
		client.settings = { ...client.settings, layoutDirection: "LR" };
		const h = await harness(client);
		h.rt.store.getState().select("u3");
		h.press("Left");
		expect(h.rt.store.getState().selectedId).toBe("a1");
		h.press("Right");
		expect(h.rt.store.getState().selectedId).toBe("u3");
		h.press("Down");
		expect(h.rt.store.getState().selectedId).toBe("u2");
	});

	it("moves skip entries the filter hides (user-only: Up from u3 reaches u1)", async () => {
		const h = await harness();
		h.rt.store.getState().select("u3");
		h.press("Ctrl+U");
		h.press("Up");
		expect(h.rt.store.getState().selectedId).toBe("u1");
	});

	it("Ctrl+Left always goes up to the branch point above, never folds; Alt+Left folds (pi) and Ctrl+Right unfolds", async () => {
		const h = await harness();
		const st = () => h.rt.store.getState();
		st().select("u2"); // foldable: pi's Ctrl+Left would fold it
		h.press("Ctrl+Left");
		expect(st().folded.size).toBe(0);
		expect(st().selectedId).toBe("a1");
		st().select("a3");
		h.press("Ctrl+Left");
		expect(st().selectedId).toBe("a1");
		h.press("Ctrl+Left");
		expect(st().selectedId).toBe("u1"); // no branch point above: the root
		st().select("u2");
		h.press("Alt+Left");
		expect([...st().folded]).toEqual(["u2"]);
		h.press("Ctrl+Right");
		expect(st().folded.size).toBe(0);
	});

	it("End goes to the newest entry of the selected branch; Alt+Down / Alt+Up walk user messages in any filter", async () => {
		const h = await harness();
		const st = () => h.rt.store.getState();
		st().select("u2");
		h.press("End");
		expect(st().selectedId).toBe("a2");
		st().select("u1");
		h.press("End");
		expect(st().selectedId).toBe("a3"); // the latest entry written below u1
		for (const filter of ["Ctrl+D", "Ctrl+T", "Ctrl+U", "Ctrl+A"]) {
			if (filter !== "Ctrl+D") h.press(filter);
			st().select("u1");
			h.press("Alt+Down");
			expect(st().selectedId, filter).toBe("u3"); // display order: the leaf's branch first
			h.press("Alt+Down");
			expect(st().selectedId, filter).toBe("u2");
			h.press("Alt+Up");
			expect(st().selectedId, filter).toBe("u3");
			if (filter !== "Ctrl+D") h.press(filter);
		}
	});

	it("Ctrl+Right follows the line down to the next branch point's first child", async () => {
		const h = await harness();
		h.rt.store.getState().select("u1");
		h.press("Ctrl+Right");
		expect(h.rt.store.getState().selectedId).toBe("u3");
	});

	it("] and [ move between labelled entries", async () => {
		const client = new FakeClient(undefined, { labels: { u1: "start", u2: "left" } });
		const h = await harness(client);
		h.rt.store.getState().select("u1");
		h.press("]");
		// Display order puts the leaf's branch (u3, a3) before u2, so the next label after u1 is u2.
		expect(h.rt.store.getState().selectedId).toBe("u2");
		h.press("]");
		expect(h.rt.store.getState().selectedId).toBe("u1"); // wraps
		h.press("[");
		expect(h.rt.store.getState().selectedId).toBe("u2");
	});
});

describe("where keys go", () => {
	it("typing in a text field never triggers single-key commands (Shift+L, /, arrows)", async () => {
		const h = await harness();
		const input = document.createElement("input");
		expect(h.press("Shift+L", input)).toBe(false);
		expect(h.press("/", input)).toBe(false);
		expect(h.press("Up", input)).toBe(false);
		expect(h.press("Ctrl+A", input)).toBe(false); // select-all stays the text field's
		expect(h.rt.store.getState().dialog).toBeNull();
	});

	it("Ctrl+K, F3 and Escape work inside text fields", async () => {
		const h = await harness();
		const input = document.createElement("textarea");
		expect(h.press("Ctrl+K", input)).toBe(true);
		expect(h.rt.store.getState().dialog?.kind).toBe("palette");
		expect(h.press("Escape", input)).toBe(true);
		expect(h.rt.store.getState().dialog).toBeNull();
	});

	it("while a dialog is open the graph keys are off", async () => {
		const h = await harness();
		h.rt.store.getState().openDialog({ kind: "warnings" });
		const before = h.rt.store.getState().selectedId;
		expect(h.press("Up")).toBe(false);
		expect(h.press("Ctrl+U")).toBe(false);
		expect(h.rt.store.getState().selectedId).toBe(before);
	});

	it("Enter on a focused button is the button's, not 'navigate here'", async () => {
		const h = await harness();
		const cmd = commandForKey(h.rt.registry, h.rt.services.deps, { ...parseCombo("Enter"), target: document.createElement("button"), preventDefault() {} });
		expect(cmd).toBeNull();
		expect(commandForKey(h.rt.registry, h.rt.services.deps, { ...parseCombo("Enter"), target: document.body, preventDefault() {} })?.id).toBe("navigate.here");
	});

	it("Enter inside the focused graph is left to the graph (it runs navigate here itself)", async () => {
		const h = await harness();
		const graph = document.createElement("div");
		graph.className = "arbor-graph";
		const cmd = commandForKey(h.rt.registry, h.rt.services.deps, { ...parseCombo("Enter"), target: graph, preventDefault() {} });
		expect(cmd).toBeNull();
		expect(commandForKey(h.rt.registry, h.rt.services.deps, { ...parseCombo("Ctrl+U"), target: graph, preventDefault() {} })?.id).toBe("filter.userOnly");
	});

	it("while the context menu is open the arrows are the menu's", async () => {
		const h = await harness();
		h.rt.store.getState().openContextMenu({ entryId: "u2", x: 0, y: 0 });
		expect(h.press("Up")).toBe(false);
		expect(h.press("Escape")).toBe(true);
		expect(h.rt.store.getState().contextMenu).toBeNull();
	});

	it("a key a component already handled (defaultPrevented) is left alone", async () => {
		const h = await harness();
		const ran = dispatchKey(h.rt.registry, h.rt.services.deps, { ...parseCombo("Ctrl+U"), target: document.body, defaultPrevented: true, preventDefault() {} });
		expect(ran).toBe(false);
		expect(h.rt.store.getState().filter).toBe("default");
	});

	it("/ and Ctrl+F focus the search box", async () => {
		const h = await harness();
		h.press("/");
		h.press("Ctrl+F");
		expect(h.rt.store.getState().searchFocusTick).toBe(2);
	});

	it("F3 / Shift+F3 step through visible search matches in file order, wrapping", async () => {
		const client = new FakeClient();
		client.on("search", () => [0, 2, 4]);
		const h = await harness(client);
		h.rt.store.getState().setSearchQuery("user");
		await h.rt.store.getState().runSearch();
		h.rt.store.getState().select("u1");
		h.press("F3");
		expect(h.rt.store.getState().selectedId).toBe("u2");
		h.press("F3");
		expect(h.rt.store.getState().selectedId).toBe("u3");
		h.press("F3");
		expect(h.rt.store.getState().selectedId).toBe("u1");
		h.press("Shift+F3");
		expect(h.rt.store.getState().selectedId).toBe("u3");
	});

	it("tool-only assistant turns are skipped by arrows (pi hides them in every mode)", async () => {
		const entries: FakeEntry[] = [
			{ id: "u1", parent: null, kind: "user" },
			{ id: "t1", parent: "u1", kind: "assistant", flags: 1 },
			{ id: "r1", parent: "t1", kind: "toolResult" },
			{ id: "a1", parent: "r1", kind: "assistant" },
		];
		const h = await harness(new FakeClient(entries));
		await flush();
		h.rt.store.getState().select("r1");
		h.press("Up");
		expect(h.rt.store.getState().selectedId).toBe("u1");
	});
});
