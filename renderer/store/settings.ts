// Settings slice: Arbor settings (pi's doubleEscapeAction, treeFilterMode, skipPrompt...), the active
// model and the extension commands, all as the main process reports them.

import type { ActiveModelInfo, ArborSettings, ExtensionCommandInfo } from "../../shared/api";
import type { SliceCreator } from "./types";

const MAX_RECENT = 20;

export interface SettingsSlice {
	settings: ArborSettings | null;
	activeModel: ActiveModelInfo | null;
	extensionCommands: ExtensionCommandInfo[];
	loadSettings(): Promise<void>;
	loadExtensionCommands(): Promise<void>;
	updateSettings(patch: Partial<ArborSettings>): Promise<void>;
	/** Move a path to the front of settings.recentFiles. */
	rememberRecent(path: string): void;
}

export const createSettingsSlice: SliceCreator<SettingsSlice> = (set, get, client) => ({
	settings: null,
	activeModel: null,
	extensionCommands: [],

	async loadSettings() {
		try {
			const settings = await client.request("getSettings", {});
			set({ settings, filter: settings.treeFilterMode ?? "default" });
		} catch (err) {
			get().reportError(err, "Could not read settings");
		}
		try {
			set({ activeModel: await client.request("getActiveModel", {}) });
		} catch {
			// No model is a normal state: summarizing then fails plainly in the navigate dialog.
			set({ activeModel: null });
		}
		await get().loadExtensionCommands();
	},

	async loadExtensionCommands() {
		try {
			set({ extensionCommands: await client.request("listCommands", {}) });
		} catch {
			set({ extensionCommands: [] });
		}
	},

	async updateSettings(patch) {
		try {
			set({ settings: await client.request("setSettings", { settings: patch }) });
		} catch (err) {
			get().reportError(err, "Could not save settings");
		}
	},

	rememberRecent(path) {
		const cur = get().settings?.recentFiles ?? [];
		if (cur[0] === path) return;
		const recentFiles = [path, ...cur.filter((p) => p !== path)].slice(0, MAX_RECENT);
		void get().updateSettings({ recentFiles });
	},
});
