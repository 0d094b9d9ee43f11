// The differential comparator itself must be able to fail: two pi instances on the same bytes agree, and
// each kind of difference it claims to detect is detected.
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { afterAll, describe, expect, it } from "vitest";
import { cleanupTempDirs, copyFixture, jsonl, writeTempFile } from "./helpers/files";
import { compareSessions, type SessionLike, samplePoints } from "./helpers/snapshot";

afterAll(cleanupTempDirs);

const open = (file: string) => PiSessionManager.open(file) as unknown as SessionLike;
const cmp = (a: SessionLike, b: SessionLike, byId = true) => compareSessions(a, b, { byId, sample: samplePoints(b.getEntries(), byId ? 1 : 50) });

describe("compareSessions detects differences", () => {
	it("the same bytes compare equal", () => {
		const name = "formic__pi-v3-branch-compaction.jsonl";
		expect(cmp(open(copyFixture(name)), open(copyFixture(name)))).toEqual([]);
	});

	it("a different label, leaf and entry count are reported", () => {
		const name = "formic__pi-v3-branch-compaction.jsonl";
		const a = PiSessionManager.open(copyFixture(name));
		a.appendLabelChange("user-first", "extra");
		const d = cmp(a as unknown as SessionLike, open(copyFixture(name)));
		expect(d.some((l) => l.startsWith("entry count"))).toBe(true);
		expect(d.some((l) => l.startsWith("leaf"))).toBe(true);
		expect(d.some((l) => l.startsWith("tree"))).toBe(true);
	});

	it("a changed message or children order is reported in entries, tree and contexts", () => {
		const h = { type: "session", version: 3, id: "h", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
		const m = (id: string, p: string | null, t: string, text: string) => ({
			type: "message",
			id,
			parentId: p,
			timestamp: t,
			message: { role: "user", content: text },
		});
		const a = open(
			writeTempFile(jsonl([h, m("a", null, "2026-01-01T00:00:01Z", "x"), m("b", "a", "2026-01-01T00:00:02Z", "y"), m("c", "a", "2026-01-01T00:00:03Z", "z")])),
		);
		const b = open(
			writeTempFile(jsonl([h, m("a", null, "2026-01-01T00:00:01Z", "x"), m("b", "a", "2026-01-01T00:00:04Z", "Y"), m("c", "a", "2026-01-01T00:00:03Z", "z")])),
		);
		const d = cmp(a, b);
		expect(d.some((l) => l.startsWith("entries"))).toBe(true);
		expect(d.some((l) => l.startsWith("tree"))).toBe(true);
		expect(d.some((l) => l.startsWith("buildSessionContext"))).toBe(true);
	});

	it("by file index (v1 migration), two migrations with different random ids still compare equal", () => {
		const name = "pi-mono__large-session.v1.jsonl";
		const a = open(copyFixture(name));
		const b = open(copyFixture(name));
		expect(a.getLeafId()).not.toBe(b.getLeafId());
		expect(cmp(a, b, false)).toEqual([]);
	});
});
