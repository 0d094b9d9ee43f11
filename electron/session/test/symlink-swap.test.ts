// Issue #23 item 8: a session file swapped for a symbolic link after it was opened is never written through
// (nor reloaded from): the append is refused with a clear error and neither file changes.
import { copyFileSync, mkdtempSync, readFileSync, renameSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "../manager";
import { appendBytes } from "../write";

const fixture = resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions", "formic__pi-v3-branch-compaction.jsonl");

function setup() {
	const dir = mkdtempSync(join(tmpdir(), "arbor-swap-"));
	const file = join(dir, "session.jsonl");
	copyFileSync(fixture, file);
	const other = join(dir, "other.jsonl");
	writeFileSync(other, readFileSync(fixture));
	return { dir, file, other };
}

describe("a session file swapped for a symlink after opening", () => {
	it("refuses a label append with a clear error and changes neither file", () => {
		const { file, other } = setup();
		const sm = SessionManager.open(file);
		const target = sm.getLeafId() as string;
		const original = readFileSync(file);
		const otherBefore = readFileSync(other);
		// Swapped: the opened file moves away and a link to another file takes its name.
		renameSync(file, `${file}.moved`);
		symlinkSync(other, file);
		expect(() => sm.appendLabelChange(target, "swapped")).toThrow(/replaced by a symbolic link since it was opened; nothing was written/);
		expect(readFileSync(other).equals(otherBefore)).toBe(true);
		expect(readFileSync(`${file}.moved`).equals(original)).toBe(true);
		// The watcher's catch-up does not read the link's target either.
		expect(() => sm.catchUp()).toThrow(/symbolic link/);
		sm.close();
	});

	it("still appends to a file opened through a link the user chose", () => {
		const { dir, file } = setup();
		const link = join(dir, "link.jsonl");
		symlinkSync(file, link);
		const sm = SessionManager.open(link);
		const size = readFileSync(file).length;
		sm.appendLabelChange(sm.getLeafId() as string, "via link");
		expect(readFileSync(file).length).toBeGreaterThan(size);
		sm.close();
	});

	it("appendBytes with a target refuses a link (O_NOFOLLOW) and a different file at the path", () => {
		const { dir, file, other } = setup();
		const line = [Buffer.from('{"x":1}\n')];
		const { ino, dev } = statSync(file);
		const otherBefore = readFileSync(other);
		const link = join(dir, "l.jsonl");
		symlinkSync(other, link);
		expect(() => appendBytes(link, line, 0, { target: { ino, dev, noFollow: true } })).toThrow(/symbolic link/);
		unlinkSync(link);
		copyFileSync(other, link);
		expect(() => appendBytes(link, line, 0, { target: { ino, dev, noFollow: true } })).toThrow(/replaced while appending; nothing was written/);
		expect(readFileSync(link).equals(otherBefore)).toBe(true);
		expect(readFileSync(other).equals(otherBefore)).toBe(true);
	});
});
