import * as fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { branchySession, tempDir, writeSession } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

async function open(): Promise<{ sessionId: string; file: string }> {
	t = makeServices();
	const file = writeSession(tempDir(), branchySession());
	const s = await t.services.openSession({ path: file });
	t.events.length = 0;
	return { sessionId: s.sessionId, file };
}

describe("labels, saved position, composer", () => {
	it("writes a label entry, reports the new entry and labels_changed; null clears it", async () => {
		const { sessionId, file } = await open();
		await t.services.setLabel({ sessionId, entryId: "u2", label: "  tokenizer  " });
		expect(readLines(file).at(-1)).toMatchObject({ type: "label", targetId: "u2", label: "tokenizer" });
		expect((await t.services.getSkeleton({ sessionId })).labels.map((l) => l.label)).toEqual(["tokenizer"]);
		await t.services.setLabel({ sessionId, entryId: "u2", label: null });
		expect(readLines(file).at(-1)).not.toHaveProperty("label");
		expect(t.of("labels_changed")).toHaveLength(2);
		expect(t.of("session_appended").map((e) => e.delta.start)).toEqual([8, 9]);
	});

	it("refuses (conflict, nothing written) to label an entry that vanished because the file was replaced on disk", async () => {
		const { sessionId, file } = await open();
		const replacement = `${JSON.stringify({ type: "session", version: 3, id: "other", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" })}\n`;
		const tmp = `${file}.tmp`;
		fs.writeFileSync(tmp, replacement);
		fs.renameSync(tmp, file);
		await expect(t.services.setLabel({ sessionId, entryId: "u2", label: "gone" })).rejects.toMatchObject({ code: "conflict" });
		expect(fs.readFileSync(file, "utf8")).toBe(replacement);
	});

	it("saves the in-app position as an arbor.position custom entry under the leaf, where pi resumes", async () => {
		const { sessionId, file } = await open();
		await t.services.navigate({ sessionId, targetId: "a4" });
		const { entryId } = await t.services.savePosition({ sessionId });
		const last = readLines(file).at(-1);
		expect(last).toMatchObject({ type: "custom", customType: "arbor.position", id: entryId, parentId: "a4", data: { leafId: "a4" } });
		expect(t.of("leaf_changed").at(-1)).toMatchObject({ leafId: entryId, resumeLeafId: entryId });
	});

	it("appends a user message at the leaf, starting a new branch", async () => {
		const { sessionId, file } = await open();
		await t.services.navigate({ sessionId, targetId: "a1" });
		const { entryId } = await t.services.appendUserMessage({ sessionId, text: "third way" });
		const last = readLines(file).at(-1) as { parentId: string; message: { role: string; content: unknown } };
		expect(last).toMatchObject({ id: entryId, parentId: "a1", message: { role: "user", content: [{ type: "text", text: "third way" }] } });
		expect(t.of("session_appended").at(-1)?.delta.ids).toEqual([entryId]);
	});

	it("refuses to write to a legacy file until it is upgraded, then keeps a backup", async () => {
		t = makeServices();
		const dir = tempDir();
		const file = `${dir}/v1.jsonl`;
		fs.writeFileSync(
			file,
			[
				{ type: "session", id: "old", timestamp: "2025-11-01T00:00:00Z", cwd: "/p" },
				{ type: "message", timestamp: "2025-11-01T00:00:01Z", message: { role: "user", content: "hi" } },
			]
				.map((o) => JSON.stringify(o))
				.join("\n") + "\n",
		);
		const s = await t.services.openSession({ path: file });
		expect(s.needsUpgrade).toBe(true);
		await expect(t.services.appendUserMessage({ sessionId: s.sessionId, text: "x" })).rejects.toMatchObject({ code: "legacy_needs_upgrade" });
		const { backupPath } = await t.services.upgradeLegacy({ sessionId: s.sessionId });
		expect(fs.existsSync(backupPath)).toBe(true);
		expect(t.of("session_reloaded").at(-1)?.session.needsUpgrade).toBe(false);
		await t.services.appendUserMessage({ sessionId: s.sessionId, text: "x" });
		expect(readLines(file)[0]?.version).toBe(3);
	});
});

describe("leaf history", () => {
	it("goes back and forward over visited leaf positions", async () => {
		const { sessionId } = await open();
		await t.services.navigate({ sessionId, targetId: "a4" });
		await t.services.navigate({ sessionId, targetId: "a1" });
		expect(await t.services.leafHistory({ sessionId, direction: "back" })).toEqual({ leafId: "a4", canBack: true, canForward: true });
		expect(await t.services.leafHistory({ sessionId, direction: "back" })).toEqual({ leafId: "a3", canBack: false, canForward: true });
		expect(await t.services.leafHistory({ sessionId, direction: "back" })).toEqual({ leafId: "a3", canBack: false, canForward: true });
		expect(await t.services.leafHistory({ sessionId, direction: "forward" })).toEqual({ leafId: "a4", canBack: true, canForward: true });
		expect(t.of("leaf_changed").at(-1)).toMatchObject({ leafId: "a4" });
	});
});

describe("settings and sessions", () => {
	it("records opened files as recent and lists open sessions as the initial ones", async () => {
		const { file, sessionId } = await open();
		expect((await t.services.getSettings({})).recentFiles).toEqual([file]);
		expect((await t.services.getInitialSessions({})).map((s) => s.sessionId)).toEqual([sessionId]);
		expect((await t.services.openSession({ path: file })).sessionId).toBe(sessionId);
	});

	it("reports a missing file as not_found and closes sessions", async () => {
		const { sessionId } = await open();
		await expect(t.services.openSession({ path: "/nonexistent/x.jsonl" })).rejects.toMatchObject({ code: "not_found" });
		await t.services.closeSession({ sessionId });
		expect(t.of("session_closed")).toEqual([{ type: "session_closed", sessionId }]);
		await expect(t.services.getSkeleton({ sessionId })).rejects.toMatchObject({ code: "not_found" });
	});
});

describe("session library", () => {
	it("lists session files of the given folders with their first user message", async () => {
		t = makeServices();
		const dir = tempDir();
		writeSession(dir, branchySession(), "one.jsonl");
		const items = await t.services.listSessions({ dirs: [dir] });
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({ source: "dir", firstUserMessage: "Build the parser", sessionId: "sess-1" });
	});
});

describe("session title", () => {
	it("is the latest session_info name (pi's display name)", async () => {
		t = makeServices();
		const file = writeSession(tempDir(), [
			...branchySession(),
			{ type: "session_info", id: "i1", parentId: "a3", timestamp: "2026-01-02T00:00:00Z", name: "First name" },
			{ type: "session_info", id: "i2", parentId: "i1", timestamp: "2026-01-02T00:00:01Z", name: " Parser work " },
		]);
		expect((await t.services.openSession({ path: file })).title).toBe("Parser work");
	});
});
