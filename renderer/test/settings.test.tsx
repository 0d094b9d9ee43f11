import { afterEach, describe, expect, it } from "vitest";
import { ArborRequestError, type ActiveModelInfo, type ArborSettings, type ModelSettings } from "../../shared/api";
import { App } from "../App";
import { formOf, settingsPatch, validateForm } from "../dialogs/Settings";
import { FakeClient } from "./fake-client";
import { harness, type Harness } from "./harness";
import { click, render, settle, typeInto, type Rendered } from "./render";

let view: Rendered | null = null;
afterEach(() => {
	view?.unmount();
	view = null;
});

/** A fake main process that keeps settings as the real one does: the key is stored but never returned. */
class SettingsServer {
	storedKey: string | undefined;
	active: ActiveModelInfo | null = null;
	constructor(
		readonly client: FakeClient,
		model: ModelSettings = {},
	) {
		this.#store(model);
		client.on("setSettings", ({ settings }) => {
			const { model: patchModel, ...rest } = settings;
			client.settings = { ...client.settings, ...rest };
			if (patchModel) this.#store(patchModel);
			return client.settings;
		});
		client.on("getActiveModel", () => this.active);
	}

	#store(model: ModelSettings): void {
		const { apiKey, apiKeySet: _ignored, ...rest } = model;
		// An update without a key keeps the stored one; "" clears it.
		if (apiKey !== undefined) this.storedKey = apiKey === "" ? undefined : apiKey;
		this.client.settings = { ...this.client.settings, model: this.storedKey ? { ...rest, apiKeySet: true } : rest };
	}
}

async function mountApp(client: FakeClient): Promise<{ h: Harness; view: Rendered }> {
	const h = await harness(client, { boot: false });
	view = await render(<App runtime={h.rt} />);
	await settle();
	return { h, view };
}

async function openSettings(h: Harness, v: Rendered): Promise<HTMLElement> {
	await settle(() => h.run("settings.open", { source: "palette" }));
	const dialog = v.byTestId("settings-dialog");
	if (!dialog) throw new Error("settings dialog did not open");
	return dialog;
}

/** Change a <select> the way React notices. */
async function choose(el: Element | null, value: string): Promise<void> {
	if (!(el instanceof HTMLSelectElement)) throw new Error("choose: not a select");
	await settle(() => {
		Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value")?.set?.call(el, value);
		el.dispatchEvent(new Event("change", { bubbles: true }));
	});
}

const input = (v: Rendered, id: string): HTMLInputElement => v.byTestId(id) as HTMLInputElement;

