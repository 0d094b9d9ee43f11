// What a client without the secret, or a misbehaving one, gets from the extension's channel (docs/live.md
// "Security"): no answer before a hello with the secret, a few seconds and a short line to say it, a cap on
// connections, and a sweep that removes only its own files.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ChannelLimits, CHANNEL_LIMITS, LiveChannel } from "../channel";
import { IDLE_STATE, stateOnly } from "./helpers/state-only";

let home: string;
let saved: Record<string, string | undefined>;
let channel: LiveChannel | null = null;

const state = IDLE_STATE;
const answers = stateOnly(state);

beforeEach(() => {
	home = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-channel-"));
	saved = { HOME: process.env.HOME, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
	process.env.HOME = home;
	delete process.env.XDG_RUNTIME_DIR;
});
afterEach(() => {
	channel?.close("test over");
	channel = null;
	for (const [k, v] of Object.entries(saved)) {
		if (v === undefined) delete process.env[k];
		else process.env[k] = v;
	}
	fs.rmSync(home, { recursive: true, force: true });
});

async function open(limits: Partial<ChannelLimits> = {}): Promise<LiveChannel> {
	channel = await LiveChannel.open(
		{ welcome: () => ({ agent: "pi", agentVersion: "1.6.0", extensionVersion: "1", capabilities: ["navigate"], state }), requests: answers },
		{ agent: "pi", agentVersion: "1.6.0", extensionVersion: "1" },
		{ ...CHANNEL_LIMITS, ...limits },
	);
	return channel;
}

/** A raw client: every line the channel sent it, resolved when the channel closed the connection. */
function rawClient(socket: string, send: (s: net.Socket) => void): Promise<{ lines: unknown[]; closedBy: "pi" }> {
	return new Promise((resolve, reject) => {
		const s = net.createConnection(socket);
		let buf = "";
		s.setEncoding("utf8");
		s.on("connect", () => send(s));
		s.on("data", (d: string) => (buf += d));
		s.on("error", (err: NodeJS.ErrnoException) => (err.code === "EPIPE" || err.code === "ECONNRESET" ? undefined : reject(err)));
		s.on("close", () =>
			resolve({
				lines: buf
					.split("\n")
					.filter(Boolean)
					.map((l) => JSON.parse(l) as unknown),
				closedBy: "pi",
			}),
		);
	});
}

const request = (id: number) => `${JSON.stringify({ type: "request", id, request: { name: "state" } })}\n`;

describe.skipIf(process.platform === "win32")("the channel's limits", () => {
	it("a client with no hello, or a hello without the secret, gets no answer: only a refusal, then the door closes", async () => {
		const ch = await open();
		const noHello = await rawClient(ch.socket, (s) => s.write(request(1) + request(2)));
		expect(noHello.lines).toEqual([{ type: "refused", code: "bad_request", message: "say hello with the secret first" }]);
		const noSecret = await rawClient(ch.socket, (s) =>
			s.write(`${JSON.stringify({ type: "hello", protocol: 1, secret: "", client: { name: "x", version: "0" } })}\n${request(1)}`),
		);
		expect(noSecret.lines).toEqual([{ type: "refused", code: "bad_secret", message: expect.stringContaining("wrong secret") }]);
	});

	it("closes a client that does not say hello in time (a slowloris holds nothing)", async () => {
		const ch = await open({ helloMs: 200 });
		const idle = await rawClient(ch.socket, () => {});
		expect(idle.lines).toEqual([{ type: "refused", code: "bad_request", message: "no hello in time" }]);
	});

	it("reads at most a short line before the hello: a flood without a newline is cut off", async () => {
		const ch = await open();
		const flood = await rawClient(ch.socket, (s) => s.write(Buffer.alloc(1024 * 1024, 0x61)));
		expect(flood.lines).toEqual([{ type: "refused", code: "bad_request", message: "line too long" }]);
	});

	it("serves at most maxClients connections at a time; one more is refused busy", async () => {
		const ch = await open({ maxClients: 3, helloMs: 60_000 });
		const held: net.Socket[] = [];
		try {
			for (let i = 0; i < 3; i++) {
				const s = net.createConnection(ch.socket);
				await new Promise((r) => s.once("connect", r));
				held.push(s);
			}
			const extra = await rawClient(ch.socket, () => {});
			expect(extra.lines).toEqual([{ type: "refused", code: "busy", message: "this pi already serves 3 connections" }]);
			// A place frees up when one leaves (once pi has seen it go).
			held.shift()!.destroy();
			let again = await rawClient(ch.socket, (s) => s.write(request(1)));
			while ((again.lines[0] as { code?: string }).code === "busy") again = await rawClient(ch.socket, (s) => s.write(request(1)));
			expect(again.lines).toEqual([{ type: "refused", code: "bad_request", message: "say hello with the secret first" }]);
		} finally {
			for (const s of held) s.destroy();
		}
	});

	it("never deletes outside its folders: a stale registration naming live/../../precious leaves ~/precious alone", async () => {
		const dir = path.join(home, ".arbor", "live");
		fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
		const precious = path.join(home, "precious");
		fs.writeFileSync(precious, "keep me");
		const dead = spawnSync(process.execPath, ["-e", "0"]).pid!;
		const reg = { protocol: 1, pid: dead, agent: "pi", agentVersion: "1", extensionVersion: "1", sessionFile: null, secret: "s", startedAt: 1 };
		fs.writeFileSync(path.join(dir, `${dead}.json`), JSON.stringify({ ...reg, socket: `${dir}/../../precious` }), { mode: 0o600 });
		await open();
		expect(fs.readFileSync(precious, "utf8")).toBe("keep me");
		expect(fs.existsSync(path.join(dir, `${dead}.json`))).toBe(false);
	});
});
