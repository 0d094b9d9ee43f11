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
