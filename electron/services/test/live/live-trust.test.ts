// What Arbor's end of the live channel trusts (docs/live.md "Security"), against fake pi endpoints for what a
// real pi never does: a socket another user made, a pid that is another user's, an endpoint that never
// answers, one that sends malformed events or answers with another version's results.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { build } from "esbuild";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LiveEvent, LiveRegistration } from "../../../../shared/live";
import { LiveConnection } from "../../live/connection";
import type { ArborEvent } from "../../../../shared/api";
import { connectToHolder, LiveService } from "../../live/live-service";
import { IDLE_STATE } from "../../../../pi-extension/test/helpers/state-only";

const client = { name: "arbor-test", version: "0" };
const NOBODY = 65534;
let tmp: string;
let servers: net.Server[] = [];

const state = IDLE_STATE;
const welcome = { type: "welcome", protocol: 1, agent: "pi", agentVersion: "1.6.0", extensionVersion: "0.9", capabilities: ["navigate"], state };

beforeEach(() => {
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-trust-"));
	fs.chmodSync(tmp, 0o755);
});
afterEach(() => {
	for (const s of servers) s.close();
	servers = [];
	fs.rmSync(tmp, { recursive: true, force: true });
});

/**
 * A fake pi: listens on `<dir>/<pid>.sock`, records every byte it receives, and answers each line with what
 * `reply` returns (lines to send back; none: silence).
 */
async function fakePi(dir: string, reply: (line: unknown) => unknown[] = () => []): Promise<{ reg: LiveRegistration; received: () => string }> {
	fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
	const socket = path.join(dir, `${process.pid}.sock`);
	let received = "";
	const server = net.createServer((s) => {
		s.setEncoding("utf8");
		let buf = "";
		s.on("data", (d: string) => {
			received += d;
			buf += d;
			let nl;
			while ((nl = buf.indexOf("\n")) >= 0) {
				const line = JSON.parse(buf.slice(0, nl)) as unknown;
				buf = buf.slice(nl + 1);
				for (const out of reply(line)) s.write(`${JSON.stringify(out)}\n`);
			}
		});
		s.on("error", () => {});
	});
	servers.push(server);
	await new Promise<void>((r) => server.listen(socket, r));
	fs.chmodSync(socket, 0o600);
	const reg: LiveRegistration = {
		protocol: 1,
		pid: process.pid,
		agent: "pi",
		agentVersion: "1.6.0",
		extensionVersion: "0.9",
		sessionFile: path.join(tmp, "s.jsonl"),
		socket,
		secret: "the-users-secret",
		startedAt: Date.now(),
	};
	return { reg, received: () => received };
}

/** A fake pi that shakes hands and then answers requests with `answer(request)` (undefined: never). */
const handshakeThen =
	(answer: (req: { id: number; request: { name: string } }) => unknown[] | undefined = () => undefined) =>
	(line: unknown): unknown[] => {
		const m = line as { type: string; id: number; request: { name: string } };
		if (m.type === "hello") return [welcome];
		return answer(m) ?? [];
	};

