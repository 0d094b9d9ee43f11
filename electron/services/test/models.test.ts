import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveActiveModel } from "../models";
import { tempDir } from "./helpers/entries";

function piDir(files: Record<string, unknown>): string {
	const dir = tempDir("arbor-pi-agent-");
	for (const [name, json] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), JSON.stringify(json));
	return dir;
}

describe("active model resolution", () => {
	it("uses Arbor's settings first: a custom base URL makes an OpenAI-compatible local model without a key", async () => {
		const r = await resolveActiveModel({ arbor: { provider: "ollama", modelId: "llama3", baseUrl: "http://127.0.0.1:11434/v1" }, piAgentDir: piDir({}), env: { ANTHROPIC_API_KEY: "sk-env" } });
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		expect(r.resolved.info).toEqual({ provider: "ollama", modelId: "llama3", source: "arbor", baseUrl: "http://127.0.0.1:11434/v1" });
		expect(r.resolved.model.api).toBe("openai-completions");
		expect(r.resolved.model.baseUrl).toBe("http://127.0.0.1:11434/v1");
		expect(r.resolved.apiKey.length).toBeGreaterThan(0);
	});

	it("takes a built-in model from Arbor's settings with the provider key from the environment", async () => {
		const r = await resolveActiveModel({ arbor: { provider: "anthropic", modelId: "claude-sonnet-4-5" }, piAgentDir: piDir({}), env: { ANTHROPIC_API_KEY: "sk-ant" } });
		expect(r.ok && r.resolved.apiKey).toBe("sk-ant");
		expect(r.ok && r.resolved.model.api).toBe("anthropic-messages");
	});

	it("reports a configured model without a key instead of silently falling back", async () => {
		const r = await resolveActiveModel({ arbor: { provider: "anthropic", modelId: "claude-sonnet-4-5" }, piAgentDir: piDir({}), env: { OPENAI_API_KEY: "sk-o" } });
		expect(r.ok).toBe(false);
		if (!r.ok) expect(r.reason).toContain("ANTHROPIC_API_KEY");
	});

	it("falls back to pi's default provider/model with a custom provider from models.json and a key named by an env variable", async () => {
		const dir = piDir({
			"settings.json": { defaultProvider: "lab", defaultModel: "qwen" },
			"models.json": { providers: { lab: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "LAB_KEY", models: [{ id: "qwen", contextWindow: 32000 }] } } },
		});
		const r = await resolveActiveModel({ arbor: {}, piAgentDir: dir, env: { LAB_KEY: "secret" } });
		expect(r.ok).toBe(true);
		if (!r.ok) return;
		expect(r.resolved.info.source).toBe("pi");
		expect(r.resolved.apiKey).toBe("secret");
		expect(r.resolved.model.contextWindow).toBe(32000);
	});

	it("uses pi's auth.json key for pi's default built-in model", async () => {
		const dir = piDir({
			"settings.json": { defaultProvider: "openai", defaultModel: "gpt-4.1-mini" },
			"auth.json": { openai: { type: "api_key", key: "sk-from-auth" } },
		});
		const r = await resolveActiveModel({ arbor: {}, piAgentDir: dir, env: {} });
		expect(r.ok && r.resolved.apiKey).toBe("sk-from-auth");
		expect(r.ok && r.resolved.info).toEqual({ provider: "openai", modelId: "gpt-4.1-mini", source: "pi" });
	});

	it("falls back to a provider key in the environment", async () => {
		const r = await resolveActiveModel({ arbor: {}, piAgentDir: piDir({}), env: { OPENAI_API_KEY: "sk-o" } });
		expect(r.ok && r.resolved.info.source).toBe("env");
		expect(r.ok && r.resolved.info.provider).toBe("openai");
	});

	it("says how to configure a model when there is none", async () => {
		const r = await resolveActiveModel({ arbor: {}, piAgentDir: piDir({}), env: {} });
		expect(r.ok).toBe(false);
		if (!r.ok) expect(r.reason).toMatch(/No model is configured/);
	});
});
