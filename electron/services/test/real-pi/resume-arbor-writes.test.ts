// Real pi 1.6.0 resumes what Arbor wrote. For each way Arbor writes a session file (label, navigate with a
// summary, branch to a new file, save position for pi, legacy upgrade, a composer message), Arbor's own services
// write a copy of a fixture, then the real pi CLI (Node 24, RPC mode) resumes that file and gets one prompt.
// Checked, exactly:
//   1. pi's leaf (RPC get_entries) is where Arbor says pi resumes (getResumePoint);
//   2. pi's context before the prompt (RPC get_messages) equals Arbor's context panel (getContext) for that leaf;
//   3. the messages the model received equal what pi 1.6's own converters (convertToLlm, pi-ai's
//      openai-completions request) make of Arbor's context plus the prompt.
// Normalisation (docs/compatibility.md "Real pi"): only what pi adds itself — the system prompt (first message of
// the request), which depends on pi's tools, docs path and working folder — is left out of 3.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContextView } from "../../../../shared/api";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { buildCli, repo } from "../../../cli/test/helpers";
import { type LlmServer, startLlmServer } from "../helpers/llm-server";
import { loopbackModel, type ModelMessage, rehomeSession, startRealPi, writeLoopbackAgentConfig } from "../helpers/real-pi";
import { makeServices, type TestServices } from "../helpers/services";
import { tempDir } from "../helpers/entries";

const FIXTURES = path.resolve(import.meta.dirname, "../../../../../shared/fixtures/sessions");
const PROMPT = "Carry on from here, please.";

let server: LlmServer;
let t: TestServices;
beforeAll(async () => {
	buildCli();
	server = await startLlmServer({ kind: "stream", chunks: ["Loopback answer."] });
	t = makeServices();
	// Arbor's summaries go to the loopback model too: pi's settings name it as the default.
	writeLoopbackAgentConfig(t.piAgentDir, server);
});
afterAll(async () => {
	t?.services.dispose();
	await server?.close();
});

/** A fixture copied into a temp folder whose header names that (existing) folder, as pi requires. */
function copyFixture(name: string): string {
	const dir = tempDir("arbor-real-pi-file-");
	const file = path.join(dir, name);
	fs.copyFileSync(path.join(FIXTURES, name), file);
	rehomeSession(file, dir);
	return file;
}

/** What pi 1.6's own conversion sends the loopback model for these context messages plus a user prompt. */
async function expectedModelMessages(messages: unknown[]): Promise<ModelMessage[]> {
	const { convertToLlm } = (await import("../../../../node_modules/@earendil-works/pi-coding-agent/dist/core/messages.js")) as {
		convertToLlm(m: unknown[]): unknown[];
	};
	const { stream } = (await import("@earendil-works/pi-ai/api/openai-completions")) as unknown as {
		stream(model: unknown, context: unknown, options: unknown): AsyncIterable<unknown>;
	};
	const { normalizeContext } = (await import("@earendil-works/pi-ai/utils/transcript")) as unknown as { normalizeContext(c: unknown): unknown };
	const before = server.requests.length;
	const prompt = { role: "user", content: [{ type: "text", text: PROMPT }], timestamp: Date.now() };
	for await (const _ of stream(loopbackModel(server), normalizeContext({ systemPrompt: "system", messages: convertToLlm([...messages, prompt]) }), {
		apiKey: "k",
	})) {
		// drain: the request is what matters
	}
	const req = server.requests[before];
	if (!req) throw new Error("pi-ai sent no request");
	return (req.body as { messages: ModelMessage[] }).messages;
}

/** pi's system prompt is pi's own (tools, docs, cwd): the normalisation drops it from both requests. */
function withoutSystemPrompt(messages: ModelMessage[]): ModelMessage[] {
	expect(messages[0]?.role).toBe("system");
	return messages.slice(1);
}

interface Resumed {
	piLeafId: string | null;
	arborResumeLeafId: string | null;
	/** Entries pi appended on start (the model and thinking level it runs with, when the file does not say). */
	addedByPi: { type: string; id: string; parentId: string | null }[];
	piContext: unknown[];
	arborContext: ContextView;
	modelMessages: ModelMessage[];
	expected: ModelMessage[];
}

