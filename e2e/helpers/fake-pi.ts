// A fake live pi for specs that need what a real pi never sends (a malformed stream event) or a live badge without
// a real pi's start-up: the wire of shared/live.ts on a private socket under a fresh HOME's ~/.arbor/live, with
// the registration that points Arbor at it. It answers `hello` with `welcome` and the given state.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface FakePi {
	/** The HOME to run the host with (its ~/.arbor/live holds the registration). */
	home: string;
	/** Connections that said hello (Arbor's side of the channel), to send events on. */
	clients: Socket[];
	server: Server;
}

/** A fake pi 1.6 holding `file`; `state` overrides the live state it reports (leaf, model, status…). */
export async function startFakePi(file: string, state: Record<string, unknown>): Promise<FakePi> {
	const home = mkdtempSync(join(tmpdir(), "arbor-fakepi-"));
	const live = join(home, ".arbor", "live");
	mkdirSync(live, { recursive: true, mode: 0o700 });
	const socketPath = join(live, `${process.pid}.sock`);
	const welcome = {
		type: "welcome",
		protocol: 1,
		agent: "pi",
		agentVersion: "1.6.0",
		extensionVersion: "1.0.0",
		capabilities: ["stream"],
		state: { pid: process.pid, agent: "pi", agentVersion: "1.6.0", sessionFile: file, thinkingLevel: null, ...state },
	};
	const clients: Socket[] = [];
	const server = createServer((s) => {
		s.setEncoding("utf8");
		s.on("error", () => {});
		s.on("data", (d: string) => {
			if (!d.includes('"hello"')) return;
			s.write(`${JSON.stringify(welcome)}\n`);
			clients.push(s);
		});
	});
	await new Promise<void>((r) => server.listen(socketPath, r));
	chmodSync(socketPath, 0o600);
	const reg = {
		protocol: 1,
		pid: process.pid,
		agent: "pi",
		agentVersion: "1.6.0",
		extensionVersion: "1.0.0",
		sessionFile: file,
		socket: socketPath,
		secret: "x".repeat(64),
		startedAt: Date.now(),
	};
	writeFileSync(join(live, `${process.pid}.json`), JSON.stringify(reg), { mode: 0o600 });
	return { home, clients, server };
}
