// Model resolution against real pi 1.6 configuration files in a temp HOME (issue #14's table, row by row),
// and the base-URL credential rule (#9): a loopback server records the exact headers each request carries.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Api, Context, Model } from "@earendil-works/pi-ai";
import { type ModelResolution, resolveActiveModel } from "../models";
import { piAgentDir, piConfiguredSessionDir } from "../../session";
import { clearCommandCache, resolveConfigValue } from "../pi-config";
import { generateSummary } from "../summarizer";
import { tempDir, user } from "./helpers/entries";
import { type LlmServer, startLlmServer } from "./helpers/llm-server";

let server: LlmServer;
beforeAll(async () => {
	server = await startLlmServer({ kind: "stream", chunks: ["## Goal\n", "Loopback summary."] });
});
afterAll(async () => {
	await server.close();
});
beforeEach(() => {
	server.requests.length = 0;
	server.setScenario({ kind: "stream", chunks: ["## Goal\n", "Loopback summary."] });
	clearCommandCache();
});

/** A temp HOME with pi 1.6's files under ~/.pi/agent; returns the HOME and the agent folder. */
function home(files: Record<string, unknown>): { home: string; agent: string } {
	const h = tempDir("arbor-home-");
	const agent = path.join(h, ".pi", "agent");
	fs.mkdirSync(agent, { recursive: true });
	for (const [name, json] of Object.entries(files)) fs.writeFileSync(path.join(agent, name), typeof json === "string" ? json : JSON.stringify(json, null, 2));
	return { home: h, agent };
}

function ok(r: ModelResolution): Extract<ModelResolution, { ok: true }>["resolved"] {
	if (!r.ok) throw new Error(`expected a model, got: ${r.reason}`);
	return r.resolved;
}

async function summarize(r: ModelResolution): Promise<void> {
	const out = await generateSummary({ entries: [user("u1", null, "please fix the bug")], resolved: ok(r), signal: new AbortController().signal });
	if (out.aborted) throw new Error("aborted");
}

const ctx: Context = { messages: [{ role: "user", content: "hi", timestamp: 0 }] };

