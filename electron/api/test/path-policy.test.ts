import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import type { SessionListItem } from "../../../shared/api";
import { PathPolicy } from "../path-policy";
import { createRouter } from "../router";
import { fakeServices, summary } from "./fake-services";

let root: string;
let allowedDir: string;
let secret: string;
let chosen: string;

beforeEach(() => {
	root = realpathSync(mkdtempSync(join(tmpdir(), "arbor-policy-")));
	allowedDir = join(root, "sessions");
	mkdirSync(allowedDir);
	writeFileSync(join(allowedDir, "a.jsonl"), "{}\n");
	secret = join(root, "secret.txt");
	writeFileSync(secret, "id_rsa\n");
	chosen = join(root, "chosen.jsonl");
	writeFileSync(chosen, "{}\n");
});

function setup() {
	const fake = fakeServices({
		openSession: (p: { path: string }) => summary(`id:${p.path}`, p.path),
		listSessions: (p: { dirs?: string[] }) => listed(p.dirs),
		branchToFile: () => ({ cancelled: false, path: join(root, "branched.jsonl"), editorText: "", session: null }),
		getSettings: () => ({ recentFiles: [] }),
		setSettings: () => ({}),
	});
	const router = createRouter({ services: fake.services, log: () => {} });
	return { fake, router };
}

let listedFiles: string[] = [];
function listed(dirs: string[] | undefined): SessionListItem[] {
	void dirs;
	return listedFiles.map((path) => ({
		path,
		project: root,
		source: "pi",
		sessionId: null,
		title: null,
		firstUserMessage: null,
		mtimeMs: 0,
		modifiedMs: 0,
		size: 0,
		entryCount: 0,
		entryCountExact: true,
	}));
}

