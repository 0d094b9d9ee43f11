// Where pi 0.73.1 is wrong, Arbor follows newest omp instead (docs/compatibility.md lists each case with
// the reason). Each test shows pi's behaviour on a real file and Arbor's on a separate copy of the same
// bytes, so a pi upgrade that fixes a bug shows up here as a failing "pi still does X" assertion.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { afterAll, describe, expect, it } from "vitest";
import { SessionFileError, SessionManager } from "../index";
import { cleanupTempDirs, copyFixture, copyToTemp, jsonl, sha256, tempDir, writeTempFile } from "./helpers/files";
import { assistantMessage, userMessage } from "./helpers/messages";
import { probe, probePi } from "./helpers/probe";
import { idOf } from "./helpers/shapes";

afterAll(cleanupTempDirs);

const header = { type: "session", version: 3, id: "dev-session", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
const ts = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`;
const msg = (id: string, parentId: string | null, s: number, text: string) => ({
	type: "message",
	id,
	parentId,
	timestamp: ts(s),
	message: { role: "user", content: text, timestamp: s },
});

describe("cycles: pi hangs, Arbor stops at the first repeated id (as omp does)", () => {
	const selfCycle = jsonl([
		header,
		msg("a", null, 1, "root"),
		msg("b", "a", 2, "child"),
		msg("c", "c", 3, "self-parented"),
		msg("d", "c", 4, "below the self-parent"),
	]);
	const longCycle = jsonl([
		header,
		msg("a", null, 1, "root"),
		msg("x", "z", 2, "x"),
		msg("y", "x", 3, "y"),
		msg("z", "y", 4, "z"),
		msg("w", "x", 5, "below the loop"),
	]);

	it("parentId === id: pi's getBranch never returns; Arbor's getBranch/buildSessionContext/getTree finish", () => {
		const piFile = writeTempFile(selfCycle, "self.jsonl", "pi");
		expect(probePi(piFile, "return sm.getBranch().length;", 5_000).outcome, "pi hangs or runs out of memory").not.toBe("ok");
		const arborFile = writeTempFile(selfCycle, "self.jsonl", "arbor");
		const r = probe(
			arborFile,
			"return { branch: sm.getBranch().map(e => e.id), ctx: sm.buildSessionContext().messages.length, roots: sm.getTree().map(n => n.entry.id) };",
		);
		expect(r.outcome, r.stderr).toBe("ok");
		expect(r.detail).toEqual({ branch: ["c", "d"], ctx: 2, roots: ["a", "c"] });
	});

	it("a three-entry loop: pi hangs walking from below it; Arbor returns each loop entry once", () => {
		const piFile = writeTempFile(longCycle, "loop.jsonl", "pi");
		expect(probePi(piFile, "return sm.getBranch('w').length;", 5_000).outcome).not.toBe("ok");
		const arborFile = writeTempFile(longCycle, "loop.jsonl", "arbor");
		const r = probe(
			arborFile,
			"const b = sm.getBranch('w').map(e => e.id); return { b, unique: new Set(b).size === b.length, ctx: sm.buildSessionContext('w').messages.length };",
		);
		expect(r.outcome, r.stderr).toBe("ok");
		const d = r.detail as { b: string[]; unique: boolean; ctx: number };
		expect(d.unique).toBe(true);
		expect(d.b.at(-1)).toBe("w");
		expect(new Set(d.b)).toEqual(new Set(["x", "y", "z", "w"]));
		expect(d.ctx).toBe(4);
	});
});

describe("createBranchedSession after a mid-path label", () => {
	it("pi's new file orphans the entries under the dropped label and loses history on reload; Arbor's keeps the whole path", () => {
		const source = copyFixture("formic__pi-v3-branch-compaction.jsonl", "src");
		const pi = PiSessionManager.open(copyToTemp(source, "pi"));
		const fullContext = JSON.stringify(pi.buildSessionContext());
		const piNew = pi.createBranchedSession("unknown-active") as string;
		const piReloaded = PiSessionManager.open(copyToTemp(piNew, "pi-reload"));
		expect(piReloaded.getTree().length, "pi: custom-active's parent (the label) is gone").toBeGreaterThan(1);
		expect(JSON.stringify(piReloaded.buildSessionContext())).not.toBe(fullContext);

		const arbor = SessionManager.open(copyToTemp(source, "arbor"));
		const arborNew = arbor.createBranchedSession("unknown-active") as string;
		const inPi = PiSessionManager.open(copyToTemp(arborNew, "pi-reload"));
		expect(inPi.getTree().length).toBe(1);
		expect(inPi.getEntry("custom-active")).toMatchObject({ parentId: "title-active" });
		expect(JSON.stringify(inPi.buildSessionContext())).toBe(fullContext);
		arbor.close();
	});
});

describe("files pi overwrites on open stay byte-identical under Arbor", () => {
	it("missing header (first line is an entry): pi replaces the file with a fresh header; Arbor leaves it and says which line", () => {
		const bytes = jsonl([msg("a", null, 1, "no header above me"), msg("b", "a", 2, "second")]);
		const piFile = writeTempFile(bytes, "s.jsonl", "pi");
		PiSessionManager.open(piFile);
		expect(readFileSync(piFile, "utf8")).not.toContain("no header above me");

		const file = writeTempFile(bytes, "s.jsonl", "arbor");
		const before = sha256(file);
		let err: unknown;
		let sm: SessionManager | undefined;
		try {
			sm = SessionManager.open(file);
		} catch (e) {
			err = e;
		}
		if (err) {
			expect(err).toBeInstanceOf(SessionFileError);
			expect(err).toMatchObject({ code: "bad_file", file, line: 1 });
		} else {
			expect((sm as SessionManager).getWarnings().some((w) => w.kind === "bad_header" && w.line === 1)).toBe(true);
		}
		expect(sha256(file)).toBe(before);
	});

	it("omp title line before the header (formic fixture): pi wipes the session to an empty one; Arbor keeps the bytes and reads the 3 entries", () => {
		const piFile = copyFixture("formic__omp-session-titleslot.jsonl", "pi");
		const pi = PiSessionManager.open(piFile);
		expect(pi.getEntries().length).toBe(0);
		expect(readFileSync(piFile, "utf8")).not.toContain("msg-assistant");

		const file = copyFixture("formic__omp-session-titleslot.jsonl", "arbor");
		const before = sha256(file);
		const sm = SessionManager.open(file);
		expect(sm.getEntries().map(idOf)).toEqual(["model-1", "msg-user", "msg-assistant"]);
		expect(sm.getLeafId()).toBe("msg-assistant");
		expect(sm.getSessionId()).toBe("019f86c4-1558-7000-aeb8-26e2cfd0e8ec");
		expect(sm.buildSessionContext().messages.map((m) => m.role)).toEqual(["user", "assistant"]);
		expect(sha256(file)).toBe(before);
		// Writing keeps the title line and the header exactly as they were.
		const original = readFileSync(file);
		const id = sm.appendMessage(userMessage("appended to an omp file"));
		expect(readFileSync(file).subarray(0, original.length).equals(original)).toBe(true);
		sm.close();
		const again = SessionManager.open(file);
		expect(again.getLeafId()).toBe(id);
		expect(again.getEntry(id)).toMatchObject({ parentId: "msg-assistant" });
		again.close();
	});
});

describe("omp's fixed-width title slot", () => {
	it("a 256-byte slot line before the header: Arbor loads the session and appends without touching the slot", () => {
		const slotObj = { type: "title", v: 1, title: "My session", source: "user", updatedAt: "2026-01-01T00:00:00.000Z", pad: "" };
		const bare = JSON.stringify(slotObj).length;
		const slot = JSON.stringify({ ...slotObj, pad: " ".repeat(255 - bare) });
		expect(Buffer.byteLength(`${slot}\n`)).toBe(256);
		const bytes = `${slot}\n${jsonl([header, msg("a", null, 1, "hello"), msg("b", "a", 2, "again")])}`;
		const file = writeTempFile(bytes, "slot.jsonl", "arbor");
		const sm = SessionManager.open(file);
		expect(sm.getEntries().map(idOf)).toEqual(["a", "b"]);
		expect(sm.getSessionId()).toBe("dev-session");
		const id = sm.appendMessage(userMessage("after the slot"));
		const now = readFileSync(file, "utf8");
		expect(now.startsWith(bytes)).toBe(true);
		sm.close();
		const again = SessionManager.open(file);
		expect(again.getBranch().map(idOf)).toEqual(["a", "b", id]);
		again.close();
		// pi sees no valid header on line 1 and would replace the whole file.
		const piFile = writeTempFile(bytes, "slot.jsonl", "pi");
		expect(PiSessionManager.open(piFile).getEntries().length).toBe(0);
		expect(readFileSync(piFile, "utf8")).not.toContain("My session");
	});
});

describe("appending after a line without a final newline", () => {
	it("pi glues its entry onto the last line and loses both on reload; Arbor writes a newline first", () => {
		const piFile = copyFixture("kuato__pi-session-orphan-no-eol.jsonl", "pi");
		const pi = PiSessionManager.open(piFile);
		const count = pi.getEntries().length;
		const lostId = pi.appendMessage(assistantMessage("glued") as never);
		const piReloaded = PiSessionManager.open(copyToTemp(piFile, "pi-reload"));
		expect(piReloaded.getEntry(lostId)).toBeUndefined();
		expect(piReloaded.getEntries().length).toBe(count - 1); // the old last line is gone too

		const file = copyFixture("kuato__pi-session-orphan-no-eol.jsonl", "arbor");
		const arbor = SessionManager.open(file);
		const kept = arbor.appendMessage(userMessage("kept"));
		const inPi = PiSessionManager.open(copyToTemp(file, "pi-reload"));
		expect(inPi.getEntries().length).toBe(count + 1);
		expect(inPi.getEntry(kept)).toBeDefined();
		arbor.close();
	});
});

describe("entries without an id", () => {
	it("pi's getTree repeats the last id-less entry once per entry; Arbor lists each entry once (synthetic ids, never written)", () => {
		const file = copyFixture("pi-doctor__pi-session-v3-without-ids.jsonl", "pi");
		const pi = PiSessionManager.open(file);
		const piRoots = pi.getTree();
		expect(piRoots.length).toBe(15);
		expect(new Set(piRoots.map((n) => n.entry)).size).toBe(1);

		const arborFile = copyFixture("pi-doctor__pi-session-v3-without-ids.jsonl", "arbor");
		const before = sha256(arborFile);
		const sm = SessionManager.open(arborFile);
		const roots = sm.getTree();
		expect(roots.length).toBe(15);
		expect(new Set(roots.map((n) => idOf(n.entry))).size).toBe(15);
		expect(sm.getWarnings().some((w) => w.kind === "missing_id")).toBe(true);
		sm.close();
		expect(sha256(arborFile)).toBe(before);
	});
});

describe("duplicate ids", () => {
	it("pi's getTree shows the last entry with that id twice (the first one vanishes); Arbor shows each entry once, lookups still return the later one", () => {
		const bytes = jsonl([
			header,
			msg("a", null, 1, "root"),
			msg("b", "a", 2, "first b"),
			msg("b", "a", 3, "second b"),
			msg("c", "b", 4, "under b"),
			msg("d", "a", 5, "d"),
		]);
		const pi = PiSessionManager.open(writeTempFile(bytes, "dup.jsonl", "pi"));
		const piKids = pi.getTree()[0].children;
		expect(piKids.map((n) => idOf(n.entry))).toEqual(["b", "b", "d"]);
		expect(piKids[0]).toBe(piKids[1]);

		const sm = SessionManager.open(writeTempFile(bytes, "dup.jsonl", "arbor"));
		const kids = sm.getTree()[0].children;
		expect(kids.map((n) => (n.entry as { message: { content: string } }).message.content)).toEqual(["first b", "second b", "d"]);
		expect(kids[0].children).toEqual([]);
		expect(kids[1].children.map((n) => idOf(n.entry))).toEqual(["c"]);
		expect(sm.getEntry("b")).toMatchObject({ message: { content: "second b" } });
		expect(JSON.stringify(sm.buildSessionContext())).toBe(JSON.stringify(pi.buildSessionContext()));
	});
});

describe("lines that are JSON but not objects", () => {
	it("pi indexes a bare number or array as an entry; Arbor skips it with a warning", () => {
		const bytes = [JSON.stringify(header), JSON.stringify(msg("a", null, 1, "a")), "42", "[1,2]", JSON.stringify(msg("b", "a", 2, "b")), ""].join("\n");
		const pi = PiSessionManager.open(writeTempFile(bytes, "scalars.jsonl", "pi"));
		expect(pi.getEntries().length).toBe(4);
		const sm = SessionManager.open(writeTempFile(bytes, "scalars.jsonl", "arbor"));
		expect(sm.getEntries().map(idOf)).toEqual(["a", "b"]);
		expect(
			sm
				.getWarnings()
				.filter((w) => w.kind === "malformed_line")
				.map((w) => w.line),
		).toEqual([3, 4]);
		expect(JSON.stringify(sm.buildSessionContext())).toBe(JSON.stringify(pi.buildSessionContext()));
	});
});

describe("a path that does not exist", () => {
	it("pi opens a new empty session at that path; Arbor's open() reports an io error (new sessions come from create())", () => {
		const dir = tempDir("arbor-missing");
		const missing = join(dir, "missing.jsonl");
		const pi = PiSessionManager.open(missing);
		expect(pi.getEntries()).toEqual([]);
		let err: unknown;
		try {
			SessionManager.open(missing);
		} catch (e) {
			err = e;
		}
		expect(err).toBeInstanceOf(SessionFileError);
		expect(err).toMatchObject({ code: "io", file: missing });
		expect(existsSync(missing)).toBe(false);
	});
});

describe("a FIFO instead of a file", () => {
	it("pi blocks reading it until a writer appears; Arbor fails at once with a typed error", () => {
		const dir = tempDir("arbor-fifo");
		const fifo = join(dir, "pipe.jsonl");
		execFileSync("mkfifo", [fifo]);
		expect(probePi(fifo, "return sm.getEntries().length;", 3_000).outcome).toBe("timeout");
		const r = probe(fifo, "return 'opened';", 10_000);
		expect(r.outcome).toBe("error");
		expect(r.detail).toMatchObject({ name: "SessionFileError", file: fifo });
	});
});
