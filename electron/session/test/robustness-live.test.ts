// Files that change under an open session (another writer, an omp full rewrite, a truncation): Arbor
// catches up or reloads, never returns another entry's content for an id, and never writes on a stale
// view (a write that cannot be placed fails with a typed "conflict" error and leaves the bytes alone).
import { appendFileSync, readFileSync, renameSync, truncateSync, writeFileSync } from "node:fs";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { afterAll, describe, expect, it } from "vitest";
import { SessionFileError, SessionManager } from "../index";
import { cleanupTempDirs, copyToTemp, jsonl, sha256, writeTempFile } from "./helpers/files";
import { userMessage } from "./helpers/messages";
import { idOf } from "./helpers/shapes";

afterAll(cleanupTempDirs);

const header = { type: "session", version: 3, id: "live", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
const ts = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const msg = (id: string, parentId: string | null, s: number, text = `text of ${id}`) => ({
	type: "message",
	id,
	parentId,
	timestamp: ts(s),
	message: { role: "user", content: text, timestamp: s },
});
const base = [header, msg("a", null, 1), msg("b", "a", 2), msg("c", "b", 3)];

/** Replace `file` atomically with `content` (new inode), as omp's full rewrites do. */
function replaceFile(file: string, content: string): void {
	writeFileSync(`${file}.tmp`, content);
	renameSync(`${file}.tmp`, file);
}

describe("another process changes the file", () => {
	it("lines appended by another writer: catchUp() indexes them; a leaf at the resume point follows them", () => {
		const file = writeTempFile(jsonl(base));
		const sm = SessionManager.open(file);
		appendFileSync(file, jsonl([msg("d", "c", 4), msg("e", "d", 5)]));
		expect(sm.catchUp()).toEqual({ kind: "appended", count: 2 });
		expect(sm.getEntries().map(idOf)).toEqual(["a", "b", "c", "d", "e"]);
		expect(sm.getResumeLeafId()).toBe("e");
		expect(sm.getLeafId()).toBe("e");
		expect(sm.catchUp()).toEqual({ kind: "none" });
		sm.close();
	});

	it("lines appended by another writer do not move a leaf the user navigated away (branch() without a write)", () => {
		const file = writeTempFile(jsonl(base));
		const sm = SessionManager.open(file);
		sm.branch("a");
		appendFileSync(file, jsonl([msg("d", "c", 4)]));
		expect(sm.catchUp()).toEqual({ kind: "appended", count: 1 });
		expect(sm.getResumeLeafId()).toBe("d");
		expect(sm.getLeafId()).toBe("a");
		sm.close();
	});

	it("a half-written line from another writer is not indexed until it is complete", () => {
		const file = writeTempFile(jsonl(base));
		const sm = SessionManager.open(file);
		const full = JSON.stringify(msg("d", "c", 4));
		appendFileSync(file, full.slice(0, 20));
		const first = sm.catchUp();
		expect(first.kind === "none" || (first.kind === "appended" && first.count === 0), JSON.stringify(first)).toBe(true);
		expect(sm.getEntry("d")).toBeUndefined();
		appendFileSync(file, `${full.slice(20)}\n`);
		expect(sm.catchUp()).toEqual({ kind: "appended", count: 1 });
		expect(sm.getEntry("d")).toMatchObject({ parentId: "c" });
		sm.close();
	});

	it("a truncated file: catchUp() reloads and reports why", () => {
		const file = writeTempFile(jsonl([...base, msg("d", "c", 4)]));
		const sm = SessionManager.open(file);
		truncateSync(file, Buffer.byteLength(jsonl(base)));
		const r = sm.catchUp();
		expect(r.kind).toBe("reloaded");
		expect(sm.getEntries().map(idOf)).toEqual(["a", "b", "c"]);
		sm.close();
	});

	it("a file replaced by rename with shifted offsets: entries read afterwards are the right ones or a typed conflict, never another entry", () => {
		const file = writeTempFile(jsonl(base));
		const sm = SessionManager.open(file);
		// Same entries, but every line moves: a longer header and an extra first entry.
		replaceFile(file, jsonl([{ ...header, padding: "x".repeat(100) }, msg("z", null, 0), ...base.slice(1)]));
		for (const id of ["a", "b", "c"]) {
			try {
				const e = sm.getEntry(id);
				expect(e === undefined || idOf(e) === id, `getEntry(${id}) returned ${JSON.stringify(e)}`).toBe(true);
				if (e) expect(e).toMatchObject({ message: { content: `text of ${id}` } });
			} catch (err) {
				expect(err).toBeInstanceOf(SessionFileError);
				expect((err as SessionFileError).code).toBe("conflict");
			}
		}
		expect(sm.catchUp().kind).toBe("reloaded");
		expect(sm.getEntries().map(idOf)).toEqual(["z", "a", "b", "c"]);
		expect(sm.getEntry("b")).toMatchObject({ message: { content: "text of b" } });
		sm.close();
	});

	it("a write after a replacement that removed Arbor's leaf fails with conflict and writes nothing", () => {
		const file = writeTempFile(jsonl(base));
		const sm = SessionManager.open(file);
		replaceFile(file, jsonl([header, msg("a", null, 1), msg("x", "a", 2)]));
		const before = sha256(file);
		let err: unknown;
		try {
			sm.appendMessage(userMessage("onto a leaf that is gone"));
		} catch (e) {
			err = e;
		}
		expect(err).toBeInstanceOf(SessionFileError);
		expect((err as SessionFileError).code).toBe("conflict");
		expect(sha256(file)).toBe(before);
		sm.close();
	});

	it("a write after a replacement that kept Arbor's leaf goes under that leaf and pi reads it", () => {
		const file = writeTempFile(jsonl(base));
		const sm = SessionManager.open(file);
		replaceFile(file, jsonl([...base, msg("other", "a", 9)]));
		const id = sm.appendMessage(userMessage("still under c"));
		expect(sm.getEntry(id)).toMatchObject({ parentId: "c" });
		const pi = PiSessionManager.open(copyToTemp(file, "pi"));
		expect(pi.getBranch().map(idOf)).toEqual(["a", "b", "c", id]);
		expect(readFileSync(file, "utf8").startsWith(jsonl([...base, msg("other", "a", 9)]))).toBe(true);
		sm.close();
	});
});
