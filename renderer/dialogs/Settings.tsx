// Settings dialog: the model branch summaries use (provider, model id, pi-ai api, base URL for
// OpenAI-compatible local servers, a write-only API key) with the model the main process would use right
// now and where it comes from, plus pi's tree settings Arbor follows (double-Escape, initial filter, skip
// the summary prompt) and the layout direction. The main process never returns a stored key, only
// `apiKeySet`; an empty key field keeps it and "Clear key" sends "".

import { type ReactNode, useEffect, useState } from "react";
import { FILTER_MODES, type ActiveModelInfo, type ArborSettings, type FilterMode, type ModelSettings } from "../../shared/api";
import { FILTERS } from "../../shared/commands";
import { useAppStore, useApp } from "../store";
import { errorText } from "../store/dialogs";
import { Modal } from "./Modal";
import { ExtensionsSection } from "./SettingsExtensions";
import { ConnectPiSection } from "./SettingsConnectPi";

/** pi-ai api names a user is likely to need; a hand-edited value outside the list is kept and shown. */
export const MODEL_APIS: readonly { id: string; label: string }[] = [
	{ id: "", label: "Provider's default (openai-completions with a base URL)" },
	{ id: "openai-completions", label: "openai-completions: chat completions (OpenAI, Ollama, llama.cpp, vLLM, LM Studio)" },
	{ id: "openai-responses", label: "openai-responses: OpenAI Responses API" },
	{ id: "anthropic-messages", label: "anthropic-messages: Anthropic Messages API" },
	{ id: "google-generative-ai", label: "google-generative-ai: Gemini API" },
	{ id: "mistral-conversations", label: "mistral-conversations: Mistral API" },
];

const PROVIDERS = ["anthropic", "openai", "google", "openrouter", "groq", "xai", "mistral", "deepseek", "ollama", "llama.cpp"];

/** One click fills what a local OpenAI-compatible server needs (their default ports); the model id stays the user's. */
export const PRESETS: Record<string, { label: string; provider: string; api: string; baseUrl: string }> = {
	ollama: { label: "Ollama", provider: "ollama", api: "openai-completions", baseUrl: "http://127.0.0.1:11434/v1" },
	llamacpp: { label: "llama.cpp", provider: "llama.cpp", api: "openai-completions", baseUrl: "http://127.0.0.1:8080/v1" },
};

const SOURCE_TEXT: Record<ActiveModelInfo["source"], string> = {
	"arbor-settings": "Arbor's settings (~/.arbor/settings.json)",
	"pi-settings": "pi's saved default (~/.pi/agent/settings.json)",
	"pi-automatic": "pi's automatic choice (first provider with credentials)",
	env: "an API key in the environment",
	"pi-session": "the session's own model (pi restores it on resume)",
};

export interface SettingsForm {
	provider: string;
	modelId: string;
	api: string;
	baseUrl: string;
	/** What the user typed; empty keeps the stored key. */
	apiKey: string;
	doubleEscapeAction: ArborSettings["doubleEscapeAction"];
	treeFilterMode: FilterMode;
	skipSummaryPrompt: boolean;
	layoutDirection: ArborSettings["layoutDirection"];
}

export function formOf(s: ArborSettings | null): SettingsForm {
	const m = s?.model ?? {};
	return {
		provider: m.provider ?? "",
		modelId: m.modelId ?? "",
		api: m.api ?? "",
		baseUrl: m.baseUrl ?? "",
		apiKey: "",
		doubleEscapeAction: s?.doubleEscapeAction ?? "tree",
		treeFilterMode: s?.treeFilterMode ?? "default",
		skipSummaryPrompt: s?.skipSummaryPrompt ?? false,
		layoutDirection: s?.layoutDirection ?? "rows",
	};
}

/** A plain sentence for what would make Save fail, or null. */
export function validateForm(f: SettingsForm): string | null {
	const baseUrl = f.baseUrl.trim();
	if (baseUrl !== "" && !/^https?:\/\/[^\s/]+/i.test(baseUrl)) {
		return "The base URL must start with http:// or https://, for example http://127.0.0.1:11434/v1.";
	}
	if (baseUrl !== "" && f.modelId.trim() === "") return "A base URL needs a model id too (the name the server knows the model by).";
	if (f.provider.trim() !== "" && f.modelId.trim() === "") return "Choose a model id for this provider, or clear the provider.";
	return null;
}

/**
 * What Save sends. The model goes as a whole (the main process replaces it as a unit, and keeps the stored
 * key when `apiKey` is absent); empty fields are left out so they fall back to the provider's defaults.
 */
export function settingsPatch(f: SettingsForm): Partial<ArborSettings> {
	const model: ModelSettings = {};
	const put = (k: "provider" | "modelId" | "api" | "baseUrl" | "apiKey", v: string): void => {
		const t = v.trim();
		if (t !== "") model[k] = t;
	};
	put("provider", f.provider);
	put("modelId", f.modelId);
	put("api", f.api);
	put("baseUrl", f.baseUrl);
	put("apiKey", f.apiKey);
	return {
		model,
		doubleEscapeAction: f.doubleEscapeAction,
		treeFilterMode: f.treeFilterMode,
		skipSummaryPrompt: f.skipSummaryPrompt,
		layoutDirection: f.layoutDirection,
	};
}

