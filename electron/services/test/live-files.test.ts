import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assistant, branchySession, header, tempDir, user, writeSession } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";
import { SessionManager } from "../../session";
import { applySkeletonDelta, type Skeleton } from "../../../shared/skeleton";
import type { ArborEvent } from "../../../shared/api";

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
		await expect.poll(() => t.of("session_appended").flatMap((e) => e.delta.ids), { timeout: 20_000 }).toEqual(["n1", "n2"]);
		const d = t.of("session_appended")[0]?.delta;
		expect(d?.start).toBe(8);
		expect(t.of("leaf_changed").at(-1)).toMatchObject({ sessionId, resumeLeafId: "n2" });
		const sk = await t.services.getSkeleton({ sessionId });
		expect(sk.ids.slice(-2)).toEqual(["n1", "n2"]);
	});

	it("a partial line from the other writer is not indexed until it is complete", async () => {
		// Catch-ups driven by hand (catchUpNow, what the watcher calls): the half-written state is seen for sure.
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		t.events.length = 0;
		const line = JSON.stringify(user("p1", "a3", "written in two parts"));
		const cut = Math.floor(line.length / 2);
		otherProcess(`require("fs").appendFileSync(process.argv[1], ${JSON.stringify(line.slice(0, cut))})`, file);
		t.services.catchUpNow(sessionId);
		expect(t.of("session_appended")).toEqual([]);
		expect((await t.services.getSkeleton({ sessionId })).count).toBe(8);
		otherProcess(`require("fs").appendFileSync(process.argv[1], ${JSON.stringify(`${line.slice(cut)}\n`)})`, file);
		t.services.catchUpNow(sessionId);
		expect(t.of("session_appended").flatMap((e) => e.delta.ids)).toEqual(["p1"]);
		expect(t.of("leaf_changed").at(-1)).toMatchObject({ leafId: "p1", resumeLeafId: "p1" });
		expect(t.of("session_reloaded")).toEqual([]);
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
		await expect.poll(() => t.of("session_reloaded").length, { timeout: 20_000 }).toBeGreaterThan(0);
		expect(t.of("session_reloaded")[0]).toMatchObject({ sessionId, session: { header: { id: "other" } } });
		expect((await t.services.getSkeleton({ sessionId })).ids).toEqual(["r1"]);
	});

	it("a truncated file is reloaded", async () => {
		const { sessionId, file } = await openWatched();
		const keep =
			readLines(file)
				.slice(0, 3)
				.map((o) => JSON.stringify(o))
				.join("\n") + "\n";
		otherProcess(`require("fs").writeFileSync(process.argv[1], ${JSON.stringify(keep)})`, file);
		await expect.poll(() => t.of("session_reloaded").length, { timeout: 20_000 }).toBeGreaterThan(0);
		expect((await t.services.getSkeleton({ sessionId })).count).toBe(2);
	});

	it("an appended entry that is the missing parent of an earlier one: the client refetches and its copy equals a fresh open", async () => {
		t = makeServices();
		const file = writeSession(tempDir(), branchySession());
		const opened = await t.services.openSession({ path: file });
		const sessionId = opened.sessionId;
		// The client's copy, kept the way the renderer keeps it (renderer/store/events.ts): deltas are applied,
		// a reload refetches, leaf_changed moves the leaf.
		let copy: Skeleton = await t.services.getSkeleton({ sessionId });
		const apply = async (e: ArborEvent): Promise<void> => {
			if (e.type === "session_appended" && e.delta.start === copy.count) copy = applySkeletonDelta(copy, e.delta);
			else if (e.type === "session_appended" || e.type === "session_reloaded" || e.type === "labels_changed")
				copy = await t.services.getSkeleton({ sessionId });
			else if (e.type === "leaf_changed") copy = { ...copy, leaf: copy.ids.indexOf(e.leafId ?? ""), resumeLeaf: copy.ids.indexOf(e.resumeLeafId ?? "") };
		};
		let reloads = 0;
		const drain = async (): Promise<void> => {
			for (const e of t.events.splice(0)) {
				if (e.type === "session_reloaded") reloads++;
				await apply(e);
			}
		};
		t.events.length = 0;
		appendLines(file, [user("late", "x1", "written before its parent")]);
		// Catch-ups by hand (deterministic: no watcher, no timing): one by the watcher's path, one inside a write.
		t.services.catchUpNow(sessionId);
		await drain();
		appendLines(file, [assistant("x1", "a3", "the parent, written late")]);
		await t.services.appendUserMessage({ sessionId, text: "mine" });
		await drain();
		// The earlier entry changed under the client: it was told to refetch, not handed a delta alone.
		expect(reloads).toBe(1);
		expect(t.of("error")).toEqual([]);
		const fresh = SessionManager.open(file).getSkeleton();
		const shape = (k: Skeleton) => ({ ids: k.ids, parent: Array.from(k.parent), flags: Array.from(k.flags), labels: k.labels, resumeLeaf: k.resumeLeaf });
		expect(shape(copy)).toEqual(shape(fresh));
		expect(copy.parent[copy.ids.indexOf("late")]).toBe(copy.ids.indexOf("x1"));
	});
});