describe("pi 1.6 model resolution (issue #14 table)", () => {
	it("/login anthropic with an API key, no saved default, no env: pi's automatic choice claude-opus-5-5", async () => {
		const { agent } = home({ "auth.json": { anthropic: { type: "api_key", key: "sk-ant-stored" } } });
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {} }));
		expect(r.info).toEqual({ provider: "anthropic", modelId: "claude-opus-5-5", source: "pi-automatic", auth: "api_key" });
		expect((await r.models.getAuth(r.model))?.auth.apiKey).toBe("sk-ant-stored");
	});

	it("/login anthropic with OAuth (unexpired), no default: automatic, auth oauth, the access token is used", async () => {
		const { agent } = home({ "auth.json": { anthropic: { type: "oauth", access: "sk-ant-oat-access", refresh: "r1", expires: Date.now() + 3_600_000 } } });
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {} }));
		expect(r.info).toMatchObject({ provider: "anthropic", modelId: "claude-opus-5-5", source: "pi-automatic", auth: "oauth" });
		expect((await r.models.getAuth(r.model))?.auth.apiKey).toBe("sk-ant-oat-access");
	});

	it("saved default anthropic/claude-opus-5-5 + auth.json: that model, from pi's settings", async () => {
		const { agent } = home({
			"settings.json": { defaultProvider: "anthropic", defaultModel: "claude-opus-5-5" },
			"auth.json": { anthropic: { type: "api_key", key: "sk-ant" } },
		});
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {} }));
		expect(r.info).toEqual({ provider: "anthropic", modelId: "claude-opus-5-5", source: "pi-settings", auth: "api_key" });
		expect(r.model.api).toBe("anthropic-messages");
	});

	it("saved default openai/gpt-6.2-sol + OPENAI_API_KEY: that model, never an env fallback model", async () => {
		const { agent } = home({ "settings.json": { defaultProvider: "openai", defaultModel: "gpt-6.2-sol" } });
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: { OPENAI_API_KEY: "sk-openai", ANTHROPIC_API_KEY: "sk-ant" } }));
		expect(r.info).toEqual({ provider: "openai", modelId: "gpt-6.2-sol", source: "pi-settings", auth: "env" });
	});

	it("no pi configuration, only an environment key: automatic on that provider, source env", async () => {
		const { agent } = home({});
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: { OPENAI_API_KEY: "sk-openai" } }));
		expect(r.info).toEqual({ provider: "openai", modelId: "gpt-6.2-sol", source: "env", auth: "env" });
	});

	it("automatic follows pi's provider order: anthropic before openai when both have keys", async () => {
		const { agent } = home({ "auth.json": { openai: { type: "api_key", key: "sk-o" } } });
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: { ANTHROPIC_API_KEY: "sk-a" } }));
		expect(r.info.provider).toBe("anthropic");
	});

	it("a saved default without credentials falls to automatic, as pi does", async () => {
		const { agent } = home({
			"settings.json": { defaultProvider: "openai", defaultModel: "gpt-6.2-sol" },
			"auth.json": { anthropic: { type: "api_key", key: "k" } },
		});
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {} }));
		expect(r.info).toMatchObject({ provider: "anthropic", modelId: "claude-opus-5-5", source: "pi-automatic" });
		expect(r.info.note).toContain("openai/gpt-6.2-sol has no credentials");
	});

	it("nothing configured: the plain reason", async () => {
		const { agent } = home({});
		const r = await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {} });
		expect(r.ok).toBe(false);
		if (!r.ok) expect(r.reason).toMatch(/^No model for summaries: no provider has credentials/);
	});

	for (const form of ["$LAB_KEY", "${LAB_KEY}"]) {
		it(`models.json key "${form}" (pi 1.6 template) sends the variable's value to the custom provider`, async () => {
			const { agent } = home({
				"settings.json": { defaultProvider: "lab", defaultModel: "m1" },
				"models.json": { providers: { lab: { baseUrl: server.baseUrl, api: "openai-completions", apiKey: form, models: [{ id: "m1" }] } } },
			});
			const r = await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: { LAB_KEY: "lab-secret" } });
			expect(ok(r).info).toEqual({ provider: "lab", modelId: "m1", source: "pi-settings", auth: "env" });
			await summarize(r);
			expect(server.requests.at(-1)?.authorization).toBe("Bearer lab-secret");
		});
	}

	it('auth.json key "$LAB_KEY" with the credential\'s env map, "$$" and "!cmd" resolve as pi 1.6 does', async () => {
		expect(resolveConfigValue("pre-$$-${A}x$B", { A: "1", B: "2" })).toBe("pre-$-1x2");
		expect(resolveConfigValue("$!bang", {})).toBe("!bang");
		expect(resolveConfigValue("$MISSING", {})).toBeUndefined();
		expect(resolveConfigValue("!printf cmd-key", {})).toBe("cmd-key");
		const { agent } = home({
			"settings.json": { defaultProvider: "lab", defaultModel: "m1" },
			"models.json": { providers: { lab: { baseUrl: server.baseUrl, api: "openai-completions", models: [{ id: "m1" }] } } },
			"auth.json": { lab: { type: "api_key", key: "$LAB_KEY-$$", env: { LAB_KEY: "from-env-map" } } },
		});
		const r = await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: { LAB_KEY: "process-env-loses" } });
		await summarize(r);
		expect(server.requests.at(-1)?.authorization).toBe("Bearer from-env-map-$");
	});

	it('models.json "!cmd" key: the command\'s output is the key', async () => {
		const { agent } = home({
			"settings.json": { defaultProvider: "lab", defaultModel: "m1" },
			"models.json": { providers: { lab: { baseUrl: server.baseUrl, api: "openai-completions", apiKey: "!printf from-command", models: [{ id: "m1" }] } } },
		});
		const r = await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {} });
		expect(ok(r).info.auth).toBe("api_key");
		await summarize(r);
		expect(server.requests.at(-1)?.authorization).toBe("Bearer from-command");
	});

	it('models.json apiKey "LAB_KEY" is the literal key since pi 0.77, not the variable of that name', async () => {
		const { agent } = home({
			"settings.json": { defaultProvider: "lab", defaultModel: "m1" },
			// pi reads models.json with comments
			"models.json": `// lab server\n{ "providers": { "lab": { "baseUrl": "${server.baseUrl}", "api": "openai-completions", "apiKey": "LAB_KEY", "models": [{ "id": "m1" },] } } }`,
		});
		const r = await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: { LAB_KEY: "must-not-be-sent" } });
		expect(ok(r).info.auth).toBe("api_key");
		await summarize(r);
		expect(server.requests.at(-1)?.authorization).toBe("Bearer LAB_KEY");
	});

	it("models.json headers use the same templates and are sent", async () => {
		const { agent } = home({
			"settings.json": { defaultProvider: "lab", defaultModel: "m1" },
			"models.json": {
				providers: {
					lab: {
						baseUrl: server.baseUrl,
						api: "openai-completions",
						apiKey: "k",
						headers: { "x-team": "$TEAM" },
						models: [{ id: "m1", headers: { "x-model": "m-${TEAM}" } }],
					},
				},
			},
		});
		await summarize(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: { TEAM: "blue" } }));
		const h = server.requests.at(-1)?.headers ?? {};
		expect(h["x-team"]).toBe("blue");
		expect(h["x-model"]).toBe("m-blue");
	});

	it("provider azure (renamed from azure-openai-responses): the new id resolves; the old id is passed over with a note", async () => {
		const { agent } = home({ "settings.json": { defaultProvider: "azure", defaultModel: "gpt-6.2-sol" } });
		const env = { AZURE_OPENAI_API_KEY: "az", AZURE_OPENAI_BASE_URL: "https://lab.openai.azure.com" };
		expect(ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env })).info).toEqual({
			provider: "azure",
			modelId: "gpt-6.2-sol",
			source: "pi-settings",
			auth: "env",
		});
		const old = home({ "settings.json": { defaultProvider: "azure-openai-responses", defaultModel: "gpt-6.2-sol" } });
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: old.agent, env }));
		expect(r.info).toMatchObject({ provider: "azure", source: "env" });
		expect(r.info.note).toContain('renamed to "azure"');
	});

	it("a refreshed catalog in models-store.json makes a model pi knows only from it resolvable", async () => {
		const fresh: Partial<Model<Api>> = {
			id: "claude-opus-6",
			name: "Claude Opus 6",
			api: "anthropic-messages",
			provider: "anthropic",
			baseUrl: "https://api.anthropic.com",
			reasoning: true,
			input: ["text"],
			cost: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
			contextWindow: 400_000,
			maxTokens: 64_000,
		};
		const files = {
			"settings.json": { defaultProvider: "anthropic", defaultModel: "claude-opus-6" },
			"auth.json": { anthropic: { type: "api_key", key: "k" } },
		};
		const stale = home({ ...files, "models-store.json": { anthropic: { models: [fresh], lastModified: 1, checkedAt: 1 } } });
		expect(ok(await resolveActiveModel({ arbor: {}, piAgentDir: stale.agent, env: {} })).info.modelId).toBe("claude-opus-5-5");
		const newer = home({ ...files, "models-store.json": { anthropic: { models: [fresh], lastModified: Date.now() + 1000, checkedAt: Date.now() } } });
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: newer.agent, env: {} }));
		expect(r.info).toEqual({ provider: "anthropic", modelId: "claude-opus-6", source: "pi-settings", auth: "api_key" });
		expect(r.model.contextWindow).toBe(400_000);
	});

	it("models.json baseUrl on a built-in provider: pi sends that provider's stored key there (the user's own configuration)", async () => {
		const { agent } = home({
			"settings.json": { defaultProvider: "anthropic", defaultModel: "claude-opus-5-5" },
			"models.json": { providers: { anthropic: { baseUrl: server.baseUrl } } },
			"auth.json": { anthropic: { type: "api_key", key: "sk-ant-proxy" } },
		});
		const r = await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {} });
		await summarize(r);
		const req = server.requests.at(-1);
		expect(req?.path.split("?")[0]).toMatch(/\/messages$/);
		expect(req?.headers["x-api-key"]).toBe("sk-ant-proxy");
	});

	it("OAuth with refresh, end to end: a Radius gateway in models.json, its expired token refreshed at the gateway (loopback) and saved", async () => {
		const gatewayModel = {
			id: "balanced",
			name: "Balanced",
			api: "pi-messages",
			provider: "lab-radius",
			baseUrl: server.baseUrl,
			reasoning: false,
			input: ["text"],
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
			contextWindow: 200_000,
			maxTokens: 32_000,
		};
		const { agent } = home({
			"settings.json": { defaultProvider: "lab-radius", defaultModel: "balanced" },
			"models.json": { providers: { "lab-radius": { oauth: "radius", baseUrl: server.baseUrl } } },
			"models-store.json": { "lab-radius": { models: [gatewayModel], checkedAt: Date.now() } },
			"auth.json": { "lab-radius": { type: "oauth", access: "expired-access", refresh: "radius-refresh-1", expires: 1 } },
		});
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {} }));
		expect(r.info).toEqual({ provider: "lab-radius", modelId: "balanced", source: "pi-settings", auth: "oauth" });
		// Resolving the model did not refresh (pi checks auth without refreshing at startup).
		expect(server.requests).toHaveLength(0);
		const auth = await r.models.getAuth(r.model);
		const tokenReq = server.requests.find((q) => q.path === "/v1/oauth/token");
		expect(tokenReq?.method).toBe("POST");
		expect(auth?.auth.apiKey).toMatch(/^fresh-access-\d+$/);
		const saved = JSON.parse(fs.readFileSync(path.join(agent, "auth.json"), "utf8")) as Record<string, Record<string, unknown>>;
		expect(saved["lab-radius"]).toMatchObject({ type: "oauth", access: auth?.auth.apiKey, refresh: expect.stringMatching(/^fresh-refresh-/) });
		expect(saved["lab-radius"]?.expires as number).toBeGreaterThan(Date.now());
		expect(fs.existsSync(path.join(agent, "auth.json.lock"))).toBe(false);
	});

	it("an expired OAuth token is refreshed through the provider, written back to auth.json under pi's lock, and the new token sent", async () => {
		const { agent } = home({
			"auth.json": { anthropic: { type: "api_key", key: "unrelated" }, lab: { type: "oauth", access: "old-access", refresh: "old-refresh", expires: 1 } },
		});
		const { buildPiCatalog } = await import("../models");
		const cat = await buildPiCatalog(agent, {});
		const { createProvider } = await import("@earendil-works/pi-ai");
		const { openAICompletionsApi } = await import("@earendil-works/pi-ai/api/openai-completions.lazy");
		const tokenUrl = `${server.baseUrl}/oauth/token`;
		const model = {
			id: "m1",
			name: "m1",
			api: "openai-completions",
			provider: "lab",
			baseUrl: server.baseUrl,
			reasoning: false,
			input: ["text"],
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
			contextWindow: 8000,
			maxTokens: 1000,
		} as Model<Api>;
		cat.models.setProvider(
			createProvider({
				id: "lab",
				models: [model],
				api: openAICompletionsApi(),
				auth: {
					oauth: {
						name: "Lab",
						login: async () => {
							throw new Error("no login in tests");
						},
						refresh: async (c, signal) => {
							const res = await fetch(tokenUrl, { method: "POST", body: JSON.stringify({ refresh_token: c.refresh }), signal });
							const j = (await res.json()) as { access_token: string; refresh_token: string; expires_in: number };
							return { type: "oauth", access: j.access_token, refresh: j.refresh_token, expires: Date.now() + j.expires_in * 1000 };
						},
						toAuth: async (c) => ({ apiKey: c.access }),
					},
				},
			}),
		);
		const answer = await cat.models.complete(model, ctx);
		expect(answer.stopReason).toBe("stop");
		const tokenReq = server.requests.find((q) => q.path.endsWith("/oauth/token"));
		expect(tokenReq?.body).toEqual({ refresh_token: "old-refresh" });
		const saved = JSON.parse(fs.readFileSync(path.join(agent, "auth.json"), "utf8")) as Record<string, Record<string, unknown>>;
		expect(saved.lab).toMatchObject({
			type: "oauth",
			access: expect.stringMatching(/^fresh-access-\d+$/),
			refresh: expect.stringMatching(/^fresh-refresh-\d+$/),
		});
		expect(server.requests.at(-1)?.authorization).toBe(`Bearer ${String(saved.lab?.access)}`);
		expect(saved.anthropic).toEqual({ type: "api_key", key: "unrelated" });
		expect(fs.existsSync(path.join(agent, "auth.json.lock"))).toBe(false);
	});
});

