// Issue #23 item 8 through the real router and services: a label on a session whose file was swapped for a
// symbolic link after opening is refused with a typed error naming the cause; neither file changes.
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRouter } from "../../api/router";
import { makeServices, type TestServices } from "./helpers/services";

const fixture = path.resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions", "formic__pi-v3-branch-compaction.jsonl");
let t: TestServices | undefined;
afterEach(() => t?.services.dispose());

describe("setLabel after the session file was swapped for a symlink", () => {
	it("answers conflict with a clear message and writes nothing", async () => {
		t = makeServices();
		const file = path.join(t.dir, "s.jsonl");
		const other = path.join(t.dir, "other.jsonl");
		fs.copyFileSync(fixture, file);
		fs.copyFileSync(fixture, other);
		const router = createRouter({ services: t.services as never, log: () => {} });
		await router.allowPath(file);
		const open = await router.handle("openSession", { path: file });
		if (!open.ok) throw new Error(open.error.message);
		const { sessionId } = open.result as { sessionId: string };
		const original = fs.readFileSync(file);
		const otherBefore = fs.readFileSync(other);
		fs.renameSync(file, `${file}.moved`);
		fs.symlinkSync(other, file);
		const r = await router.handle("setLabel", { sessionId, entryId: "unknown-active", label: "through the link" });
		expect(r).toMatchObject({ ok: false, error: { code: "conflict" } });
		expect((r as { error: { message: string } }).error.message).toMatch(/replaced by a symbolic link since it was opened; nothing was written/);
		expect(fs.readFileSync(other).equals(otherBefore)).toBe(true);
		expect(fs.readFileSync(`${file}.moved`).equals(original)).toBe(true);
	});
});