/** One labelled control of the form: the label text, then the control, in the dialog's two columns. */
function Row({ label, children }: { label: string; children: ReactNode }) {
	return (
		<label className="settings-row">
			<span>{label}</span>
			{children}
		</label>
	);
}

function hasArborModel(s: ArborSettings | null): boolean {
	const m = s?.model;
	return !!m && !!(m.provider || m.modelId || m.baseUrl);
}

function ActiveModel({ model, settings }: { model: ActiveModelInfo | null; settings: ArborSettings | null }) {
	if (model) {
		return (
			<div className="settings-active" data-testid="settings-active-model" data-source={model.source}>
				<div>
					Summaries use{" "}
					<strong className="mono">
						{model.provider}/{model.modelId}
					</strong>
					{model.baseUrl && (
						<>
							{" "}
							at <span className="mono">{model.baseUrl}</span>
						</>
					)}
				</div>
				<div className="muted">from {SOURCE_TEXT[model.source]}</div>
			</div>
		);
	}
	return (
		<div className="settings-active none" data-testid="settings-active-model" data-source="none">
			<div>
				<strong>No model is active</strong>, so "Summarize" fails when you navigate. Nothing else needs one.
			</div>
			{hasArborModel(settings) ? (
				<div className="warn" data-testid="settings-model-problem">
					The model saved below cannot be used. A model pi-ai does not know needs a base URL; a hosted provider needs an API key (here, in pi's auth.json, or in
					its environment variable).
				</div>
			) : (
				<div className="muted">
					Arbor uses the first of: a model set below; pi's default model (defaultProvider and defaultModel in ~/.pi/agent/settings.json, with its key from
					auth.json); a key in the environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY…). For a local server such as Ollama or
					llama.cpp, set its base URL and model id below; no key is needed.
				</div>
			)}
		</div>
	);
}

