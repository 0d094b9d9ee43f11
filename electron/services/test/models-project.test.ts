// pi 1.6's startup choice beyond the global settings: a trusted project's `.pi/settings.json` merged over
// them, pi's trust rule (trust.json, defaultProjectTrust), and the model a resumed session restores from
// its own branch. Real pi 1.6 files in a temp HOME; trust decisions are checked against pi 1.6.0's own
// ProjectTrustStore.

import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../../../shared/entries";
import { type ModelResolution, resolveActiveModel, sessionModelOf } from "../models";
import { piProjectTrusted, readPiEffectiveSettings } from "../pi-config";
import { assistant, tempDir, user } from "./helpers/entries";

const PI = path.resolve(__dirname, "../../../node_modules/@earendil-works/pi-coding-agent/dist/core");

function ok(r: ModelResolution): Extract<ModelResolution, { ok: true }>["resolved"] {
	if (!r.ok) throw new Error(`expected a model, got: ${r.reason}`);
	return r.resolved;
}

/** A temp HOME with pi's agent folder and a project folder; `project` goes to `<project>/.pi/settings.json`. */
function setup(agentFiles: Record<string, unknown>, project?: Record<string, unknown>): { agent: string; cwd: string } {
	const h = tempDir("arbor-proj-");
	const agent = path.join(h, ".pi", "agent");
	fs.mkdirSync(agent, { recursive: true });
	for (const [name, json] of Object.entries(agentFiles)) fs.writeFileSync(path.join(agent, name), JSON.stringify(json, null, 2));
	const cwd = path.join(h, "work", "repo");
	fs.mkdirSync(cwd, { recursive: true });
	if (project) {
		fs.mkdirSync(path.join(cwd, ".pi"));
		fs.writeFileSync(path.join(cwd, ".pi", "settings.json"), JSON.stringify(project));
	}
	return { agent, cwd: fs.realpathSync(cwd) };
}

const AUTH = { anthropic: { type: "api_key", key: "sk-ant" }, openai: { type: "api_key", key: "sk-oai" } };
const GLOBAL = { defaultProvider: "anthropic", defaultModel: "claude-opus-5-5", compaction: { enabled: true, reserveTokens: 1000 }, enabledModels: ["a"] };
const PROJECT = { defaultProvider: "openai", defaultModel: "gpt-6.2-sol", compaction: { reserveTokens: 5 }, enabledModels: ["b", "c"] };

describe("project settings (<cwd>/.pi/settings.json)", () => {
	it("a trusted project's defaults win over the global ones", async () => {
		const { agent, cwd } = setup({ "settings.json": GLOBAL, "auth.json": AUTH }, PROJECT);
		fs.writeFileSync(path.join(agent, "trust.json"), JSON.stringify({ [cwd]: true }));
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {}, cwd }));
		expect(r.info).toEqual({ provider: "openai", modelId: "gpt-6.2-sol", source: "pi-settings", auth: "api_key" });
		// Without a cwd (or for another folder) only the global settings count.
		expect(ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {} })).info.provider).toBe("anthropic");
	});

	it("an untrusted project (no decision, defaultProjectTrust ask) is ignored, as pi without a terminal ignores it", async () => {
		const { agent, cwd } = setup({ "settings.json": GLOBAL, "auth.json": AUTH }, PROJECT);
		expect(piProjectTrusted(cwd, agent)).toBe(false);
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {}, cwd }));
		expect(r.info).toMatchObject({ provider: "anthropic", modelId: "claude-opus-5-5", source: "pi-settings" });
	});

	it("trust rules: a trusted parent folder, an explicit refusal nearer than it, defaultProjectTrust always / never", () => {
		const { agent, cwd } = setup({ "settings.json": { ...GLOBAL, defaultProjectTrust: "always" } }, PROJECT);
		expect(piProjectTrusted(cwd, agent)).toBe(true);
		fs.writeFileSync(path.join(agent, "trust.json"), JSON.stringify({ [path.dirname(cwd)]: true, [cwd]: false }));
		expect(piProjectTrusted(cwd, agent)).toBe(false);
		fs.writeFileSync(path.join(agent, "trust.json"), JSON.stringify({ [path.dirname(cwd)]: true, [cwd]: null }));
		fs.writeFileSync(path.join(agent, "settings.json"), JSON.stringify({ ...GLOBAL, defaultProjectTrust: "never" }));
		expect(piProjectTrusted(cwd, agent)).toBe(true);
		fs.rmSync(path.join(agent, "trust.json"));
		expect(piProjectTrusted(cwd, agent)).toBe(false);
	});

	it("trust decisions match pi 1.6.0's ProjectTrustStore", async () => {
		// eslint-disable-next-line arbor/layers -- pi 1.6's dist/core by path (its exports map hides it)
		const { ProjectTrustStore } = (await import(`${PI}/trust-manager.js`)) as { ProjectTrustStore: new (dir: string) => { get(cwd: string): boolean | null } };
		const { agent, cwd } = setup({ "settings.json": GLOBAL }, PROJECT);
		const nested = path.join(cwd, "pkg");
		fs.mkdirSync(path.join(nested, ".pi"), { recursive: true });
		fs.writeFileSync(path.join(nested, ".pi", "settings.json"), "{}");
		for (const trust of [{ [cwd]: true }, { [cwd]: false }, { [path.dirname(cwd)]: true, [nested]: false }, { [nested]: true }]) {
			fs.writeFileSync(path.join(agent, "trust.json"), JSON.stringify(trust));
			const store = new ProjectTrustStore(agent);
			for (const dir of [cwd, nested]) expect(piProjectTrusted(dir, agent)).toBe(store.get(dir) ?? false);
		}
	});

	it("the merge is pi 1.6's (settings-manager.js deepMergeObjects): nested objects key by key, lists replaced", () => {
		// pi's SettingsManager cannot load on Node 20 (its undici needs zstd), so the expected values are written out.
		const { agent, cwd } = setup({ "settings.json": GLOBAL }, PROJECT);
		fs.writeFileSync(path.join(agent, "trust.json"), JSON.stringify({ [cwd]: true }));
		const ours = readPiEffectiveSettings(agent, cwd);
		expect(ours.enabledModels).toEqual(["b", "c"]);
		expect([ours.defaultProvider, ours.defaultModel]).toEqual(["openai", "gpt-6.2-sol"]);
		expect(ours.compaction).toEqual({ enabled: true, reserveTokens: 5 });
		expect(readPiEffectiveSettings(agent)).toEqual(GLOBAL);
	});

	it("a broken project settings.json is skipped (the global settings still apply)", async () => {
		const { agent, cwd } = setup({ "settings.json": { ...GLOBAL, defaultProjectTrust: "always" }, "auth.json": AUTH }, PROJECT);
		fs.writeFileSync(path.join(cwd, ".pi", "settings.json"), "{ not json");
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {}, cwd }));
		expect(r.info.provider).toBe("anthropic");
	});
});

