// pi 1.6's extension surface, member by member, read from the installed package's own type declarations:
// every method of `pi` and `ctx` exists in Arbor's host; what Arbor cannot do fails only when called,
// with a typed error; pi's own packages resolve to Arbor's copies from any folder.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCommandContext, createEventContext } from "../extensions/context";
import { ExtensionHost, type HostBindings } from "../extensions/host";
import type { ExtensionFailure } from "../extensions/types";
import { branchySession, tempDir, writeSession } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";
import { SessionManager } from "../../session";

const PI = path.resolve(__dirname, "../../../node_modules/@earendil-works/pi-coding-agent/dist/core");

/** Member names of an interface / class in a .d.ts (its own members, not inherited ones). */
function members(file: string, decl: string): string[] {
	const text = fs.readFileSync(path.join(PI, file), "utf8");
	const start = text.indexOf(decl);
	if (start < 0) throw new Error(`${decl} not in ${file}`);
	const lines = text.slice(start).split("\n").slice(1);
	const names = new Set<string>();
	for (const line of lines) {
		if (line.startsWith("}")) break;
		const m = /^ {4}(?:readonly )?([A-Za-z_]\w*)\??[(<:]/.exec(line);
		if (m && m[1] !== "constructor") names.add(m[1] as string);
	}
	return [...names];
}

function readonlySessionMembers(): string[] {
	const text = fs.readFileSync(path.join(PI, "session-manager.d.ts"), "utf8");
	const m = /export type ReadonlySessionManager = Pick<SessionManager, ([^>]+)>/.exec(text);
	return [...(m?.[1] ?? "").matchAll(/"(\w+)"/g)].map((x) => x[1] as string);
}

const bindings: HostBindings = { appendEntry: () => {}, setLabel: () => {}, setSessionName: () => {}, getSessionName: () => undefined, notify: () => {} };

async function loadOne(
	src: string,
	name = "probe.ts",
	dir = tempDir("arbor-surface-"),
): Promise<{ host: ExtensionHost; failures: ExtensionFailure[]; dir: string }> {
	fs.writeFileSync(path.join(dir, name), src);
	const failures: ExtensionFailure[] = [];
	const host = new ExtensionHost({ dirs: [dir], paths: [], onFailure: (f) => failures.push(f), bindings });
	await host.ready();
	return { host, failures, dir };
}

let t: TestServices | undefined;
afterEach(() => t?.services.dispose());

describe("pi 1.6's ExtensionAPI (`pi`)", () => {
	it("has every member pi 1.6 declares, and on() returns a working unsubscribe", async () => {
		const expected = members("extensions/types.d.ts", "export interface ExtensionAPI {");
		expect(expected.length).toBeGreaterThan(30);
		expect(expected).toEqual(
			expect.arrayContaining(["getSettings", "registerEntryRenderer", "registerVirtualModel", "registerMarkdownTransformer", "registerMcpServer"]),
		);
		const g = globalThis as { __arborProbe?: Record<string, unknown> };
		const { host, failures } = await loadOne(`export default function (pi) {
			globalThis.__arborProbe = pi;
			const off = pi.on("session_tree", () => { throw new Error("unsubscribed handler ran"); });
			if (typeof off !== "function") throw new Error("on() returned " + typeof off);
			off();
			pi.on("session_tree", () => { globalThis.__arborTreeSeen = true; });
		}`);
		expect(failures).toEqual([]);
		const pi = g.__arborProbe as Record<string, unknown>;
		const missing = expected.filter((k) => pi[k] === undefined);
		expect(missing).toEqual([]);
		await host.emit({ type: "session_tree", newLeafId: "a", oldLeafId: "b" }, {});
		expect((globalThis as { __arborTreeSeen?: boolean }).__arborTreeSeen).toBe(true);
		expect(failures).toEqual([]);
	});

	it("registration calls Arbor has no use for work at load; agent-only actions throw a typed error when called", async () => {
		const { host, failures } = await loadOne(`
import { Type } from "typebox";
export default function (pi) {
	pi.registerTool({ name: "t", label: "t", description: "d", parameters: Type.Object({}), execute: async () => ({ content: [] }) });
	pi.registerEntryRenderer("x", () => undefined);
	pi.registerMarkdownTransformer((m) => m);
	pi.registerToolRenderer(() => undefined);
	pi.registerVirtualModel({ provider: "v", id: "auto", name: "Auto", route: () => ({}) });
	pi.registerMcpServer("jira", { url: "https://mcp.example.invalid" });
	pi.registerProvider("proxy", { baseUrl: "https://proxy.example.invalid", api: "openai-completions", models: [] });
	pi.registerFlag("plan", { type: "boolean", default: true });
	pi.registerShortcut("ctrl+x", { handler: () => {} });
	if (pi.getFlag("plan") !== true) throw new Error("flag default");
	if (pi.getMcpServers().length !== 1) throw new Error("mcp servers");
	pi.registerCommand("probe", { description: "probe", handler: async (_args, ctx) => {
		const errs = [];
		for (const call of [() => pi.sendUserMessage("hi"), () => pi.sendMessage({ customType: "x", content: "y" })]) {
			try { call(); } catch (e) { errs.push(e.name + ":" + e.code); }
		}
		try { await pi.exec("ls", []); } catch (e) { errs.push(e.name + ":" + e.code); }
		globalThis.__arborErrs = errs;
		globalThis.__arborTools = pi.getAllTools().map((t) => t.name);
		globalThis.__arborSettings = pi.getSettings();
	} });
}`);
		expect(failures).toEqual([]);
		const cmd = host.getCommand("probe");
		expect(cmd).toBeDefined();
		await host.runCommand(cmd as NonNullable<typeof cmd>, "", {});
		const g = globalThis as Record<string, unknown>;
		expect(g.__arborErrs).toEqual(Array(3).fill("NotAvailableInArborError:not_available_in_arbor"));
		expect(g.__arborTools).toEqual(["t"]);
		expect(g.__arborSettings).toEqual({});
	});
});

describe("pi 1.6's ExtensionContext and ExtensionCommandContext (`ctx`)", () => {
	it("has every member of ExtensionContext, ExtensionCommandContext, ExtensionUIContext and ReadonlySessionManager", () => {
		const m = SessionManager.inMemory("/work/p");
		const notify = (): void => {};
		const ctx = createCommandContext({
			manager: m,
			sessionId: "s1",
			abort: () => {},
			notify,
			navigateTree: async () => ({ cancelled: false }),
			branch: async () => ({ cancelled: false }),
			reload: async () => {},
		}) as Record<string, unknown>;
		const want = [
			...members("extensions/types.d.ts", "export interface ExtensionContext {"),
			...members("extensions/types.d.ts", "export interface ExtensionCommandContext extends"),
		];
		expect(want).toEqual(expect.arrayContaining(["mode", "thinkingLevel", "isProjectTrusted", "modelRegistry", "fork", "getSystemPromptOptions"]));
		// Optional members that have no value in Arbor (signal outside a flow, model without settings) are present as keys.
		expect(want.filter((k) => !(k in ctx))).toEqual([]);
		const ui = ctx.ui as Record<string, unknown>;
		expect(members("extensions/types.d.ts", "export interface ExtensionUIContext {").filter((k) => ui[k] === undefined)).toEqual([]);
		const sm = ctx.sessionManager as Record<string, unknown>;
		const smWant = readonlySessionMembers();
		expect(smWant).toEqual(expect.arrayContaining(["getSessionName", "buildContextEntries", "buildSessionProjection"]));
		expect(smWant.filter((k) => typeof sm[k] !== "function")).toEqual([]);
		const mr = ctx.modelRegistry as Record<string, unknown>;
		const mrWant = members("model-registry.d.ts", "export declare class ModelRegistry");
		expect(mrWant).toEqual(expect.arrayContaining(["complete", "stream", "streamSimple"]));
		expect(mrWant.filter((k) => typeof mr[k] !== "function")).toEqual([]);
		expect(ctx.mode).toBe("print");
		expect(ctx.hasUI).toBe(false);
		expect((ctx.isProjectTrusted as () => boolean)()).toBe(false);
		expect(ctx.thinkingLevel).toBe("off");
		m.appendThinkingLevelChange("high");
		m.appendMessage({ role: "user", content: [{ type: "text", text: "go" }], timestamp: 0 } as never);
		expect(createEventContext({ manager: m, sessionId: "s1", abort: () => {}, notify }).thinkingLevel).toBe("high");
		// pi's theme styles text; Arbor's gives the text back.
		expect((ui.theme as { fg(c: string, s: string): string }).fg("accent", "hi")).toBe("hi");
	});

	it("sessionManager answers pi 1.6's getSessionName, buildContextEntries and buildSessionProjection from Arbor's session", () => {
		const dir = tempDir();
		const file = writeSession(dir, [
			...branchySession(),
			{ type: "session_info", id: "n1", parentId: "a3", timestamp: "2026-01-01T00:00:09.000Z", name: "  Tokenizer work " } as never,
		]);
		const m = SessionManager.open(file);
		const sm = createEventContext({ manager: m, sessionId: "s1", abort: () => {}, notify: () => {} }).sessionManager as Record<
			string,
			(...a: unknown[]) => unknown
		>;
		expect(sm.getSessionName?.()).toBe("Tokenizer work");
		const entries = sm.buildContextEntries?.() as { id: string }[];
		expect(entries.map((e) => e.id)).toEqual((m.getBranch() as { id: string }[]).map((e) => e.id));
		const projection = sm.buildSessionProjection?.() as {
			entries: { sourceEntry: { id: string }; messages: unknown[] }[];
			messages: unknown[];
			thinkingLevel: string;
		};
		expect(projection.entries.map((e) => e.sourceEntry.id)).toEqual(entries.map((e) => e.id));
		expect(projection.messages).toEqual(m.buildSessionContext().messages);
		expect(projection.entries.flatMap((e) => e.messages)).toEqual(projection.messages);
		m.close();
	});

	it("a core that projects by entry index (pi 1.6 context rules) is handed to extensions in pi's shape", () => {
		const m = SessionManager.open(writeSession(tempDir(), branchySession()));
		const first = m.getEntryAt(0) as { id: string };
		// What the session core's own buildSessionProjection answers (file indices, not entries).
		Object.defineProperty(m, "buildSessionProjection", {
			value: () => ({
				entries: [{ index: 0, messages: [{ role: "user", content: "x", timestamp: 0 }], editIndex: -1 }],
				messages: [],
				thinkingLevel: "off",
				model: null,
			}),
		});
		const sm = createEventContext({ manager: m, sessionId: "s1", abort: () => {}, notify: () => {} }).sessionManager as Record<string, () => unknown>;
		const p = sm.buildSessionProjection?.() as { entries: { sourceEntry: { id: string }; messages: unknown[] }[] };
		expect(p.entries).toEqual([{ sourceEntry: expect.objectContaining({ id: first.id }), messages: [{ role: "user", content: "x", timestamp: 0 }] }]);
		m.close();
	});

	it("modelRegistry.complete() and streamSimple() call Arbor's model with its key; another model is a typed error", async () => {
		const { startLlmServer } = await import("./helpers/llm-server");
		const server = await startLlmServer({ kind: "stream", chunks: ["pong"] });
		try {
			const base = tempDir("arbor-ext-home-");
			const extDir = path.join(base, "arbor", "extensions");
			fs.mkdirSync(extDir, { recursive: true });
			fs.writeFileSync(
				path.join(extDir, "ask.ts"),
				`
export default function (pi) {
	pi.registerCommand("ask", { handler: async (_a, ctx) => {
		const msg = await ctx.modelRegistry.complete(ctx.model, { messages: [{ role: "user", content: "ping", timestamp: 0 }] });
		pi.appendEntry("answer", { text: msg.content.map((b) => b.text ?? "").join(""), model: ctx.model.id });
		const stream = ctx.modelRegistry.streamSimple(ctx.model, { messages: [{ role: "user", content: "again", timestamp: 0 }] });
		let deltas = 0;
		for await (const ev of stream) if (ev.type === "text_delta") deltas++;
		const final = await stream.result();
		pi.appendEntry("streamed", { text: final.content.map((b) => b.text ?? "").join(""), deltas });
		try { await ctx.modelRegistry.complete({ provider: "other", id: "x" }, { messages: [] }); } catch (e) { pi.appendEntry("refused", { name: e.name }); }
	} });
}`,
			);
			t = makeServices({ settingsDir: path.join(base, "arbor") });
			await t.services.setSettings({
				settings: { model: { provider: "local", modelId: "test-model", baseUrl: server.baseUrl, api: "openai-completions", apiKey: "sk-ext-test" } },
			});
			const file = writeSession(tempDir(), branchySession());
			const s = await t.services.openSession({ path: file });
			await t.services.runExtensionCommand({ sessionId: s.sessionId, name: "ask" });
			const lines = readLines(file);
			expect(lines.find((l) => l.customType === "answer")?.data).toEqual({ text: "pong", model: "test-model" });
			expect(lines.find((l) => l.customType === "streamed")?.data).toEqual({ text: "pong", deltas: 1 });
			expect(lines.find((l) => l.customType === "refused")?.data).toEqual({ name: "NotAvailableInArborError" });
			expect(server.requests.length).toBe(2);
			expect(server.requests.at(-1)?.authorization).toBe("Bearer sk-ext-test");
		} finally {
			await server.close();
		}
	});
});

describe("module mapping", () => {
	it("an extension outside any node_modules imports pi-ai, pi-tui, typebox, @sinclair/typebox and pi-coding-agent (both scopes) by value", async () => {
		const { host, failures } = await loadOne(`
import { StringEnum, Type } from "@earendil-works/pi-ai";
import { complete } from "@earendil-works/pi-ai/compat";
import { Text } from "@earendil-works/pi-tui";
import { Type as T2 } from "typebox";
import { Type as T3 } from "@sinclair/typebox";
import { Type as OldType } from "@mariozechner/pi-ai";
import { CONFIG_DIR_NAME, CustomEditor, defineTool, getAgentDir, isBashToolResult, parseFrontmatter, VERSION } from "@mariozechner/pi-coding-agent";
import { createBashTool, DynamicBorder } from "@earendil-works/pi-coding-agent";
class Mine extends CustomEditor {}
const schema = Type.Object({ mode: StringEnum(["a", "b"]) });
const tool = defineTool({ name: "x", label: "x", description: "x", parameters: T2.Object({}), execute: async () => ({ content: [] }) });
const bash = createBashTool("/tmp");
export default function (pi) {
	globalThis.__arborMap = {
		enumSchema: schema.properties.mode, t3: typeof T3.Object, old: typeof OldType.Object, complete: typeof complete,
		text: typeof Text, dir: CONFIG_DIR_NAME, version: VERSION, agentDir: typeof getAgentDir(), guard: isBashToolResult({ toolName: "bash" }),
		tool: tool.name, bash: bash.name, border: typeof DynamicBorder,
	};
	pi.registerCommand("use", { handler: async () => {
		const errs = [];
		for (const f of [() => new Mine(), () => parseFrontmatter("---\\na: 1\\n---"), () => bash.execute("id", {})]) {
			try { await f(); errs.push("no error"); } catch (e) { errs.push(e.name); }
		}
		globalThis.__arborUseErrs = errs;
	} });
}`);
		expect(failures).toEqual([]);
		expect((globalThis as Record<string, unknown>).__arborMap).toEqual({
			enumSchema: { type: "string", enum: ["a", "b"] },
			t3: "function",
			old: "function",
			complete: "function",
			text: "function",
			dir: ".pi",
			version: "1.6.0",
			agentDir: "string",
			guard: true,
			tool: "x",
			bash: "bash",
			border: "function",
		});
		const cmd = host.getCommand("use");
		await host.runCommand(cmd as NonNullable<typeof cmd>, "", {});
		expect((globalThis as Record<string, unknown>).__arborUseErrs).toEqual(Array(3).fill("NotAvailableInArborError"));
	});

	it("a missing dependency the extension's package.json declares is reported as such", async () => {
		const dir = tempDir("arbor-dep-");
		const pkg = path.join(dir, "needs-dep");
		fs.mkdirSync(pkg);
		fs.writeFileSync(
			path.join(pkg, "package.json"),
			JSON.stringify({ name: "needs-dep", dependencies: { "left-pad-arbor-test": "1.0.0" }, pi: { extensions: ["./main.ts"] } }),
		);
		fs.writeFileSync(path.join(pkg, "main.ts"), `import pad from "left-pad-arbor-test";\nexport default function (pi) { pad; }`);
		const failures: ExtensionFailure[] = [];
		const host = new ExtensionHost({ dirs: [], paths: [pkg], onFailure: (f) => failures.push(f), bindings });
		await host.ready();
		expect(failures.map((f) => f.message)).toEqual([`its dependency left-pad-arbor-test is not installed: run \`npm install\` in ${pkg} (pi needs it too)`]);
		expect(host.records).toMatchObject([{ path: path.join(pkg, "main.ts"), origin: "cli", loaded: false }]);
	});
});