/** Open `file` in Arbor, read its resume point and context, then resume it in the real pi and prompt once. */
async function resumeInPi(file: string): Promise<Resumed> {
	const s = await t.services.openSession({ path: file });
	const resume = await t.services.getResumePoint({ sessionId: s.sessionId });
	const sk = await t.services.getSkeleton({ sessionId: s.sessionId });
	const lastId = sk.count > 0 ? sk.ids[sk.count - 1]! : null;
	const arborContext = await t.services.getContext({ sessionId: s.sessionId, leafId: resume.resumeLeafId });
	await t.services.closeSession({ sessionId: s.sessionId });
	const pi = await startRealPi({ server, session: file });
	try {
		const { entries, leafId } = await pi.entries();
		const addedByPi = entries.slice(entries.findIndex((e) => e.id === lastId) + 1);
		const piContext = ((await pi.send({ type: "get_messages" })).data as { messages: unknown[] }).messages;
		const requests = await pi.prompt(PROMPT);
		expect(requests).toHaveLength(1);
		const modelMessages = withoutSystemPrompt(pi.lastModelMessages());
		const expected = withoutSystemPrompt(await expectedModelMessages(arborContext.messages.map((m) => m.message)));
		return { piLeafId: leafId, arborResumeLeafId: resume.resumeLeafId, addedByPi, piContext, arborContext, modelMessages, expected };
	} finally {
		await pi.stop();
	}
}

function expectSame(r: Resumed): void {
	// pi resumes where Arbor says; on start it may append the model / thinking level it runs with (settings
	// entries, no message), chained under that leaf.
	let parent = r.arborResumeLeafId;
	for (const e of r.addedByPi) {
		expect(["model_change", "thinking_level_change"]).toContain(e.type);
		expect(e.parentId).toBe(parent);
		parent = e.id;
	}
	expect(r.piLeafId).toBe(parent);
	expect(r.piContext).toEqual(r.arborContext.messages.map((m) => m.message));
	expect(r.modelMessages).toEqual(r.expected);
	// The prompt is the last thing the model got.
	expect(JSON.stringify(r.modelMessages.at(-1))).toContain(PROMPT);
}

async function openCopy(name: string): Promise<{ sessionId: string; file: string }> {
	const file = copyFixture(name);
	const s = await t.services.openSession({ path: file });
	return { sessionId: s.sessionId, file };
}

describe("real pi 1.6.0 resumes what Arbor wrote", () => {
	it("a label (pi resumes on the label entry, context unchanged)", async () => {
		const { sessionId, file } = await openCopy("formic__pi-v3-branch-compaction.jsonl");
		await t.services.setLabel({ sessionId, entryId: "user-active", label: "checked" });
		await t.services.closeSession({ sessionId });
		const r = await resumeInPi(file);
		expectSame(r);
		expect(r.arborResumeLeafId).not.toBe("unknown-active");
	});

	it("navigate with a summary from the loopback model (a branch_summary on the other branch)", async () => {
		const { sessionId, file } = await openCopy("formic__pi-v3-branch-compaction.jsonl");
		server.setScenario({ kind: "stream", chunks: ["## Goal\nSummary of the branch left behind."] });
		const res = await t.services.navigate({ sessionId, targetId: "inactive-tool", summarize: true });
		server.setScenario({ kind: "stream", chunks: ["Loopback answer."] });
		expect(res.summaryEntryId).toBeTruthy();
		await t.services.closeSession({ sessionId });
		const r = await resumeInPi(file);
		expectSame(r);
		expect(r.arborResumeLeafId).toBe(res.summaryEntryId);
		expect(JSON.stringify(r.modelMessages)).toContain("Summary of the branch left behind.");
	});

	it("branch to a new file (pi resumes the new file)", async () => {
		const { sessionId } = await openCopy("kimchi-dev__statsuline.v3.jsonl");
		const sk = await t.services.getSkeleton({ sessionId });
		// Branch at the third user prompt of the session.
		const entries = await Promise.all(sk.ids.map((id) => t.services.getEntry({ sessionId, id })));
		const userIds = entries.filter((e) => e.type === "message" && (e as { message: { role: string } }).message.role === "user").map((e) => e.id);
		expect(userIds.length).toBeGreaterThanOrEqual(3);
		const res = await t.services.branchToFile({ sessionId, entryId: userIds[2]! });
		expect(res.path).toBeTruthy();
		await t.services.closeSession({ sessionId });
		if (res.session) await t.services.closeSession({ sessionId: res.session.sessionId });
		const r = await resumeInPi(res.path!);
		expectSame(r);
		expect(r.piContext.length).toBeGreaterThan(3);
	});

	it("save position for pi (an arbor.position entry under the leaf the user moved to)", async () => {
		const { sessionId, file } = await openCopy("formic__pi-v3-branch-compaction.jsonl");
		await t.services.navigate({ sessionId, targetId: "inactive-tool" });
		const { entryId } = await t.services.savePosition({ sessionId });
		await t.services.closeSession({ sessionId });
		const r = await resumeInPi(file);
		expectSame(r);
		expect(r.arborResumeLeafId).toBe(entryId);
		expect(JSON.stringify(r.modelMessages)).toContain("Inactive branch tool result");
	});

	it.each([["formic__pi-v2-hook-message.jsonl"], ["pi-mono__large-session.v1.jsonl"]])("legacy upgrade of %s", async (name) => {
		const { sessionId, file } = await openCopy(name);
		const { backupPath } = await t.services.upgradeLegacy({ sessionId });
		expect(fs.existsSync(backupPath)).toBe(true);
		await t.services.closeSession({ sessionId });
		const upgraded = fs.readFileSync(file, "utf8");
		const r = await resumeInPi(file);
		expectSame(r);
		// pi found nothing to migrate: every line Arbor wrote is unchanged (pi only appends).
		expect(fs.readFileSync(file, "utf8").startsWith(upgraded)).toBe(true);
	});

	it("a composer message (a user message appended at the leaf)", async () => {
		const { sessionId, file } = await openCopy("kimchi-dev__statsuline.v3.jsonl");
		const { entryId } = await t.services.appendUserMessage({ sessionId, text: "A note written in Arbor's composer." });
		await t.services.closeSession({ sessionId });
		const r = await resumeInPi(file);
		expectSame(r);
		expect(r.arborResumeLeafId).toBe(entryId);
		expect(JSON.stringify(r.modelMessages.at(-2))).toContain("A note written in Arbor's composer.");
	});
});

