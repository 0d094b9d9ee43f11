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
import { LineReader, readLines, writeLine } from "../../shared-node/json-lines";

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

// The framing both ends read the channel with (shared-node/json-lines.ts): the bound on an unfinished line,
// on both sides of it, across chunks and in bytes, not characters.
describe("LineReader and writeLine", () => {
	function reader(maxLine: number) {
		const lines: string[] = [];
		let tooLong = 0;
		const r = new LineReader({ maxLine, onLine: (l) => lines.push(l), onTooLong: () => tooLong++ });
		return { r, lines, tooLong: () => tooLong, push: (s: string | Buffer) => r.push(typeof s === "string" ? Buffer.from(s) : s) };
	}

	it("splits lines within a chunk and across chunks; blank and space-only lines are skipped", () => {
		const t = reader(100);
		t.push("a\nbb\n");
		t.push("c");
		t.push("c");
		t.push("c\n\n  \n\t\nd");
		expect(t.lines).toEqual(["a", "bb", "ccc"]);
		t.push("\n");
		expect(t.lines).toEqual(["a", "bb", "ccc", "d"]);
		expect(t.tooLong()).toBe(0);
	});

	it("a line of exactly maxLine bytes passes, in one chunk or several; one byte more ends the read", () => {
		const one = reader(5);
		one.push("12345\n");
		one.push("123");
		one.push("45\n");
		one.push("\n");
		expect(one.lines).toEqual(["12345", "12345"]);
		expect(one.tooLong()).toBe(0);
		for (const chunks of [["123456\n"], ["123", "456\n"], ["12345", "6"], ["123456"]]) {
			const t = reader(5);
			for (const c of chunks) t.push(c);
			expect(t.lines, chunks.join("|")).toEqual([]);
			expect(t.tooLong(), chunks.join("|")).toBe(1);
		}
	});

	it("a chunk that starts with a newline: the line before ends there, and the bound applies to the line after it alone", () => {
		const t = reader(5);
		t.push("12");
		t.push("\n12345\n1\n");
		t.push("\n");
		expect(t.lines).toEqual(["12", "12345", "1"]);
		expect(t.tooLong()).toBe(0);
		const u = reader(5);
		u.push("\n12345");
		u.push("\n");
		expect(u.lines).toEqual(["12345"]);
	});

	it("after a too-long line nothing more is read, not even complete short lines; onTooLong is told once", () => {
		const t = reader(3);
		t.push("ok\n1234\nno\n");
		t.push("no\n");
		t.push("12345");
		expect(t.lines).toEqual(["ok"]);
		expect(t.tooLong()).toBe(1);
	});

	it("the bound counts bytes: a 2-byte character fills it twice as fast; a character split across chunks reads whole", () => {
		const t = reader(4);
		t.push("éé\n");
		expect(t.lines).toEqual(["éé"]);
		const bytes = Buffer.from("é\n");
		t.push(bytes.subarray(0, 1));
		t.push(bytes.subarray(1));
		expect(t.lines).toEqual(["éé", "é"]);
		const over = reader(4);
		over.push("ééé\n");
		expect(over.tooLong()).toBe(1);
	});

	it("setMaxLine changes the bound for what follows, up or down; stop() ends the read silently", () => {
		const t = reader(3);
		t.r.setMaxLine(6);
		t.push("123456\n");
		t.r.setMaxLine(2);
		t.push("12\n");
		t.push("123\n");
		expect(t.lines).toEqual(["123456", "12"]);
		expect(t.tooLong()).toBe(1);
		const s = reader(10);
		s.push("a\nb");
		s.r.stop();
		s.push("c\nd\n");
		expect(s.lines).toEqual(["a"]);
		expect(s.tooLong()).toBe(0);
	});

	it("a held part is counted toward the bound and dropped once its line ends", () => {
		const t = reader(4);
		t.push("12");
		t.push("34\n12");
		t.push("34\n");
		expect(t.lines).toEqual(["1234", "1234"]);
		t.push("123");
		t.push("45");
		expect(t.tooLong()).toBe(1);
	});

	it("over a real socket: readLines reads lines (string chunks too), writeLine writes one JSON line and is false once the socket is gone", async () => {
		const got: string[] = [];
		const server = net.createServer((s) => {
			s.setEncoding("utf8");
			readLines(s, { maxLine: 100, onLine: (l) => got.push(l), onTooLong: () => got.push("too long") });
		});
		await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
		const { port } = server.address() as net.AddressInfo;
		const c = net.connect(port, "127.0.0.1");
		await new Promise<void>((r) => c.once("connect", () => r()));
		expect(writeLine(c, { a: 1, b: "x\ny" })).toBe(true);
		expect(writeLine(c, "é")).toBe(true);
		await expect.poll(() => got).toEqual(['{"a":1,"b":"x\\ny"}', '"é"']);
		c.destroy();
		expect(writeLine(c, { late: true })).toBe(false);
		const ended = net.connect(port, "127.0.0.1");
		await new Promise<void>((r) => ended.once("connect", () => r()));
		ended.end();
		expect(writeLine(ended, { late: true })).toBe(false);
		ended.destroy();
		await new Promise<void>((r) => server.close(() => r()));
		expect(got).toEqual(['{"a":1,"b":"x\\ny"}', '"é"']);
	});
});
