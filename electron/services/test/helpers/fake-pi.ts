// A fake live pi for what a real pi never sends (docs/live.md "Wire protocol"): a registration and a Unix
// socket in a private live folder, the handshake, and answers the test chooses per request (a bad fork path,
// a refusal). It registers under this test process's pid, which is alive, so Arbor takes it for a running pi.

import * as fs from "node:fs";
import * as net from "node:net";
import * as path from "node:path";
import { LIVE_PROTOCOL, type LiveCapability, type LiveRequestBody } from "../../../../shared/live";

export type FakeAnswer = { ok: true; result: unknown } | { ok: false; error: { code: string; message: string } };

export interface FakePi {
	readonly pid: number;
	/** Every request Arbor sent, in order. */
	readonly requests: LiveRequestBody[];
	close(): Promise<void>;
}

export async function startFakePi(o: {
	/** The live folder (created 0700). */
	dir: string;
	sessionFile: string;
	capabilities: LiveCapability[];
	answer: (req: LiveRequestBody) => FakeAnswer;
}): Promise<FakePi> {
	fs.mkdirSync(o.dir, { recursive: true, mode: 0o700 });
	fs.chmodSync(o.dir, 0o700);
	const pid = process.pid;
	const secret = "ab".repeat(32);
	const socket = path.join(o.dir, `${pid}.sock`);
	fs.rmSync(socket, { force: true });
	const requests: LiveRequestBody[] = [];
	const state = {
		pid,
		agent: "pi" as const,
		agentVersion: "1.6.0",
		sessionFile: o.sessionFile,
		sessionId: null,
		leafId: null,
		model: null,
		thinkingLevel: null,
		status: "idle" as const,
		cwd: path.dirname(o.sessionFile),
	};
	const sockets = new Set<net.Socket>();
	const server = net.createServer((s) => {
		sockets.add(s);
		s.on("close", () => sockets.delete(s));
		s.setEncoding("utf8");
		let buf = "";
		const send = (msg: unknown): void => void s.write(`${JSON.stringify(msg)}\n`);
		s.on("data", (chunk: string) => {
			buf += chunk;
			let nl: number;
			while ((nl = buf.indexOf("\n")) >= 0) {
				const msg = JSON.parse(buf.slice(0, nl)) as { type: string; id?: number; secret?: string; request?: LiveRequestBody };
				buf = buf.slice(nl + 1);
				if (msg.type === "hello") {
					if (msg.secret !== secret) send({ type: "refused", code: "bad_secret", message: "wrong secret" });
					else
						send({
							type: "welcome",
							protocol: LIVE_PROTOCOL,
							agent: "pi",
							agentVersion: "1.6.0",
							extensionVersion: "fake",
							capabilities: o.capabilities,
							state,
						});
				} else if (msg.type === "request") {
					requests.push(msg.request!);
					send({ type: "response", id: msg.id, ...o.answer(msg.request!) });
				}
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(socket, resolve));
	// As the extension keeps its socket: the user's own, 0600 (Arbor sends nothing to any other: docs/live.md).
	fs.chmodSync(socket, 0o600);
	const reg = {
		protocol: LIVE_PROTOCOL,
		pid,
		agent: "pi",
		agentVersion: "1.6.0",
		extensionVersion: "fake",
		sessionFile: o.sessionFile,
		socket,
		secret,
		startedAt: Date.now(),
	};
	fs.writeFileSync(path.join(o.dir, `${pid}.json`), JSON.stringify(reg), { mode: 0o600 });
	return {
		pid,
		requests,
		async close() {
			for (const s of sockets) s.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			fs.rmSync(path.join(o.dir, `${pid}.json`), { force: true });
			fs.rmSync(socket, { force: true });
		},
	};
}
