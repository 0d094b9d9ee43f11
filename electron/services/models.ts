// Which model writes summaries: Arbor's settings, else pi's own configuration (settings.json default
// provider/model, models.json custom providers, auth.json keys), else a provider key in the environment.

import { execSync } from "node:child_process";
import * as path from "node:path";
import type { Api, Model } from "@mariozechner/pi-ai";
import type { ActiveModelInfo, ModelSettings } from "../../shared/api";
import { readJsonFile } from "./fs-util";
import { loadPiAi } from "./pi-ai";

export interface ResolvedModel {
	model: Model<Api>;
	apiKey: string;
	headers?: Record<string, string>;
	info: ActiveModelInfo;
}

export type ModelResolution = { ok: true; resolved: ResolvedModel } | { ok: false; reason: string };

export interface ModelSources {
	arbor: ModelSettings;
	piAgentDir: string;
	env: NodeJS.ProcessEnv;
}

/** Provider → environment variables holding its key (first set wins). */
const ENV_KEYS: Readonly<Record<string, readonly string[]>> = {
	anthropic: ["ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN"],
	openai: ["OPENAI_API_KEY"],
	google: ["GEMINI_API_KEY"],
	openrouter: ["OPENROUTER_API_KEY"],
	groq: ["GROQ_API_KEY"],
	xai: ["XAI_API_KEY"],
	mistral: ["MISTRAL_API_KEY"],
	deepseek: ["DEEPSEEK_API_KEY"],
	cerebras: ["CEREBRAS_API_KEY"],
	zai: ["ZAI_API_KEY"],
	fireworks: ["FIREWORKS_API_KEY"],
};

/** Model used when only an environment key is known: a capable, inexpensive one per provider. */
const ENV_DEFAULT_MODEL: Readonly<Record<string, string>> = {
	anthropic: "claude-sonnet-4-5",
	openai: "gpt-4.1-mini",
	google: "gemini-2.5-flash",
	openrouter: "anthropic/claude-sonnet-4.5",
	groq: "llama-3.3-70b-versatile",
	xai: "grok-3-mini",
	mistral: "mistral-small-latest",
	deepseek: "deepseek-v4-flash",
};

const LOCAL_SERVER_COMPAT = {
	supportsStore: false,
	supportsDeveloperRole: false,
	supportsReasoningEffort: false,
	maxTokensField: "max_tokens",
};

/** Local OpenAI-compatible servers (Ollama, llama.cpp) ignore the key, but the client needs a non-empty one. */
const PLACEHOLDER_KEY = "arbor-no-key";

function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
	return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

function num(v: unknown): number | undefined {
	return typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined;
}

/**
 * pi's config value rules (models.json, auth.json): "!cmd" runs a command, a name of a set environment
 * variable means its value, anything else is literal.
 */
export function resolveConfigValue(value: string, env: NodeJS.ProcessEnv): string | undefined {
	if (value.startsWith("!")) {
		try {
			const out = execSync(value.slice(1), { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "pipe", "ignore"] }).trim();
			return out || undefined;
		} catch {
			return undefined;
		}
	}
	const fromEnv = env[value];
	if (/^[A-Z_][A-Z0-9_]*$/.test(value) && fromEnv) return fromEnv;
	return value;
}

function envKey(provider: string, env: NodeJS.ProcessEnv): string | undefined {
	for (const name of ENV_KEYS[provider] ?? []) {
		const v = env[name];
		if (v) return v;
	}
	return undefined;
}

/** Key stored by `pi /login` or by hand in auth.json; expired OAuth tokens are not refreshed here. */
function authJsonKey(piAgentDir: string, provider: string, env: NodeJS.ProcessEnv): string | undefined {
	const auth = readJsonFile(path.join(piAgentDir, "auth.json"));
	if (!isRecord(auth)) return undefined;
	const cred = auth[provider];
	if (!isRecord(cred)) return undefined;
	if (cred.type === "api_key" && str(cred.key)) return resolveConfigValue(cred.key as string, env);
	if (cred.type === "oauth" && str(cred.access)) {
		const expires = typeof cred.expires === "number" ? cred.expires : Number.POSITIVE_INFINITY;
		if (expires > Date.now()) return cred.access as string;
	}
	return undefined;
}

function customModel(provider: string, modelId: string, api: string, baseUrl: string, extra?: Record<string, unknown>): Model<Api> {
	const model: Model<Api> = {
		id: modelId,
		name: str(extra?.name) ?? modelId,
		api: api as Api,
		provider,
		baseUrl,
		reasoning: extra?.reasoning === true,
		input: ["text"],
		cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
		contextWindow: num(extra?.contextWindow) ?? 128_000,
		maxTokens: num(extra?.maxTokens) ?? 16_384,
	};
	if (isRecord(extra?.compat)) (model as Model<Api> & { compat?: unknown }).compat = extra.compat;
	return model;
}

async function builtinModel(provider: string, modelId: string): Promise<Model<Api> | undefined> {
	const ai = await loadPiAi();
	let models: Model<Api>[];
	try {
		models = ai.getModels(provider as Parameters<typeof ai.getModels>[0]) as Model<Api>[];
	} catch {
		return undefined;
	}
	const found = (models ?? []).find((m) => m.id === modelId);
	return found ? { ...found } : undefined;
}

function headersFrom(v: unknown, env: NodeJS.ProcessEnv): Record<string, string> | undefined {
	if (!isRecord(v)) return undefined;
	const out: Record<string, string> = {};
	for (const [k, raw] of Object.entries(v)) {
		if (typeof raw !== "string") continue;
		const val = resolveConfigValue(raw, env);
		if (val !== undefined) out[k] = val;
	}
	return out;
}

