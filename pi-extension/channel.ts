// The extension's end of the live channel (docs/live.md): a Unix socket (named pipe on Windows) in Arbor's
// private folder, a 0600 registration file naming it and the per-launch secret, and the connected Arbor
// clients, each of which must present the secret before anything else. Nothing listens on TCP.

import { randomBytes, timingSafeEqual } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import {
	type ClientMessage,
	LIVE_DIR_NAME,
	LIVE_MAX_LINE,
	LIVE_PROTOCOL,
	type LiveErrorData,
	type LiveEvent,
	LiveProtocolError,
	type LiveRegistration,
	type LiveRequestBody,
	type LiveWelcome,
	readClientMessage,
	readLiveRegistration,
} from "../shared/live";

export interface ChannelHandlers {
	welcome(): Omit<LiveWelcome, "type" | "protocol">;
	request(body: LiveRequestBody): Promise<unknown>;
}

/** Thrown by a request handler: becomes an error response with this code. */
export class LiveRequestError extends Error {
	constructor(
		readonly code: LiveErrorData["code"],
		message: string,
	) {
		super(message);
	}
}

/** ~/.arbor/live, created 0700 (and tightened if it exists with wider rights). */
export function liveDir(): string {
	const dir = path.join(os.homedir(), ".arbor", LIVE_DIR_NAME);
	fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
	if (process.platform !== "win32") {
		const st = fs.statSync(dir);
		if (typeof process.getuid === "function" && st.uid !== process.getuid())
			throw new Error(`${dir} belongs to another user: Arbor's live channel will not use it`);
		if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
	}
	return dir;
}

export function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		// EPERM: the pid exists but is another user's (so it is not a pi of ours, but it is alive).
		return (err as NodeJS.ErrnoException).code === "EPERM";
	}
}

/** Remove registrations (and their sockets) whose pi is gone. */
export function sweepStale(dir: string): void {
	for (const name of fs.readdirSync(dir)) {
		if (!name.endsWith(".json")) continue;
		const file = path.join(dir, name);
		let reg: LiveRegistration | null = null;
		try {
			reg = readLiveRegistration(JSON.parse(fs.readFileSync(file, "utf8")));
		} catch {}
		if (reg && pidAlive(reg.pid)) continue;
		if (!reg && Date.now() - fs.statSync(file).mtimeMs < 10_000) continue; // maybe being written
		try {
			fs.rmSync(file, { force: true });
			if (reg && process.platform !== "win32" && reg.socket.startsWith(dir)) fs.rmSync(reg.socket, { force: true });
		} catch {}
	}
}

function socketPath(dir: string, pid: number, tag: string): string {
	if (process.platform === "win32") return `\\\\.\\pipe\\arbor-live-${pid}-${tag}`;
	const inDir = path.join(dir, `${pid}.sock`);
	// sun_path holds ~104 bytes; a deep HOME falls back to a private folder in the temp dir.
	if (Buffer.byteLength(inDir) < 100) return inDir;
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-live-"));
	fs.chmodSync(tmp, 0o700);
	return path.join(tmp, `${pid}.sock`);
}

interface Client {
	socket: net.Socket;
	ready: boolean;
}

export class LiveChannel {
	readonly secret = randomBytes(32).toString("hex");
	readonly startedAt = Date.now();
	readonly dir: string;
	readonly socket: string;
	readonly #regFile: string;
	readonly #server: net.Server;
	readonly #clients = new Set<Client>();
	#handlers: ChannelHandlers;
	#registration: Omit<LiveRegistration, "sessionFile"> & { sessionFile: string | null };
	#closed = false;

