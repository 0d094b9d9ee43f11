// The native menu bar. Items that act on the graph or the session send `menu_command` events carrying a
// command id of the renderer's registry (renderer/commands), so the menu, shortcuts, context menu and
// palette run the same code. Open Recent opens in the main process: the user picked the path here.
// Item labels and the one accelerator come from the commands' shared definitions (shared/commands.ts).

import { basename } from "node:path";
import type { MenuItemConstructorOptions } from "electron";
import { FILTER_MODES } from "../../../shared/api";
import { acceleratorOf, COMMAND_INFO, FILTERS, type CommandInfo, type SharedCommandId } from "../../../shared/commands";

export type Appearance = "system" | "light" | "dark";

export interface MenuActions {
	/** Run a renderer command by id. */
	command(id: string): void;
	openRecent(path: string): void;
	clearRecent(): void;
	/** View ▸ Appearance: nativeTheme.themeSource, which the page follows through prefers-color-scheme. */
	setAppearance(appearance: Appearance): void;
	quit(): void;
}

/** Command ids of the renderer registry that the menu uses (checked by the host test). */
export const MENU_COMMANDS = {
	open: "file.open",
	library: "library.open",
	reveal: "session.reveal",
	savePosition: "position.save",
	close: "session.close",
	filters: FILTER_MODES.map((m) => [FILTERS[m].command, FILTERS[m].menu] as const),
	zoomToLeaf: "view.zoomToLeaf",
	fit: "view.fit",
	zoomIn: "view.zoomIn",
	zoomOut: "view.zoomOut",
	palette: "palette.open",
	back: "history.back",
	forward: "history.forward",
	settings: "settings.open",
} as const;

/** A menu item's label: the command's menu name, else its label. */
const menuLabel = (id: SharedCommandId): string => {
	const info: CommandInfo = COMMAND_INFO[id];
	return info.menu ?? info.label;
};

export function buildMenuTemplate(
	actions: MenuActions,
	recentFiles: readonly string[],
	platform: NodeJS.Platform = process.platform,
	appearance: Appearance = "system",
): MenuItemConstructorOptions[] {
	const run = (id: string) => () => actions.command(id);
	const item = (id: SharedCommandId): MenuItemConstructorOptions => ({ label: menuLabel(id), click: run(id) });
	// No accelerators on renderer commands: the page's keyboard handler owns those keys (pi's bindings),
	// and a menu accelerator would swallow the key before the page sees it.
	// macOS keeps the list itself (app.addRecentDocument; a pick arrives as open-file); elsewhere Arbor's own.
	const recentItem: MenuItemConstructorOptions =
		platform === "darwin"
			? { label: "Open Recent", role: "recentDocuments", submenu: [{ role: "clearRecentDocuments" }] }
			: { label: "Open Recent", submenu: [] };
	const recent: MenuItemConstructorOptions[] =
		recentFiles.length === 0
			? [{ label: "No Recent Files", enabled: false }]
			: [
					...recentFiles.slice(0, 15).map((p): MenuItemConstructorOptions => ({ label: basename(p), toolTip: p, click: () => actions.openRecent(p) })),
					{ type: "separator" },
					{ label: "Clear Recent", click: () => actions.clearRecent() },
				];
	const template: MenuItemConstructorOptions[] = [
		{
			label: "&File",
			submenu: [
				item(MENU_COMMANDS.open),
				platform === "darwin" ? recentItem : { ...recentItem, submenu: recent },
				item(MENU_COMMANDS.library),
				{ type: "separator" },
				item(MENU_COMMANDS.reveal),
				item(MENU_COMMANDS.savePosition),
				{ type: "separator" },
				{
					label: platform === "darwin" ? "Preferences…" : menuLabel(MENU_COMMANDS.settings),
					accelerator: acceleratorOf(COMMAND_INFO[MENU_COMMANDS.settings].keys[0]),
					click: run(MENU_COMMANDS.settings),
				},
				{ type: "separator" },
				item(MENU_COMMANDS.close),
				...(platform === "darwin" ? [] : [{ type: "separator" } as const, { label: "Quit", click: () => actions.quit() }]),
			],
		},
		{ role: "editMenu" },
		{
			label: "&View",
			submenu: [
				{ label: "Filter", submenu: MENU_COMMANDS.filters.map(([id, label]): MenuItemConstructorOptions => ({ label, click: run(id) })) },
				{ type: "separator" },
				item(MENU_COMMANDS.zoomToLeaf),
				item(MENU_COMMANDS.fit),
				item(MENU_COMMANDS.zoomIn),
				item(MENU_COMMANDS.zoomOut),
				{ type: "separator" },
				item(MENU_COMMANDS.back),
				item(MENU_COMMANDS.forward),
				{ type: "separator" },
				item(MENU_COMMANDS.palette),
				{ type: "separator" },
				{
					label: "Appearance",
					submenu: (["system", "light", "dark"] as const).map((a): MenuItemConstructorOptions => ({
						label: a === "system" ? "Use System Setting" : a === "light" ? "Light" : "Dark",
						type: "radio",
						checked: appearance === a,
						click: () => actions.setAppearance(a),
					})),
				},
				{ role: "togglefullscreen" },
			],
		},
		{ role: "windowMenu" },
	];
	if (platform === "darwin") template.unshift({ role: "appMenu" });
	return template;
}
