// The context panel's view (getContext) on a pi 1.6 file: pi 1.6.0's own buildSessionContext messages, each
// paired with its entry, edited messages naming the context_edit, the compaction's checkpoint + summary first.
import * as fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Pi16SessionManager } from "../../session/test/helpers/pi16";
import { header, tempDir } from "./helpers/entries";
import { makeServices, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

const T = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();

describe("getContext on pi 1.6 entries", () => {
	it("context edits and the systemMessage checkpoint, as pi 1.6.0 builds them, with their source entries", async () => {
		t = makeServices();
		const file = `${tempDir()}/pi16.jsonl`;
		const lines = [
			header(),
			{ type: "message", id: "sys", parentId: null, timestamp: T(1), message: { role: "system", content: "prompt", timestamp: 0 } },
			{ type: "message", id: "u1", parentId: "sys", timestamp: T(2), message: { role: "user", content: "one", timestamp: 2 } },
			{
				type: "message",
				id: "a1",
				parentId: "u1",
				timestamp: T(3),
				message: { role: "assistant", content: [{ type: "text", text: "reply" }], provider: "p", model: "m", stopReason: "stop", timestamp: 3 },
			},
			{
				type: "compaction",
				id: "c",
				parentId: "a1",
				timestamp: T(4),
				summary: "S",
				firstKeptEntryId: "sys",
				tokensBefore: 10,
				systemMessage: { role: "system", content: "prompt", timestamp: 4 },
			},
			{ type: "message", id: "u2", parentId: "c", timestamp: T(5), message: { role: "user", content: "two", timestamp: 5 } },
			{ type: "context_edit", id: "e1", parentId: "u2", timestamp: T(6), targetId: "u1", replacement: { content: "one (edited)" } },
			{ type: "context_edit", id: "e2", parentId: "e1", timestamp: T(7), targetId: "a1", replacement: null },
			{ type: "usage", id: "w", parentId: "e2", timestamp: T(8), kind: "cache_warm", provider: "p", model: "m", usage: { totalTokens: 1 } },
		];
		fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
		const s = await t.services.openSession({ path: file });
		const view = await t.services.getContext({ sessionId: s.sessionId, leafId: "w" });
		const pi = Pi16SessionManager.open(file);
		expect(JSON.stringify(view.messages.map((v) => v.message))).toBe(JSON.stringify(pi.buildSessionContext().messages));
		expect(view.messages.map((v) => [v.entryId, v.message.role, v.contextEditId ?? null])).toEqual([
			["c", "system", null],
			["c", "compactionSummary", null],
			["u1", "user", "e1"],
			["u2", "user", null],
		]);
		expect(view.compactionId).toBe("c");
	});
});