async function fromArbor(s: ModelSettings, src: ModelSources): Promise<ModelResolution | undefined> {
	if (!s.modelId && !s.provider && !s.baseUrl) return undefined;
	if (!s.modelId) return { ok: false, reason: "Arbor settings name a model provider but no model id (settings: model.modelId)." };
	const provider = s.provider ?? "custom";
	let model = await builtinModel(provider, s.modelId);
	if (model) {
		if (s.baseUrl) model.baseUrl = s.baseUrl;
		if (s.api) model.api = s.api as Api;
	} else if (s.baseUrl) {
		const api = s.api ?? "openai-completions";
		// Local OpenAI-compatible servers (llama.cpp, Ollama, vLLM) know the classic request fields best.
		const compat = api === "openai-completions" ? { compat: LOCAL_SERVER_COMPAT } : undefined;
		model = customModel(provider, s.modelId, api, s.baseUrl, compat);
	} else {
		return {
			ok: false,
			reason: `Model "${s.modelId}" is not a known ${provider} model; set a base URL (model.baseUrl) to use a custom or local server.`,
		};
	}
	const key = s.apiKey ?? authJsonKey(src.piAgentDir, provider, src.env) ?? envKey(provider, src.env) ?? (s.baseUrl ? PLACEHOLDER_KEY : undefined);
	if (!key) return { ok: false, reason: `No API key for ${provider}: set one in Arbor's settings or ${ENV_KEYS[provider]?.join(" / ") ?? "the provider's environment variable"}.` };
	return { ok: true, resolved: { model, apiKey: key, info: { provider, modelId: s.modelId, source: "arbor", ...(s.baseUrl ? { baseUrl: s.baseUrl } : {}) } } };
}

async function fromPi(src: ModelSources): Promise<ModelResolution | undefined> {
	const settings = readJsonFile(path.join(src.piAgentDir, "settings.json"));
	if (!isRecord(settings)) return undefined;
	const provider = str(settings.defaultProvider);
	const modelId = str(settings.defaultModel);
	if (!provider || !modelId) return undefined;
	let model: Model<Api> | undefined;
	let headers: Record<string, string> | undefined;
	let keyFromModels: string | undefined;
	const modelsJson = readJsonFile(path.join(src.piAgentDir, "models.json"));
	const prov = isRecord(modelsJson) && isRecord(modelsJson.providers) ? modelsJson.providers[provider] : undefined;
	if (isRecord(prov)) {
		const list = Array.isArray(prov.models) ? prov.models : [];
		const entry = list.find((m): m is Record<string, unknown> => isRecord(m) && m.id === modelId);
		const baseUrl = str(entry?.baseUrl) ?? str(prov.baseUrl);
		const api = str(entry?.api) ?? str(prov.api) ?? "openai-completions";
		if (entry && baseUrl) {
			const compat = isRecord(prov.compat) || isRecord(entry.compat) ? { ...(isRecord(prov.compat) ? prov.compat : {}), ...(isRecord(entry.compat) ? entry.compat : {}) } : undefined;
			model = customModel(provider, modelId, api, baseUrl, { ...entry, ...(compat ? { compat } : {}) });
		}
		if (str(prov.apiKey)) keyFromModels = resolveConfigValue(prov.apiKey as string, src.env);
		headers = headersFrom(prov.headers, src.env);
		if (!model && baseUrl) {
			// models.json may only override the base URL of a built-in provider.
			model = await builtinModel(provider, modelId);
			if (model) model.baseUrl = baseUrl;
		}
	}
	model ??= await builtinModel(provider, modelId);
	if (!model) return { ok: false, reason: `pi's default model ${provider}/${modelId} is not known to Arbor (add it to pi's models.json or Arbor's settings).` };
	const key = authJsonKey(src.piAgentDir, provider, src.env) ?? keyFromModels ?? envKey(provider, src.env);
	if (!key) return { ok: false, reason: `pi's default model is ${provider}/${modelId}, but no API key was found (pi's auth.json or ${ENV_KEYS[provider]?.join(" / ") ?? "environment"}).` };
	return {
		ok: true,
		resolved: {
			model,
			apiKey: key,
			...(headers ? { headers } : {}),
			info: { provider, modelId, source: "pi", ...(isRecord(prov) && str(prov.baseUrl) ? { baseUrl: model.baseUrl } : {}) },
		},
	};
}

async function fromEnv(src: ModelSources): Promise<ModelResolution | undefined> {
	for (const provider of Object.keys(ENV_DEFAULT_MODEL)) {
		const key = envKey(provider, src.env);
		if (!key) continue;
		const modelId = ENV_DEFAULT_MODEL[provider] as string;
		const model = await builtinModel(provider, modelId);
		if (!model) continue;
		return { ok: true, resolved: { model, apiKey: key, info: { provider, modelId, source: "env" } } };
	}
	return undefined;
}

/** First configured source wins; a configured but unusable source is reported rather than skipped. */
export async function resolveActiveModel(src: ModelSources): Promise<ModelResolution> {
	const arbor = await fromArbor(src.arbor, src);
	if (arbor) return arbor;
	const pi = await fromPi(src);
	if (pi?.ok) return pi;
	const env = await fromEnv(src);
	if (env) return env;
	if (pi) return pi;
	return {
		ok: false,
		reason:
			"No model is configured for summaries. Set one in Arbor's settings (provider, model id, and a base URL for local servers), " +
			"or configure pi (defaultProvider/defaultModel in ~/.pi/agent/settings.json), or set a provider key such as ANTHROPIC_API_KEY or OPENAI_API_KEY.",
	};
}