describe("real pi 1.6.0 resumes what the arbor command wrote", () => {
	/**
	 * The built CLI with a throwaway home whose pi agent folder names the loopback model. Run without blocking:
	 * the loopback server answering `navigate --summarize` lives in this process.
	 */
	async function cli(args: string[]): Promise<string> {
		const home = tempDir("arbor-real-pi-home-");
		writeLoopbackAgentConfig(path.join(home, ".pi", "agent"), server);
		const env = { ...process.env, HOME: home, PI_CODING_AGENT_DIR: path.join(home, ".pi", "agent") };
		const r = await promisify(execFile)(process.execPath, [path.join(repo, "bin", "arbor.cjs"), ...args], { env, timeout: 60_000, maxBuffer: 1 << 28 });
		expect(r.stderr).toBe("");
		return r.stdout;
	}
	/** `arbor context FILE --leaf ID --json` messages: the CLI's view of the context pi resumed with. */
	async function cliContext(file: string, leafId: string | null): Promise<unknown[]> {
		return (JSON.parse(await cli(["context", file, ...(leafId ? ["--leaf", leafId] : []), "--json"])) as { messages: unknown[] }).messages;
	}

	it("arbor label", async () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		await cli(["label", file, "assistant-active", "from the command line"]);
		const r = await resumeInPi(file);
		expectSame(r);
		expect(r.piContext).toEqual(await cliContext(file, r.arborResumeLeafId));
	});

	it("arbor navigate --summarize (the loopback model writes the summary)", async () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		server.setScenario({ kind: "stream", chunks: ["## Goal\nSummary written for the arbor command."] });
		const out = JSON.parse(await cli(["navigate", file, "inactive-user", "--summarize", "--json"])) as { summaryEntryId: string | null };
		server.setScenario({ kind: "stream", chunks: ["Loopback answer."] });
		expect(out.summaryEntryId).toBeTruthy();
		const r = await resumeInPi(file);
		expectSame(r);
		expect(r.arborResumeLeafId).toBe(out.summaryEntryId);
		expect(r.piContext).toEqual(await cliContext(file, r.arborResumeLeafId));
		expect(JSON.stringify(r.modelMessages)).toContain("Summary written for the arbor command.");
	});

	it("arbor branch", async () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const newFile = (await cli(["branch", file, "tool-active"])).trim();
		expect(fs.existsSync(newFile)).toBe(true);
		const r = await resumeInPi(newFile);
		expectSame(r);
		expect(r.piContext).toEqual(await cliContext(newFile, r.arborResumeLeafId));
	});
});
