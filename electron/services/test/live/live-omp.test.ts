// Arbor steers a real running oh-my-pi: omp 18.3.4's own CLI (its Bun bundle, the rig scripts/runtimes.mjs builds)
// in RPC mode with Arbor's extension, against the loopback model. As live-pi.test.ts does for pi: the live state,
// send (its answer streams), abort mid-stream, navigate and branch, carried out by omp itself; omp's own
// get_entries / get_state and what the model receives are the oracle. What omp 18.3 cannot do (docs/live.md
// "oh-my-pi 18.3"): navigate and branch only after /arbor was typed once; labels go to the file.

import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArborEvent } from "../../../../shared/api";
import { ArborServices } from "../../arbor-services";
import { type LlmServer, startLlmServer } from "../helpers/llm-server";
import { ompRuntime, type RealOmp, startRealOmp } from "../helpers/real-omp";

const EXTENSION = path.resolve(import.meta.dirname, "../../../../pi-extension/index.ts");
const runtime = ompRuntime();
const why = "missing" in runtime ? runtime.missing : "";

let omp: RealOmp;
let llm: LlmServer;
let services: ArborServices;
let file: string;
let sessionId: string;
const events: ArborEvent[] = [];
let ids: { u1: string; a1: string; u2: string; a2: string };

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	return (content as { type: string; text?: string }[]).map((b) => b.text ?? "").join("");
}

async function until<T>(what: string, f: () => T | undefined | null | false, timeoutMs = 30_000): Promise<T> {
	const end = Date.now() + timeoutMs;
	for (;;) {
		const v = f();
		if (v) return v;
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 25));
	}
}

describe.skipIf("missing" in runtime)(`a live omp 18.3.4 (its own CLI under Bun) with Arbor's extension${why ? ` (skipped: ${why})` : ""}`, () => {
	beforeAll(async () => {
		if ("missing" in runtime) return;
		llm = await startLlmServer({ kind: "stream", chunks: ["First answer."] });
		// /arbor would open Arbor: a no-op app stands in (ARBOR_APP is the extension's override).
		omp = await startRealOmp(runtime, llm, { args: ["-e", EXTENSION], env: { ARBOR_APP: "/bin/true" } });
		await omp.prompt("first question");
		llm.setScenario({ kind: "stream", chunks: ["Second answer."] });
		await omp.prompt("second question");
		const { entries } = await omp.entries();
		const msgs = entries.filter((e) => e.type === "message" && ["user", "assistant"].includes((e.message as { role: string }).role));
		ids = { u1: msgs[0]!.id, a1: msgs[1]!.id, u2: msgs[2]!.id, a2: msgs[3]!.id };
		file = await omp.sessionFile();
		services = new ArborServices({ settingsDir: path.join(omp.home, ".arbor"), watch: false, liveClient: { name: "arbor-test", version: "0" } });
		services.onEvent((e) => events.push(e));
		sessionId = (await services.openSession({ path: file })).sessionId;
	}, 240_000);

	afterAll(async () => {
		services?.dispose();
		await omp?.stop();
		await llm?.close();
	});

	it("the live state names omp 18.3.4, its leaf and idle", async () => {
		const state = await services.getLiveState({ sessionId });
		expect(state).toMatchObject({ agent: "omp", agentVersion: "18.3.4", leafId: ids.a2, status: "idle" });
	}, 30_000);

	it("send runs a turn in omp: the text reaches the model, the answer streams to Arbor and lands in omp's session", async () => {
		llm.setScenario({ kind: "stream", chunks: ["Streamed ", "reply ", "here."], delayMs: 150 });
		const before = events.length;
		const r = await services.send({ sessionId, text: "please answer", wait: "end" });
		expect(r).toMatchObject({ outcome: "ended" });
		const last = (llm.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages.at(-1)!;
		expect(last.role).toBe("user");
		expect(textOf(last.content)).toContain("please answer");
		const streamed = events.slice(before).filter((e): e is Extract<ArborEvent, { type: "live_stream" }> => e.type === "live_stream");
		expect(streamed[0]?.phase).toBe("start");
		expect(textOf(streamed.at(-1)!.message.content)).toBe("Streamed reply here.");
		const { entries } = await omp.entries();
		expect(textOf((entries.at(-1)!.message as { content: unknown }).content)).toBe("Streamed reply here.");
	}, 60_000);

	it("abort stops omp's turn mid-stream", async () => {
		llm.setScenario({ kind: "hang" });
		const from = events.length;
		const started = await services.send({ sessionId, text: "a long one", wait: "start" });
		expect(started.outcome).toBe("started");
		const aborted = await services.abort({ sessionId });
		expect(aborted).toMatchObject({ wasStreaming: true });
		await until("omp idle after the abort", () => events.slice(from).some((e) => e.type === "live_state" && e.live?.status === "idle"));
		// omp records the aborted answer as its turn ends.
		const lastEntry = async (): Promise<unknown> => (await omp.entries()).entries.at(-1);
		await expect.poll(lastEntry, { timeout: 30_000 }).toMatchObject({ type: "message", message: { role: "assistant", stopReason: "aborted" } });
	}, 60_000);

	it("navigate: refused until /arbor was typed in omp, then carried out by omp (its own leaf moves)", async () => {
		await expect(services.navigate({ sessionId, targetId: ids.a1 })).rejects.toMatchObject({
			code: "unsupported",
			message: expect.stringMatching(/type \/arbor/),
		});
		await omp.prompt("/arbor");
		const r = await services.navigate({ sessionId, targetId: ids.a1 });
		expect(r).toMatchObject({ cancelled: false, newLeafId: ids.a1 });
		expect((await omp.entries()).leafId).toBe(ids.a1);
		llm.setScenario({ kind: "stream", chunks: ["Third answer."] });
		await omp.prompt("third question");
		const sent = (llm.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages
			.filter((m) => m.role === "user")
			.map((m) => textOf(m.content));
		expect(sent.some((t) => t.includes("second question"))).toBe(false);
		expect(sent.at(-1)).toContain("third question");
	}, 90_000);

	it("branch goes through omp's branch: omp moves to a new session file", async () => {
		const before = await omp.sessionFile();
		const r = await services.branchToFile({ sessionId, entryId: ids.u2 });
		expect(r).toMatchObject({ cancelled: false });
		expect(r.path).not.toBe(before);
		expect(await omp.sessionFile()).toBe(r.path);
	}, 60_000);
});