describe.skipIf(process.platform === "win32")("Arbor's end of the live channel", () => {
	it.skipIf(process.getuid?.() !== 0)("sends nothing to a socket whose folder is another user's, and drops its registration", async () => {
		const dir = path.join(tmp, "theirs");
		const pi = await fakePi(dir, handshakeThen());
		fs.chownSync(dir, NOBODY, NOBODY);
		fs.chownSync(pi.reg.socket, NOBODY, NOBODY);
		await expect(LiveConnection.connect(pi.reg, client)).rejects.toMatchObject({
			code: "untrusted",
			message: expect.stringContaining(`belongs to another user (uid ${NOBODY})`),
		});
		// Through the registry as the app and the CLI find pis: no connection, the registration is gone.
		const live = path.join(tmp, "home", ".arbor", "live");
		fs.mkdirSync(live, { recursive: true, mode: 0o700 });
		fs.writeFileSync(path.join(live, `${pi.reg.pid}.json`), JSON.stringify(pi.reg), { mode: 0o600 });
		expect(await connectToHolder(live, pi.reg.sessionFile!, client)).toBeNull();
		expect(fs.readdirSync(live)).toEqual([]);
		expect(pi.received()).toBe("");
	});

	it("sends nothing to a socket in a folder others can open, or to a socket others can write", async () => {
		const open = await fakePi(path.join(tmp, "open"), handshakeThen());
		fs.chmodSync(path.dirname(open.reg.socket), 0o755);
		await expect(LiveConnection.connect(open.reg, client)).rejects.toMatchObject({ code: "untrusted", message: expect.stringContaining("mode 0755") });
		const wide = await fakePi(path.join(tmp, "wide"), handshakeThen());
		fs.chmodSync(wide.reg.socket, 0o666);
		await expect(LiveConnection.connect(wide.reg, client)).rejects.toMatchObject({ code: "untrusted", message: expect.stringContaining("mode 0666") });
		expect(open.received() + wide.received()).toBe("");
	});

	it.skipIf(process.getuid?.() !== 0)("counts another user's process at a registration's pid as gone (EPERM), not alive", async () => {
		// pidAlive as an unprivileged user, on a pid that is root's (this test's own): kill(pid, 0) gives EPERM.
		const out = path.join(tmp, "pid.mjs");
		await build({
			entryPoints: [path.resolve(import.meta.dirname, "../../../../shared-node/pid.ts")],
			outfile: out,
			format: "esm",
			platform: "node",
			logLevel: "silent",
		});
		fs.chmodSync(out, 0o644);
		const run = spawnSync(
			"/usr/bin/env",
			["node", "--input-type=module", "-e", `import { pidAlive } from ${JSON.stringify(out)}; console.log(pidAlive(${process.pid}))`],
			{
				uid: NOBODY,
				gid: NOBODY,
				encoding: "utf8",
			},
		);
		expect(run.stderr).toBe("");
		expect(run.stdout.trim()).toBe("false");
	});

	it("gives up on a pi that accepts the connection and never answers: 'pi N did not answer'", async () => {
		const pi = await fakePi(path.join(tmp, "silent"));
		await expect(LiveConnection.connect(pi.reg, client, { answerMs: 300 })).rejects.toMatchObject({
			code: "timeout",
			message: `pi ${pi.reg.pid} did not answer within 300 ms (is it stopped or stuck?)`,
		});
	});

	it("bounds each request: a quick one fails when pi is silent; a long one waits only while pi answers its pings", async () => {
		let pings = 0;
		let answerPings = true;
		const pi = await fakePi(
			path.join(tmp, "slow"),
			handshakeThen((m) => {
				if (m.request.name === "state" && answerPings) {
					pings++;
					return [{ type: "response", id: m.id, ok: true, result: state }];
				}
				return undefined;
			}),
		);
		const conn = await LiveConnection.connect(pi.reg, client, { answerMs: 200 });
		try {
			await expect(conn.request({ name: "label", entryId: "e", label: "x" })).rejects.toMatchObject({
				code: "timeout",
				message: expect.stringMatching(/^pi \d+ did not answer label within 200 ms/),
			});
			// A summary may take long: Arbor keeps waiting while pi answers pings, and stops once it does not.
			const long = conn.request({ name: "navigate", targetId: "e", summarize: true });
			const failed = long.catch((e: unknown) => e);
			while (pings < 3) await new Promise((r) => setTimeout(r, 50));
			answerPings = false;
			expect(await failed).toMatchObject({ code: "timeout", message: expect.stringMatching(/did not answer navigate \(nor a check that it is alive\)/) });
		} finally {
			conn.close();
		}
	});

	it("drops a malformed event with a warning and keeps the channel: a stream update with content [null] never reaches the app", async () => {
		let sock: net.Socket | null = null;
		const pi = await fakePi(path.join(tmp, "bad-events"), handshakeThen());
		servers[0]!.on("connection", (s) => (sock = s));
		const conn = await LiveConnection.connect(pi.reg, client);
		const events: LiveEvent[] = [];
		const warnings: string[] = [];
		conn.onEvent((e) => events.push(e));
		conn.onWarning((w) => warnings.push(w));
		const bad = { type: "message_update", phase: "update", stream: { key: "0.0", parentId: null, message: { role: "assistant", content: [null] } } };
		sock!.write(`${JSON.stringify({ type: "event", event: bad })}\n${JSON.stringify({ type: "event", event: { type: "state", state } })}\n`);
		while (events.length === 0) await new Promise((r) => setTimeout(r, 20));
		expect(events).toEqual([{ type: "state", state }]);
		expect(warnings).toEqual([`pi ${pi.reg.pid}: malformed message_update event dropped (stream.message.content[0] must be an object)`]);
		expect(conn.closed).toBe(false);
		conn.close();
	});

	it("refuses an answer of another version's shape with a clear error, not a crash deep inside", async () => {
		const pi = await fakePi(
			path.join(tmp, "old-version"),
			handshakeThen((m) => [{ type: "response", id: m.id, ok: true, result: { cancelled: "no" } }]),
		);
		const conn = await LiveConnection.connect(pi.reg, client);
		await expect(conn.request({ name: "fork", entryId: "e" })).rejects.toMatchObject({
			code: "bad_answer",
			message: expect.stringContaining("Arbor extension 0.9 answered fork with a result this Arbor cannot read (fork result: cancelled must be a boolean)"),
		});
		conn.close();
	});

	it("opening a file a silent pi holds answers: file mode, with a notice that pi did not answer, and the registration kept", async () => {
		const pi = await fakePi(path.join(tmp, "home", ".arbor", "live"));
		fs.writeFileSync(path.join(path.dirname(pi.reg.socket), `${pi.reg.pid}.json`), JSON.stringify(pi.reg), { mode: 0o600 });
		const events: ArborEvent[] = [];
		const live = new LiveService({ dir: path.dirname(pi.reg.socket), client, emit: (e) => events.push(e), watch: false, answerMs: 300 });
		try {
			await live.track("s1", pi.reg.sessionFile!);
			expect(live.connection("s1")).toBeNull();
			expect(events).toEqual([
				{
					type: "notice",
					sessionId: "s1",
					level: "warning",
					message: `A live pi holds this file but Arbor could not connect: pi ${pi.reg.pid} did not answer within 300 ms (is it stopped or stuck?)`,
					source: "live",
				},
			]);
			expect(fs.existsSync(path.join(path.dirname(pi.reg.socket), `${pi.reg.pid}.json`))).toBe(true);
		} finally {
			live.dispose();
		}
	});
});
