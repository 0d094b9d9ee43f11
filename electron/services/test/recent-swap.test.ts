// Issue #28 item 2 through the real router and services: Open Recent reopens what the user chose, by its real
// path and identity. A recent file replaced by a symbolic link to a file outside every served folder is refused
// in a later run with a clear error; nothing is opened, nothing is written to the link's target.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createRouter } from "../../api/router";
import { RecentFiles } from "../recent-files";
import { RECENT_FILES_MAX, SettingsStore } from "../settings";
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

describe("RecentFiles: each rule on its own, on real files", () => {
	let dir: string;
	let recent: RecentFiles;
	let settings: SettingsStore;
	const identities = () => JSON.parse(fs.readFileSync(path.join(dir, "settings", "recent-files.json"), "utf8")) as Record<string, unknown>;
	const writeIdentities = (ids: unknown) => fs.writeFileSync(path.join(dir, "settings", "recent-files.json"), JSON.stringify(ids));

	beforeEach(() => {
		dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "arbor-recent-")));
		settings = new SettingsStore(path.join(dir, "settings"), path.join(dir, "agent"));
		recent = new RecentFiles(settings, path.join(dir, "settings"));
	});
	afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

	const make = (name: string, text = "x\n") => {
		const p = path.join(dir, name);
		fs.writeFileSync(p, text);
		return p;
	};

	it("a file never opened is not recent, though it exists; an opened one is the same file", () => {
		const a = make("a.jsonl");
		expect(recent.check(a)).toEqual({ kind: "not_recent" });
		recent.record(a);
		expect(recent.check(a)).toEqual({ kind: "same", path: a });
		expect(recent.check(make("b.jsonl"))).toEqual({ kind: "not_recent" });
	});

	it("records the real path of a file opened through a link, with a private identity file", () => {
		const a = make("a.jsonl");
		fs.symlinkSync(a, path.join(dir, "link.jsonl"));
		recent.record(path.join(dir, "link.jsonl"));
		expect(settings.load().recentFiles).toEqual([a]);
		expect(recent.check(a)).toEqual({ kind: "same", path: a });
		expect(recent.check(path.join(dir, "link.jsonl"))).toEqual({ kind: "not_recent" });
		const st = fs.statSync(a);
		expect(identities()).toEqual({ [a]: { dev: st.dev, ino: st.ino } });
		// Written like settings.json beside it: tab-indented, ending in a newline.
		expect(fs.readFileSync(path.join(dir, "settings", "recent-files.json"), "utf8")).toBe(
			`{\n\t${JSON.stringify(a)}: {\n\t\t"dev": ${st.dev},\n\t\t"ino": ${st.ino}\n\t}\n}\n`,
		);
		expect(fs.statSync(path.join(dir, "settings", "recent-files.json")).mode & 0o777).toBe(0o600);
	});

	it("a file written to in place (same inode) is still the same file", () => {
		const a = make("a.jsonl");
		recent.record(a);
		fs.appendFileSync(a, "more\n");
		expect(recent.check(a)).toEqual({ kind: "same", path: a });
	});

	it("deleted: it no longer exists; swapped for a link: where it leads; a folder in its place: no longer a regular file", () => {
		const a = make("a.jsonl");
		const b = make("b.jsonl");
		const c = make("c.jsonl");
		const target = make("target.jsonl");
		for (const f of [a, b, c]) recent.record(f);
		fs.rmSync(a);
		expect(recent.check(a)).toEqual({ kind: "changed", reason: "it no longer exists" });
		fs.rmSync(b);
		fs.symlinkSync(target, b);
		expect(recent.check(b)).toEqual({ kind: "changed", reason: `it now leads to ${target}` });
		fs.rmSync(c);
		fs.mkdirSync(c);
		expect(recent.check(c)).toEqual({ kind: "changed", reason: "it is no longer a regular file" });
	});

	it("another file at the path: refused when its device or its inode differs, either one", () => {
		const a = make("a.jsonl");
		recent.record(a);
		const st = fs.statSync(a);
		const replaced = { kind: "changed", reason: "another file has replaced it since you opened it" };
		writeIdentities({ [a]: { dev: st.dev + 1, ino: st.ino } });
		expect(recent.check(a)).toEqual(replaced);
		writeIdentities({ [a]: { dev: st.dev, ino: st.ino + 1 } });
		expect(recent.check(a)).toEqual(replaced);
		writeIdentities({ [a]: { dev: st.dev, ino: st.ino } });
		expect(recent.check(a)).toEqual({ kind: "same", path: a });
	});

	it("an entry with no usable identity (an older Arbor's, or a damaged file) is held to its real path only", () => {
		const a = make("a.jsonl");
		recent.record(a);
		for (const ids of [{}, [], "x", null, { [a]: { dev: "1", ino: 1 } }, { [a]: { dev: 1 } }, { [a]: { ino: 1 } }, { [a]: 5 }]) {
			writeIdentities(ids);
			expect(recent.check(a), JSON.stringify(ids)).toEqual({ kind: "same", path: a });
		}
		fs.rmSync(path.join(dir, "settings", "recent-files.json"));
		expect(recent.check(a)).toEqual({ kind: "same", path: a });
	});

	it("keeps the identities of the files still in Open Recent only, the newest first up to the limit", () => {
		const files = Array.from({ length: RECENT_FILES_MAX + 1 }, (_, i) => make(`f${i}.jsonl`));
		for (const f of files.slice(0, RECENT_FILES_MAX)) recent.record(f);
		expect(Object.keys(identities()).sort()).toEqual(files.slice(0, RECENT_FILES_MAX).sort());
		recent.record(files[RECENT_FILES_MAX]);
		expect(Object.keys(identities()).sort()).toEqual(files.slice(1).sort());
		expect(recent.check(files[0])).toEqual({ kind: "not_recent" });
		// A damaged entry of a kept file is dropped, the others kept, on the next record.
		writeIdentities({ ...identities(), [files[1]]: { dev: "x" } });
		recent.record(files[2]);
		expect(identities()[files[1]]).toBeUndefined();
		expect(Object.keys(identities())).toHaveLength(RECENT_FILES_MAX - 1);
	});
});
