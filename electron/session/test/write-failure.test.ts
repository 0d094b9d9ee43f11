import * as fs from "node:fs";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

// A full disk accepts part of a write and then fails with ENOSPC. Simulated here by letting the real
// writeSync write half of the line once, then failing; the real-disk version (a full tmpfs) runs in
// `npm run test:reliability`. Torn appends after a kill: torn-append.test.ts.
// Only writes to the session file fail (`ino`); the marker next to it is written normally. `firstByte`:
// the disk is full before the first byte.
const failing = { armed: false, ino: -1, firstByte: false };
vi.mock("node:fs", async (importOriginal) => {
	const real = await importOriginal<typeof import("node:fs")>();
	const writeSync = ((fd: number, buf: Buffer, off: number = 0, len: number = buf.length - off, ...rest: unknown[]) => {
		if (!failing.armed || (failing.ino >= 0 && real.fstatSync(fd).ino !== failing.ino)) {
			return (real.writeSync as (...a: unknown[]) => number)(fd, buf, off, len, ...rest);
		}
		if (len > 1 && !failing.firstByte) {
			const half = Math.floor(len / 2);
			return real.writeSync(fd, buf, off, half);
		}
		const err = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
		throw err;
	}) as typeof real.writeSync;
	return { ...real, writeSync, default: { ...real, writeSync } };
});

const { appendBytes } = await import("../write");

describe("appending on a full disk", () => {
	afterEach(() => {
		failing.armed = false;
		failing.ino = -1;
		failing.firstByte = false;
	});

	it("cuts its own partial line off again, leaving the file exactly as it was, and reports the error", () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-enospc-"));
		const file = join(dir, "s.jsonl");
		const original = '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n';
		writeFileSync(file, original);
		const line = Buffer.from(`${JSON.stringify({ type: "custom", customType: "big", data: "x".repeat(4096), id: "a1", parentId: null, timestamp: "t" })}\n`);
		failing.armed = true;
		failing.ino = fs.statSync(file).ino;
		expect(() => appendBytes(file, [line], Buffer.byteLength(original))).toThrow(/ENOSPC/);
		failing.armed = false;
		expect(readFileSync(file, "utf8")).toBe(original);
		expect(fs.statSync(file).size).toBe(Buffer.byteLength(original));
		expect(fs.readdirSync(dir)).toEqual(["s.jsonl"]);
	});

	it("ENOSPC before the first byte leaves no marker, so pi's later partial line is never cut (by a read or by Arbor's next write)", async () => {
		const { SessionManager } = await import("../index");
		const dir = mkdtempSync(join(tmpdir(), "arbor-enospc-"));
		const file = join(dir, "s.jsonl");
		const header = '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n';
		const first = '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}\n';
		writeFileSync(file, header + first);
		const sm = SessionManager.open(file);
		failing.armed = true;
		failing.firstByte = true;
		failing.ino = fs.statSync(file).ino;
		expect(() => sm.appendLabelChange("a", "x".repeat(100))).toThrow(/ENOSPC/);
		failing.armed = false;
		expect(readFileSync(file, "utf8")).toBe(header + first);
		expect(fs.readdirSync(dir)).toEqual(["s.jsonl"]);
		// pi appends 98 bytes and is still writing (no newline yet).
		const partial = `{"type":"message","id":"p","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"r`;
		fs.appendFileSync(file, partial);
		SessionManager.open(file).getTree();
		expect(readFileSync(file, "utf8")).toBe(header + first + partial);
		const again = SessionManager.open(file);
		again.appendLabelChange("a", "y");
		expect(readFileSync(file, "utf8").startsWith(header + first + partial)).toBe(true);
	});

	it("appends normally when the disk has room", () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-enospc-"));
		const file = join(dir, "s.jsonl");
		writeFileSync(file, "a\n");
		appendBytes(file, [Buffer.from("b\n")], 2);
		expect(readFileSync(file, "utf8")).toBe("a\nb\n");
	});
});