describe("settings dialog: opening it", () => {
	it("settings.open is in the palette, on Ctrl+, and on the toolbar, and runs from a menu_command event", async () => {
		const { h, view } = await mountApp(new FakeClient());
		const ctx = h.rt.services.deps;
		const { makeContext } = await import("../commands/registry");
		expect(h.rt.registry.palette(makeContext(ctx)).map((c) => c.id)).toContain("settings.open");

		let handled = false;
		await settle(() => {
			handled = h.press("Ctrl+,");
		});
		expect(handled).toBe(true);
		expect(view.byTestId("settings-dialog")).not.toBeNull();
		await settle(() => h.run("app.escape", { source: "keyboard" }));
		expect(view.byTestId("settings-dialog")).toBeNull();

		await click(view.byTestId("open-settings"));
		expect(view.byTestId("settings-dialog")).not.toBeNull();
		await click(view.byTestId("settings-close"));
		expect(view.byTestId("settings-dialog")).toBeNull();

		await settle(() => h.client.emit({ type: "menu_command", command: "settings.open" }));
		expect(view.byTestId("settings-dialog")).not.toBeNull();
	});

	it("does not replace a navigation in progress (a menu-bar click while summarizing)", async () => {
		const client = new FakeClient();
		client.on("previewNavigation", () => ({
			targetId: "u2",
			oldLeafId: "a3",
			commonAncestorId: "a1",
			entriesToSummarize: ["u3", "a3"],
			newLeafId: "a1",
			isNoop: false,
			estimatedTokens: 10,
		}));
		const { h, view } = await mountApp(client);
		await settle(() => h.run("navigate.here", { targetId: "a2" }));
		expect(view.byTestId("navigate-dialog")).not.toBeNull();
		expect(await h.run("settings.open", { source: "menu" })).toBe(false);
		await settle();
		expect(view.byTestId("settings-dialog")).toBeNull();
		expect(view.byTestId("navigate-dialog")).not.toBeNull();
	});

	it('the status bar\'s "no model" opens the settings dialog', async () => {
		const { view } = await mountApp(new FakeClient());
		const status = view.byTestId("status-model");
		expect(status?.textContent).toBe("no model");
		await click(status);
		expect(view.byTestId("settings-dialog")).not.toBeNull();
	});

	it("reads the settings fresh when it opens and fills the form from them", async () => {
		const client = new FakeClient();
		new SettingsServer(client, { provider: "ollama", modelId: "llama3.1:8b", baseUrl: "http://127.0.0.1:11434/v1", api: "openai-completions", apiKey: "k" });
		const { h, view } = await mountApp(client);
		// Edited by hand while Arbor runs.
		client.settings = { ...client.settings, doubleEscapeAction: "tree", layoutDirection: "LR", treeFilterMode: "user-only" };
		const before = client.callsOf("getSettings").length;
		await openSettings(h, view);
		expect(client.callsOf("getSettings").length).toBe(before + 1);
		expect(input(view, "settings-provider").value).toBe("ollama");
		expect(input(view, "settings-model").value).toBe("llama3.1:8b");
		expect(input(view, "settings-base-url").value).toBe("http://127.0.0.1:11434/v1");
		expect((view.byTestId("settings-api") as HTMLSelectElement).value).toBe("openai-completions");
		expect(input(view, "settings-api-key").value).toBe("");
		expect(input(view, "settings-api-key").type).toBe("password");
		expect(input(view, "settings-api-key").placeholder).toContain("stored");
		expect((view.byTestId("settings-double-escape") as HTMLSelectElement).value).toBe("tree");
		expect((view.byTestId("settings-layout") as HTMLSelectElement).value).toBe("LR");
		expect((view.byTestId("settings-filter") as HTMLSelectElement).value).toBe("user-only");
		// Opening the dialog does not change the filter the user is looking at.
		expect(h.rt.store.getState().filter).toBe("default");
	});
});

describe("settings dialog: the active model", () => {
	it("shows the model summaries use and where it comes from", async () => {
		const client = new FakeClient();
		const server = new SettingsServer(client);
		server.active = { provider: "anthropic", modelId: "claude-sonnet-4-5", source: "env", auth: "env" };
		const { h, view } = await mountApp(client);
		await openSettings(h, view);
		const active = view.byTestId("settings-active-model");
		expect(active?.textContent).toContain("anthropic/claude-sonnet-4-5");
		expect(active?.textContent).toContain("from an API key in the environment");
		expect(active?.getAttribute("data-source")).toBe("env");
		expect(view.byTestId("status-model")?.textContent).toBe("anthropic/claude-sonnet-4-5");
	});

	it("explains in plain words where Arbor looks when no model is configured", async () => {
		const client = new FakeClient();
		new SettingsServer(client);
		const { h, view } = await mountApp(client);
		await openSettings(h, view);
		const text = view.byTestId("settings-active-model")?.textContent ?? "";
		expect(text).toContain("No model is active");
		expect(text).toContain("~/.pi/agent/settings.json");
		expect(text).toContain("ANTHROPIC_API_KEY");
		expect(text).toContain("Ollama");
		expect(view.byTestId("settings-model-problem")).toBeNull();
	});

	it("says the saved model cannot be used when Arbor's settings name one but none is active", async () => {
		const client = new FakeClient();
		new SettingsServer(client, { provider: "anthropic", modelId: "no-such-model" });
		const { h, view } = await mountApp(client);
		await openSettings(h, view);
		expect(view.byTestId("settings-model-problem")?.textContent).toContain("cannot be used");
	});
});