describe("a resumed session's own model (pi 1.6 restores it)", () => {
	const withModel = (provider: string, model: string): SessionEntry => {
		const a = assistant("a1", "u1", "done") as SessionEntry & { message: Record<string, unknown> };
		return { ...a, message: { ...a.message, provider, model } } as SessionEntry;
	};

	it("the newest model_change or assistant message on the branch; none without messages", () => {
		const change = (id: string, parentId: string, provider: string, modelId: string): SessionEntry =>
			({ type: "model_change", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", provider, modelId }) as SessionEntry;
		expect(sessionModelOf([user("u1", null, "hi"), withModel("openai", "gpt-6.2-sol")])).toEqual({ provider: "openai", modelId: "gpt-6.2-sol" });
		expect(sessionModelOf([user("u1", null, "hi"), withModel("openai", "gpt-6.2-sol"), change("c1", "a1", "anthropic", "claude-opus-5-5")])).toEqual({
			provider: "anthropic",
			modelId: "claude-opus-5-5",
		});
		expect(sessionModelOf([change("c1", "x", "anthropic", "claude-opus-5-5")])).toBeUndefined();
		expect(sessionModelOf([user("u1", null, "hi")])).toBeUndefined();
	});

	it("with credentials it is the session's model (source pi-session), before pi's saved default", async () => {
		const { agent } = setup({ "settings.json": GLOBAL, "auth.json": AUTH });
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {}, sessionModel: { provider: "openai", modelId: "gpt-6.2-sol" } }));
		expect(r.info).toEqual({ provider: "openai", modelId: "gpt-6.2-sol", source: "pi-session", auth: "api_key" });
	});

	it("without credentials (or unknown) pi falls back to its saved default, with a note", async () => {
		const { agent } = setup({ "settings.json": GLOBAL, "auth.json": { anthropic: AUTH.anthropic } });
		const r = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {}, sessionModel: { provider: "openai", modelId: "gpt-6.2-sol" } }));
		expect(r.info).toMatchObject({ provider: "anthropic", modelId: "claude-opus-5-5", source: "pi-settings" });
		const u = ok(await resolveActiveModel({ arbor: {}, piAgentDir: agent, env: {}, sessionModel: { provider: "anthropic", modelId: "no-such-model" } }));
		expect(u.info.source).toBe("pi-settings");
		const none = ok(
			await resolveActiveModel({
				arbor: {},
				piAgentDir: setup({ "auth.json": { anthropic: AUTH.anthropic } }).agent,
				env: {},
				sessionModel: { provider: "openai", modelId: "gpt-6.2-sol" },
			}),
		);
		expect(none.info).toMatchObject({ provider: "anthropic", source: "pi-automatic" });
		expect(none.info.note).toContain("openai/gpt-6.2-sol");
	});

	it("Arbor's settings still win over the session's model", async () => {
		const { agent } = setup({ "auth.json": AUTH });
		const r = ok(
			await resolveActiveModel({
				arbor: { provider: "anthropic", modelId: "claude-opus-5-5" },
				piAgentDir: agent,
				env: {},
				sessionModel: { provider: "openai", modelId: "gpt-6.2-sol" },
			}),
		);
		expect(r.info.source).toBe("arbor-settings");
	});
});
