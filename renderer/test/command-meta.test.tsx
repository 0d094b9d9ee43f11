// A command's label, tooltip and key are written once, in its definition (shared/commands.ts spread into
// renderer/commands): change them there and the toolbar, the filter bar, the palette and the keyboard follow.
import { afterEach, describe, expect, it } from "vitest";
import { COMMAND_INFO, type CommandInfo } from "../../shared/commands";
import { App } from "../App";
import { FakeClient } from "./fake-client";
import { harness } from "./harness";
import { render, settle, type Rendered } from "./render";

let view: Rendered | null = null;
afterEach(() => {
	view?.unmount();
	view = null;
});

describe("command definitions", () => {
	it("every shared definition (the menu bar's too) is a registered command", async () => {
		const h = await harness(new FakeClient(), { boot: false });
		for (const [id, info] of Object.entries(COMMAND_INFO) as [string, CommandInfo][]) {
			const cmd = h.rt.registry.get(id);
			expect(cmd, id).toBeDefined();
			expect(cmd!.keys ?? [], id).toEqual(info.keys ?? []);
		}
	});

	it("are what the toolbar, filter bar and palette show", async () => {
		const h = await harness(new FakeClient(), { boot: false });
		const fit = h.rt.registry.get("view.fit")!;
		Object.assign(fit, { label: "Fit the whole tree", short: "Whole", title: "Show the whole tree", keys: ["Ctrl+9"] });
		const noTools = h.rt.registry.get("filter.noTools")!;
		Object.assign(noTools, { short: "Sans tools", title: "Without tool results", keys: ["Ctrl+Shift+Y"] });
		view = await render(<App runtime={h.rt} />);
		await settle();
		await settle();

		const fitButton = view.byTestId("fit-button")!;
		expect(fitButton.textContent).toBe("Whole");
		expect(fitButton.title).toBe("Show the whole tree (Ctrl+9)");
		const filterButton = view.byTestId("filter-no-tools")!;
		expect(filterButton.textContent).toBe("Sans tools");
		expect(filterButton.title).toBe("Without tool results (Ctrl+Shift+Y)");
		// Unchanged definitions keep their text.
		expect(view.byTestId("zoom-leaf-button")!.title).toBe("Zoom to leaf (Ctrl+G)");
		expect(view.byTestId("filter-user-only")!.title).toBe("User (Ctrl+U)");
		expect(view.byTestId("search-prev")!.title).toBe("Previous match (↑, Shift+F3)");
		expect(view.byTestId("open-settings")!.title).toBe("Settings: summary model, tree defaults (Ctrl+,)");

		// The new key runs the command; the palette lists the new label and key.
		h.press("Ctrl+9");
		expect(h.graphCalls).toContain("fit");
		await settle(() => h.run("palette.open", { source: "button" }));
		const item = view.byTestId("palette-item-view.fit")!;
		expect(item.querySelector(".palette-label")!.textContent).toBe("Fit the whole tree");
		expect(item.querySelector(".shortcut")!.textContent).toBe("Ctrl+9");
		expect(view.byTestId("palette-item-filter.noTools")!.querySelector(".shortcut")!.textContent).toBe("Ctrl+Shift+Y");

		// A click on the renamed filter button still runs its command.
		await settle(() => filterButton.click());
		expect(h.rt.store.getState().filter).toBe("no-tools");
	});
});
