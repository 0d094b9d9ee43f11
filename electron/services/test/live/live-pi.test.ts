// Arbor steers a real running pi 1.6.0 (Node 24, RPC mode) that loaded Arbor's pi extension: the service finds
// it by its registration, connects with the secret, and navigate / label / send / abort / branch are carried
// out by that pi; pi's own get_entries and what the loopback model receives are the oracle (docs/live.md).

import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ArborEvent } from "../../../../shared/api";
import type { LiveRequestOf } from "../../../../shared/live";
import { ArborServices } from "../../arbor-services";
import { LiveConnection, LiveError } from "../../live/connection";
import { registrationsFor } from "../../live/registry";
import { type RealPi, startRealPi } from "../helpers/real-pi";

const EXTENSION = path.resolve(import.meta.dirname, "../../../../pi-extension/index.ts");

let pi: RealPi;
let services: ArborServices;
let file: string;
let sessionId: string;
const events: ArborEvent[] = [];
/** pi's entries after the two first turns: user1, assistant1, user2, assistant2. */
let ids: { u1: string; a1: string; u2: string; a2: string };
/** The session of the file pi forked to (the branch test). */
let forkId: string;

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	return (content as { type: string; text?: string }[]).map((b) => b.text ?? "").join("");
}

async function until<T>(what: string, f: () => T | undefined | null | false | Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
	const end = Date.now() + timeoutMs;
	for (;;) {
		const v = await f();
		if (v) return v;
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 25));
	}
}

beforeAll(async () => {
	pi = await startRealPi({ args: ["-e", EXTENSION], answer: "First answer." });
	await pi.prompt("first question");
	pi.server.setScenario({ kind: "stream", chunks: ["Second answer."] });
	await pi.prompt("second question");
	const { entries } = await pi.entries();
	const msgs = entries.filter((e) => e.type === "message" && ["user", "assistant"].includes((e.message as { role: string }).role));
	ids = { u1: msgs[0]!.id, a1: msgs[1]!.id, u2: msgs[2]!.id, a2: msgs[3]!.id };
	file = await pi.sessionFile();
	services = new ArborServices({
		settingsDir: path.join(pi.home, ".arbor"),
		piAgentDir: pi.agentDir,
		watch: false,
		liveClient: { name: "arbor-test", version: "0" },
	});
	services.onEvent((e) => events.push(e));
	const summary = await services.openSession({ path: file });
	sessionId = summary.sessionId;
	expect(summary.live).toMatchObject({ agent: "pi", agentVersion: "1.6.0", leafId: ids.a2, status: "idle", otherPids: [] });
}, 240_000);

afterAll(async () => {
	services?.dispose();
	await pi?.stop();
});

