// Where a navigate request's target is checked and the file caught up (docs/services.md "navigate"):
// with nothing to wait for, once, inside the write, right before the plan; with a summary, when it starts
// and once more inside the write. The races stay handled: lines pi appended since the last catch-up are
// seen before planning, a file replaced on disk gives not_found with nothing written, and lines appended
// while the summary streams stay in place under Arbor's summary.
import * as fs from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { SessionEntry } from "../../../shared/entries";
import { SessionManager } from "../../session";
import { assistant, branchySession, header, tempDir, user, writeSession } from "./helpers/entries";
import { type LlmServer, startLlmServer } from "./helpers/llm-server";
import { makeServices, readLines, type TestServices } from "./helpers/services";

let t: TestServices;
let server: LlmServer;
beforeAll(async () => {
	server = await startLlmServer();
});
afterAll(async () => {
	await server.close();
});
afterEach(() => {
	vi.restoreAllMocks();
	t?.services.dispose();
});

const line = (e: SessionEntry) => `${JSON.stringify(e)}\n`;

async function open(withModel = false): Promise<{ sessionId: string; file: string }> {
	// watch: false — catch-ups happen only where the services make them, so each race is deterministic.
	t = makeServices();
	if (withModel)
		await t.services.setSettings({ settings: { model: { provider: "local", modelId: "test-model", baseUrl: server.baseUrl, api: "openai-completions" } } });
	const file = writeSession(tempDir(), branchySession());
	const s = await t.services.openSession({ path: file });
	t.events.length = 0;
	return { sessionId: s.sessionId, file };
}

describe("navigate with nothing to wait for", () => {
	it("catches up once, inside the write", async () => {
		const { sessionId } = await open();
		const spy = vi.spyOn(SessionManager.prototype, "catchUp");
		await t.services.navigate({ sessionId, targetId: "a4" });
		expect(spy).toHaveBeenCalledTimes(1);
		spy.mockClear();
		await t.services.navigate({ sessionId, targetId: "u2", label: "here" });
		expect(spy).toHaveBeenCalledTimes(1);
	});

	it("plans on what pi appended since the last catch-up: a target the client just got is found", async () => {
		const { sessionId, file } = await open();
		fs.appendFileSync(file, line(user("u9", "a3", "Next step")) + line(assistant("a9", "u9", "Done.")));
		const before = fs.readFileSync(file);
		const r = await t.services.navigate({ sessionId, targetId: "u9" });
		expect(r).toMatchObject({ cancelled: false, newLeafId: "a3", oldLeafId: "a9", editorText: "Next step" });
		// The new lines reached the client before the tree event, and nothing was written.
		const types = t.events.map((e) => e.type);
		expect(types.indexOf("session_appended")).toBeGreaterThanOrEqual(0);
		expect(types.indexOf("session_appended")).toBeLessThan(types.indexOf("session_tree"));
		expect(fs.readFileSync(file).equals(before)).toBe(true);
	});

	it("a file replaced on disk before the request: a target that is gone is not_found, nothing is written, the client reloads", async () => {
		const { sessionId, file } = await open();
		const replaced = `${JSON.stringify(header("sess-2"))}\n${line(user("u1", null, "Build the parser"))}${line(assistant("a1", "u1", "Sure."))}`;
		fs.writeFileSync(`${file}.new`, replaced);
		fs.renameSync(`${file}.new`, file);
		await expect(t.services.navigate({ sessionId, targetId: "a4" })).rejects.toMatchObject({ code: "not_found", message: "Entry a4 is not in this session." });
		await expect(t.services.navigate({ sessionId, targetId: "a4", label: "x" })).rejects.toMatchObject({ code: "not_found" });
		expect(fs.readFileSync(file, "utf8")).toBe(replaced);
		expect(t.of("session_reloaded").length).toBeGreaterThan(0);
		// An entry still in the new file is navigated to as usual.
		expect(await t.services.navigate({ sessionId, targetId: "u1" })).toMatchObject({ cancelled: false, newLeafId: null, editorText: "Build the parser" });
	});

	it("a label on a legacy file is refused before anything is written; a plain move is not", async () => {
		t = makeServices();
		const dir = tempDir();
		const file = `${dir}/legacy.jsonl`;
		// Version 1: no ids; the core gives them synthetic ones in memory.
		fs.writeFileSync(
			file,
			`${JSON.stringify({ type: "session", id: "old", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" })}\n${JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } })}\n${JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:02.000Z", message: { role: "assistant", content: [{ type: "text", text: "yo" }] } })}\n`,
		);
		const before = fs.readFileSync(file);
		const s = await t.services.openSession({ path: file });
		expect(s.needsUpgrade).toBe(true);
		const ids = (await t.services.getSkeleton({ sessionId: s.sessionId })).ids as string[];
		await expect(t.services.navigate({ sessionId: s.sessionId, targetId: ids[0] as string, label: "x" })).rejects.toMatchObject({
			code: "legacy_needs_upgrade",
		});
		expect(await t.services.navigate({ sessionId: s.sessionId, targetId: ids[0] as string })).toMatchObject({ cancelled: false, newLeafId: null });
		expect(fs.readFileSync(file).equals(before)).toBe(true);
	});
});

describe("navigate with a summary", () => {
	it("catches up when it starts and once more inside the write", async () => {
		server.setScenario({ kind: "stream", chunks: ["Summary."] });
		const { sessionId } = await open(true);
		const spy = vi.spyOn(SessionManager.prototype, "catchUp");
		const r = await t.services.navigate({ sessionId, targetId: "a4", summarize: true });
		expect(r.cancelled).toBe(false);
		expect(spy).toHaveBeenCalledTimes(2);
	});

	it("lines pi appends while the summary streams stay in place; the summary goes where it was planned", async () => {
		server.setScenario({ kind: "stream", chunks: Array.from({ length: 10 }, (_, i) => `w${i} `), delayMs: 10 });
		const { sessionId, file } = await open(true);
		let appended = false;
		t.services.onEvent((e) => {
			if (e.type === "summary_progress" && e.phase === "delta" && !appended) {
				appended = true;
				fs.appendFileSync(file, line(user("u9", "a3", "pi goes on")));
			}
		});
		const r = await t.services.navigate({ sessionId, targetId: "a4", summarize: true });
		expect(r.cancelled).toBe(false);
		const lines = readLines(file);
		expect(lines.map((l) => l.id ?? l.type).slice(-2)).toEqual(["u9", r.summaryEntryId]);
		expect(lines.at(-1)).toMatchObject({ type: "branch_summary", parentId: "a4" });
		const sk = await t.services.getSkeleton({ sessionId });
		expect(sk.ids.slice(-2)).toEqual(["u9", r.summaryEntryId]);
		expect(sk.ids[sk.leaf]).toBe(r.summaryEntryId);
	});

	it("a file replaced before the request: not_found, and no model is asked", async () => {
		server.setScenario({ kind: "stream", chunks: ["never"] });
		const { sessionId, file } = await open(true);
		const asked = server.requests.length;
		fs.writeFileSync(`${file}.new`, `${JSON.stringify(header("sess-2"))}\n${line(user("u1", null, "Build the parser"))}`);
		fs.renameSync(`${file}.new`, file);
		await expect(t.services.navigate({ sessionId, targetId: "a4", summarize: true })).rejects.toMatchObject({ code: "not_found" });
		expect(server.requests.length).toBe(asked);
	});
});
