// What a command is called and which key runs it, written once for every surface: the renderer's command
// registry (renderer/commands: palette, context menu, keyboard) spreads these into its definitions, and the
// toolbar, the filter bar and the Electron menu bar (electron/hosts/electron/menu.ts) read them from there.
// Only commands shown outside the registry's own lists live here; the rest keep their text in builtin.ts.

import type { FilterMode } from "./api";

export interface CommandInfo {
	id: string;
	/** Name in the palette and the context menu. */
	label: string;
	/** Text on a button (toolbar, filter bar); the label when absent. */
	short?: string;
	/** Native menu bar item (title case); the label when absent. */
	menu?: string;
	/** Tooltip text (the key is added to it); the label when absent. */
	title?: string;
	/** Shortcuts, spelled as renderer/commands/keys.ts reads them ("Ctrl+Shift+O", "Ctrl+,"). */
	keys?: readonly string[];
}

/** pi's filter modes: the command selecting each, its name ("Filter: <name>"), button text, menu item and pi's key. */
export const FILTERS: Readonly<Record<FilterMode, { command: string; name: string; short: string; menu: string; key: string }>> = {
	default: { command: "filter.default", name: "default", short: "Default", menu: "Default", key: "Ctrl+D" },
	"no-tools": { command: "filter.noTools", name: "no tools", short: "No tools", menu: "No Tools", key: "Ctrl+T" },
	"user-only": { command: "filter.userOnly", name: "user messages only", short: "User", menu: "User Messages Only", key: "Ctrl+U" },
	"labeled-only": { command: "filter.labeledOnly", name: "labeled only", short: "Labeled", menu: "Labeled Only", key: "Ctrl+L" },
	all: { command: "filter.all", name: "all entries", short: "All", menu: "All Entries", key: "Ctrl+A" },
};

const filterInfo = (mode: FilterMode): CommandInfo => {
	const f = FILTERS[mode];
	return { id: f.command, label: `Filter: ${f.name}`, short: f.short, menu: f.menu, title: f.short, keys: [f.key] };
};

export const COMMAND_INFO = {
	"filter.default": filterInfo("default"),
	"filter.noTools": filterInfo("no-tools"),
	"filter.userOnly": filterInfo("user-only"),
	"filter.labeledOnly": filterInfo("labeled-only"),
	"filter.all": filterInfo("all"),
	"view.zoomToLeaf": { id: "view.zoomToLeaf", label: "Zoom to leaf", short: "Leaf", menu: "Zoom to Leaf", keys: ["Ctrl+G"] },
	"view.fit": { id: "view.fit", label: "Fit graph", short: "Fit", menu: "Fit Graph", keys: ["Ctrl+0"] },
	"view.zoomIn": { id: "view.zoomIn", label: "Zoom in", menu: "Zoom In", keys: ["Ctrl+=", "Ctrl++"] },
	"view.zoomOut": { id: "view.zoomOut", label: "Zoom out", menu: "Zoom Out", keys: ["Ctrl+-"] },
	"history.back": { id: "history.back", label: "Leaf history: back", menu: "Back", keys: ["Ctrl+["] },
	"history.forward": { id: "history.forward", label: "Leaf history: forward", menu: "Forward", keys: ["Ctrl+]"] },
	"position.save": { id: "position.save", label: "Save position for pi", menu: "Save Position for pi", keys: ["Ctrl+S"] },
	"settings.open": { id: "settings.open", label: "Settings…", short: "Settings", title: "Settings: summary model, tree defaults", keys: ["Ctrl+,"] },
	"palette.open": {
		id: "palette.open",
		label: "Command palette",
		short: "Commands",
		menu: "Command Palette…",
		title: "Commands",
		keys: ["Ctrl+K", "Ctrl+Shift+P"],
	},
	"file.open": { id: "file.open", label: "Open file…", menu: "Open…" },
	"library.open": { id: "library.open", label: "Session library", short: "Sessions", menu: "Session Library…", keys: ["Ctrl+P"] },
	"session.family": {
		id: "session.family",
		label: "Session family (forks and branches of this file)",
		short: "Family",
		title: "Session family: files branched from or into this one",
	},
	"session.close": { id: "session.close", label: "Close session", menu: "Close Session" },
	"session.reveal": { id: "session.reveal", label: "Reveal file in folder", menu: "Reveal in Folder" },
} as const satisfies Record<string, CommandInfo>;

export type SharedCommandId = keyof typeof COMMAND_INFO;

/** The Electron accelerator for a shortcut ("Ctrl+," -> "CmdOrCtrl+,"). */
export function acceleratorOf(key: string): string {
	return key.replace(/^Ctrl\+/, "CmdOrCtrl+");
}
