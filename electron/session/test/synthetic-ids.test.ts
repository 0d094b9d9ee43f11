// The ids Arbor gives entries that have none in the file ("~arbor:no-id:…") live only in memory: no writer may put
// one into a file. Where pi 1.6 writes something in the same situation (a summary's `fromId` when the leaf is an
// id-less last line), Arbor writes what pi's own SessionManager writes.
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../index";
import { cleanupTempDirs, copyToTemp, jsonl, sha256, writeTempFile } from "./helpers/files";
import { Pi16SessionManager } from "./helpers/pi16";

afterAll(cleanupTempDirs);

const header = { type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp" };
const user = { type: "message", id: "u1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } };
const answer = {
	type: "message",
	id: "a1",
	parentId: "u1",
	timestamp: "2026-01-01T00:00:02.000Z",
	message: { role: "assistant", content: [{ type: "text", text: "hello" }], provider: "p", model: "m", stopReason: "stop", timestamp: 2 },
};

/** Files whose last line is an entry without an id, as the review found them. */
const ID_LESS_LAST_LINES: Record<string, unknown> = {
	"a leaf record": { type: "leaf", targetId: "a1", timestamp: "2026-01-01T00:00:03.000Z" },
	"an id-less custom entry": { type: "custom", customType: "x", parentId: "a1", timestamp: "2026-01-01T00:00:03.000Z" },
};

function lastRecord(file: string): Record<string, unknown> {
	const lines = readFileSync(file, "utf8").trimEnd().split("\n");
	return JSON.parse(lines[lines.length - 1]) as Record<string, unknown>;
}

describe("in-memory ids are never written", () => {
	for (const [name, last] of Object.entries(ID_LESS_LAST_LINES)) {
		it(`a summary from ${name} writes pi 1.6's fromId, not Arbor's in-memory id`, () => {
			const file = writeTempFile(jsonl([header, user, answer, last]));
			const piCopy = copyToTemp(file, "pi16");
			const arbor = SessionManager.open(file);
			expect(arbor.getLeafId()).toMatch(/^~arbor:no-id:/);
			arbor.branchWithSummary("u1", "what was left");
			const pi = Pi16SessionManager.open(piCopy);
			pi.branchWithSummary("u1", "what was left");
			const written = lastRecord(file);
			expect(written.fromId).toBe(lastRecord(piCopy).fromId);
			expect(readFileSync(file, "utf8")).not.toContain("~arbor:");
		});
	}

	it("labelling an entry that has no id in the file is refused and writes nothing", () => {
		const file = writeTempFile(jsonl([header, user, answer, ID_LESS_LAST_LINES["an id-less custom entry"]]));
		const before = sha256(file);
		const arbor = SessionManager.open(file);
		const synthetic = arbor.getLeafId() as string;
		expect(() => arbor.appendLabelChange(synthetic, "keep")).toThrow(/no id in the file/);
		// Typed, so the services and the CLI answer no_entry_id instead of an internal error (issue 39).
		expect(() => arbor.appendLabelChange(synthetic, "keep")).toThrow(expect.objectContaining({ name: "SessionFileError", code: "no_entry_id", file }));
		expect(sha256(file)).toBe(before);
	});

	it("a record naming an in-memory id in any id field is refused by the writer itself", () => {
		const file = writeTempFile(jsonl([header, user, answer, ID_LESS_LAST_LINES["a leaf record"]]));
		const before = sha256(file);
		const arbor = SessionManager.open(file);
		const synthetic = arbor.getLeafId() as string;
		expect(() => arbor.appendCompaction("summary", synthetic, 10)).toThrow(expect.objectContaining({ name: "SessionFileError", code: "no_entry_id" }));
		expect(sha256(file)).toBe(before);
	});
});
