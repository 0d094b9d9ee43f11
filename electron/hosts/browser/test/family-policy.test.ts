// Issue #23 item 2: the family must never walk around the path policy. A served file whose header names a
// parent outside the served folder, and a child of it in pi's folder (not served), through a real browser
// host and a real WebSocket: the family names the outside parent and carries none of its content, the
// unserved child is not listed, and no other request accepts either path afterwards.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionFamily, SessionSummary } from "../../../../shared/api";
import { startBrowserHost, type BrowserHost } from "../server";
import { connect, type TestClient } from "./ws-client";

let host: BrowserHost | undefined;
let client: TestClient | undefined;

afterEach(async () => {
	client?.close();
	await host?.close();
	host = undefined;
	client = undefined;
});

function session(file: string, id: string, parentSession: string | undefined, words: string): void {
	const header = { type: "session", version: 3, id, timestamp: "2026-12-01T00:00:00.000Z", cwd: "/home/me/app", ...(parentSession ? { parentSession } : {}) };
	const msg = (eid: string, parentId: string | null, role: string, text: string) =>
		JSON.stringify({ type: "message", id: eid, parentId, timestamp: "2026-12-01T00:00:01.000Z", message: { role, content: text, timestamp: 1 } });
	writeFileSync(file, [JSON.stringify(header), msg(`${id}-a`, null, "user", words), msg(`${id}-b`, `${id}-a`, "user", `${words} again`)].join("\n") + "\n");
}

function setup() {
	const home = realpathSync(mkdtempSync(join(tmpdir(), "arbor-fampol-")));
	const served = join(home, "served");
	const outsideDir = join(home, "elsewhere");
	const piProject = join(home, ".pi", "agent", "sessions", "--home-me-app--");
	for (const d of [served, outsideDir, piProject]) mkdirSync(d, { recursive: true });
	const parent = join(outsideDir, "parent.jsonl");
	session(parent, "parent", undefined, "OUTSIDE-PARENT-SECRET");
	const child = join(served, "child.jsonl");
	session(child, "child", parent, "served child words");
	const piChild = join(piProject, "pi-child.jsonl");
	session(piChild, "pichild", child, "PI-FOLDER-CHILD-SECRET");
	return { home, served, parent, child, piChild };
}

describe("getFamily under the path policy (browser host, arbor serve DIR)", () => {
	it("names an outside parent without its content, lists no unserved child, and widens no other request", async () => {
		const { home, served, parent, child, piChild } = setup();
		const before = { parent: readFileSync(parent), piChild: readFileSync(piChild) };
		host = await startBrowserHost({
			dirs: [served],
			rendererDir: home,
			servicesOptions: { settingsDir: join(home, ".arbor"), piAgentDir: join(home, ".pi", "agent"), env: {}, watch: false },
			log: () => {},
		});
		client = await connect(host.port, { token: host.token, headers: { Origin: `http://127.0.0.1:${host.port}` } });
		const c = client;

		const opened = await c.request("openSession", { path: child });
		if (!opened.ok) throw new Error(opened.error.message);
		const { sessionId } = opened.result as SessionSummary;

		const fam = await c.request("getFamily", { path: child });
		if (!fam.ok) throw new Error(fam.error.message);
		const family = fam.result as SessionFamily;
		const wire = JSON.stringify(family);
		expect(wire).not.toContain("OUTSIDE-PARENT-SECRET");
		expect(wire).not.toContain("PI-FOLDER-CHILD-SECRET");
		expect(wire).not.toContain(piChild);
		expect(family.members).toEqual([
			{
				path: parent,
				parentPath: null,
				branchedAtEntryId: null,
				sessionId: null,
				title: null,
				firstPrompt: null,
				branchedAtText: null,
				entries: null,
				createdAt: null,
				outside: true,
			},
			expect.objectContaining({ path: child, parentPath: parent, branchedAtEntryId: null, sessionId: "child", entries: 2 }),
		]);

		// Neither path became acceptable: not to open, read, list or remember.
		for (const p of [parent, piChild]) {
			expect(await c.request("openSession", { path: p }), p).toMatchObject({ ok: false, error: { code: "forbidden" } });
			expect(await c.request("getFamily", { path: p }), p).toMatchObject({ ok: false, error: { code: "forbidden" } });
			expect(await c.request("setSettings", { settings: { recentFiles: [p] } }), p).toMatchObject({ ok: false, error: { code: "forbidden" } });
		}
		// Without an open session of the outside file, nothing can export, label or branch it.
		const settings = await c.request("getSettings");
		if (!settings.ok) throw new Error(settings.error.message);
		expect((settings.result as { recentFiles: string[] }).recentFiles).not.toContain(parent);
		expect(await c.request("setLabel", { sessionId: "parent", entryId: "parent-a", label: "x" })).toMatchObject({ ok: false });
		expect(await c.request("exportBranch", { sessionId: "parent", format: "md" })).toMatchObject({ ok: false });
		expect(await c.request("branchToFile", { sessionId: "parent", entryId: "parent-a" })).toMatchObject({ ok: false });
		// The served file itself still works as before.
		expect(await c.request("exportBranch", { sessionId, format: "md" })).toMatchObject({ ok: true });
		expect(readFileSync(parent).equals(before.parent)).toBe(true);
		expect(readFileSync(piChild).equals(before.piChild)).toBe(true);
	});
});
