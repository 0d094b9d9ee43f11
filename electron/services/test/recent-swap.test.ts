// Issue #28 item 2 through the real router and services: Open Recent reopens what the user chose, by its real
// path and identity. A recent file replaced by a symbolic link to a file outside every served folder is refused
// in a later run with a clear error; nothing is opened, nothing is written to the link's target.
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRouter } from "../../api/router";
import { makeServices, type TestServices } from "./helpers/services";

const fixture = path.resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions", "formic__pi-v3-branch-compaction.jsonl");
const made: TestServices[] = [];
afterEach(async () => {
	for (const t of made.splice(0)) await t.services.dispose();
});

/** A first run that opens `file` as the user's choice (it goes to Open Recent), then ends. */
async function firstRun(settingsDir: string, file: string): Promise<void> {
	const t = makeServices({ settingsDir });
	made.push(t);
	const router = createRouter({ services: t.services as never, log: () => {} });
	await router.allowPath(file);
	const open = await router.handle("openSession", { path: file });
	if (!open.ok) throw new Error(open.error.message);
	await t.services.dispose();
}

/** A later run serving another folder only. */
function laterRun(settingsDir: string, served: string) {
	const t = makeServices({ settingsDir });
	made.push(t);
	const router = createRouter({ services: t.services as never, log: () => {} });
	return { t, router, allowServed: () => router.allowDir(served) };
}

describe("Open Recent", () => {
	it("reopens a recent file that is still the file the user chose", async () => {
		const t0 = makeServices();
		made.push(t0);
		const served = path.join(t0.dir, "served");
		fs.mkdirSync(served);
		const file = path.join(served, "kept.jsonl");
		fs.copyFileSync(fixture, file);
		await firstRun(t0.settingsDir, file);
		const { router } = laterRun(t0.settingsDir, path.join(t0.dir, "elsewhere"));
		const r = await router.handle("openSession", { path: file });
		expect(r).toMatchObject({ ok: true });
	});

	it("refuses a recent file swapped for a link to a file outside the served folders; the outside file is untouched", async () => {
		const t0 = makeServices();
		made.push(t0);
		const served = path.join(t0.dir, "served");
		const other = path.join(t0.dir, "other");
		fs.mkdirSync(served);
		fs.mkdirSync(other);
		const file = path.join(served, "swap.jsonl");
		fs.copyFileSync(fixture, file);
		const outside = path.join(t0.dir, "outside.jsonl");
		fs.copyFileSync(fixture, outside);
		await firstRun(t0.settingsDir, file);

		fs.rmSync(file);
		fs.symlinkSync(outside, file);
		const before = fs.readFileSync(outside);
		const { router, allowServed } = laterRun(t0.settingsDir, other);
		await allowServed();
		const r = await router.handle("openSession", { path: file });
		expect(r).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect((r as { error: { message: string } }).error.message).toMatch(/no longer the file you opened/);
		const label = await router.handle("setLabel", { sessionId: "any", entryId: "x", label: "through the link" });
		expect(label.ok).toBe(false);
		expect(fs.readFileSync(outside).equals(before)).toBe(true);
	});

	it("refuses a recent file replaced by another file at the same path", async () => {
		const t0 = makeServices();
		made.push(t0);
		const file = path.join(t0.dir, "replaced.jsonl");
		fs.copyFileSync(fixture, file);
		await firstRun(t0.settingsDir, file);
		// Made while the original still exists, so the new file cannot take over its inode number.
		fs.copyFileSync(fixture, `${file}.new`);
		fs.renameSync(`${file}.new`, file);
		const { router } = laterRun(t0.settingsDir, path.join(t0.dir, "elsewhere"));
		const r = await router.handle("openSession", { path: file });
		expect(r).toMatchObject({ ok: false, error: { code: "forbidden" } });
	});
});
