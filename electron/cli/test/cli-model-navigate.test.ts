// `arbor model` and `arbor navigate`, run as the real built command in a temp HOME holding pi 1.6's
// configuration files, against a loopback model server that records the exact key and headers it receives.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { branchySession, writeSession } from "../../services/test/helpers/entries";
import { type LlmServer, startLlmServer } from "../../services/test/helpers/llm-server";
import { buildCli, repo, type RunResult, sha256, tempDir } from "./helpers";

let server: LlmServer;
beforeAll(async () => {
	buildCli();
	server = await startLlmServer();
});
afterAll(async () => {
	await server.close();
});
beforeEach(() => {
	server.requests.length = 0;
	server.setScenario({ kind: "stream", chunks: ["## Goal\n", "Headless summary."] });
});

/** The built CLI, asynchronously (the loopback server answers from this process meanwhile). */
function arbor(args: string[], env: Record<string, string>, cwd?: string): Promise<RunResult> {
	return new Promise((resolve, reject) => {
		// A clean environment: no provider key of the machine running the tests leaks in.
		const p = spawn(process.execPath, [join(repo, "bin", "arbor.cjs"), ...args], { env: { PATH: process.env.PATH ?? "", ...env }, ...(cwd ? { cwd } : {}) });
		let stdout = "";
		let stderr = "";
		p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
		p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
		p.on("error", reject);
		p.on("close", (status) => resolve({ status, stdout, stderr }));
	});
}

function piHome(files: Record<string, unknown>, arborSettings?: unknown): { HOME: string; agent: string } {
	const HOME = tempDir();
	const agent = join(HOME, ".pi", "agent");
	mkdirSync(agent, { recursive: true });
	for (const [name, json] of Object.entries(files)) writeFileSync(join(agent, name), JSON.stringify(json, null, 2));
	if (arborSettings) {
		mkdirSync(join(HOME, ".arbor"), { recursive: true });
		writeFileSync(join(HOME, ".arbor", "settings.json"), JSON.stringify(arborSettings));
	}
	return { HOME, agent };
}

const labProvider = () => ({
	providers: { lab: { baseUrl: server.baseUrl, api: "openai-completions", apiKey: "$LAB_KEY", headers: { "x-lab-team": "arbor" }, models: [{ id: "lab-1" }] } },
});