describe("settings dialog: saving", () => {
	it("saves a local OpenAI-compatible server with a key; the key is sent once, never shown, and the active model is asked again", async () => {
		const client = new FakeClient();
		const server = new SettingsServer(client);
		const { h, view } = await mountApp(client);
		await openSettings(h, view);
		await click(view.byTestId("settings-preset-ollama"));
		expect(input(view, "settings-provider").value).toBe("ollama");
		expect(input(view, "settings-base-url").value).toBe("http://127.0.0.1:11434/v1");
		await typeInto(view.byTestId("settings-model"), "llama3.1:8b");
		await typeInto(view.byTestId("settings-api-key"), "  sk-secret  ");
		server.active = { provider: "ollama", modelId: "llama3.1:8b", source: "arbor-settings", auth: null, baseUrl: "http://127.0.0.1:11434/v1" };
		// The status bar asks for the model 150 ms after mounting (StatusBar's debounce): let that pass, so the
		// count below is the save's own request.
		await new Promise((r) => setTimeout(r, 400));
		const asked = client.callsOf("getActiveModel").length;
		await click(view.byTestId("settings-save"));

		expect(client.callsOf("setSettings").at(-1)?.settings.model).toEqual({
			provider: "ollama",
			modelId: "llama3.1:8b",
			api: "openai-completions",
			baseUrl: "http://127.0.0.1:11434/v1",
			apiKey: "sk-secret",
		});
		expect(server.storedKey).toBe("sk-secret");
		expect(view.byTestId("settings-status")?.textContent).toBe("Saved.");
		expect(input(view, "settings-api-key").value).toBe("");
		expect(view.container.textContent).not.toContain("sk-secret");
		expect(client.callsOf("getActiveModel").length).toBe(asked + 1);
		expect(view.byTestId("settings-active-model")?.textContent).toContain("ollama/llama3.1:8b");
		expect(view.byTestId("settings-active-model")?.textContent).toContain("Arbor's settings");
		expect(view.byTestId("status-model")?.textContent).toBe("ollama/llama3.1:8b");
		expect((view.byTestId("settings-clear-key") as HTMLButtonElement).disabled).toBe(false);
	});

	it("an empty key field keeps the stored key: the model goes without apiKey", async () => {
		const client = new FakeClient();
		const server = new SettingsServer(client, { provider: "openai", modelId: "gpt-4.1-mini", apiKey: "sk-old" });
		const { h, view } = await mountApp(client);
		await openSettings(h, view);
		await typeInto(view.byTestId("settings-model"), "gpt-4.1");
		await click(view.byTestId("settings-save"));
		const sent = client.callsOf("setSettings").at(-1)?.settings.model;
		expect(sent).toEqual({ provider: "openai", modelId: "gpt-4.1" });
		expect(sent && "apiKey" in sent).toBe(false);
		expect(server.storedKey).toBe("sk-old");
	});

	it('Clear key sends apiKey "" with the saved model (not unsaved edits) and the key is gone', async () => {
		const client = new FakeClient();
		const server = new SettingsServer(client, { provider: "openai", modelId: "gpt-4.1-mini", apiKey: "sk-old" });
		const { h, view } = await mountApp(client);
		await openSettings(h, view);
		await typeInto(view.byTestId("settings-model"), "unsaved-edit");
		await click(view.byTestId("settings-clear-key"));
		expect(client.callsOf("setSettings").at(-1)?.settings).toEqual({ model: { provider: "openai", modelId: "gpt-4.1-mini", apiKey: "" } });
		expect(server.storedKey).toBeUndefined();
		expect(view.byTestId("settings-status")?.textContent).toContain("removed");
		expect((view.byTestId("settings-clear-key") as HTMLButtonElement).disabled).toBe(true);
		// The unsaved edit is still in the form.
		expect(input(view, "settings-model").value).toBe("unsaved-edit");
	});

	it("saves pi's tree settings and the layout direction, which applies at once", async () => {
		const client = new FakeClient();
		new SettingsServer(client);
		const { h, view } = await mountApp(client);
		await openSettings(h, view);
		await choose(view.byTestId("settings-double-escape"), "tree");
		await choose(view.byTestId("settings-filter"), "no-tools");
		await click(view.byTestId("settings-skip-prompt"));
		await choose(view.byTestId("settings-layout"), "LR");
		await click(view.byTestId("settings-save"));
		const sent = client.callsOf("setSettings").at(-1)?.settings;
		expect(sent).toMatchObject({ doubleEscapeAction: "tree", treeFilterMode: "no-tools", skipSummaryPrompt: true, layoutDirection: "LR" });
		expect(sent && "recentFiles" in sent).toBe(false);
		expect(h.rt.store.getState().settings?.layoutDirection).toBe("LR");
		// Arrow keys follow the saved direction: Right goes to the child in a left-to-right layout.
		const { makeContext, commandKeys } = await import("../commands/registry");
		const child = h.rt.registry.get("select.child");
		expect(child && commandKeys(child, makeContext(h.rt.services.deps))).toEqual(["Right"]);
	});

	it("an error from the main process is shown plainly and the dialog stays open", async () => {
		const client = new FakeClient();
		new SettingsServer(client);
		client.on("setSettings", () => {
			throw new ArborRequestError({ code: "io", message: "EACCES: permission denied, open '/home/me/.arbor/settings.json.tmp'" });
		});
		const { h, view } = await mountApp(client);
		await openSettings(h, view);
		await typeInto(view.byTestId("settings-model"), "gpt-4.1");
		await typeInto(view.byTestId("settings-provider"), "openai");
		await click(view.byTestId("settings-save"));
		expect(view.byTestId("settings-error")?.textContent).toBe("Could not save: EACCES: permission denied, open '/home/me/.arbor/settings.json.tmp'");
		expect(view.byTestId("settings-dialog")).not.toBeNull();
		expect(view.byTestId("settings-status")).toBeNull();
	});

	it("a base URL that is not http(s) is refused before anything is sent", async () => {
		const client = new FakeClient();
		new SettingsServer(client);
		const { h, view } = await mountApp(client);
		await openSettings(h, view);
		await typeInto(view.byTestId("settings-model"), "m");
		await typeInto(view.byTestId("settings-base-url"), "127.0.0.1:11434");
		await click(view.byTestId("settings-save"));
		expect(view.byTestId("settings-error")?.textContent).toContain("http://");
		expect(client.callsOf("setSettings")).toHaveLength(0);
	});
});

