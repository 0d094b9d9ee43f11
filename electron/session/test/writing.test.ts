// Writing never loses a byte: whole lines, a "\n" first when missing, catch-up before writing, new files via
// temp + fsync + no-clobber link.
import { appendFileSync, copyFileSync, readdirSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { SessionFileError, SessionManager } from "../index";
import { writeNewFile } from "../write";
import { HEADER, msg, tempDir, writeSession } from "./helpers";

const user = (text: string) => ({ role: "user" as const, content: text, timestamp: 1 });
const lines = (f: string) => readFileSync(f, "utf8").split("\n");

function piLoad(file: string) {
	const copy = join(tempDir(), "pi.jsonl");
	copyFileSync(file, copy);
	return PiSessionManager.open(copy);
}

describe("appending", () => {
	it("each append adds exactly one complete line, a child of the current leaf", () => {
		const f = writeSession([msg("a", null, "user", "hi")]);
		const sm = SessionManager.open(f);
		const size = statSync(f).size;
		const id = sm.appendMessage(user("next"));
		const added = readFileSync(f).subarray(size).toString("utf8");
		expect(added.endsWith("\n")).toBe(true);
		expect(added.slice(0, -1)).not.toContain("\n");
		expect(JSON.parse(added)).toMatchObject({ type: "message", id, parentId: "a", message: { content: "next" } });
		expect(Object.keys(JSON.parse(added))).toEqual(["type", "id", "parentId", "timestamp", "message"]);
		expect(SessionManager.open(f).getLeafId()).toBe(id);
	});

	it("a file without a final newline gets one before the new line (pi would glue them)", () => {
		const f = writeSession([], { raw: `${JSON.stringify(HEADER)}\n${JSON.stringify(msg("a", null, "user", "hi"))}` });
		const sm = SessionManager.open(f);
		const id = sm.appendMessage(user("next"));
		expect(lines(f).length).toBe(4);
		const again = SessionManager.open(f);
		expect(again.getEntries().map((e) => (e as { id: string }).id)).toEqual(["a", id]);
		expect(piLoad(f).getLeafId()).toBe(id);
	});

	it("after a truncated last line the appended entry survives reload; the broken line is counted", () => {
		const good = JSON.stringify(msg("a", null, "user", "hi"));
		const f = writeSession([], { raw: `${JSON.stringify(HEADER)}\n${good}\n${good.slice(0, 30).replace('"a"', '"t"')}` });
		const sm = SessionManager.open(f);
		expect(sm.getWarnings().map((w) => w.kind)).toContain("truncated_last_line");
		const id = sm.appendMessage(user("survives"));
		const again = SessionManager.open(f);
		expect(again.getEntry(id)).toBeDefined();
		expect(again.getWarnings().map((w) => w.kind)).toContain("malformed_line");
		expect(piLoad(f).getEntry(id)).toBeDefined();
	});

	it("in-memory sessions write nothing", () => {
		const sm = SessionManager.inMemory("/x");
		const a = sm.appendMessage(user("a"));
		const b = sm.appendMessage(user("b"));
		expect(sm.isPersisted()).toBe(false);
		expect(sm.getSessionFile()).toBeUndefined();
		expect(sm.getBranch().map((e) => (e as { id: string }).id)).toEqual([a, b]);
	});

	it("an entry below an id-less (synthetic) leaf starts a new root; the synthetic id is never written", () => {
		const f = writeSession([msg("a", null, "user", "hi"), { type: "custom", customType: "x", timestamp: "2026-01-01T00:00:00.000Z" }]);
		const sm = SessionManager.open(f);
		const id = sm.appendMessage(user("x"));
		expect(readFileSync(f, "utf8")).not.toContain("~arbor");
		expect(SessionManager.open(f).getEntry(id)).toMatchObject({ parentId: null });
	});
});

describe("another writer (e.g. pi in a terminal)", () => {
	it("catchUp indexes appended entries; the in-app leaf stays; the next append hangs under it", () => {
		const f = writeSession([msg("a", null, "user", "hi"), msg("b", "a", "assistant", "yo")]);
		const sm = SessionManager.open(f);
		sm.branch("a");
		appendFileSync(f, `${JSON.stringify(msg("c", "b", "user", "from pi"))}\n`);
		expect(sm.catchUp()).toEqual({ kind: "appended", count: 1 });
		expect(sm.getEntry("c")).toBeDefined();
		expect(sm.getLeafId()).toBe("a");
		expect(sm.getResumeLeafId()).toBe("c");
		const id = sm.appendMessage(user("mine"));
		expect(sm.getEntry(id)).toMatchObject({ parentId: "a" });
	});

	it("a leaf still at the last entry follows what the other writer appended (as a reload would)", () => {
		const f = writeSession([msg("a", null, "user", "hi")]);
		const sm = SessionManager.open(f);
		appendFileSync(f, `${JSON.stringify(msg("c", "a", "user", "from pi"))}\n`);
		sm.catchUp();
		expect(sm.getLeafId()).toBe("c");
	});

	it("a write first catches up, so the other writer's lines stay intact and indexed", () => {
		const f = writeSession([msg("a", null, "user", "hi")]);
		const sm = SessionManager.open(f);
		const theirs = JSON.stringify(msg("c", "a", "user", "from pi"));
		appendFileSync(f, `${theirs}\n`);
		const id = sm.appendMessage(user("mine"));
		const l = lines(f);
		expect(l[2]).toBe(theirs);
		expect(JSON.parse(l[3])).toMatchObject({ id, parentId: "a" });
		expect(sm.getEntry("c")).toBeDefined();
		expect(sm.getSkeleton().count).toBe(3);
	});

	it("a line still being written is picked up once it is complete", () => {
		const f = writeSession([msg("a", null, "user", "hi")]);
		const sm = SessionManager.open(f);
		const line = JSON.stringify(msg("c", "a", "user", "slow writer"));
		appendFileSync(f, line.slice(0, 20));
		sm.catchUp();
		expect(sm.getEntry("c")).toBeUndefined();
		appendFileSync(f, `${line.slice(20)}\n`);
		sm.catchUp();
		expect(sm.getEntry("c")).toBeDefined();
	});

	it("a file that shrank or was replaced is reloaded (keeping the leaf when it still exists)", () => {
		const f = writeSession([msg("a", null, "user", "hi"), msg("b", "a", "assistant", "yo")]);
		const sm = SessionManager.open(f);
		sm.branch("a");
		const headerAndA = lines(f).slice(0, 2).join("\n");
		truncateSync(f, Buffer.byteLength(`${headerAndA}\n`));
		expect(sm.catchUp()).toMatchObject({ kind: "reloaded" });
		expect(sm.getEntry("b")).toBeUndefined();
		expect(sm.getLeafId()).toBe("a");
		const replacement = writeSession([msg("x", null, "user", "other")], { dir: tempDir() });
		renameSync(replacement, f);
		expect(sm.catchUp()).toMatchObject({ kind: "reloaded", reason: expect.stringMatching(/replaced/) });
		expect(sm.getEntry("x")).toBeDefined();
		expect(sm.getLeafId()).toBe("x");
	});
});

describe("files Arbor creates", () => {
	it("create() names the file like pi and writes header + entry at the first append", () => {
		const dir = join(tempDir(), "nested", "sessions");
		const sm = SessionManager.create("/work/proj", dir);
		const file = sm.getSessionFile() as string;
		expect(file.startsWith(dir)).toBe(true);
		expect(file).toMatch(/\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/);
		expect(file).toContain(sm.getSessionId());
		expect(() => statSync(file)).toThrow();
		sm.appendMessage(user("first"));
		const [h, e] = lines(file).map((l) => (l ? JSON.parse(l) : null));
		expect(h).toMatchObject({ type: "session", version: 3, id: sm.getSessionId(), cwd: "/work/proj" });
		expect(Object.keys(h)).toEqual(["type", "version", "id", "timestamp", "cwd"]);
		expect(e).toMatchObject({ type: "message", parentId: null });
		expect(readdirSync(dir)).toEqual([file.split("/").pop()]);
		expect(JSON.stringify(piLoad(file).buildSessionContext())).toBe(JSON.stringify(sm.buildSessionContext()));
	});

	it("create() with parentSession records it in the header", () => {
		const sm = SessionManager.create("/p", tempDir(), { parentSession: "/old/file.jsonl" });
		expect(sm.getHeader().parentSession).toBe("/old/file.jsonl");
	});

	it("a new file never replaces an existing one", () => {
		const dir = tempDir();
		const target = join(dir, "taken.jsonl");
		writeFileSync(target, "precious\n");
		expect(() => writeNewFile(target, [Buffer.from("new\n")], 0o644)).toThrow(SessionFileError);
		expect(readFileSync(target, "utf8")).toBe("precious\n");
		expect(readdirSync(dir)).toEqual(["taken.jsonl"]);
	});

	it("an empty file gets a header before its first entry", () => {
		const f = writeSession([], { raw: "" });
		const sm = SessionManager.open(f);
		const id = sm.appendMessage(user("hello"));
		const [h, e] = lines(f).map((l) => (l ? JSON.parse(l) : null));
		expect(h).toMatchObject({ type: "session", version: 3 });
		expect(e).toMatchObject({ id, parentId: null });
		expect(piLoad(f).getLeafId()).toBe(id);
	});

	it("a file with a broken header is never written to", () => {
		const f = writeSession([msg("a", null, "user", "hi")], { header: null });
		const before = readFileSync(f);
		const sm = SessionManager.open(f);
		expect(() => sm.appendMessage(user("x"))).toThrow(expect.objectContaining({ code: "bad_file", file: f }));
		expect(readFileSync(f).equals(before)).toBe(true);
	});
});
