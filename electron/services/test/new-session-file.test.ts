// The new empty file of a /branch from a root message is named and identified exactly as the session core
// names every new session (sessionFileName, a UUIDv7 session id), and goes through the core's atomic write:
// a write that fails part-way (full disk) leaves neither the file nor a temp file behind.
import * as path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

const failing = { armed: false };
vi.mock("node:fs", async (importOriginal) => {
	const real = await importOriginal<typeof import("node:fs")>();
	const writeSync = ((fd: number, ...rest: unknown[]) => {
		if (failing.armed) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
		return (real.writeSync as (...a: unknown[]) => number)(fd, ...rest);
	}) as typeof real.writeSync;
	return { ...real, writeSync, default: { ...real, writeSync } };
});

const fs = await import("node:fs");
const { SessionManager, sessionFileName } = await import("../../session");
const { createChildSessionFile } = await import("../new-session-file");
const { tempDir } = await import("./helpers/entries");

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
	failing.armed = false;
});

describe("createChildSessionFile", () => {
	it("names the file and the session id as the core does for a new session", () => {
		const dir = tempDir("arbor-child-");
		const file = createChildSessionFile(dir, "/work/project", "/sessions/parent.jsonl");
		const text = fs.readFileSync(file, "utf8");
		expect(text.endsWith("\n")).toBe(true);
		const header = JSON.parse(text) as { id: string; timestamp: string; version: number; cwd: string; parentSession: string };
		expect(header).toMatchObject({ type: "session", version: 3, cwd: "/work/project", parentSession: "/sessions/parent.jsonl" });
		expect(header.id).toMatch(UUID_V7);
		expect(path.basename(file)).toBe(sessionFileName(header.timestamp, header.id));
		// The same shape as a session the core creates (and its id's time is the header's).
		const core = SessionManager.create("/work/project", dir);
		const coreHeader = core.getHeader() as { id: string; timestamp: string };
		expect(coreHeader.id).toMatch(UUID_V7);
		expect(path.basename(core.getSessionFile() as string)).toBe(sessionFileName(coreHeader.timestamp, coreHeader.id));
		expect(parseInt(header.id.replace(/-/g, "").slice(0, 12), 16)).toBe(Date.parse(header.timestamp));
		// It opens as an empty session.
		const opened = SessionManager.open(file);
		expect(opened.getEntryCount()).toBe(0);
		expect(opened.getHeader()).toMatchObject({ id: header.id, parentSession: "/sessions/parent.jsonl" });
	});

	it("a failed write (full disk) throws and leaves no file, not even a temp file", () => {
		const dir = tempDir("arbor-child-full-");
		failing.armed = true;
		expect(() => createChildSessionFile(dir, "/work/project", undefined)).toThrow(/ENOSPC|no space/);
		failing.armed = false;
		expect(fs.readdirSync(dir)).toEqual([]);
	});
});