describe("path policy: openSession opens only files the user chose", () => {
	it("refuses a file nobody allowed, without calling the service", async () => {
		const { fake, router } = setup();
		expect(await router.handle("openSession", { path: secret })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect(fake.calls.filter((c) => c.name === "openSession")).toEqual([]);
	});

	it("opens a file the host registered (command line, dialog, drop)", async () => {
		const { router } = setup();
		await router.allowPath(chosen);
		expect(await router.handle("openSession", { path: chosen })).toMatchObject({ ok: true });
	});

	it("reopens a recent file from an earlier run (recentFiles only ever holds files the user opened)", async () => {
		const fake = fakeServices({
			openSession: (p: { path: string }) => summary(`id:${p.path}`, p.path),
			getSettings: () => ({ recentFiles: [chosen] }),
		});
		const router = createRouter({ services: fake.services, log: () => {} });
		expect(await router.handle("openSession", { path: chosen })).toMatchObject({ ok: true });
		expect(await router.handle("openSession", { path: secret })).toMatchObject({ ok: false, error: { code: "forbidden" } });
	});

	it("refuses relative paths", async () => {
		const { router } = setup();
		await router.allowPath(chosen);
		expect(await router.handle("openSession", { path: "chosen.jsonl" })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		// Even one that resolves, from the host's working directory, to the very file the user chose.
		const fromCwd = relative(process.cwd(), chosen);
		expect(resolve(fromCwd)).toBe(chosen);
		expect(await router.handle("openSession", { path: fromCwd })).toMatchObject({ ok: false, error: { code: "forbidden" } });
	});

	it("opens files inside an allowed directory but not `..` escapes from it", async () => {
		const { router } = setup();
		await router.allowDir(allowedDir);
		expect(await router.handle("openSession", { path: join(allowedDir, "a.jsonl") })).toMatchObject({ ok: true });
		expect(await router.handle("openSession", { path: `${allowedDir}/../secret.txt` })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		// A sibling whose name starts with the allowed directory's name is not inside it.
		mkdirSync(`${allowedDir}-evil`);
		writeFileSync(`${allowedDir}-evil/x.jsonl`, "{}\n");
		expect(await router.handle("openSession", { path: `${allowedDir}-evil/x.jsonl` })).toMatchObject({ ok: false, error: { code: "forbidden" } });
	});

	it("refuses a symlink inside an allowed directory that points outside it", async () => {
		const { router } = setup();
		symlinkSync(secret, join(allowedDir, "link.jsonl"));
		symlinkSync(root, join(allowedDir, "up"));
		await router.allowDir(allowedDir);
		expect(await router.handle("openSession", { path: join(allowedDir, "link.jsonl") })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect(await router.handle("openSession", { path: join(allowedDir, "up", "secret.txt") })).toMatchObject({ ok: false, error: { code: "forbidden" } });
	});

	it("a file that does not exist yet is judged by its resolved folder: under a symlink leading out it is refused, in a real subfolder it reaches the service", async () => {
		const { fake, router } = setup();
		const outside = join(root, "outside");
		mkdirSync(outside);
		symlinkSync(outside, join(allowedDir, "out"));
		mkdirSync(join(allowedDir, "sub"));
		await router.allowDir(allowedDir);
		// Nothing exists at either path: no realpath of the file itself, only of its folder.
		const viaLink = join(allowedDir, "out", "new.jsonl");
		const inSub = join(allowedDir, "sub", "new.jsonl");
		expect(await router.handle("openSession", { path: viaLink })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect(fake.calls.filter((c) => c.name === "openSession")).toEqual([]);
		expect(await router.handle("openSession", { path: inSub })).toMatchObject({ ok: true });
		expect(fake.calls.filter((c) => c.name === "openSession").map((c) => c.params)).toEqual([{ path: inSub }]);
	});

	it("hands the service the resolved real path", async () => {
		const { fake, router } = setup();
		await router.allowDir(allowedDir);
		await router.handle("openSession", { path: `${allowedDir}/./a.jsonl` });
		expect(fake.calls.find((c) => c.name === "openSession")?.params).toEqual({ path: join(allowedDir, "a.jsonl") });
	});

	it("opens files the session library listed", async () => {
		const { router } = setup();
		listedFiles = [chosen];
		expect(await router.handle("openSession", { path: chosen })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect(await router.handle("listSessions", {})).toMatchObject({ ok: true });
		expect(await router.handle("openSession", { path: chosen })).toMatchObject({ ok: true });
		listedFiles = [];
	});

	it("re-checks a listed file on every open: swapped for a symlink out of its folder it is refused; a link inside stays fine", async () => {
		const { unlinkSync } = await import("node:fs");
		const { fake, router } = setup();
		const listedFile = join(allowedDir, "a.jsonl");
		listedFiles = [listedFile];
		expect(await router.handle("listSessions", {})).toMatchObject({ ok: true });
		expect(await router.handle("openSession", { path: listedFile })).toMatchObject({ ok: true });
		// After the listing, the file becomes a symlink to a secret outside the library.
		unlinkSync(listedFile);
		symlinkSync(secret, listedFile);
		const before = fake.calls.filter((c) => c.name === "openSession").length;
		expect(await router.handle("openSession", { path: listedFile })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect(fake.calls.filter((c) => c.name === "openSession").length).toBe(before);
		// A symlink to another file of the same folder is still inside it.
		writeFileSync(join(allowedDir, "b.jsonl"), "{}\n");
		unlinkSync(listedFile);
		symlinkSync(join(allowedDir, "b.jsonl"), listedFile);
		expect(await router.handle("openSession", { path: listedFile })).toMatchObject({ ok: true });
		listedFiles = [];
	});

	it("lists only allowed directories when the client names some", async () => {
		const { router } = setup();
		expect(await router.handle("listSessions", { dirs: [root] })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		await router.allowDir(allowedDir);
		expect(await router.handle("listSessions", { dirs: [allowedDir] })).toMatchObject({ ok: true });
	});

	it("restricts the library to the host's directories (arbor serve DIR)", async () => {
		const fake = fakeServices({ listSessions: () => [] });
		const router = createRouter({ services: fake.services, libraryDirs: [allowedDir], log: () => {} });
		await router.handle("listSessions", {});
		expect(fake.calls).toEqual([{ name: "listSessions", params: { dirs: [allowedDir] } }]);
	});

	it("opens a file Arbor created by branching (result and session_branch event)", async () => {
		const { fake, router } = setup();
		const branched = join(root, "branched.jsonl");
		writeFileSync(branched, "{}\n");
		expect(await router.handle("openSession", { path: branched })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect(await router.handle("branchToFile", { sessionId: "s", entryId: "e" })).toMatchObject({ ok: true });
		expect(await router.handle("openSession", { path: branched })).toMatchObject({ ok: true });

		const other = join(root, "other-branch.jsonl");
		writeFileSync(other, "{}\n");
		fake.emit({ type: "session_branch", sessionId: "s", newPath: other, newSessionId: null });
		expect(await router.handle("openSession", { path: other })).toMatchObject({ ok: true });
	});

	it("refuses recent-file entries the user never opened", async () => {
		const { router } = setup();
		expect(await router.handle("setSettings", { settings: { recentFiles: [secret] } })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		await router.allowPath(chosen);
		// Allowed is not yet opened.
		expect(await router.handle("setSettings", { settings: { recentFiles: [chosen] } })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect(await router.handle("openSession", { path: chosen })).toMatchObject({ ok: true });
		expect(await router.handle("setSettings", { settings: { recentFiles: [chosen] } })).toMatchObject({ ok: true });
	});

	it("refuses a not-yet-existing path in an allowed folder as a recent file (a symlink put there later would lead out)", async () => {
		const { router } = setup();
		await router.allowDir(allowedDir);
		const later = join(allowedDir, "later.jsonl");
		expect(await router.handle("setSettings", { settings: { recentFiles: [later] } })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		symlinkSync(secret, later);
		expect(await router.handle("openSession", { path: later })).toMatchObject({ ok: false, error: { code: "forbidden" } });
	});

	it("opens launch files and answers getInitialSessions with them", async () => {
		const { router } = setup();
		const { opened, failed } = await router.openInitial([chosen]);
		expect(failed).toEqual([]);
		expect(opened.map((s) => s.path)).toEqual([chosen]);
		expect(await router.handle("getInitialSessions", {})).toEqual({ ok: true, result: opened });
	});

	it("opens the dialog's choice through the host handler", async () => {
		const fake = fakeServices({ openSession: (p: { path: string }) => summary("d", p.path) });
		const router = createRouter({ services: fake.services, host: { showOpenDialog: async () => chosen }, log: () => {} });
		expect(await router.handle("showOpenDialog", {})).toMatchObject({ ok: true, result: { path: chosen } });
		const cancelled = createRouter({ services: fake.services, host: { showOpenDialog: async () => null }, log: () => {} });
		expect(await cancelled.handle("showOpenDialog", {})).toEqual({ ok: true, result: null });
	});
});

// PathPolicy itself, rule by rule on real files and links (root, allowedDir, secret, chosen: beforeEach above).
describe("PathPolicy: each rule on both sides", () => {
	const link = (target: string, at: string) => {
		symlinkSync(target, at);
		return at;
	};

	it("an allowed file not made yet is allowed by its path, then and once it exists", async () => {
		const p = new PathPolicy();
		const future = join(root, "future.jsonl");
		await p.allowFile(future);
		expect(await p.check(future)).toBe(future);
		writeFileSync(future, "{}\n");
		expect(await p.check(future)).toBe(future);
		expect(await p.check(join(root, "other.jsonl"))).toBeNull();
	});

	it("an allowed file is allowed through any path that resolves to it; the answer is its real path", async () => {
		const p = new PathPolicy();
		await p.allowFile(join(root, "sessions", "..", "chosen.jsonl"));
		expect(await p.check(chosen)).toBe(chosen);
		expect(await p.check(link(chosen, join(root, "alias.jsonl")))).toBe(chosen);
		expect(await p.check(join(allowedDir, "..", "chosen.jsonl"))).toBe(chosen);
		expect(await p.check(secret)).toBeNull();
	});

	it("a file allowed through a link stays allowed by that name: the answer is where the link leads now", async () => {
		const p = new PathPolicy();
		const name = link(chosen, join(root, "named.jsonl"));
		await p.allowFile(name);
		expect(await p.check(name)).toBe(chosen);
		expect(await p.check(chosen)).toBe(chosen);
		const moved = join(root, "moved.jsonl");
		writeFileSync(moved, "{}\n");
		rmSync(name);
		symlinkSync(moved, name);
		expect(await p.check(name)).toBe(moved);
		// The new target by its own path was never chosen.
		expect(await p.check(moved)).toBeNull();
	});

	it("a folder is allowed by its path and its real path (dirs lists both), even one made after it was allowed", async () => {
		const p = new PathPolicy();
		const via = link(allowedDir, join(root, "via"));
		await p.allowDir(via);
		expect(p.dirs).toEqual([via, allowedDir]);
		expect(await p.check(join(allowedDir, "a.jsonl"))).toBe(join(allowedDir, "a.jsonl"));
		expect(await p.check(join(via, "a.jsonl"))).toBe(join(allowedDir, "a.jsonl"));
		const later = new PathPolicy();
		const made = join(root, "made-later");
		await later.allowDir(made);
		expect(later.dirs).toEqual([made]);
		mkdirSync(made);
		writeFileSync(join(made, "x.jsonl"), "{}\n");
		expect(await later.check(join(made, "x.jsonl"))).toBe(join(made, "x.jsonl"));
		expect(new PathPolicy().dirs).toEqual([]);
	});

	it("a listed file: allowed while it is a plain file, or a link inside its folder; not once it leads out", async () => {
		const p = new PathPolicy();
		const plain = join(allowedDir, "a.jsonl");
		mkdirSync(join(allowedDir, "sub"));
		writeFileSync(join(allowedDir, "sub", "b.jsonl"), "{}\n");
		const inside = link(join(allowedDir, "sub", "b.jsonl"), join(allowedDir, "inside.jsonl"));
		const sibling = join(root, "sessions-2");
		mkdirSync(sibling);
		writeFileSync(join(sibling, "c.jsonl"), "{}\n");
		const toSibling = link(join(sibling, "c.jsonl"), join(allowedDir, "to-sibling.jsonl"));
		const toSecret = link(secret, join(allowedDir, "to-secret.jsonl"));
		for (const f of [plain, inside, toSibling, toSecret]) p.allowListedFile(f);
		expect(await p.check(plain)).toBe(plain);
		expect(await p.check(inside)).toBe(join(allowedDir, "sub", "b.jsonl"));
		expect(await p.check(toSibling)).toBeNull();
		expect(await p.check(toSecret)).toBeNull();
		// A link to the listing folder itself does not lead out of it: passed on (the service then refuses a folder).
		const toFolder = link(allowedDir, join(allowedDir, "to-folder.jsonl"));
		p.allowListedFile(toFolder);
		expect(await p.check(toFolder)).toBe(allowedDir);
		// Listed by its literal path only: the target of `inside` by its own path was not listed.
		expect(await p.check(join(allowedDir, "sub", "b.jsonl"))).toBeNull();
	});

	it("a listed file gone since the listing is passed on by its path (the service reports it missing)", async () => {
		const p = new PathPolicy();
		const gone = join(allowedDir, "gone.jsonl");
		writeFileSync(gone, "{}\n");
		p.allowListedFile(gone);
		rmSync(gone);
		expect(await p.check(gone)).toBe(gone);
	});

	it("a listed plain file is allowed whatever its listing folder; a listed link needs that folder to exist and hold its target", async () => {
		const p = new PathPolicy();
		const plain = join(allowedDir, "a.jsonl");
		p.allowListedFile(plain, join(root, "no-such-folder"));
		expect(await p.check(plain)).toBe(plain);
		const l = link(chosen, join(allowedDir, "l.jsonl"));
		p.allowListedFile(l, join(root, "no-such-folder"));
		expect(await p.check(l)).toBeNull();
		const q = new PathPolicy();
		q.allowListedFile(l, root);
		expect(await q.check(l)).toBe(chosen);
		// The listing folder "/" holds everything.
		const r = new PathPolicy();
		r.allowListedFile(l, "/");
		expect(await r.check(l)).toBe(chosen);
	});

	it("isDirAllowed: an allowed folder and folders inside it; not a relative path, a NUL, a folder that is not there, or a sibling", async () => {
		const p = new PathPolicy();
		await p.allowDir(allowedDir);
		mkdirSync(join(allowedDir, "sub"));
		mkdirSync(join(root, "sessions-2"));
		expect(await p.isDirAllowed(allowedDir)).toBe(true);
		expect(await p.isDirAllowed(join(allowedDir, "sub"))).toBe(true);
		expect(await p.isDirAllowed(link(join(allowedDir, "sub"), join(root, "into")))).toBe(true);
		expect(await p.isDirAllowed(relative(process.cwd(), allowedDir))).toBe(false);
		expect(await p.isDirAllowed(`${allowedDir}\0`)).toBe(false);
		expect(await p.isDirAllowed(join(allowedDir, "missing"))).toBe(false);
		expect(await p.isDirAllowed(join(root, "sessions-2"))).toBe(false);
		expect(await p.isDirAllowed(root)).toBe(false);
	});
});
