// Which model writes summaries (docs/summaries.md "Which model"): Arbor's own settings when set; otherwise
// the model pi 1.6 would start with — its saved default (settings.json defaultProvider/defaultModel) when
// that model exists and its provider has auth, else "automatic": the first provider with auth in pi's
// per-provider default table. The catalog is pi-ai 1.6's built-in providers, pi's refreshed catalogs
// (models-store.json) and pi's models.json on top; credentials come from pi's auth.json (API keys, OAuth
// with refresh), models.json keys and the environment, resolved by pi-ai at request time.
//
// The base-URL rule: a base URL set in Arbor's settings that is not the provider's own endpoint is a
// custom endpoint and receives only the key set with it in Arbor's settings — never a key stored for
// another endpoint (environment, auth.json, OAuth, models.json).

import { setMaxListeners } from "node:events";
import * as fs from "node:fs";
import * as path from "node:path";
import type { Api, AuthContext, AuthResult, Model, Models, MutableModels, Provider, ProviderStreams } from "@earendil-works/pi-ai";
import type { ActiveModelInfo, ModelSettings } from "../../shared/api";
import type { SessionEntry } from "../../shared/entries";
import { AuthJsonStore } from "./pi-auth";
import { loadApi, loadPiAi, loadPiAiProviders } from "./pi-ai";
import { type Env, readPiEffectiveSettings, readPiJson, resolveConfigValue, templateEnvNames, isCommandValue } from "./pi-config";
import { isRecord, errorText } from "../../shared/guards";
import { PI_DEFAULT_MODEL_PER_PROVIDER } from "./pi-default-models";

export interface ResolvedModel {
	model: Model<Api>;
	/** The collection that streams `model`; it resolves (and refreshes) the credential per request. */
	models: Models;
	info: ActiveModelInfo;
}

export type ModelResolution = { ok: true; resolved: ResolvedModel } | { ok: false; reason: string };

export interface ModelSources {
	arbor: ModelSettings;
	piAgentDir: string;
	env: Env;
	/** The working folder whose trusted `.pi/settings.json` pi would merge over its global settings. */
	cwd?: string;
	/** The model a session with messages has chosen on its branch (pi restores it when it still has credentials). */
	sessionModel?: { provider: string; modelId: string };
}

/** The options of pi's startup choice that depend on where and for which session it is made. */
export interface PiChoiceContext {
	cwd?: string;
	sessionModel?: { provider: string; modelId: string };
}

/** Provider ids pi renamed: the old id no longer exists in pi 1.6 (pi does not migrate it). */
const RENAMED_PROVIDERS: Readonly<Record<string, string>> = { "azure-openai-responses": "azure" };

/** Local OpenAI-compatible servers ignore the key, but the client refuses to send a request without one. */
const PLACEHOLDER_KEY = "arbor-no-key";

const LOCAL_SERVER_COMPAT = { supportsStore: false, supportsDeveloperRole: false, supportsReasoningEffort: false, maxTokensField: "max_tokens" };