describe("settings form rules", () => {
	const base: ArborSettings = {
		model: { provider: "local", modelId: "m", baseUrl: "http://x/v1", api: "openai-completions", apiKeySet: true },
		doubleEscapeAction: "branch",
		treeFilterMode: "all",
		skipSummaryPrompt: true,
		layoutDirection: "LR",
		recentFiles: ["/a.jsonl"],
		hiddenBranches: {},
	};

	it("round-trips the saved settings without a key, apiKeySet or recent files", () => {
		const patch = settingsPatch(formOf(base));
		expect(patch).toEqual({
			model: { provider: "local", modelId: "m", baseUrl: "http://x/v1", api: "openai-completions" },
			doubleEscapeAction: "branch",
			treeFilterMode: "all",
			skipSummaryPrompt: true,
			layoutDirection: "LR",
		});
	});

	it("leaves empty fields out, so clearing every field clears Arbor's model", () => {
		const f = { ...formOf(base), provider: " ", modelId: "", baseUrl: "", api: "" };
		expect(settingsPatch(f).model).toEqual({});
		expect(validateForm(f)).toBeNull();
	});

	it("needs a model id with a provider or a base URL", () => {
		expect(validateForm({ ...formOf(base), modelId: "" })).toMatch(/model id/);
		expect(validateForm({ ...formOf(null), provider: "openai" })).toMatch(/model id/);
		expect(validateForm({ ...formOf(base), baseUrl: "ftp://x" })).toMatch(/http/);
	});
});
