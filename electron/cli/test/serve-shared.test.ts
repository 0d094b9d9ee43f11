// One browser host per user (issue #27): a plain `arbor serve FILE` records itself in ~/.arbor/host.json (0600);
// a later one hands its file to it through the control door and exits 0; the first host opens the file and sends
// it to its connected page as a new tab. The door refuses browsers, requests without a proof (the secret itself
// never travels: serve-host-proof.test.ts) and bad bodies; a record of a process that is gone is ignored;
// --exit-when-idle stops a host nobody uses.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connect } from "../../hosts/browser/test/ws-client";
import { watchIdle } from "../../hosts/browser/idle";
import { runServe } from "../serve";
import { CONTROL_PATH, clientProof, HELLO_PATH, hostProof, newNonce, proofHeader } from "../../hosts/browser/control";
import { type HostRecord, readHostRecord } from "../shared-host";

const fixtures = resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions");

function post(port: number, path: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
	return new Promise((ok, fail) => {
		const req = request({ host: "127.0.0.1", port, path, method: "POST", headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
			let text = "";
			res.setEncoding("utf8");
			res.on("data", (d: string) => (text += d));
			res.on("end", () => ok({ status: res.statusCode ?? 0, body: text }));
		});
		req.on("error", fail);
		req.end(body);
	});
}

describe("the user's one browser host", () => {
	const saved = { HOME: process.env.HOME, PI: process.env.PI_CODING_AGENT_DIR };
	afterEach(() => {
		process.env.HOME = saved.HOME;
		if (saved.PI === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = saved.PI;
		vi.restoreAllMocks();
	});

	it("records itself 0600, takes a later arbor serve's file as a new tab, and refuses anyone else at its door", async () => {
		const home = mkdtempSync(join(tmpdir(), "arbor-shared-home-"));
		process.env.HOME = home;
		process.env.PI_CODING_AGENT_DIR = join(home, ".pi", "agent");
		const [a, b] = ["a.jsonl", "b.jsonl"].map((n) => join(home, n));
		copyFileSync(join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), a);
		copyFileSync(join(fixtures, "formic__pi-v2-hook-message.jsonl"), b);
		let out = "";
		vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
		vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		const first = runServe([a, "--no-open"]);
		const recordFile = join(home, ".arbor", "host.json");
		await vi.waitFor(() => expect(readHostRecord(join(home, ".arbor"))).not.toBeNull(), { timeout: 10_000 });
		const record = JSON.parse(readFileSync(recordFile, "utf8")) as HostRecord;
		expect(statSync(recordFile).mode & 0o777).toBe(0o600);
		expect(record.pid).toBe(process.pid);
		const token = new URL(record.url).hash.slice("#token=".length);
		// The page's token and the door's secret are different keys.
		expect(record.secret).not.toBe(token);

		const page = await connect(record.port, { token });
		const before = await page.request("getInitialSessions");
		expect(before.ok && (before.result as { path: string }[]).map((s) => s.path)).toEqual([a]);
		const loaded = page.waitForEvent((e) => e.type === "session_loaded");

		out = "";
		expect(await runServe([b, "--no-open"])).toBe(0);
		expect(out).toContain(`Arbor is serving on ${record.url}`);
		expect(out).toMatch(/already running for you, pid \d+: opened as new tabs in its page/);
		expect(((await loaded) as { session: { path: string } }).session.path).toBe(b);

		// The door: no browser (Origin, Sec-Fetch-*), no secret on the wire (not even the right one), no proof
		// without a nonce the host handed out, no nonce twice, no proof for another body, no foreign Host, no bad body.
		const body = JSON.stringify({ files: [a], show: false });
		const hello = async (): Promise<string> => {
			const nonce = newNonce();
			const r = JSON.parse((await post(record.port, HELLO_PATH, JSON.stringify({ nonce }), {})).body) as { proof: string; nonce: string };
			expect(r.proof).toBe(hostProof(record.secret, record.port, nonce));
			return r.nonce;
		};
		const auth = (n: string, b = body) => ({ Authorization: proofHeader(n, clientProof(record.secret, record.port, n, b)) });
		expect((await post(record.port, CONTROL_PATH, body, { ...auth(await hello()), Origin: `http://127.0.0.1:${record.port}` })).status).toBe(403);
		expect((await post(record.port, CONTROL_PATH, body, { ...auth(await hello()), "Sec-Fetch-Site": "same-origin" })).status).toBe(403);
		expect((await post(record.port, HELLO_PATH, JSON.stringify({ nonce: newNonce() }), { Origin: "http://evil.example" })).status).toBe(403);
		expect((await post(record.port, CONTROL_PATH, body, { Authorization: `Bearer ${record.secret}` })).status).toBe(401);
		expect((await post(record.port, CONTROL_PATH, body, { Authorization: `Bearer ${token}` })).status).toBe(401);
		expect((await post(record.port, CONTROL_PATH, body, {})).status).toBe(401);
		expect((await post(record.port, CONTROL_PATH, body, auth(newNonce()))).status).toBe(401);
		const other = JSON.stringify({ files: ["/etc/passwd"], show: false });
		expect((await post(record.port, CONTROL_PATH, other, auth(await hello(), body))).status).toBe(401);
		expect((await post(record.port, CONTROL_PATH, body, { ...auth(await hello()), Host: `evil.example:${record.port}` })).status).toBe(403);
		expect((await post(record.port, CONTROL_PATH, '{"files":"x"}', auth(await hello(), '{"files":"x"}'))).status).toBe(400);
		expect((await post(record.port, HELLO_PATH, '{"nonce":"short"}', {})).status).toBe(400);
		const once = await hello();
		expect((await post(record.port, CONTROL_PATH, body, auth(once))).status).toBe(200);
		expect((await post(record.port, CONTROL_PATH, body, auth(once))).status).toBe(401);

		page.close();
		process.emit("SIGTERM");
		expect(await first).toBe(0);
		expect(existsSync(recordFile)).toBe(false);
	});

	it("ignores a record whose process is gone, and --exit-when-idle stops a host no page uses", async () => {
		const home = mkdtempSync(join(tmpdir(), "arbor-shared-home-"));
		process.env.HOME = home;
		process.env.PI_CODING_AGENT_DIR = join(home, ".pi", "agent");
		const a = join(home, "a.jsonl");
		copyFileSync(join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), a);
		mkdirSync(join(home, ".arbor"), { mode: 0o700 });
		// A pid that cannot be alive (above Linux's pid_max).
		writeFileSync(join(home, ".arbor", "host.json"), JSON.stringify({ pid: 2 ** 22 + 1, port: 1, url: "http://127.0.0.1:1/#token=x", secret: "s" }));
		let err = "";
		vi.spyOn(process.stdout, "write").mockImplementation(() => true);
		vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
		// 0.001 min = 60 ms without a page: it stops by itself, and removes its record.
		expect(await runServe([a, "--no-open", "--exit-when-idle=0.001"])).toBe(0);
		expect(err).toMatch(/no page and no live pi for 0\.001 min; stopping/);
		expect(existsSync(join(home, ".arbor", "host.json"))).toBe(false);
	});
});

describe("watchIdle", () => {
	it("waits while the host is in use and reports idle once it is not", async () => {
		let checks = 0;
		const idle = await new Promise<number>((ok) => {
			watchIdle(
				1,
				() => ++checks <= 5,
				() => ok(checks),
			);
		});
		// In use for five checks, then idle on the first check after them.
		expect(idle).toBe(6);
	});
});