function str(v: unknown): string | undefined {
	return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

function stringMap(v: unknown): Record<string, string> | undefined {
	if (!isRecord(v)) return undefined;
	const out: Record<string, string> = {};
	for (const [k, val] of Object.entries(v)) if (typeof val === "string") out[k] = val;
	return Object.keys(out).length ? out : undefined;
}

function authContext(env: Env): AuthContext {
	return {
		env: async (name) => {
			const v = env[name];
			return typeof v === "string" && v.trim() ? v : undefined;
		},
		fileExists: async (p) => fs.existsSync(p.startsWith("~") ? path.join(env.HOME ?? "", p.slice(1)) : p),
	};
}

/** Headers with pi's value templates resolved; a header whose value does not resolve is an error, as in pi. */
function resolveHeaders(raw: Record<string, string> | undefined, env: Env, where: string, scoped?: Env): Record<string, string> | undefined {
	if (!raw) return undefined;
	const out: Record<string, string> = {};
	for (const [k, v] of Object.entries(raw)) {
		const r = resolveConfigValue(v, env, scoped);
		if (r === undefined) throw new Error(`Failed to resolve ${where} header "${k}"`);
		out[k] = r;
	}
	return Object.keys(out).length ? out : undefined;
}

function mergeCompat(base: unknown, over: unknown): Record<string, unknown> | undefined {
	if (!isRecord(over)) return isRecord(base) ? base : undefined;
	const merged: Record<string, unknown> = { ...(isRecord(base) ? base : {}), ...over };
	for (const k of ["openRouterRouting", "vercelGatewayRouting", "chatTemplateKwargs", "chatTemplateArgs"]) {
		const b = isRecord(base) ? base[k] : undefined;
		const o = over[k];
		if (isRecord(b) || isRecord(o)) merged[k] = { ...(isRecord(b) ? b : {}), ...(isRecord(o) ? o : {}) };
	}
	return merged;
}

// ---------------------------------------------------------------- refreshed catalogs (models-store.json)

/** pi's refreshed catalog overlay, read offline: Arbor never fetches catalogs itself. */
function withStoredCatalog(
	provider: Provider,
	entry: unknown,
	generatedAt: number | undefined,
	replaces = provider.id === "openrouter" || provider.id === "radius",
): Provider {
	if (!isRecord(entry) || !Array.isArray(entry.models)) return provider;
	const stored = entry.models
		.filter((m): m is Model<Api> => isRecord(m) && typeof m.id === "string" && (m.type === undefined || m.type === "chat"))
		.map((m) => ({ ...m, provider: provider.id }));
	if (stored.length === 0) return provider;
	let models: Model<Api>[];
	if (replaces) {
		// OpenRouter's personalized list and a Radius gateway's catalog replace the built-in one.
		models = stored;
	} else {
		const lastModified = typeof entry.lastModified === "number" ? entry.lastModified : undefined;
		const newer = generatedAt === undefined || (lastModified !== undefined && lastModified > generatedAt);
		if (!newer) return provider;
		const byId = new Map<string, Model<Api>>();
		for (const m of [...provider.getModels(), ...stored]) byId.set(m.id, m);
		models = [...byId.values()];
	}
	return { ...provider, getModels: () => models, getAllModels: () => models };
}

// ---------------------------------------------------------------- models.json

interface ProviderConfig {
	raw: Record<string, unknown>;
	baseUrl?: string;
	api?: string;
	apiKey?: string;
	headers?: Record<string, string>;
	authHeader: boolean;
}

function providerConfig(raw: Record<string, unknown>): ProviderConfig {
	const c: ProviderConfig = { raw, authHeader: raw.authHeader === true };
	if (str(raw.baseUrl)) c.baseUrl = raw.baseUrl as string;
	if (str(raw.api)) c.api = raw.api as string;
	if (typeof raw.apiKey === "string" && raw.apiKey !== "") c.apiKey = raw.apiKey;
	const h = stringMap(raw.headers);
	if (h) c.headers = h;
	return c;
}

function modelFromDefinition(providerId: string, def: Record<string, unknown>, cfg: ProviderConfig, defaults: Model<Api> | undefined, env: Env): Model<Api> {
	const api = str(def.api) ?? cfg.api ?? defaults?.api;
	if (!api) throw new Error(`models.json: provider ${providerId}, model ${String(def.id)}: no "api" set (set it on the provider or the model).`);
	const baseUrl = str(def.baseUrl) ?? cfg.baseUrl ?? defaults?.baseUrl;
	if (!baseUrl) throw new Error(`models.json: provider ${providerId}: "baseUrl" is required when defining custom models.`);
	const positive = (v: unknown, d: number): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : d);
	const headers = resolveHeaders(stringMap(def.headers), env, `model "${providerId}/${String(def.id)}"`);
	const compat = mergeCompat(cfg.raw.compat, def.compat);
	return {
		id: def.id as string,
		name: str(def.name) ?? (def.id as string),
		api: api as Api,
		provider: providerId,
		baseUrl,
		reasoning: def.reasoning === true,
		input: Array.isArray(def.input) ? (def.input as Model<Api>["input"]) : ["text"],
		cost: isRecord(def.cost) ? (def.cost as Model<Api>["cost"]) : { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: positive(def.contextWindow, 128_000),
		maxTokens: positive(def.maxTokens, 16_384),
		...(headers ? { headers } : {}),
		...(compat ? { compat } : {}),
	} as Model<Api>;
}

function applyOverride(model: Model<Api>, o: Record<string, unknown>, env: Env): Model<Api> {
	const out: Record<string, unknown> = { ...model };
	if (str(o.name)) out.name = o.name;
	if (typeof o.reasoning === "boolean") out.reasoning = o.reasoning;
	if (Array.isArray(o.input)) out.input = o.input;
	for (const k of ["contextWindow", "maxTokens"] as const) if (typeof o[k] === "number" && (o[k] as number) > 0) out[k] = o[k];
	if (isRecord(o.cost)) out.cost = { ...model.cost, ...o.cost };
	if (isRecord(o.compat)) out.compat = mergeCompat((model as { compat?: unknown }).compat, o.compat);
	const headers = resolveHeaders(stringMap(o.headers), env, `model "${model.provider}/${model.id}"`);
	if (headers) out.headers = { ...(model as { headers?: Record<string, string> }).headers, ...headers };
	return out as unknown as Model<Api>;
}

/** One provider of models.json layered over the built-in one of that id (if any), as pi composes them. */
async function composeProvider(id: string, base: Provider | undefined, cfg: ProviderConfig, env: Env): Promise<Provider> {
	const baseModels = base ? [...base.getModels()] : [];
	const radius = cfg.raw.oauth === "radius";
	const models: Model<Api>[] = baseModels.map((m) => {
		const compat = mergeCompat((m as { compat?: unknown }).compat, cfg.raw.compat);
		// A Radius gateway's models keep their own endpoint; baseUrl names the gateway.
		return { ...m, baseUrl: radius ? m.baseUrl : (cfg.baseUrl ?? m.baseUrl), ...(compat ? { compat } : {}) } as Model<Api>;
	});
	for (const def of Array.isArray(cfg.raw.models) ? cfg.raw.models : []) {
		if (!isRecord(def) || typeof def.id !== "string" || !def.id) continue;
		const wanted = str(def.api) ?? cfg.api;
		const defaults =
			models.find((m) => m.id === def.id) ??
			(wanted ? models.find((m) => m.api === wanted) : undefined) ??
			models.find((m) => m.api === "openai-completions") ??
			models[0];
		const model = modelFromDefinition(id, def, cfg, defaults, env);
		const i = models.findIndex((m) => m.id === def.id);
		if (i >= 0) models[i] = model;
		else models.push(model);
	}
	const overrides = isRecord(cfg.raw.modelOverrides) ? cfg.raw.modelOverrides : {};
	const final = models.map((m) => (isRecord(overrides[m.id]) ? applyOverride(m, overrides[m.id] as Record<string, unknown>, env) : m));

	const inherited = base?.auth.apiKey;
	const raw = cfg.apiKey;
	const withHeaders = (result: AuthResult): AuthResult => {
		const scoped = result.env as Env | undefined;
		let headers = cfg.headers || result.auth.headers ? { ...result.auth.headers, ...resolveHeaders(cfg.headers, env, `provider "${id}"`, scoped) } : undefined;
		if (cfg.authHeader) {
			if (!result.auth.apiKey) throw new Error(`No API key found for "${id}"`);
			headers = { ...headers, Authorization: `Bearer ${result.auth.apiKey}` };
		}
		return { ...result, auth: { ...result.auth, ...(headers ? { headers } : {}) } };
	};
	const apiKeyAuth: NonNullable<Provider["auth"]["apiKey"]> | undefined =
		!inherited && raw === undefined && base?.auth.oauth
			? undefined
			: {
					name: inherited?.name ?? "API key",
					check: async (input) => {
						if (input.credential) {
							if (inherited?.check) return inherited.check(input);
							if (input.credential.key) return { type: "api_key", source: "stored credential" };
							const r = await inherited?.resolve(input);
							return r ? { type: "api_key", source: r.source } : undefined;
						}
						if (raw !== undefined) {
							if (isCommandValue(raw)) return { type: "api_key", source: "configured API key" };
							for (const n of templateEnvNames(raw)) if ((await input.ctx.env(n)) === undefined) return undefined;
							return { type: "api_key", source: "configured API key" };
						}
						if (inherited?.check) return inherited.check(input);
						const r = await inherited?.resolve(input);
						return r ? { type: "api_key", source: r.source } : undefined;
					},
					resolve: async (input) => {
						let result: AuthResult | undefined;
						if (input.credential) {
							result = inherited
								? await inherited.resolve(input)
								: input.credential.key
									? { auth: { apiKey: input.credential.key }, ...(input.credential.env ? { env: input.credential.env } : {}), source: "stored credential" }
									: undefined;
						} else if (raw !== undefined) {
							const key = resolveConfigValue(raw, env);
							if (key === undefined) throw new Error(`Failed to resolve the API key of provider "${id}" (models.json)`);
							result = inherited
								? await inherited.resolve({ ...input, credential: { type: "api_key", key } })
								: { auth: { apiKey: key }, source: "configured API key" };
						} else {
							result = await inherited?.resolve(input);
						}
						return result ? withHeaders(result) : undefined;
					},
				};
	const oauth = base?.auth.oauth
		? {
				...base.auth.oauth,
				toAuth: async (c: Parameters<NonNullable<Provider["auth"]["oauth"]>["toAuth"]>[0]) => withHeaders({ auth: await base.auth.oauth!.toAuth(c) }).auth,
			}
		: undefined;
	if (!apiKeyAuth && !oauth) throw new Error(`models.json: provider ${id}: no authentication method configured.`);

	const apis = new Map<string, ProviderStreams>();
	for (const api of new Set(final.map((m) => m.api as string))) {
		if (base?.getModels().some((m) => m.api === api)) continue;
		const impl = await loadApi(api);
		if (impl) apis.set(api, impl);
	}
	const ai = await loadPiAi();
	type Ctx = Parameters<Provider["stream"]>[1];
	type Opts = Parameters<Provider["streamSimple"]>[2];
	const streamWith = (model: Model<Api>, context: Ctx, options: Opts, simple: boolean) => {
		if (base?.getModels().some((m) => m.api === model.api)) return simple ? base.streamSimple(model, context, options) : base.stream(model, context, options);
		const impl = apis.get(model.api);
		if (!impl) return ai.lazyStream(model, async () => Promise.reject(new Error(`Arbor cannot call the "${model.api}" API.`)));
		return simple ? impl.streamSimple(model, context, options) : impl.stream(model, context, options);
	};
	return {
		id,
		name: str(cfg.raw.name) ?? base?.name ?? id,
		...((cfg.baseUrl ?? base?.baseUrl) ? { baseUrl: cfg.baseUrl ?? base?.baseUrl } : {}),
		...(base?.headers ? { headers: base.headers } : {}),
		auth: { ...(apiKeyAuth ? { apiKey: apiKeyAuth } : {}), ...(oauth ? { oauth } : {}) },
		getModels: () => final,
		getAllModels: () => final,
		...(base?.filterModels ? { filterModels: base.filterModels.bind(base) } : {}),
		stream: (model: Model<Api>, context: Ctx, options?: unknown) => streamWith(model, context, options as Opts, false),
		streamSimple: (model: Model<Api>, context: Ctx, options?: Opts) => streamWith(model, context, options, true),
	} as Provider;
}

// ---------------------------------------------------------------- pi's collection

export interface PiCatalog {
	models: MutableModels;
	credentials: AuthJsonStore;
	/** models.json provider configs by id, and its load problem if any. */
	config: Map<string, ProviderConfig>;
	configError?: string;
}

/** pi 1.6's model collection for an agent folder: built-ins + models-store.json + models.json. */
export async function buildPiCatalog(agentDir: string, env: Env): Promise<PiCatalog> {
	const ai = await loadPiAi();
	const all = await loadPiAiProviders();
	const credentials = new AuthJsonStore(path.join(agentDir, "auth.json"), env);
	const models = ai.createModels({ credentials, authContext: authContext(env) });
	const storeRead = readPiJson(path.join(agentDir, "models-store.json"));
	const store = storeRead.ok && isRecord(storeRead.value) ? storeRead.value : {};
	const generatedAt = all.getBuiltinModelDataGeneratedAt();
	const builtins = new Map<string, Provider>();
	for (const p of all.builtinProviders()) builtins.set(p.id, withStoredCatalog(p, store[p.id], generatedAt));

	const config = new Map<string, ProviderConfig>();
	let configError: string | undefined;
	const mj = readPiJson(path.join(agentDir, "models.json"), true);
	if (mj.ok) {
		if (isRecord(mj.value) && isRecord(mj.value.providers)) {
			for (const [id, raw] of Object.entries(mj.value.providers)) if (isRecord(raw)) config.set(id, providerConfig(raw));
		} else configError = 'models.json has no "providers" object';
	} else if (!mj.missing) configError = `models.json could not be read (${mj.error ?? "unknown error"})`;

	// models.json providers with `"oauth": "radius"` are Radius gateways (pi's configureRadiusProviders).
	for (const [id, cfg] of config) {
		if (cfg.raw.oauth !== "radius" || !cfg.baseUrl) continue;
		const gateway = cfg.baseUrl.replace(/\/v1\/?$/u, "");
		builtins.set(id, withStoredCatalog(all.radiusProvider({ id, name: str(cfg.raw.name) ?? id, gateway }), store[id], generatedAt, true));
	}
	for (const [id, p] of builtins) if (!config.has(id)) models.setProvider(p);
	for (const [id, cfg] of config) {
		try {
			models.setProvider(await composeProvider(id, builtins.get(id), cfg, env));
		} catch (err) {
			// pi keeps the built-in provider when its models.json layer is broken.
			const b = builtins.get(id);
			if (b) models.setProvider(b);
			configError ??= errorText(err);
		}
	}
	return { models, credentials, config, ...(configError ? { configError } : {}) };
}

/** Where the credential of a provider comes from, without resolving it ("auth" of `arbor model`). */
function authKind(cat: PiCatalog, provider: string): "api_key" | "oauth" | "env" {
	const stored = cat.credentials.raw(provider);
	if (stored?.type === "oauth") return "oauth";
	if (stored?.type === "api_key" && stored.key) return templateEnvNames(stored.key).length ? "env" : "api_key";
	const raw = cat.config.get(provider)?.apiKey;
	if (raw !== undefined) return templateEnvNames(raw).length ? "env" : "api_key";
	return "env";
}

async function hasAuth(models: Models, provider: string): Promise<boolean> {
	try {
		return (await models.checkAuth(provider)) !== undefined;
	} catch {
		return false;
	}
}

/** pi 1.6's startup choice (saved default, then automatic), or why there is none. */
export async function resolvePiModel(cat: PiCatalog, agentDir: string, at: PiChoiceContext = {}): Promise<ModelResolution> {
	const settings = readPiEffectiveSettings(agentDir, at.cwd);
	const provider = str(settings.defaultProvider);
	const modelId = str(settings.defaultModel);
	let note: string | undefined;
	// A session with messages: pi restores the model its branch last chose when it still has credentials
	// (sdk.js createAgentSession); `enabledModels` scopes only a new session, so they never apply here.
	if (at.sessionModel) {
		const { provider: sp, modelId: sm } = at.sessionModel;
		const found = cat.models.getModel(sp, sm);
		if (found && (await hasAuth(cat.models, found.provider))) {
			return { ok: true, resolved: { model: found, models: cat.models, info: { provider: sp, modelId: sm, source: "pi-session", auth: authKind(cat, sp) } } };
		}
		note = `pi could not restore the session's model ${sp}/${sm} (${found ? "no credentials" : "not a model pi knows"})`;
	}
	if (provider && modelId) {
		const found = cat.models.getModel(provider, modelId);
		if (found && (await hasAuth(cat.models, found.provider))) {
			return { ok: true, resolved: { model: found, models: cat.models, info: { provider, modelId, source: "pi-settings", auth: authKind(cat, provider) } } };
		}
		const renamed = RENAMED_PROVIDERS[provider];
		const why = renamed
			? `pi's saved default names provider "${provider}", which pi 1.6 renamed to "${renamed}" (rename it in settings.json and auth.json)`
			: found
				? `pi's saved default ${provider}/${modelId} has no credentials`
				: `pi's saved default ${provider}/${modelId} is not a model pi knows`;
		note = note ? `${note}; ${why}` : why;
	}
	// pi-ai checks every provider at once, each adding an abort listener to the one signal of the call: with
	// pi 1.6's ~20 built-in providers Node warned of a listener leak (MaxListenersExceededWarning) although
	// each listener is removed when its check settles. Our own signal allows them all.
	const signal = new AbortController().signal;
	setMaxListeners(0, signal);
	const available = [...(await cat.models.getAvailable(undefined, { signal }))];
	let chosen: Model<Api> | undefined;
	for (const [p, id] of PI_DEFAULT_MODEL_PER_PROVIDER) {
		chosen = available.find((m) => m.provider === p && m.id === id);
		if (chosen) break;
	}
	chosen ??= available[0];
	if (chosen) {
		const auth = authKind(cat, chosen.provider);
		return {
			ok: true,
			resolved: {
				model: chosen,
				models: cat.models,
				info: { provider: chosen.provider, modelId: chosen.id, source: auth === "env" ? "env" : "pi-automatic", auth, ...(note ? { note } : {}) },
			},
		};
	}
	return {
		ok: false,
		reason:
			"No model for summaries: " +
			(note ? `${note}, and no other provider has credentials. ` : "no provider has credentials. ") +
			"Log in with pi (/login), set a provider key such as ANTHROPIC_API_KEY or OPENAI_API_KEY, add a provider to pi's models.json, or set a model in Arbor's settings." +
			(cat.configError ? ` (pi's ${cat.configError})` : ""),
	};
}

// ---------------------------------------------------------------- Arbor's settings

function sameEndpoint(a: string, b: string | undefined): boolean {
	if (!b) return false;
	const norm = (u: string): string => {
		try {
			const x = new URL(u);
			return `${x.protocol}//${x.host.toLowerCase()}${x.pathname.replace(/\/+$/, "")}`;
		} catch {
			return u.replace(/\/+$/, "");
		}
	};
	return norm(a) === norm(b);
}

/** A custom endpoint: its own collection holding one provider whose only credential is Arbor's key. */
async function customEndpoint(
	provider: string,
	template: Model<Api> | undefined,
	s: ModelSettings & { modelId: string; baseUrl: string },
): Promise<ModelResolution> {
	const ai = await loadPiAi();
	const api = s.api ?? template?.api ?? "openai-completions";
	const impl = await loadApi(api);
	if (!impl) return { ok: false, reason: `Arbor's settings name the API "${api}", which Arbor cannot call for a custom base URL.` };
	const model = {
		...(template ?? {
			name: s.modelId,
			reasoning: false,
			input: ["text"],
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
			contextWindow: 128_000,
			maxTokens: 16_384,
			// Local OpenAI-compatible servers (llama.cpp, Ollama, vLLM) know the classic request fields best.
			...(api === "openai-completions" ? { compat: LOCAL_SERVER_COMPAT } : {}),
		}),
		id: s.modelId,
		api,
		provider,
		baseUrl: s.baseUrl,
		headers: undefined,
	} as Model<Api>;
	const key = s.apiKey || undefined;
	const p = ai.createProvider({
		id: provider,
		baseUrl: s.baseUrl,
		auth: {
			apiKey: { name: "Arbor settings key", resolve: async () => ({ auth: { apiKey: key ?? PLACEHOLDER_KEY }, source: key ? "Arbor settings" : "none" }) },
		},
		models: [model],
		api: impl,
	});
	// No credential store and an empty environment: nothing stored for another endpoint can reach it.
	const models = ai.createModels({ authContext: authContext({}) });
	models.setProvider(p);
	return {
		ok: true,
		resolved: { model, models, info: { provider, modelId: s.modelId, source: "arbor-settings", auth: key ? "api_key" : null, baseUrl: s.baseUrl } },
	};
}

async function fromArbor(s: ModelSettings, cat: () => Promise<PiCatalog>): Promise<ModelResolution | undefined> {
	if (!s.modelId && !s.provider && !s.baseUrl) return undefined;
	if (!s.modelId) return { ok: false, reason: "Arbor settings name a model provider but no model id (settings: model.modelId)." };
	const provider = s.provider ?? "custom";
	const c = await cat();
	const known = c.models.getModel(provider, s.modelId);
	if (s.baseUrl && !sameEndpoint(s.baseUrl, known?.baseUrl ?? c.models.getProvider(provider)?.baseUrl)) {
		return customEndpoint(provider, known, { ...s, modelId: s.modelId, baseUrl: s.baseUrl });
	}
	if (!known) {
		return { ok: false, reason: `Model "${s.modelId}" is not a known ${provider} model; set a base URL (model.baseUrl) to use a custom or local server.` };
	}
	const model = (s.api ? { ...known, api: s.api } : known) as Model<Api>;
	if (s.apiKey) {
		// A key set in Arbor's settings for the provider's own endpoint: a collection with only that key.
		const ai = await loadPiAi();
		const base = c.models.getProvider(provider) as Provider;
		const key = s.apiKey;
		const models = ai.createModels({ authContext: authContext({}) });
		models.setProvider({
			...base,
			auth: { apiKey: { name: "Arbor settings key", resolve: async () => ({ auth: { apiKey: key }, source: "Arbor settings" }) } },
		});
		return { ok: true, resolved: { model, models, info: { provider, modelId: s.modelId, source: "arbor-settings", auth: "api_key" } } };
	}
	if (!(await hasAuth(c.models, provider))) {
		return {
			ok: false,
			reason: `No credentials for ${provider}: set a key in Arbor's settings, log in with pi (/login ${provider}), or set the provider's environment variable.`,
		};
	}
	return { ok: true, resolved: { model, models: c.models, info: { provider, modelId: s.modelId, source: "arbor-settings", auth: authKind(c, provider) } } };
}

/** Arbor's settings first; a configured but unusable Arbor model is reported, not skipped. */
export async function resolveActiveModel(src: ModelSources): Promise<ModelResolution> {
	let catalog: Promise<PiCatalog> | undefined;
	const cat = (): Promise<PiCatalog> => (catalog ??= buildPiCatalog(src.piAgentDir, src.env));
	const arbor = await fromArbor(src.arbor, cat);
	if (arbor) return arbor;
	return resolvePiModel(await cat(), src.piAgentDir, {
		...(src.cwd !== undefined ? { cwd: src.cwd } : {}),
		...(src.sessionModel ? { sessionModel: src.sessionModel } : {}),
	});
}

/**
 * The model a session's branch last chose, as pi 1.6 reads it when resuming (virtual-models.js
 * getBranchSelection): the newest `model_change` or assistant message on the path to the leaf, or
 * undefined when the branch has no message (pi restores a model only for a session with messages).
 * Arbor cannot tell a virtual (extension-registered) model apart, so an assistant message always names
 * the model that answered.
 */
export function sessionModelOf(branch: readonly SessionEntry[]): { provider: string; modelId: string } | undefined {
	if (!branch.some((e) => e.type === "message" || e.type === "custom_message" || e.type === "branch_summary" || e.type === "compaction")) return undefined;
	for (let i = branch.length - 1; i >= 0; i--) {
		const e = branch[i] as SessionEntry & Record<string, unknown>;
		if (e.type === "model_change") {
			const provider = str(e.provider);
			const modelId = str(e.modelId);
			if (provider && modelId) return { provider, modelId };
			continue;
		}
		if (e.type === "message" && isRecord(e.message) && e.message.role === "assistant") {
			const provider = str(e.message.provider);
			const modelId = str(e.message.model);
			if (provider && modelId) return { provider, modelId };
		}
	}
	return undefined;
}
