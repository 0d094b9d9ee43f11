import * as fs from "node:fs";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

// A full disk accepts part of a write and then fails with ENOSPC. Simulated here by letting the real
// writeSync write half of the line once, then failing; the real-disk version (a full tmpfs) runs in
// `npm run test:reliability`.
const failing = { armed: false };
vi.mock("node:fs", async (importOriginal) => {
	const real = await importOriginal<typeof import("node:fs")>();
	const writeSync = ((fd: number, buf: Buffer, off: number = 0, len: number = buf.length - off, ...rest: unknown[]) => {
		if (!failing.armed) return (real.writeSync as (...a: unknown[]) => number)(fd, buf, off, len, ...rest);
		if (len > 1) {
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
	});

	it("cuts its own partial line off again, leaving the file exactly as it was, and reports the error", () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-enospc-"));
		const file = join(dir, "s.jsonl");
		const original = '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n';
		writeFileSync(file, original);
		const line = Buffer.from(`${JSON.stringify({ type: "custom", customType: "big", data: "x".repeat(4096), id: "a1", parentId: null, timestamp: "t" })}\n`);
		failing.armed = true;
		expect(() => appendBytes(file, [line], Buffer.byteLength(original))).toThrow(/ENOSPC/);
		failing.armed = false;
		expect(readFileSync(file, "utf8")).toBe(original);
		expect(fs.statSync(file).size).toBe(Buffer.byteLength(original));
	});

	it("appends normally when the disk has room", () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-enospc-"));
		const file = join(dir, "s.jsonl");
		writeFileSync(file, "a\n");
		appendBytes(file, [Buffer.from("b\n")], 2);
		expect(readFileSync(file, "utf8")).toBe("a\nb\n");
	});
});

describe("a torn append left by a killed Arbor", () => {
	it("is cut off on the next open using Arbor's append record; complete lines and others' bytes are kept", async () => {
		const { appendMarkerPath } = await import("../write");
		const { SessionManager } = await import("../index");
		const dir = mkdtempSync(join(tmpdir(), "arbor-torn-"));
		const file = join(dir, "s.jsonl");
		const header = '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n';
		const first = '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}\n';
		const original = header + first;
		const line = `{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"${"z".repeat(9000)}"}}\n`;
		// What a kill in the middle of the write leaves: the record, and part of the line.
		writeFileSync(file, original + line.slice(0, 5000));
		writeFileSync(appendMarkerPath(file), `${Buffer.byteLength(original)} ${Buffer.byteLength(line)}\n`);
		const sm = SessionManager.open(file);
		expect(readFileSync(file, "utf8")).toBe(original);
		expect(fs.existsSync(appendMarkerPath(file))).toBe(false);
		expect(sm.getWarningCount()).toBe(0);
		sm.appendMessage({ role: "user", content: "after", timestamp: 1 });
		expect(readFileSync(file, "utf8").startsWith(original)).toBe(true);
		expect(readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).id)).toEqual(["x", "a", expect.any(String)]);
		expect(fs.existsSync(appendMarkerPath(file))).toBe(false);

		// A record whose line did complete, and a tail another writer finished with "\n", are left alone.
		writeFileSync(file, original + line);
		writeFileSync(appendMarkerPath(file), `${Buffer.byteLength(original)} ${Buffer.byteLength(line)}\n`);
		SessionManager.open(file);
		expect(readFileSync(file, "utf8")).toBe(original + line);
		const other = '{"type":"custom","customType":"pi","id":"c","parentId":"a","timestamp":"t"}\n';
		writeFileSync(file, original + other);
		writeFileSync(appendMarkerPath(file), `${Buffer.byteLength(original)} ${Buffer.byteLength(line)}\n`);
		SessionManager.open(file);
		expect(readFileSync(file, "utf8")).toBe(original + other);
	});
});
