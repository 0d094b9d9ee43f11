// The live channel under attack (bench/reliability/live.mjs): one mode per run, printing one JSON line.
//   pi          a pi's end of the channel (the real extension code) listening in $HOME/.arbor/live until killed
//   ownership   Arbor's end against fake pis whose socket another user owns / others may open: bytes it sent
//   eperm       (run as an unprivileged user) a registration whose pid is another user's process: alive or stale
//   malformed   Arbor's end against a fake pi sending N malformed stream events: dropped, delivered, crashes

import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { LiveConnection } from "../../../electron/services/live/connection";
import { LiveChannel } from "../../../pi-extension/channel";
import { IDLE_STATE, stateOnly } from "../../../pi-extension/test/helpers/state-only";
import { streamCards } from "../../../renderer/graph/streaming";
import { sweepRegistrations } from "../../../shared-node/live-files";
import type { LiveEvent, LiveRegistration } from "../../../shared/live";
import type { Skeleton } from "../../../shared/skeleton";

const client = { name: "reliability", version: "0" };
const state = IDLE_STATE;
const print = (v: unknown): void => void process.stdout.write(`${JSON.stringify(v)}\n`);

async function fakePi(dir: string, onData: (s: net.Socket, d: Buffer) => void): Promise<LiveRegistration> {
	fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
	const socket = path.join(dir, `${process.pid}.sock`);
	const server = net.createServer((s) => {
		s.on("data", (d) => onData(s, d));
		s.on("error", () => {});
	});
	await new Promise<void>((r) => server.listen(socket, r));
	server.unref();
	fs.chmodSync(socket, 0o600);
	return {
		protocol: 1,
		pid: process.pid,
		agent: "pi",
		agentVersion: "1",
		extensionVersion: "1",
		sessionFile: null,
		socket,
		secret: "s".repeat(64),
		startedAt: 1,
	};
}

async function pi(): Promise<void> {
	const requests = stateOnly(state);
	const ch = await LiveChannel.open(
		{ welcome: () => ({ agent: "pi", agentVersion: "1.6.0", extensionVersion: "1", capabilities: [], state }), requests },
		{ agent: "pi", agentVersion: "1.6.0", extensionVersion: "1" },
	);
	ch.register(null);
	print({ socket: ch.socket, pid: process.pid });
	setInterval(() => {}, 1 << 30);
}

async function ownership(tmp: string): Promise<void> {
	let bytes = 0;
	const out: Record<string, unknown> = {};
	for (const how of ["other user's folder", "folder others can open"] as const) {
		const dir = path.join(tmp, how === "other user's folder" ? "theirs" : "open");
		const reg = await fakePi(dir, (_s, d) => (bytes += d.length));
		if (how === "other user's folder") {
			fs.chownSync(dir, 65534, 65534);
			fs.chownSync(reg.socket, 65534, 65534);
		} else fs.chmodSync(dir, 0o755);
		const r = await LiveConnection.connect(reg, client, { answerMs: 1000 }).then(
			(c) => (c.close(), "connected"),
			(e: { code?: string }) => e.code ?? "error",
		);
		out[how] = r;
	}
	await new Promise((r) => setTimeout(r, 200)); // bytes in flight reach the fake pi
	print({ bytes, ...out });
}

function eperm(): void {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-eperm-"));
	fs.chmodSync(dir, 0o700);
	const reg = {
		protocol: 1,
		pid: 1,
		agent: "pi",
		agentVersion: "1",
		extensionVersion: "1",
		sessionFile: null,
		socket: path.join(dir, "1.sock"),
		secret: "s",
		startedAt: 1,
	};
	fs.writeFileSync(path.join(dir, "1.json"), JSON.stringify(reg), { mode: 0o600 });
	const alive = sweepRegistrations(dir).length;
	print({ verdict: alive ? "alive" : "stale", removed: !fs.existsSync(path.join(dir, "1.json")) });
	fs.rmSync(dir, { recursive: true, force: true });
}

/** Malformed variants of a stream update (each a way a broken or hostile extension could send one). */
function hostileUpdates(n: number): unknown[] {
	const bad: unknown[] = [
		null,
		5,
		"x",
		[],
		{ text: "no type" },
		{ type: "text" },
		{ type: "text", text: 7 },
		{ type: "thinking" },
		{ type: "toolCall", name: 1 },
	];
	const out: unknown[] = [];
	for (let i = 0; i < n; i++) {
		const content = [{ type: "text", text: "ok" }, bad[i % bad.length]];
		const message = i % 7 === 6 ? { role: "assistant", content: i % 2 ? "str" : null } : { role: "assistant", content };
		out.push({ type: "message_update", phase: "update", stream: { key: `0.${i}`, parentId: null, message } });
	}
	return out;
}

async function malformed(tmp: string, n: number): Promise<void> {
	const events = hostileUpdates(n);
	// The fake pi shakes hands, then answers Arbor's first request with the malformed events and the answer.
	const reg = await fakePi(path.join(tmp, "bad"), (s, d) => {
		const text = d.toString();
		if (text.includes('"hello"')) {
			const welcome = { type: "welcome", protocol: 1, agent: "pi", agentVersion: "1", extensionVersion: "1", capabilities: [], state };
			s.write(`${JSON.stringify(welcome)}\n`);
		} else if (text.includes('"request"')) {
			for (const e of events) s.write(`${JSON.stringify({ type: "event", event: e })}\n`);
			s.write(`${JSON.stringify({ type: "response", id: 1, ok: true, result: state })}\n`);
		}
	});
	const conn = await LiveConnection.connect(reg, client);
	const sk = { count: 0, parent: new Int32Array(0), kind: new Uint8Array(0) } as unknown as Skeleton;
	let delivered = 0;
	let crashes = 0;
	let warnings = 0;
	conn.onWarning(() => warnings++);
	conn.onEvent((e: LiveEvent) => {
		if (e.type !== "message_update") return;
		delivered++;
		try {
			streamCards(sk, [{ ...e.stream, done: false, baseCount: 0 }]);
		} catch {
			crashes++;
		}
	});
	await conn.request({ name: "state" });
	print({ sent: n, delivered, crashes, warnings, open: !conn.closed });
	conn.close();
}

const [mode, arg] = process.argv.slice(2);
const tmp = arg ?? fs.mkdtempSync(path.join(os.tmpdir(), "arbor-live-bench-"));
if (mode === "pi") void pi();
else if (mode === "ownership") void ownership(tmp);
else if (mode === "eperm") eperm();
else if (mode === "malformed") void malformed(tmp, Number(process.argv[4] ?? 200));
else throw new Error(`unknown mode ${mode}`);