describe("arbor model", () => {
	it("prints pi 1.6's automatic choice for a /login'd provider, never the key", async () => {
		const { HOME } = piHome({ "auth.json": { anthropic: { type: "api_key", key: "sk-ant-SECRET" } } });
		const r = await arbor(["model", "--json"], { HOME });
		expect(r.status).toBe(0);
		expect(JSON.parse(r.stdout)).toEqual({ provider: "anthropic", modelId: "claude-opus-5-5", source: "pi-automatic", auth: "api_key" });
		const plain = await arbor(["model"], { HOME });
		expect(plain.stdout).toBe("anthropic/claude-opus-5-5\nsource: pi-automatic\nauth: api_key\n");
		expect(r.stdout + r.stderr + plain.stdout + plain.stderr).not.toContain("SECRET");
	});

	it("pi's saved default with an environment key; PI_CODING_AGENT_DIR moves pi's folder", async () => {
		const { HOME } = piHome({});
		const elsewhere = piHome({ "settings.json": { defaultProvider: "openai", defaultModel: "gpt-6.2-sol" } }).agent;
		const r = await arbor(["model", "--json"], { HOME, PI_CODING_AGENT_DIR: elsewhere, OPENAI_API_KEY: "sk-o", ANTHROPIC_API_KEY: "sk-a" });
		expect(JSON.parse(r.stdout)).toEqual({ provider: "openai", modelId: "gpt-6.2-sol", source: "pi-settings", auth: "env" });
	});

	it("Arbor's settings override pi's", async () => {
		const { HOME } = piHome(
			{ "settings.json": { defaultProvider: "openai", defaultModel: "gpt-6.2-sol" } },
			{ model: { provider: "local", modelId: "m", baseUrl: server.baseUrl } },
		);
		const r = await arbor(["model", "--json"], { HOME, OPENAI_API_KEY: "sk-o" });
		expect(JSON.parse(r.stdout)).toEqual({ provider: "local", modelId: "m", source: "arbor-settings", auth: null, baseUrl: server.baseUrl });
	});

	it("no model: the plain reason on stderr, exit 3", async () => {
		const { HOME } = piHome({});
		const r = await arbor(["model"], { HOME });
		expect(r.status).toBe(3);
		expect(r.stdout).toBe("");
		expect(r.stderr).toMatch(/^arbor model: No model for summaries: no provider has credentials\./);
	});

	it("rejects arguments it does not take; a FILE that cannot be opened exits 2", async () => {
		const r = await arbor(["model", "a.jsonl", "extra"], { HOME: tempDir() });
		expect(r.status).toBe(1);
		const missing = await arbor(["model", join(tempDir(), "missing.jsonl")], { HOME: tempDir() });
		expect(missing.status).toBe(2);
	});

	it("prints no MaxListenersExceededWarning (pi-ai checks every provider on one signal)", async () => {
		const { HOME } = piHome({});
		const r = await arbor(["model"], { HOME, ANTHROPIC_API_KEY: "sk-a" });
		expect(r.status).toBe(0);
		expect(r.stdout).toBe("anthropic/claude-opus-5-5\nsource: env\nauth: env\n");
		expect(r.stderr).toBe("");
	});

	it("with FILE: the session's own model, the one its summary request uses (source pi-session)", async () => {
		const { HOME } = piHome({ "models.json": labProvider() });
		const change = { type: "model_change", id: "mc", parentId: "a3", timestamp: "2026-01-01T00:00:09.000Z", provider: "lab", modelId: "lab-1" };
		const file = writeSession(tempDir(), [...branchySession(), change as never]);
		const env = { HOME, LAB_KEY: "lab-key-session", ANTHROPIC_API_KEY: "sk-a" };
		const general = await arbor(["model", "--json"], env);
		expect(JSON.parse(general.stdout)).toMatchObject({ provider: "anthropic", source: "env" });
		const m = await arbor(["model", file, "--json"], env);
		expect(m.stderr).toBe("");
		expect(JSON.parse(m.stdout)).toEqual({ provider: "lab", modelId: "lab-1", source: "pi-session", auth: "env" });
		const n = await arbor(["navigate", file, "a4", "--summarize", "--json"], env);
		expect(n.status).toBe(0);
		expect(server.requests.at(-1)?.authorization).toBe("Bearer lab-key-session");
	});
});

