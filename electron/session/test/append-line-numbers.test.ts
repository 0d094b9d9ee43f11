// An own append right after another writer's lines (the pre-write catch-up reads them first) is numbered by
// its real line in the file, so later warnings name the lines a reload names.
import { appendFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../index";
import { cleanupTempDirs, jsonl, writeTempFile } from "./helpers/files";
import { userMessage } from "./helpers/messages";

afterAll(cleanupTempDirs);

const header = { type: "session", version: 3, id: "lines", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
const ts = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const msg = (id: string, parentId: string | null, s: number) => ({
	type: "message",
	id,
	parentId,
	timestamp: ts(s),
	message: { role: "user", content: `text of ${id}`, timestamp: s },
});

describe("line numbers across another writer's lines", () => {
	it("warnings after an append that followed a catch-up equal a reload's", () => {
		const file = writeTempFile(jsonl([header, msg("a", null, 1), msg("b", "a", 2)]));
		const sm = SessionManager.open(file);
		// pi writes two lines (4 and 5; the header is line 1); Arbor's entry lands on line 6 after its pre-write catch-up.
		appendFileSync(file, jsonl([msg("c", "b", 3), msg("d", "c", 4)]));
		const own = sm.appendMessage(userMessage("from Arbor"));
		// pi then re-uses Arbor's id on line 7 and names a parent that is not in the file on line 8.
		appendFileSync(file, jsonl([msg(own, "d", 6), msg("e", "nowhere", 7)]));
		sm.catchUp();
		const reloaded = SessionManager.open(file);
		expect(sm.getWarnings()).toEqual(reloaded.getWarnings());
		expect(sm.getWarnings().map((w) => w.line)).toEqual([7, 8]);
		expect(sm.getWarnings()[0].message).toContain("line 6");
		sm.close();
		reloaded.close();
	});
});
