// The menu bar reads its labels and its one accelerator from the commands' shared definitions
// (shared/commands.ts), the same ones the renderer's registry, toolbar and filter bar read.
import { afterEach, describe, expect, it } from "vitest";
import { COMMAND_INFO } from "../../../../shared/commands";
import { buildMenuTemplate, MENU_COMMANDS } from "../menu";

interface Item {
	label?: string;
	accelerator?: string;
	submenu?: Item[];
}
const actions = { command: () => {}, openRecent: () => {}, clearRecent: () => {}, setAppearance: () => {}, quit: () => {} };
const labels = (items: Item[]): string[] => items.flatMap((i) => [i.label ?? "", ...labels(i.submenu ?? [])]);
const find = (items: Item[], label: string): Item | undefined => {
	for (const i of items) {
		if (i.label === label) return i;
		const hit = find(i.submenu ?? [], label);
		if (hit) return hit;
	}
	return undefined;
};

const fit = COMMAND_INFO["view.fit"] as { menu?: string };
const settings = COMMAND_INFO["settings.open"] as { keys: readonly string[] };
const noTools = COMMAND_INFO["filter.noTools"] as { menu?: string };
const saved = { fit: fit.menu, keys: settings.keys, noTools: noTools.menu };
afterEach(() => {
	fit.menu = saved.fit;
	settings.keys = saved.keys;
	noTools.menu = saved.noTools;
});

describe("menu bar", () => {
	it("labels every command item from its definition", () => {
		const items = buildMenuTemplate(actions, [], "linux") as Item[];
		const all = labels(items);
		for (const id of [
			MENU_COMMANDS.open,
			MENU_COMMANDS.library,
			MENU_COMMANDS.fit,
			MENU_COMMANDS.zoomToLeaf,
			MENU_COMMANDS.back,
			MENU_COMMANDS.palette,
			MENU_COMMANDS.close,
		]) {
			const info: { menu?: string; label: string } = COMMAND_INFO[id];
			expect(all, id).toContain(info.menu ?? info.label);
		}
		expect(find(items, "Filter")?.submenu?.map((i) => i.label)).toEqual(["Default", "No Tools", "User Messages Only", "Labeled Only", "All Entries"]);
		expect(find(items, "Settings…")?.accelerator).toBe("CmdOrCtrl+,");
	});

	it("follows a changed definition", () => {
		fit.menu = "Show Everything";
		noTools.menu = "Without Tools";
		settings.keys = ["Ctrl+;"];
		const items = buildMenuTemplate(actions, [], "linux") as Item[];
		expect(find(items, "Show Everything")).toBeDefined();
		expect(find(items, "Fit Graph")).toBeUndefined();
		expect(find(items, "Settings…")?.accelerator).toBe("CmdOrCtrl+;");
	});
});