describe("arbor navigate", () => {
	it("--summarize writes pi 1.6's branch_summary (fromId = leaf left behind, usage kept) with the custom provider's own key and headers", async () => {
		const { HOME } = piHome({
			"settings.json": { defaultProvider: "lab", defaultModel: "lab-1" },
			"models.json": labProvider(),
			"auth.json": { anthropic: { type: "api_key", key: "sk-ant-OTHER" } },
		});
		const file = writeSession(tempDir(), branchySession());
		const r = await arbor(["navigate", file, "a4", "--summarize", "--prompt", "Mention the tokenizer.", "--json"], {
			HOME,
			LAB_KEY: "lab-key-1",
			ANTHROPIC_API_KEY: "sk-ant-ENV",
		});
		expect(r.stderr).toBe("");
		expect(r.status).toBe(0);
		const out = JSON.parse(r.stdout) as { newLeafId: string; oldLeafId: string; summaryEntryId: string; cancelled: boolean };
		expect(out).toMatchObject({ oldLeafId: "a3", cancelled: false });
		expect(out.newLeafId).toBe(out.summaryEntryId);
		const req = server.requests.at(-1);
		expect(req?.authorization).toBe("Bearer lab-key-1");
		expect(req?.headers["x-lab-team"]).toBe("arbor");
		expect(req?.headers["x-api-key"]).toBeUndefined();
		expect(JSON.stringify(req?.headers)).not.toMatch(/sk-ant-(OTHER|ENV)/);
		expect(JSON.stringify(req?.body)).toContain("Mention the tokenizer.");
		const last = JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1) as string) as Record<string, unknown>;
		expect(Object.keys(last)).toEqual(["type", "id", "parentId", "timestamp", "fromId", "summary", "details", "usage", "fromHook"]);
		expect(last).toMatchObject({
			type: "branch_summary",
			id: out.summaryEntryId,
			parentId: "a4",
			fromId: "a3",
			fromHook: false,
			usage: { input: 11, output: 7, totalTokens: 18 },
		});
		expect(last.summary).toMatch(/^## Goal\nHeadless summary\./);
		// pi 1.6's own SessionManager resumes at the summary, and its branch walks through it to a4.
		// eslint-disable-next-line arbor/layers -- pi 1.6's dist/core by path (its exports map hides it)
		const pi = (await import(pathToFileURL(join(repo, "node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js")).href)) as {
			SessionManager: { open(p: string): { getLeafId(): string | null; getBranch(): { id: string }[] } };
		};
		const sm = pi.SessionManager.open(file);
		expect(sm.getLeafId()).toBe(out.summaryEntryId);
		expect(sm.getBranch().map((e) => e.id)).toEqual(["u1", "a1", "u3", "a4", out.summaryEntryId]);
	});

	it("a resumed session's own model (its branch's model_change) writes the summary, as pi restores it, before pi's saved default", async () => {
		const { HOME } = piHome({
			"settings.json": { defaultProvider: "anthropic", defaultModel: "claude-opus-5-5" },
			"models.json": labProvider(),
			"auth.json": { anthropic: { type: "api_key", key: "sk-ant-OTHER" } },
		});
		const change = { type: "model_change", id: "mc", parentId: "a3", timestamp: "2026-01-01T00:00:09.000Z", provider: "lab", modelId: "lab-1" };
		const file = writeSession(tempDir(), [...branchySession(), change as never]);
		const r = await arbor(["navigate", file, "a4", "--summarize", "--json"], { HOME, LAB_KEY: "lab-key-session" });
		expect(r.stderr).toBe("");
		expect(r.status).toBe(0);
		expect(JSON.parse(r.stdout)).toMatchObject({ oldLeafId: "mc", cancelled: false });
		expect(server.requests.at(-1)?.authorization).toBe("Bearer lab-key-session");
	});

	it("the session header's cwd: a trusted project's .pi/settings.json default writes the summary", async () => {
		const { HOME, agent } = piHome({
			"settings.json": { defaultProvider: "anthropic", defaultModel: "claude-opus-5-5" },
			"models.json": labProvider(),
			"auth.json": { anthropic: { type: "api_key", key: "sk-ant-OTHER" } },
		});
		const project = realpathSync(tempDir());
		mkdirSync(join(project, ".pi"));
		writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify({ defaultProvider: "lab", defaultModel: "lab-1" }));
		// branchySession's assistant messages name a model pi does not know, so pi falls back to its settings.
		const file = writeSession(tempDir(), branchySession(), "s.jsonl", {
			type: "session",
			version: 3,
			id: "s",
			timestamp: "2026-01-01T00:00:00.000Z",
			cwd: project,
		});
		// Not trusted yet (pi's default "ask", and no terminal to ask in): the global default.
		const before = await arbor(["model", "--json"], { HOME, LAB_KEY: "x" }, project);
		expect(JSON.parse(before.stdout)).toMatchObject({ provider: "anthropic", source: "pi-settings" });
		writeFileSync(join(agent, "trust.json"), JSON.stringify({ [project]: true }));
		const r = await arbor(["navigate", file, "a4", "--summarize", "--json"], { HOME, LAB_KEY: "lab-key-project" });
		expect(r.stderr).toBe("");
		expect(r.status).toBe(0);
		expect(server.requests.at(-1)?.authorization).toBe("Bearer lab-key-project");
		// `arbor model` reads the project of the folder it runs in.
		const m = await arbor(["model", "--json"], { HOME, LAB_KEY: "x" }, project);
		expect(JSON.parse(m.stdout)).toEqual({ provider: "lab", modelId: "lab-1", source: "pi-settings", auth: "env" });
		const outside = await arbor(["model", "--json"], { HOME, LAB_KEY: "x" }, HOME);
		expect(JSON.parse(outside.stdout)).toMatchObject({ provider: "anthropic", source: "pi-settings" });
	});

	it("without --summarize moves the leaf in memory only: prints it, writes nothing", async () => {
		const file = writeSession(tempDir(), branchySession());
		const before = sha256(file);
		const r = await arbor(["navigate", file, "u3"], { HOME: piHome({}).HOME });
		expect(r.status).toBe(0);
		expect(r.stdout).toBe("leaf: a1\neditor text: Try another approach instead\n");
		expect(sha256(file)).toBe(before);
	});

	it("--summarize without a model: exit 3, the reason, nothing written", async () => {
		const file = writeSession(tempDir(), branchySession());
		const before = sha256(file);
		const r = await arbor(["navigate", file, "a4", "--summarize"], { HOME: piHome({}).HOME });
		expect(r.status).toBe(3);
		expect(r.stderr).toMatch(/No model for summaries/);
		expect(sha256(file)).toBe(before);
	});

	it("a custom base URL in Arbor's settings never receives pi's stored or environment keys", async () => {
		const { HOME } = piHome(
			{ "auth.json": { openai: { type: "api_key", key: "sk-openai-STORED" } } },
			{ model: { provider: "openai", modelId: "gpt-6.2-sol", baseUrl: server.baseUrl, api: "openai-completions" } },
		);
		const file = writeSession(tempDir(), branchySession());
		const r = await arbor(["navigate", file, "a4", "--summarize", "--json"], { HOME, OPENAI_API_KEY: "sk-openai-ENV" });
		expect(r.status).toBe(0);
		const req = server.requests.at(-1);
		expect(req?.authorization).toBe("Bearer arbor-no-key");
		expect(JSON.stringify(req?.headers)).not.toMatch(/sk-openai-(STORED|ENV)/);
	});

	it("extensions see session_before_tree / session_tree; a cancel writes nothing and exits 3", async () => {
		const { HOME } = piHome({ "settings.json": { defaultProvider: "lab", defaultModel: "lab-1" }, "models.json": labProvider() });
		const dir = tempDir();
		const log = join(dir, "events.log");
		const ext = join(dir, "watch-tree.js");
		writeFileSync(
			ext,
			`const fs = require("node:fs");
module.exports = function (pi) {
  pi.on("session_before_tree", async (event) => {
    fs.appendFileSync(${JSON.stringify(log)}, "before " + event.preparation.targetId + " " + event.preparation.oldLeafId + "\\n");
    if (event.preparation.targetId === "u1") return { cancel: true };
    return { summary: { summary: "from the extension", details: { by: "ext" } } };
  });
  pi.on("session_tree", async (event) => {
    fs.appendFileSync(${JSON.stringify(log)}, "tree " + event.newLeafId + " " + event.oldLeafId + " " + (event.summaryEntry ? event.summaryEntry.fromId : "-") + "\\n");
  });
};`,
		);
		const file = writeSession(tempDir(), branchySession());
		const before = sha256(file);
		const cancelled = await arbor(["navigate", file, "u1", "--summarize", "--extension", ext], { HOME, LAB_KEY: "k" });
		expect(cancelled.status).toBe(3);
		expect(cancelled.stderr).toMatch(/cancelled/);
		expect(sha256(file)).toBe(before);
		const r = await arbor(["navigate", file, "a4", "--summarize", "--extension", ext, "--json"], { HOME, LAB_KEY: "k" });
		expect(r.status).toBe(0);
		const out = JSON.parse(r.stdout) as { summaryEntryId: string };
		expect(server.requests).toHaveLength(0);
		const last = JSON.parse(readFileSync(file, "utf8").trim().split("\n").at(-1) as string) as Record<string, unknown>;
		expect(last).toMatchObject({ type: "branch_summary", summary: "from the extension", details: { by: "ext" }, fromHook: true, fromId: "a3" });
		expect(readFileSync(log, "utf8")).toBe(`before u1 a3\nbefore a4 a3\ntree ${out.summaryEntryId} a3 a3\n`);
	});

	it("an entry that is not in the file is a usage error; a missing file is a bad file", async () => {
		const file = writeSession(tempDir(), branchySession());
		expect((await arbor(["navigate", file, "nope"], { HOME: tempDir() })).status).toBe(1);
		expect((await arbor(["navigate", join(tempDir(), "missing.jsonl"), "a4"], { HOME: tempDir() })).status).toBe(2);
		expect((await arbor(["navigate", file, "a4", "--prompt", "x"], { HOME: tempDir() })).status).toBe(1);
	});
});
