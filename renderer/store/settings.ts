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
	/** Save from the settings dialog: failures are thrown (the dialog shows them); the active model is asked again. */
	saveSettings(patch: Partial<ArborSettings>): Promise<ArborSettings>;
	/** Read settings.json again (it may be edited by hand); unlike loadSettings it leaves the current filter alone. Throws. */
	refreshSettings(): Promise<void>;
	/** Ask the main process which model summaries would use now (settings, pi's config or env may have changed). */
	refreshActiveModel(): Promise<void>;
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
		await get().refreshActiveModel();
		await get().loadExtensionCommands();
	},

	async refreshSettings() {
		set({ settings: await client.request("getSettings", {}) });
	},

	async refreshActiveModel() {
		try {
			// For the open session: the same resolution its summary request makes (its own model first).
			const sessionId = get().activeSessionId;
			set({ activeModel: await client.request("getActiveModel", sessionId ? { sessionId } : {}) });
		} catch {
			// No model is a normal state: summarizing then fails plainly in the navigate dialog.
			set({ activeModel: null });
		}
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

	async saveSettings(patch) {
		const settings = await client.request("setSettings", { settings: patch });
		set({ settings });
		if (patch.model) await get().refreshActiveModel();
		return settings;
	},

	rememberRecent(path) {
		const cur = get().settings?.recentFiles ?? [];
		if (cur[0] === path) return;
		const recentFiles = [path, ...cur.filter((p) => p !== path)].slice(0, MAX_RECENT);
		void get().updateSettings({ recentFiles });
	},
});
