// The services' side of "an append shows its new mtime before its size" (issue 39; the core's rule and why:
// electron/session/test/append-mtime-first.test.ts): such an entry reaches the client as a session_appended delta
// (before: a session_reloaded of the whole file, and the load figure counted the entry as never arrived), and a real
// rewrite in place at the same size is still reloaded: the watcher looks again although the stat no longer changes.
import * as fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { branchySession, tempDir, user, writeSession } from "./helpers/entries";
import { makeServices, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

function stampMtimeOnly(file: string, step = 1): void {
	const st = fs.statSync(file);
	const when = new Date(st.mtimeMs + step * 1000);
	fs.utimesSync(file, when, when);
}

const lineOf = (o: unknown) => `${JSON.stringify(o)}\n`;

describe("an append seen first as a new mtime at the same size", () => {
	it("arrives as session_appended, never as a reload (each of several appends)", async () => {
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		t.events.length = 0;
		let parent = "a4";
		for (let k = 0; k < 4; k++) {
			stampMtimeOnly(file, k + 1);
			t.services.catchUpNow(sessionId);
			fs.appendFileSync(file, lineOf(user(`n${k}`, parent, `next ${k}`)));
			parent = `n${k}`;
			t.services.catchUpNow(sessionId);
		}
		expect(t.of("session_reloaded")).toEqual([]);
		expect(t.of("session_appended").flatMap((e) => e.delta.ids)).toEqual(["n0", "n1", "n2", "n3"]);
		expect((await t.services.getSkeleton({ sessionId })).ids.slice(-4)).toEqual(["n0", "n1", "n2", "n3"]);
	});

	it("a rewrite in place at the same size is reloaded by the watcher on its next look", async () => {
		t = makeServices({ watch: true, pollMs: 50 });
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		t.events.length = 0;
		const text = fs.readFileSync(file, "utf8");
		// Same byte length, other content: "Build the parser" -> "BUILD THE PARSER".
		const rewritten = text.replace("Build the parser", "BUILD THE PARSER");
		expect(rewritten).not.toBe(text);
		expect(rewritten.length).toBe(text.length);
		// Written over in place (no truncation, so no shorter file is ever seen).
		const fd = fs.openSync(file, "r+");
		fs.writeSync(fd, Buffer.from(rewritten), 0, Buffer.byteLength(rewritten), 0);
		fs.closeSync(fd);
		await expect.poll(() => t.of("session_reloaded").length, { timeout: 20_000 }).toBeGreaterThan(0);
		expect(t.of("session_reloaded")[0]).toMatchObject({ sessionId, reason: "file was rewritten in place" });
		expect(await t.services.getEntry({ sessionId, id: "u1" })).toMatchObject({ message: { content: [{ text: "BUILD THE PARSER" }] } });
	});
});
