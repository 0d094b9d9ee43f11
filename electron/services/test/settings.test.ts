import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultSettings, SettingsStore } from "../settings";
import { tempDir } from "./helpers/entries";

describe("Arbor settings", () => {
	it("starts from defaults when no file exists, and writes nothing on read", () => {
		const dir = tempDir();
		const store = new SettingsStore(path.join(dir, "arbor"), path.join(dir, "pi"));
		expect(store.load()).toEqual(defaultSettings());
		expect(fs.existsSync(store.file)).toBe(false);
	});

	it("takes pi's tree choices (doubleEscapeAction, treeFilterMode, branchSummary.skipPrompt) when Arbor has none", () => {
		const dir = tempDir();
		fs.mkdirSync(path.join(dir, "pi"));
		fs.writeFileSync(
			path.join(dir, "pi", "settings.json"),
			JSON.stringify({ doubleEscapeAction: "fork", treeFilterMode: "user-only", branchSummary: { skipPrompt: true } }),
		);
		const s = new SettingsStore(path.join(dir, "arbor"), path.join(dir, "pi")).load();
		expect(s.doubleEscapeAction).toBe("branch");
		expect(s.treeFilterMode).toBe("user-only");
		expect(s.skipSummaryPrompt).toBe(true);
	});

	it("persists updates atomically and ignores invalid values", () => {
		const dir = tempDir();
		const store = new SettingsStore(path.join(dir, "arbor"), path.join(dir, "pi"));
		const next = store.update({
			layoutDirection: "LR",
			model: { provider: "local", modelId: "m", baseUrl: "http://127.0.0.1:1/v1" },
			treeFilterMode: "bogus" as never,
		});
		expect(next.layoutDirection).toBe("LR");
		expect(next.treeFilterMode).toBe("default");
		expect(JSON.parse(fs.readFileSync(store.file, "utf8")).model.modelId).toBe("m");
		expect(fs.readdirSync(path.dirname(store.file))).toEqual(["settings.json"]);
		expect(new SettingsStore(path.join(dir, "arbor"), path.join(dir, "pi")).load().layoutDirection).toBe("LR");
	});

	it("survives a hand-broken settings file", () => {
		const dir = tempDir();
		fs.mkdirSync(path.join(dir, "arbor"));
		fs.writeFileSync(path.join(dir, "arbor", "settings.json"), "{ not json");
		expect(new SettingsStore(path.join(dir, "arbor"), path.join(dir, "pi")).load()).toEqual(defaultSettings());
	});

	it("keeps recent files most recent first without duplicates", () => {
		const dir = tempDir();
		const store = new SettingsStore(path.join(dir, "arbor"), path.join(dir, "pi"));
		store.addRecentFile("/a");
		store.addRecentFile("/b");
		store.addRecentFile("/a");
		expect(store.load().recentFiles).toEqual(["/a", "/b"]);
	});
});

describe("settings over the API", () => {
	it("never returns the stored API key, keeps it on model updates without one, and clears it with an empty string", async () => {
		const { ArborServices } = await import("../index");
		const dir = tempDir();
		const services = new ArborServices({ settingsDir: path.join(dir, "arbor"), piAgentDir: path.join(dir, "pi"), env: {}, watch: false });
		try {
			const set = await services.setSettings({ settings: { model: { provider: "local", modelId: "m", apiKey: "sk-secret-123" } } });
			expect(JSON.stringify(set)).not.toContain("sk-secret-123");
			expect(set.model.apiKeySet).toBe(true);
			expect(JSON.stringify(await services.getSettings({}))).not.toContain("sk-secret-123");
			// A client edits the model id; it never had the key, so it sends none.
			await services.setSettings({ settings: { model: { provider: "local", modelId: "m2" } } });
			const onDisk = JSON.parse(fs.readFileSync(path.join(dir, "arbor", "settings.json"), "utf8"));
			expect(onDisk.model).toMatchObject({ modelId: "m2", apiKey: "sk-secret-123" });
			const cleared = await services.setSettings({ settings: { model: { provider: "local", modelId: "m2", apiKey: "" } } });
			expect(cleared.model.apiKeySet).toBeUndefined();
			expect(JSON.parse(fs.readFileSync(path.join(dir, "arbor", "settings.json"), "utf8")).model.apiKey).toBeUndefined();
		} finally {
			services.dispose();
		}
	});
});