describe("Arbor's settings override pi", () => {
	it("a built-in model from Arbor's settings with pi's stored key", async () => {
		const { agent } = home({
			"auth.json": { openai: { type: "api_key", key: "sk-o" } },
			"settings.json": { defaultProvider: "openai", defaultModel: "gpt-6.2-sol" },
		});
		const r = ok(
			await resolveActiveModel({ arbor: { provider: "anthropic", modelId: "claude-opus-5-5" }, piAgentDir: agent, env: { ANTHROPIC_API_KEY: "sk-a" } }),
		);
		expect(r.info).toEqual({ provider: "anthropic", modelId: "claude-opus-5-5", source: "arbor-settings", auth: "env" });
	});

	it("reports a configured model without credentials instead of falling back", async () => {
		const { agent } = home({});
		const r = await resolveActiveModel({ arbor: { provider: "anthropic", modelId: "claude-opus-5-5" }, piAgentDir: agent, env: { OPENAI_API_KEY: "sk-o" } });
		expect(r.ok).toBe(false);
		if (!r.ok) expect(r.reason).toMatch(/No credentials for anthropic/);
	});

	it("reports an unknown model without a base URL", async () => {
		const r = await resolveActiveModel({
			arbor: { provider: "anthropic", modelId: "claude-nope" },
			piAgentDir: home({}).agent,
			env: { ANTHROPIC_API_KEY: "k" },
		});
		expect(r.ok).toBe(false);
	});
});

