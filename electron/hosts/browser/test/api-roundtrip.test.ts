import { appendFileSync, copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ArborEvent, NavigateResult, SessionSummary } from "../../../../shared/api";
import type { Skeleton } from "../../../../shared/skeleton";
import { startBrowserHost, type BrowserHost } from "../server";
import { connect, type TestClient } from "./ws-client";

const fixtures = resolve(import.meta.dirname, "..", "..", "..", "..", "..", "shared", "fixtures", "sessions");

let host: BrowserHost | undefined;
let client: TestClient | undefined;

afterEach(async () => {
	client?.close();
	await host?.close();
	host = undefined;
	client = undefined;
});

async function launch(files: string[], dirs: string[] = []): Promise<{ host: BrowserHost; client: TestClient }> {
	const home = mkdtempSync(join(tmpdir(), "arbor-home-"));
	host = await startBrowserHost({
		files,
		dirs,
		rendererDir: home,
		servicesOptions: { settingsDir: join(home, ".arbor"), piAgentDir: join(home, ".pi", "agent"), env: {}, pollMs: 50 },
		log: () => {},
	});
	client = await connect(host.port, { token: host.token, headers: { Origin: `http://127.0.0.1:${host.port}` } });
	return { host, client };
}

function copyFixture(name: string): string {
	const dir = mkdtempSync(join(tmpdir(), "arbor-rt-"));
	const dest = join(dir, name);
	copyFileSync(join(fixtures, name), dest);
	return dest;
}

describe("browser host API over a real WebSocket", () => {
	it("opens the launch file, ships its skeleton as typed arrays, navigates and streams events", async () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const before = readFileSync(file);
		const { client: c } = await launch([file]);

		const initial = await c.request("getInitialSessions");
		expect(initial.ok).toBe(true);
		const sessions = (initial as { result: SessionSummary[] }).result;
		expect(sessions.map((s) => s.path)).toEqual([file]);
		const sessionId = sessions[0].sessionId;

		const sk = await c.request("getSkeleton", { sessionId });
		if (!sk.ok) throw new Error(sk.error.message);
		const skeleton = sk.result as Skeleton;
		expect(skeleton.count).toBeGreaterThan(3);
		expect(skeleton.parent).toBeInstanceOf(Int32Array);
		expect(skeleton.kind).toBeInstanceOf(Uint8Array);
		expect(skeleton.ids).toHaveLength(skeleton.count);

		// Navigate to the first entry: a non-message entry becomes the leaf.
		const target = skeleton.ids[0];
		const nav = await c.request("navigate", { sessionId, targetId: target });
		if (!nav.ok) throw new Error(nav.error.message);
		expect((nav.result as NavigateResult).cancelled).toBe(false);
		const leafEvent = await c.waitForEvent((e) => e.type === "leaf_changed" && e.sessionId === sessionId);
		expect(leafEvent).toMatchObject({ type: "leaf_changed", leafId: target });
		// Navigation moves the in-app leaf only: the file is untouched.
		expect(readFileSync(file).equals(before)).toBe(true);
	});

	it("streams entries another process appends as session_appended events", async () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const { client: c } = await launch([file]);
		const [{ sessionId }] = ((await c.request("getInitialSessions")) as { result: SessionSummary[] }).result;
		const sk = ((await c.request("getSkeleton", { sessionId })) as { result: Skeleton }).result;
		const lastId = sk.ids[sk.resumeLeaf];
		appendFileSync(
			file,
			`${JSON.stringify({ type: "message", id: "appended-1", parentId: lastId, timestamp: new Date().toISOString(), message: { role: "user", content: "from pi" } })}\n`,
		);
		const ev = await c.waitForEvent((e) => e.type === "session_appended" && e.sessionId === sessionId);
		const delta = (ev as Extract<ArborEvent, { type: "session_appended" }>).delta;
		expect(delta.ids).toContain("appended-1");
		expect(delta.parent).toBeInstanceOf(Int32Array);
	});

	it("refuses to open a file the user did not choose, over the socket", async () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const other = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		const { client: c } = await launch([file]);
		expect(await c.request("openSession", { path: other })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect(await c.request("openSession", { path: "/etc/passwd" })).toMatchObject({ ok: false, error: { code: "forbidden" } });
		expect(await c.request("showOpenDialog")).toMatchObject({ ok: false, error: { code: "unsupported" } });
	});

	it("opens files inside a served directory and lists only that directory", async () => {
		const file = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		const dir = resolve(file, "..");
		const { client: c } = await launch([], [dir]);
		const list = await c.request("listSessions");
		if (!list.ok) throw new Error(list.error.message);
		expect((list.result as { path: string }[]).map((i) => i.path)).toEqual([file]);
		expect(await c.request("openSession", { path: file })).toMatchObject({ ok: true });
	});

	it("survives malformed frames: the bad socket is closed, the host keeps serving", async () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const { host: h, client: c } = await launch([file]);
		const closed = new Promise<number>((ok) => c.ws.once("close", (code) => ok(code)));
		c.ws.send(Buffer.from("garbage that is not a frame"));
		expect(await closed).toBe(1007);
		const again = await connect(h.port, { token: h.token });
		expect((await again.request("getSettings")).ok).toBe(true);
		again.close();
	});
});
