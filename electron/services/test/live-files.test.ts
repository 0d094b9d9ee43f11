import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assistant, branchySession, header, tempDir, user, writeSession } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

/** Another process (as pi in a terminal would be) writes to the file. */
function otherProcess(script: string, file: string): void {
	execFileSync(process.execPath, ["-e", script, file], { stdio: "ignore" });
}

function appendLines(file: string, lines: unknown[]): void {
	otherProcess(`require("fs").appendFileSync(process.argv[1], ${JSON.stringify(lines.map((l) => `${JSON.stringify(l)}\n`).join(""))})`, file);
}

async function openWatched(): Promise<{ sessionId: string; file: string }> {
	t = makeServices({ watch: true, pollMs: 100 });
	const file = writeSession(tempDir(), branchySession());
	const s = await t.services.openSession({ path: file });
	t.events.length = 0;
	return { sessionId: s.sessionId, file };
}

describe("live files", () => {
	it("entries another process appends arrive as session_appended deltas", async () => {
		const { sessionId, file } = await openWatched();
		appendLines(file, [user("n1", "a3", "next question"), assistant("n2", "n1", "next answer")]);
		await expect.poll(() => t.of("session_appended").flatMap((e) => e.delta.ids), { timeout: 5_000 }).toEqual(["n1", "n2"]);
		const d = t.of("session_appended")[0]?.delta;
		expect(d?.start).toBe(8);
		expect(t.of("leaf_changed").at(-1)).toMatchObject({ sessionId, resumeLeafId: "n2" });
		const sk = await t.services.getSkeleton({ sessionId });
		expect(sk.ids.slice(-2)).toEqual(["n1", "n2"]);
	});

	it("a partial line from the other writer is not indexed until it is complete", async () => {
		const { file } = await openWatched();
		const line = JSON.stringify(user("p1", "a3", "written in two parts"));
		const cut = Math.floor(line.length / 2);
		otherProcess(`require("fs").appendFileSync(process.argv[1], ${JSON.stringify(line.slice(0, cut))})`, file);
		// Give the watcher (poll 100 ms) time to see the half-written state; correctness, not speed, is checked.
		await new Promise((r) => setTimeout(r, 400));
		expect(t.of("session_appended")).toEqual([]);
		otherProcess(`require("fs").appendFileSync(process.argv[1], ${JSON.stringify(`${line.slice(cut)}\n`)})`, file);
		await expect.poll(() => t.of("session_appended").flatMap((e) => e.delta.ids), { timeout: 5_000 }).toEqual(["p1"]);
		expect(t.of("error")).toEqual([]);
	});

	it("an Arbor append after another writer's unterminated line starts on a new line (the core's rule)", async () => {
		const { sessionId, file } = await openWatched();
		otherProcess(`require("fs").appendFileSync(process.argv[1], '{"type":"message","id":"half"')`, file);
		const { entryId } = await t.services.appendUserMessage({ sessionId, text: "mine" });
		const text = fs.readFileSync(file, "utf8");
		expect(text.endsWith("\n")).toBe(true);
		const lines = text.split("\n").filter(Boolean);
		expect(lines.at(-2)).toBe('{"type":"message","id":"half"');
		expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ id: entryId, parentId: "a3" });
	});

	it("a file replaced by another process is reloaded (session_reloaded)", async () => {
		const { sessionId, file } = await openWatched();
		const replacement = path.join(path.dirname(file), "replacement.jsonl");
		fs.writeFileSync(replacement, [header("other"), user("r1", null, "replaced")].map((o) => JSON.stringify(o)).join("\n") + "\n");
		otherProcess(`require("fs").renameSync(${JSON.stringify(replacement)}, process.argv[1])`, file);
		await expect.poll(() => t.of("session_reloaded").length, { timeout: 5_000 }).toBeGreaterThan(0);
		expect(t.of("session_reloaded")[0]).toMatchObject({ sessionId, session: { header: { id: "other" } } });
		expect((await t.services.getSkeleton({ sessionId })).ids).toEqual(["r1"]);
	});

	it("a truncated file is reloaded", async () => {
		const { sessionId, file } = await openWatched();
		const keep = readLines(file).slice(0, 3).map((o) => JSON.stringify(o)).join("\n") + "\n";
		otherProcess(`require("fs").writeFileSync(process.argv[1], ${JSON.stringify(keep)})`, file);
		await expect.poll(() => t.of("session_reloaded").length, { timeout: 5_000 }).toBeGreaterThan(0);
		expect((await t.services.getSkeleton({ sessionId })).count).toBe(2);
	});
});
