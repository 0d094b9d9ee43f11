// Broken-but-readable files (no cycles, valid header): wherever pi's reading is not a bug, Arbor must
// agree with it exactly — same entries, leaf, tree, children, branches and contexts. Cases where Arbor
// deliberately differs are in conformance-deviations.test.ts.
import { readFileSync } from "node:fs";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { afterAll, describe, expect, it } from "vitest";
import { SessionManager } from "../index";
import { cleanupTempDirs, copyToTemp, jsonl, sha256, writeTempFile } from "./helpers/files";
import { userMessage } from "./helpers/messages";
import { idOf } from "./helpers/shapes";
import { compareSessions, type SessionLike, samplePoints } from "./helpers/snapshot";

afterAll(cleanupTempDirs);

const header = { type: "session", version: 3, id: "hostile", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
const ts = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const msg = (id: string, parentId: string | null, s: number, text = id) => ({
	type: "message",
	id,
	parentId,
	timestamp: ts(s),
	message: { role: "user", content: text, timestamp: s },
});
const line = (o: unknown) => JSON.stringify(o);

function agree(file: string): string[] {
	const before = sha256(file);
	const arbor = SessionManager.open(copyToTemp(file, "arbor"));
	const pi = PiSessionManager.open(copyToTemp(file, "pi"));
	const out = compareSessions(arbor as unknown as SessionLike, pi as unknown as SessionLike, { byId: true, sample: samplePoints(pi.getEntries(), 1) });
	expect(sha256(file)).toBe(before);
	return out;
}

describe("Arbor reads broken files exactly as pi does", () => {
	it("malformed lines in the middle", () => {
		expect(
			agree(writeTempFile([line(header), line(msg("a", null, 1)), "{oops", line(msg("b", "a", 2)), "not json at all", line(msg("c", "a", 3)), ""].join("\n"))),
		).toEqual([]);
	});

	it("a truncated last line", () => {
		expect(agree(writeTempFile([line(header), line(msg("a", null, 1)), line(msg("b", "a", 2)), '{"type":"message","id":"c"'].join("\n")))).toEqual([]);
	});

	it("orphans and several roots", () => {
		expect(agree(writeTempFile(jsonl([header, msg("a", null, 1), msg("b", "gone", 2), msg("c", "b", 3), msg("r2", null, 4), msg("d", "a", 5)])))).toEqual([]);
	});

	it("children with equal and unparsable timestamps keep file order", () => {
		const same = (id: string, p: string) => ({ ...msg(id, p, 1), timestamp: ts(9) });
		const bad = (id: string, p: string) => ({ ...msg(id, p, 1), timestamp: "not a date" });
		expect(
			agree(
				writeTempFile(
					jsonl([
						header,
						msg("a", null, 1),
						same("b", "a"),
						same("c", "a"),
						msg("e", "a", 3),
						same("f", "a"),
						msg("x", null, 20),
						bad("y", "x"),
						bad("z", "x"),
					]),
				),
			),
		).toEqual([]);
	});

	it("labels on unknown ids, cleared labels, relabels", () => {
		const label = (id: string, p: string, target: string, l: string | undefined, s: number) => ({
			type: "label",
			id,
			parentId: p,
			timestamp: ts(s),
			targetId: target,
			...(l === undefined ? {} : { label: l }),
		});
		expect(
			agree(
				writeTempFile(
					jsonl([
						header,
						msg("a", null, 1),
						label("l1", "a", "a", "one", 2),
						label("l2", "l1", "nobody", "ghost", 3),
						label("l3", "l2", "a", "", 4),
						label("l4", "l3", "l1", "two", 5),
						label("l5", "l4", "l1", "three", 6),
					]),
				),
			),
		).toEqual([]);
	});

	it("unknown entry types and extra fields, kept as written", () => {
		expect(
			agree(
				writeTempFile(
					jsonl([
						header,
						msg("a", null, 1),
						{ type: "future_thing", id: "f", parentId: "a", timestamp: ts(2), payload: { deep: [1, { x: null }] } },
						{ ...msg("b", "f", 3), extra: "field" },
					]),
				),
			),
		).toEqual([]);
	});

	it("non-UTF-8 bytes inside a string (decoded as U+FFFD like pi)", () => {
		const bad = Buffer.concat([
			Buffer.from('{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"caf'),
			Buffer.from([0xe9, 0xff]),
			Buffer.from('!","timestamp":2}}\n'),
		]);
		expect(agree(writeTempFile(Buffer.concat([Buffer.from(jsonl([header, msg("a", null, 1)])), bad, Buffer.from(jsonl([msg("c", "b", 3)]))])))).toEqual([]);
	});

	it("CRLF line endings", () => {
		expect(agree(writeTempFile([line(header), line(msg("a", null, 1)), line(msg("b", "a", 2)), ""].join("\r\n")))).toEqual([]);
	});
});

describe("after a glued last line, Arbor's resume point and appends stay where pi will look", () => {
	// pi drops a line holding two glued records, so on reload it resumes at the line before. If Arbor
	// recovers the glued records and parents its next entry on them, pi sees that entry as an orphan root
	// and loses the whole context above it.
	const bytes = `${jsonl([header, msg("a", null, 1), msg("b", "a", 2)])}${line(msg("c", "b", 3))}${line(msg("d", "c", 4))}\n`;

	it("getResumeLeafId() names the entry pi resumes from", () => {
		const file = writeTempFile(bytes, "glued-last.jsonl");
		const pi = PiSessionManager.open(copyToTemp(file, "pi"));
		const arbor = SessionManager.open(file);
		expect(arbor.getResumeLeafId()).toBe(pi.getLeafId());
		arbor.close();
	});

	it("an entry Arbor appends next loads in pi with its full context (not as an orphan root)", () => {
		const file = writeTempFile(bytes, "glued-last.jsonl");
		const arbor = SessionManager.open(file);
		const id = arbor.appendMessage(userMessage("appended after the glued line"));
		const expected = JSON.stringify(arbor.buildSessionContext(id));
		const pi = PiSessionManager.open(copyToTemp(file, "pi"));
		expect(pi.getLeafId()).toBe(id);
		expect(
			pi.getTree().length,
			`pi roots: ${pi
				.getTree()
				.map((n) => idOf(n.entry))
				.join(",")}`,
		).toBe(1);
		expect(JSON.stringify(pi.buildSessionContext())).toBe(expected);
		arbor.close();
		expect(readFileSync(file, "utf8").startsWith(bytes)).toBe(true);
	});
});
