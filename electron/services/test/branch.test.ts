import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { branchySession, tempDir, writeSession } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

async function open(): Promise<{ sessionId: string; file: string; dir: string }> {
	t = makeServices();
	const dir = tempDir();
	const file = writeSession(dir, branchySession());
	const s = await t.services.openSession({ path: file });
	t.events.length = 0;
	return { sessionId: s.sessionId, file, dir };
}

describe("branch to a new file (/branch)", () => {
	it("copies the path above a user message into a new file, opens it, and returns the message text", async () => {
		const { sessionId, file, dir } = await open();
		const before = fs.readFileSync(file);
		const r = await t.services.branchToFile({ sessionId, entryId: "u2" });
		expect(r.cancelled).toBe(false);
		expect(r.editorText).toBe("Fix the tokenizer");
		expect(r.path).not.toBeNull();
		expect(path.dirname(r.path as string)).toBe(dir);
		const lines = readLines(r.path as string);
		expect(lines[0]).toMatchObject({ type: "session", parentSession: file });
		expect(lines.slice(1).map((l) => l.id)).toEqual(["u1", "a1"]);
		expect(fs.readFileSync(file).equals(before)).toBe(true);
		expect(r.session?.path).toBe(r.path);
		expect(r.session?.sessionId).not.toBe(sessionId);
		expect(t.of("session_branch")).toEqual([{ type: "session_branch", sessionId, newPath: r.path, newSessionId: r.session?.sessionId }]);
		expect(t.of("session_loaded").map((e) => e.session.sessionId)).toEqual([r.session?.sessionId]);
		// The original session is still open on its own file.
		expect((await t.services.previewNavigation({ sessionId, targetId: "a4" })).oldLeafId).toBe("a3");
		const sk = await t.services.getSkeleton({ sessionId: r.session?.sessionId as string });
		expect(sk.ids).toEqual(["u1", "a1"]);
	});

	it("starts an empty session naming the previous file when the message is a root", async () => {
		const { sessionId, file, dir } = await open();
		const r = await t.services.branchToFile({ sessionId, entryId: "u1" });
		expect(r.editorText).toBe("Build the parser");
		const lines = readLines(r.path as string);
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatchObject({ type: "session", version: 3, parentSession: file, cwd: "/work/project" });
		expect(path.basename(r.path as string)).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]+\.jsonl$/);
		expect(path.dirname(r.path as string)).toBe(dir);
		expect((await t.services.getSkeleton({ sessionId: r.session?.sessionId as string })).count).toBe(0);
	});

	it("refuses anything but a user message", async () => {
		const { sessionId } = await open();
		await expect(t.services.branchToFile({ sessionId, entryId: "a1" })).rejects.toMatchObject({ code: "bad_request" });
	});

	it("returns no path for an in-memory session", async () => {
		t = makeServices();
		const s = t.services.openInMemory("/tmp");
		const { entryId } = await t.services.appendUserMessage({ sessionId: s.sessionId, text: "first" });
		await t.services.appendUserMessage({ sessionId: s.sessionId, text: "second" });
		const second = (await t.services.getSkeleton({ sessionId: s.sessionId })).ids[1] as string;
		const r = await t.services.branchToFile({ sessionId: s.sessionId, entryId: second });
		expect(r).toMatchObject({ cancelled: false, path: null, editorText: "second" });
		expect((await t.services.getSkeleton({ sessionId: r.session?.sessionId as string })).ids).toEqual([entryId]);
	});
});
