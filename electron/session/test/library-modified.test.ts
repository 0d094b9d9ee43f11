// The library dates and orders sessions by pi 1.6's `modified` (the last user or assistant message, else the
// header's time, else the mtime), checked against pi's own session list on the same folder.
import { copyFileSync, mkdtempSync, readdirSync, utimesSync, writeFileSync, appendFileSync, closeSync, openSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { listSessions } from "../library";
import { lastActivityTime } from "../session-activity";
import { Pi16SessionManager } from "./helpers/pi16";

const FIXTURES = join(import.meta.dirname, "../../../../shared/fixtures/sessions");
const tmp = () => mkdtempSync(join(tmpdir(), "arbor-modified-"));
const at = (iso: string) => new Date(iso).getTime();

function session(id: string, when: string, extra: string[] = [], msgTimestamp?: number): string[] {
	const user = { role: "user", content: `hello from ${id}` };
	const stamp = msgTimestamp !== undefined ? { timestamp: msgTimestamp } : {};
	return [
		JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work/app" }),
		JSON.stringify({ type: "message", id: `${id}-u`, parentId: null, timestamp: when, message: user }),
		JSON.stringify({
			type: "message",
			id: `${id}-a`,
			parentId: `${id}-u`,
			timestamp: when,
			message: { role: "assistant", content: [{ type: "text", text: "ok" }], stopReason: "stop", ...stamp },
		}),
		...extra,
	];
}
const write = (file: string, lines: string[]) => (writeFileSync(file, `${lines.join("\n")}\n`), file);

/** pi 1.6's own list of a folder: path → modified. */
async function piModified(dir: string): Promise<{ order: string[]; modified: Map<string, number> }> {
	const list = (await Pi16SessionManager.listAll(dir)) as { path: string; modified: Date }[];
	return { order: list.map((s) => s.path), modified: new Map(list.map((s) => [s.path, s.modified.getTime()])) };
}

describe("library dates by the last conversation (pi's modified)", () => {
	it("a label, a save-position line, a usage or session_info line, or reset mtimes do not move a session up", async () => {
		const dir = tmp();
		const older = write(join(dir, "older.jsonl"), session("older", "2026-02-01T10:00:00.000Z"));
		const newer = write(join(dir, "newer.jsonl"), session("newer", "2026-03-01T10:00:00.000Z"));
		// Everything Arbor (or pi) appends that is not a conversation turn, written to the older session now.
		const tail = [
			{ type: "label", id: "l1", parentId: "older-a", timestamp: "2026-06-01T00:00:00.000Z", targetId: "older-u", label: "keep" },
			{ type: "custom", id: "p1", parentId: "older-u", timestamp: "2026-06-01T00:00:01.000Z", customType: "arbor.position", data: {} },
			{
				type: "usage",
				id: "w1",
				parentId: "p1",
				timestamp: "2026-06-01T00:00:02.000Z",
				kind: "cache_warm",
				provider: "p",
				model: "m",
				usage: { totalTokens: 1 },
			},
			{ type: "session_info", id: "n1", parentId: "w1", timestamp: "2026-06-01T00:00:03.000Z", name: "renamed" },
		];
		appendFileSync(older, `${tail.map((e) => JSON.stringify(e)).join("\n")}\n`);
		const now = Date.now() / 1000;
		utimesSync(older, now, now);
		utimesSync(newer, now - 3600, now - 3600);

		const items = listSessions([dir]);
		expect(items.map((i) => i.sessionId)).toEqual(["newer", "older"]);
		expect(items.find((i) => i.sessionId === "older")?.modifiedMs).toBe(at("2026-02-01T10:00:00.000Z"));
		const pi = await piModified(dir);
		expect(items.map((i) => i.path)).toEqual(pi.order);
		for (const i of items) expect(i.modifiedMs).toBe(pi.modified.get(i.path));

		// A copy that gives every file the same mtime (cp without -p, a sync tool) keeps the order.
		for (const f of [older, newer]) utimesSync(f, now, now);
		expect(listSessions([dir]).map((i) => i.sessionId)).toEqual(["newer", "older"]);
	});

	it("follows pi's rule on the details: the message's own timestamp first, then the header, then the mtime", async () => {
		const dir = tmp();
		// message.timestamp (ms) wins over the entry's ISO time.
		write(join(dir, "msgtime.jsonl"), session("msgtime", "2026-01-05T00:00:00.000Z", [], at("2026-04-01T00:00:00.000Z")));
		// No conversation: the header's time.
		write(join(dir, "empty.jsonl"), [JSON.stringify({ type: "session", version: 3, id: "empty", timestamp: "2026-01-02T00:00:00.000Z", cwd: "/w" })]);
		// No conversation and no usable header time: the mtime.
		const bare = write(join(dir, "bare.jsonl"), [JSON.stringify({ type: "session", version: 3, id: "bare", timestamp: "not a date", cwd: "/w" })]);
		utimesSync(bare, at("2026-01-03T00:00:00.000Z") / 1000, at("2026-01-03T00:00:00.000Z") / 1000);
		// A custom message or a tool result is not a conversation turn.
		write(
			join(dir, "custom.jsonl"),
			session("custom", "2026-01-04T00:00:00.000Z", [
				JSON.stringify({
					type: "custom_message",
					id: "c1",
					parentId: "custom-a",
					timestamp: "2026-09-01T00:00:00.000Z",
					customType: "x",
					content: "hi",
					display: true,
				}),
				JSON.stringify({
					type: "message",
					id: "t1",
					parentId: "c1",
					timestamp: "2026-09-01T00:00:00.000Z",
					message: {
						role: "toolResult",
						toolCallId: "x",
						toolName: "read",
						// Tool output that quotes a user message is not one.
						content: [{ type: "text", text: '{"role":"user","content":"quoted","timestamp":1}' }],
						isError: false,
						timestamp: at("2026-09-01T00:00:00.000Z"),
					},
				}),
			]),
		);
		const items = listSessions([dir]);
		const pi = await piModified(dir);
		expect(items.map((i) => i.sessionId)).toEqual(["msgtime", "custom", "bare", "empty"]);
		expect(items.map((i) => i.path)).toEqual(pi.order);
		for (const i of items) expect(i.modifiedMs).toBe(pi.modified.get(i.path));
	});

	it("finds the last message behind a large tail (reads back chunk by chunk across line boundaries)", () => {
		const dir = tmp();
		const big = "x".repeat(300_000);
		const lines = session("big", "2026-05-01T00:00:00.000Z", [
			JSON.stringify({
				type: "message",
				id: "t1",
				parentId: "big-a",
				timestamp: "2026-05-02T00:00:00.000Z",
				message: { role: "toolResult", toolCallId: "x", toolName: "read", content: [{ type: "text", text: big }], isError: false },
			}),
			JSON.stringify({ type: "label", id: "l1", parentId: "t1", timestamp: "2026-07-01T00:00:00.000Z", targetId: "big-u", label: big }),
		]);
		const file = write(join(dir, "big.jsonl"), lines);
		const fd = openSync(file, "r");
		try {
			expect(lastActivityTime(fd, lines.join("\n").length + 1)).toBe(at("2026-05-01T00:00:00.000Z"));
		} finally {
			closeSync(fd);
		}
		expect(listSessions([dir])[0].modifiedMs).toBe(at("2026-05-01T00:00:00.000Z"));
	});

	it("agrees with pi 1.6's session list on every fixture", async () => {
		const dir = tmp();
		for (const f of readdirSync(FIXTURES).filter((f) => f.endsWith(".jsonl"))) copyFileSync(join(FIXTURES, f), join(dir, f));
		const pi = await piModified(dir);
		const items = listSessions([dir]).filter((i) => pi.modified.has(i.path));
		expect(items.length).toBe(pi.modified.size);
		expect(items.length).toBeGreaterThan(3);
		for (const i of items) expect([i.path, i.modifiedMs]).toEqual([i.path, pi.modified.get(i.path)]);
		expect(items.map((i) => i.path)).toEqual(pi.order);
	});
});