describe("a live pi with Arbor's extension", () => {
	it("navigate moves the running pi's leaf, and pi's next prompt sends the model exactly Arbor's context at that leaf", async () => {
		const r = await services.navigate({ sessionId, targetId: ids.a1 });
		expect(r).toMatchObject({ via: "pi", cancelled: false, newLeafId: ids.a1, oldLeafId: ids.a2 });
		expect((await pi.entries()).leafId).toBe(ids.a1);
		const state = await services.getLiveState({ sessionId });
		expect(state?.leafId).toBe(ids.a1);

		const context = await services.getContext({ sessionId, leafId: ids.a1 });
		pi.server.setScenario({ kind: "stream", chunks: ["Third answer."] });
		await pi.prompt("third question");
		const sent = pi.lastModelMessages().filter((m) => m.role !== "system");
		const expected = [
			...context.messages
				.filter((m) => m.message.role !== "system")
				.map((m) => ({ role: m.message.role, text: textOf((m.message as { content: unknown }).content) })),
			{ role: "user", text: "third question" },
		];
		expect(sent.map((m) => ({ role: m.role, text: textOf(m.content) }))).toEqual(expected);
	}, 120_000);

	it("one leaf: after pi's own turn from the leaf Arbor moved it to, Arbor's leaf is pi's (skeleton, navigate preview, leaf_changed)", async () => {
		// The test above moved pi back to a1, then pi ran a turn of its own there (a new branch).
		const piLeaf = (await pi.entries()).leafId!;
		expect(piLeaf).not.toBe(ids.a2);
		const arborLeaf = async () => {
			const sk = await services.getSkeleton({ sessionId });
			return sk.leaf >= 0 ? sk.ids[sk.leaf] : null;
		};
		await until("Arbor's leaf on pi's", async () => (await arborLeaf()) === piLeaf);
		expect(events.some((e) => e.type === "leaf_changed" && e.leafId === piLeaf)).toBe(true);
		// Going back to a2 leaves pi's new branch (its user message and answer), not nothing.
		const preview = await services.previewNavigation({ sessionId, targetId: ids.a2 });
		expect(preview.oldLeafId).toBe(piLeaf);
		expect(preview.entriesToSummarize).toContain(piLeaf);
	}, 60_000);

	it("label goes through pi (pi's own entries hold the label)", async () => {
		const r = await services.setLabel({ sessionId, entryId: ids.u1, label: "start here" });
		expect(r).toMatchObject({ via: "pi" });
		const { entries } = await pi.entries();
		expect(entries.find((e) => e.type === "label" && e.targetId === ids.u1)).toMatchObject({ label: "start here" });
	}, 60_000);

	it("send runs a turn in pi: the text reaches the model as the last user message, the answer streams and lands in the file", async () => {
		pi.server.setScenario({ kind: "stream", chunks: ["Streamed ", "reply ", "here."], delayMs: 150 });
		const before = events.length;
		const r = await services.send({ sessionId, text: "please answer", wait: "end" });
		expect(r).toMatchObject({ via: "pi", outcome: "ended", stopReason: "stop" });
		const last = pi.lastModelMessages().at(-1)!;
		expect(last.role).toBe("user");
		expect(textOf(last.content)).toBe("please answer");
		const streamed = events.slice(before).filter((e): e is Extract<ArborEvent, { type: "live_stream" }> => e.type === "live_stream");
		expect(streamed[0]?.phase).toBe("start");
		expect(streamed.at(-1)).toMatchObject({ phase: "end" });
		expect(textOf(streamed.at(-1)!.message.content)).toBe("Streamed reply here.");
		const lines = fs
			.readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l) as { id?: string; message?: { role: string; content: unknown } });
		expect(lines.find((l) => l.id === r.leafId)?.message?.content).toEqual([expect.objectContaining({ type: "text", text: "Streamed reply here." })]);
		expect((await services.getLiveState({ sessionId }))?.leafId).toBe(r.leafId);
		// The tab's badge goes back to idle once pi's run has settled.
		await until(
			"idle again",
			() => (events.filter((e) => e.type === "live_state").at(-1) as Extract<ArborEvent, { type: "live_state" }>).live?.status === "idle",
		);
	}, 60_000);

	it("while pi streams, navigate answers busy; abort stops the turn mid-stream", async () => {
		pi.server.setScenario({ kind: "hang" });
		const started = await services.send({ sessionId, text: "a long one", wait: "start" });
		expect(started.outcome).toBe("started");
		await expect(services.navigate({ sessionId, targetId: ids.a1 })).rejects.toMatchObject({ code: "busy", message: expect.stringMatching(/pi is busy/) });
		const aborted = await services.abort({ sessionId });
		expect(aborted).toMatchObject({ via: "pi", wasStreaming: true });
		await until("pi idle", () => events.some((e) => e.type === "live_state" && e.live?.status === "idle"));
		const { entries } = await pi.entries();
		expect(entries.at(-1)).toMatchObject({ type: "message", message: { role: "assistant", stopReason: "aborted" } });
	}, 60_000);

	it("navigate with summarize runs pi's own summarizer: a branch_summary written by pi becomes its leaf", async () => {
		pi.server.setScenario({ kind: "stream", chunks: ["## Goal\nSummary by pi."] });
		const r = await services.navigate({ sessionId, targetId: ids.a1, summarize: true, waitForIdle: true });
		expect(r).toMatchObject({ via: "pi", cancelled: false });
		expect(r.summaryEntryId).toBeTruthy();
		const { entries, leafId } = await pi.entries();
		expect(leafId).toBe(r.summaryEntryId);
		expect(entries.find((e) => e.id === r.summaryEntryId)).toMatchObject({ type: "branch_summary", parentId: ids.a1 });
		const summaryRequest = pi.modelRequests().at(-1)!;
		expect(JSON.stringify(summaryRequest.body)).toContain("please answer");
	}, 60_000);

	it("Stop during pi's summary (Escape) aborts it: navigate answers cancelled and pi's leaf stays", async () => {
		const before = await pi.entries();
		pi.server.setScenario({ kind: "hang" });
		const asked = pi.modelRequests().length;
		const nav = services.navigate({ sessionId, targetId: ids.u2, summarize: true });
		await until("the summary request reached the model", () => pi.modelRequests().length > asked);
		expect((await services.getLiveState({ sessionId }))?.status).toBe("streaming");
		const stopped = await services.abort({ sessionId });
		expect(stopped.via).toBe("pi");
		expect(await nav).toMatchObject({ via: "pi", cancelled: true });
		const after = await pi.entries();
		expect(after.leafId).toBe(before.leafId);
		expect(after.entries.length).toBe(before.entries.length);
		expect((await services.getLiveState({ sessionId }))?.status).toBe("idle");
	}, 60_000);

	it("refuses a client with the wrong secret and names the requests it knows for an unknown one", async () => {
		const [reg] = registrationsFor(path.join(pi.home, ".arbor", "live"), file);
		expect(reg).toBeDefined();
		await expect(LiveConnection.connect(reg!, { name: "intruder", version: "0" }, "0".repeat(64))).rejects.toMatchObject({ code: "bad_secret" });
		const conn = await LiveConnection.connect(reg!, { name: "arbor-test", version: "0" });
		try {
			// A request this Arbor's contract does not know (a newer Arbor's, or a hostile client's).
			const err = await conn.request({ name: "rm-rf" } as unknown as LiveRequestOf<"state">).catch((e: unknown) => e);
			expect(err).toBeInstanceOf(LiveError);
			expect(err).toMatchObject({ code: "unknown_request", message: expect.stringContaining("navigate") });
		} finally {
			conn.close();
		}
	}, 30_000);

	it("a stopped pi (SIGSTOP) does not hang Arbor: the handshake and each request end with 'pi N did not answer'; after SIGCONT it answers again", async () => {
		const [reg] = registrationsFor(path.join(pi.home, ".arbor", "live"), file);
		const conn = await LiveConnection.connect(reg!, { name: "arbor-test", version: "0" }, { answerMs: 1500 });
		const leaf = (await pi.entries()).leafId!;
		process.kill(reg!.pid, "SIGSTOP");
		try {
			await expect(conn.request({ name: "state" })).rejects.toMatchObject({
				code: "timeout",
				message: expect.stringMatching(`^pi ${reg!.pid} did not answer state within`),
			});
			// A request that may run long (the user asked to wait for pi) waits only while pi answers its pings.
			await expect(conn.request({ name: "navigate", targetId: leaf, waitForIdle: true })).rejects.toMatchObject({
				code: "timeout",
				message: expect.stringMatching(`^pi ${reg!.pid} did not answer navigate \\(nor a check that it is alive\\)`),
			});
			await expect(LiveConnection.connect(reg!, { name: "arbor-test", version: "0" }, { answerMs: 1500 })).rejects.toMatchObject({
				code: "timeout",
				message: expect.stringMatching(`^pi ${reg!.pid} did not answer within`),
			});
		} finally {
			process.kill(reg!.pid, "SIGCONT");
		}
		expect(await conn.request({ name: "state" })).toMatchObject({ pid: reg!.pid, leafId: leaf });
		conn.close();
	}, 60_000);

	it("branch goes through pi's fork: pi moves to the new file, which Arbor opens live", async () => {
		const r = await services.branchToFile({ sessionId, entryId: ids.u2 });
		expect(r).toMatchObject({ via: "pi", cancelled: false, editorText: "second question" });
		expect(r.path).not.toBe(file);
		expect(await pi.sessionFile()).toBe(r.path);
		expect(r.session?.live).toMatchObject({ agent: "pi", sessionFile: r.path });
		// The old tab is in file mode now: pi left it.
		await until("old session in file mode", () => events.some((e) => e.type === "live_state" && e.sessionId === sessionId && e.live === null));
		expect(await services.getLiveState({ sessionId })).toBeNull();
		await expect(services.send({ sessionId, text: "x" })).rejects.toMatchObject({ code: "no_live_agent" });
		forkId = r.session!.sessionId;
	}, 60_000);

	it("switchSession moves the running pi to another session file (pi's own get_state names it); the tab it left is in file mode", async () => {
		const missing = path.join(pi.home, "no-such-session.jsonl");
		await expect(services.switchSession({ sessionId: forkId, path: missing })).rejects.toMatchObject({ code: "bad_request" });
		const r = await services.switchSession({ sessionId: forkId, path: file });
		expect(r).toEqual({ via: "pi", pid: expect.any(Number), cancelled: false, sessionFile: file });
		expect(await pi.sessionFile()).toBe(file);
		await until("the fork's tab in file mode", () => events.some((e) => e.type === "live_state" && e.sessionId === forkId && e.live === null));
		// No pi holds the fork now: nothing runs there that could switch.
		await expect(services.switchSession({ sessionId: forkId, path: file })).rejects.toMatchObject({ code: "no_live_agent" });
	}, 60_000);
});