	private constructor(dir: string, handlers: ChannelHandlers, reg: Pick<LiveRegistration, "agent" | "agentVersion" | "extensionVersion">) {
		this.dir = dir;
		this.socket = socketPath(dir, process.pid, randomBytes(6).toString("hex"));
		this.#regFile = path.join(dir, `${process.pid}.json`);
		this.#handlers = handlers;
		this.#registration = {
			protocol: LIVE_PROTOCOL,
			pid: process.pid,
			...reg,
			sessionFile: null,
			socket: this.socket,
			secret: this.secret,
			startedAt: this.startedAt,
		};
		this.#server = net.createServer((s) => this.#accept(s));
	}

	static async open(handlers: ChannelHandlers, reg: Pick<LiveRegistration, "agent" | "agentVersion" | "extensionVersion">): Promise<LiveChannel> {
		const dir = liveDir();
		sweepStale(dir);
		const ch = new LiveChannel(dir, handlers, reg);
		if (process.platform !== "win32") fs.rmSync(ch.socket, { force: true });
		await new Promise<void>((resolve, reject) => {
			ch.#server.once("error", reject);
			ch.#server.listen(ch.socket, () => {
				ch.#server.off("error", reject);
				resolve();
			});
		});
		if (process.platform !== "win32") fs.chmodSync(ch.socket, 0o600);
		// Nothing keeps pi alive for Arbor's sake: print / json modes exit when their work is done.
		ch.#server.unref();
		return ch;
	}

	setHandlers(h: ChannelHandlers): void {
		this.#handlers = h;
	}

	/** Write (or rewrite) the registration: atomically, 0600. */
	register(sessionFile: string | null): void {
		if (this.#closed) return;
		this.#registration.sessionFile = sessionFile;
		const tmp = `${this.#regFile}.${randomBytes(4).toString("hex")}.tmp`;
		fs.writeFileSync(tmp, JSON.stringify(this.#registration), { mode: 0o600, flag: "wx" });
		fs.renameSync(tmp, this.#regFile);
	}

	get clientCount(): number {
		let n = 0;
		for (const c of this.#clients) if (c.ready) n++;
		return n;
	}

	broadcast(event: LiveEvent): void {
		const line = `${JSON.stringify({ type: "event", event })}\n`;
		for (const c of this.#clients) if (c.ready && !c.socket.destroyed) c.socket.write(line);
	}

	/** Say goodbye, close every client, remove the socket and the registration. Synchronous parts first (exit). */
	close(reason: string): void {
		if (this.#closed) return;
		this.#closed = true;
		try {
			fs.rmSync(this.#regFile, { force: true });
		} catch {}
		const bye = `${JSON.stringify({ type: "event", event: { type: "bye", reason } })}\n`;
		for (const c of this.#clients) {
			if (c.ready && !c.socket.destroyed) c.socket.end(bye);
			else c.socket.destroy();
		}
		this.#server.close();
		if (process.platform !== "win32") {
			try {
				fs.rmSync(this.socket, { force: true });
			} catch {}
		}
	}

	#accept(socket: net.Socket): void {
		const client: Client = { socket, ready: false };
		this.#clients.add(client);
		socket.unref();
		socket.setEncoding("utf8");
		let buf = "";
		socket.on("data", (chunk: string) => {
			buf += chunk;
			if (buf.length > LIVE_MAX_LINE && !buf.includes("\n")) {
				this.#refuse(client, "bad_request", "line too long");
				return;
			}
			let nl: number;
			while ((nl = buf.indexOf("\n")) >= 0) {
				const line = buf.slice(0, nl);
				buf = buf.slice(nl + 1);
				if (line.trim()) this.#line(client, line);
			}
		});
		socket.on("error", () => {});
		socket.on("close", () => this.#clients.delete(client));
	}

	#send(client: Client, msg: unknown): void {
		if (!client.socket.destroyed) client.socket.write(`${JSON.stringify(msg)}\n`);
	}

	#refuse(client: Client, code: "bad_secret" | "protocol" | "bad_request", message: string): void {
		client.ready = false;
		if (!client.socket.destroyed) client.socket.end(`${JSON.stringify({ type: "refused", code, message })}\n`);
	}

	#line(client: Client, line: string): void {
		let msg: ClientMessage;
		try {
			msg = readClientMessage(JSON.parse(line));
		} catch (err) {
			// Before the handshake anything wrong ends the connection; after it, a bad request gets an error
			// response when its id can be read, so the caller learns what was wrong.
			const id = (() => {
				try {
					const v = JSON.parse(line) as { id?: unknown };
					return typeof v.id === "number" ? v.id : null;
				} catch {
					return null;
				}
			})();
			const code = err instanceof LiveProtocolError ? err.code : "bad_request";
			const message = err instanceof Error ? err.message : String(err);
			if (client.ready && id !== null) this.#send(client, { type: "response", id, ok: false, error: { code, message } });
			else this.#refuse(client, "bad_request", message);
			return;
		}
		if (msg.type === "hello") {
			if (client.ready) return;
			const given = Buffer.from(msg.secret);
			const want = Buffer.from(this.secret);
			if (given.length !== want.length || !timingSafeEqual(given, want)) {
				this.#refuse(client, "bad_secret", "wrong secret: read it from this pi's registration file");
				return;
			}
			if (msg.protocol !== LIVE_PROTOCOL) {
				this.#refuse(client, "protocol", `this pi speaks Arbor live protocol ${LIVE_PROTOCOL}, the client ${msg.protocol}: update the older of the two`);
				return;
			}
			client.ready = true;
			this.#send(client, { type: "welcome", protocol: LIVE_PROTOCOL, ...this.#handlers.welcome() });
			return;
		}
		if (!client.ready) {
			this.#refuse(client, "bad_request", "say hello with the secret first");
			return;
		}
		const { id } = msg;
		this.#handlers.request(msg.request).then(
			(result) => this.#send(client, { type: "response", id, ok: true, result }),
			(err: unknown) => {
				const error: LiveErrorData =
					err instanceof LiveRequestError
						? { code: err.code, message: err.message }
						: { code: "failed", message: err instanceof Error ? err.message : String(err) };
				this.#send(client, { type: "response", id, ok: false, error });
			},
		);
	}
}