export function SettingsDialog() {
	const store = useAppStore();
	const settings = useApp((s) => s.settings);
	const activeModel = useApp((s) => s.activeModel);
	const close = useApp((s) => s.closeDialog);
	const openDialog = useApp((s) => s.openDialog);
	const [form, setForm] = useState<SettingsForm | null>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | null>(null);
	const [status, setStatus] = useState<string | null>(null);

	useEffect(() => {
		// Read fresh: settings.json may have been edited by hand, and pi's config or the environment decide
		// the active model too.
		let live = true;
		const st = store.getState();
		void Promise.all([st.refreshSettings(), st.refreshActiveModel()]).then(
			() => live && setForm(formOf(store.getState().settings)),
			(err: unknown) => {
				if (!live) return;
				setError(`Could not read the settings: ${errorText(err)}`);
				setForm(formOf(store.getState().settings));
			},
		);
		return () => {
			live = false;
		};
	}, [store]);

	const edit = (patch: Partial<SettingsForm>): void => {
		setForm((f) => (f ? { ...f, ...patch } : f));
		setStatus(null);
	};

	const save = async (): Promise<void> => {
		if (!form) return;
		const invalid = validateForm(form);
		if (invalid) {
			setError(invalid);
			return;
		}
		setBusy(true);
		setError(null);
		setStatus(null);
		try {
			const saved = await store.getState().saveSettings(settingsPatch(form));
			setForm(formOf(saved));
			setStatus("Saved.");
		} catch (err) {
			setError(`Could not save: ${errorText(err)}`);
		} finally {
			setBusy(false);
		}
	};

	const clearKey = async (): Promise<void> => {
		const { apiKeySet: _set, apiKey: _key, ...stored } = settings?.model ?? {};
		setBusy(true);
		setError(null);
		setStatus(null);
		try {
			await store.getState().saveSettings({ model: { ...stored, apiKey: "" } });
			setForm((f) => (f ? { ...f, apiKey: "" } : f));
			setStatus("The stored API key was removed.");
		} catch (err) {
			setError(`Could not clear the key: ${errorText(err)}`);
		} finally {
			setBusy(false);
		}
	};

	const keySet = settings?.model.apiKeySet === true;
	const apiKnown = form ? MODEL_APIS.some((a) => a.id === form.api) : true;

	return (
		<Modal title="Settings" testId="settings-dialog" wide>
			<ActiveModel model={activeModel} settings={settings} />
			{!form ? (
				<p className="muted">
					<span className="spinner" /> Reading settings…
				</p>
			) : (
				<form
					className="settings-form"
					onSubmit={(e) => {
						e.preventDefault();
						void save();
					}}
				>
					<fieldset>
						<legend>Summary model</legend>
						<div className="settings-presets">
							<span className="muted">Local server:</span>
							{Object.entries(PRESETS).map(([id, p]) => (
								<button
									key={id}
									type="button"
									data-testid={`settings-preset-${id}`}
									onClick={() => edit({ provider: p.provider, api: p.api, baseUrl: p.baseUrl })}
								>
									{p.label}
								</button>
							))}
						</div>
						<Row label="Provider">
							<input
								autoFocus
								data-testid="settings-provider"
								list="settings-providers"
								value={form.provider}
								placeholder="anthropic, openai, google, ollama… (any name for a custom server)"
								onChange={(e) => edit({ provider: e.target.value })}
							/>
						</Row>
						<datalist id="settings-providers">
							{PROVIDERS.map((p) => (
								<option key={p} value={p} />
							))}
						</datalist>
						<Row label="Model id">
							<input
								data-testid="settings-model"
								value={form.modelId}
								placeholder="claude-sonnet-4-5, gpt-4.1-mini, llama3.1:8b…"
								onChange={(e) => edit({ modelId: e.target.value })}
							/>
						</Row>
						<Row label="API">
							<select data-testid="settings-api" value={form.api} onChange={(e) => edit({ api: e.target.value })}>
								{MODEL_APIS.map((a) => (
									<option key={a.id} value={a.id}>
										{a.label}
									</option>
								))}
								{!apiKnown && <option value={form.api}>{form.api}</option>}
							</select>
						</Row>
						<Row label="Base URL">
							<input
								data-testid="settings-base-url"
								value={form.baseUrl}
								placeholder="Empty for the provider's own; http://127.0.0.1:11434/v1 for Ollama"
								onChange={(e) => edit({ baseUrl: e.target.value })}
							/>
						</Row>
						<div className="settings-row">
							<label htmlFor="settings-api-key">API key</label>
							<div className="settings-key">
								<input
									id="settings-api-key"
									type="password"
									autoComplete="off"
									data-testid="settings-api-key"
									value={form.apiKey}
									placeholder={keySet ? "A key is stored: leave empty to keep it" : "None stored (local servers need none)"}
									onChange={(e) => edit({ apiKey: e.target.value })}
								/>
								<button type="button" data-testid="settings-clear-key" disabled={!keySet || busy} onClick={() => void clearKey()}>
									Clear key
								</button>
							</div>
						</div>
						<p className="muted settings-note" data-testid="settings-key-state">
							{keySet ? "A key is stored in ~/.arbor/settings.json (readable only by you). " : ""}
							Without a key here, Arbor uses pi's credentials for the provider (auth.json, OAuth login, environment), except at a custom base URL: that server
							only ever receives the key set here.
						</p>
					</fieldset>

					<fieldset>
						<legend>Tree (as in pi)</legend>
						<Row label="Double Escape">
							<select
								data-testid="settings-double-escape"
								value={form.doubleEscapeAction}
								onChange={(e) => edit({ doubleEscapeAction: e.target.value === "branch" ? "branch" : "tree" })}
							>
								<option value="tree">opens the tree (/tree)</option>
								<option value="branch">opens the user-message list (/branch)</option>
							</select>
						</Row>
						<Row label="Initial filter">
							<select
								data-testid="settings-filter"
								value={form.treeFilterMode}
								onChange={(e) => edit({ treeFilterMode: FILTER_MODES.find((m) => m === e.target.value) ?? "default" })}
							>
								{FILTER_MODES.map((m) => (
									<option key={m} value={m}>
										{FILTERS[m].name}
									</option>
								))}
							</select>
						</Row>
						<label className="checkbox settings-check">
							<input
								type="checkbox"
								data-testid="settings-skip-prompt"
								checked={form.skipSummaryPrompt}
								onChange={(e) => edit({ skipSummaryPrompt: e.target.checked })}
							/>
							Skip the summary prompt: navigating moves at once, without a summary
						</label>
						<Row label="Layout">
							<select
								data-testid="settings-layout"
								value={form.layoutDirection}
								onChange={(e) => edit({ layoutDirection: e.target.value === "LR" ? "LR" : e.target.value === "TB" ? "TB" : "rows" })}
							>
								<option value="rows">rows (one line per entry)</option>
								<option value="TB">top-down</option>
								<option value="LR">left-to-right</option>
							</select>
						</Row>
					</fieldset>

					<ExtensionsSection />

					<ConnectPiSection />

					{error && (
						<p className="error-text" role="alert" data-testid="settings-error">
							{error}
						</p>
					)}
					{status && (
						<p className="ok-text" role="status" data-testid="settings-status">
							{status}
						</p>
					)}
					{/* Stays at the dialog's bottom edge while the fields scroll (a 900 px window cut it off). */}
					<div className="button-row settings-actions">
						<button type="submit" data-testid="settings-save" disabled={busy}>
							{busy ? "Saving…" : "Save"}
						</button>
						<button type="button" data-testid="settings-close" onClick={() => close("settings")}>
							Close
						</button>
						<button type="button" className="link settings-about" data-testid="settings-about" onClick={() => openDialog({ kind: "about" })}>
							About Arbor
						</button>
					</div>
				</form>
			)}
		</Modal>
	);
}