describe("custom base URL credential rule (#9)", () => {
	const stored = {
		"auth.json": {
			anthropic: { type: "api_key", key: "sk-ant-STORED" },
			openai: { type: "oauth", access: "oauth-OPENAI-ACCESS", refresh: "r", expires: Date.now() + 3_600_000 },
			local: { type: "api_key", key: "sk-local-STORED" },
		},
		"models.json": {
			providers: { local: { baseUrl: "http://127.0.0.1:1/v1", api: "openai-completions", apiKey: "sk-local-MODELSJSON", models: [{ id: "test-model" }] } },
		},
	};
	const env = { ANTHROPIC_API_KEY: "sk-ant-ENV", OPENAI_API_KEY: "sk-openai-ENV", LAB_KEY: "sk-LAB-ENV" };
	const secrets = ["sk-ant-STORED", "oauth-OPENAI-ACCESS", "sk-local-STORED", "sk-local-MODELSJSON", "sk-ant-ENV", "sk-openai-ENV"];

	function assertNoForeignSecret(): void {
		const req = server.requests.at(-1);
		expect(req).toBeDefined();
		const all = JSON.stringify(req?.headers);
		for (const s of secrets) expect(all).not.toContain(s);
	}

	for (const provider of ["openai", "anthropic", "local"]) {
		it(`Arbor settings ${provider} + a base URL of another server: no key stored for ${provider} is sent there`, async () => {
			const { agent } = home(stored);
			const api = provider === "local" ? undefined : "openai-completions";
			const r = await resolveActiveModel({
				arbor: { provider, modelId: provider === "local" ? "test-model" : "gpt-6.2-sol", baseUrl: server.baseUrl, ...(api ? { api } : {}) },
				piAgentDir: agent,
				env,
			});
			expect(ok(r).info).toMatchObject({ source: "arbor-settings", auth: null, baseUrl: server.baseUrl });
			await summarize(r);
			assertNoForeignSecret();
			expect(server.requests.at(-1)?.headers["x-api-key"]).toBeUndefined();
			expect(server.requests.at(-1)?.authorization).toBe("Bearer arbor-no-key");
		});
	}

	it("a custom endpoint carries its own key from Arbor's settings, and only that", async () => {
		const { agent } = home(stored);
		const r = await resolveActiveModel({
			arbor: { provider: "openai", modelId: "gpt-6.2-sol", baseUrl: server.baseUrl, api: "openai-completions", apiKey: "sk-CUSTOM-OWN" },
			piAgentDir: agent,
			env,
		});
		expect(ok(r).info.auth).toBe("api_key");
		await summarize(r);
		assertNoForeignSecret();
		expect(server.requests.at(-1)?.authorization).toBe("Bearer sk-CUSTOM-OWN");
	});

	it("the provider's own endpoint given as base URL still uses pi's credentials (same endpoint)", async () => {
		const { agent } = home({
			"auth.json": { lab: { type: "api_key", key: "sk-lab-own" } },
			"models.json": { providers: { lab: { baseUrl: server.baseUrl, api: "openai-completions", models: [{ id: "m1" }] } } },
		});
		const r = await resolveActiveModel({ arbor: { provider: "lab", modelId: "m1", baseUrl: `${server.baseUrl}/` }, piAgentDir: agent, env: {} });
		expect(ok(r).info).toMatchObject({ source: "arbor-settings", auth: "api_key" });
		await summarize(r);
		expect(server.requests.at(-1)?.authorization).toBe("Bearer sk-lab-own");
	});
});

describe("pi 1.6 folders", () => {
	it("agent folder: PI_CODING_AGENT_DIR (with ~) else ~/.pi/agent", () => {
		expect(piAgentDir({}, "/h")).toBe(path.join("/h", ".pi", "agent"));
		expect(piAgentDir({ PI_CODING_AGENT_DIR: "~/cfg/pi" }, "/h")).toBe(path.join("/h", "cfg", "pi"));
		expect(piAgentDir({ PI_CODING_AGENT_DIR: "/abs/pi" }, "/h")).toBe("/abs/pi");
	});

	it("sessions folder: PI_CODING_AGENT_SESSION_DIR before the sessionDir setting", () => {
		const { home: h, agent } = home({ "settings.json": { sessionDir: "~/from-setting" } });
		expect(piConfiguredSessionDir({}, agent, h)).toBe(path.join(h, "from-setting"));
		expect(piConfiguredSessionDir({ PI_CODING_AGENT_SESSION_DIR: "~/from-env" }, agent, h)).toBe(path.join(h, "from-env"));
		expect(piConfiguredSessionDir({}, home({}).agent, h)).toBeUndefined();
	});
});
