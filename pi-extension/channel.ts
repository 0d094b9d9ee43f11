// The extension's end of the live channel (docs/live.md): a Unix socket (named pipe on Windows) in a private
// folder of the user's, a 0600 registration file naming it and the per-launch secret, and the connected Arbor
// clients, each of which must present the secret before anything else. Nothing listens on TCP. A client
// cannot take pi's memory: few connections at a time, a short line and a few seconds to say hello before it
// has the secret, bounded lines and output after.

import { randomBytes, timingSafeEqual } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import { readLines, writeLine } from "../shared-node/json-lines";
import { placeSocket, removeRegistration, sweepOldTempSocketFolders, sweepRegistrations, writeRegistration } from "../shared-node/live-files";
import { arborLiveDir } from "../shared-node/paths";
import { ownPrivateDir } from "../shared-node/private";
import {
	type ClientMessage,
	LIVE_MAX_HELLO_LINE,
	LIVE_MAX_LINE,
	LIVE_PROTOCOL,
	type LiveErrorData,
	type LiveEvent,
	type LiveHandlers,
	LiveProtocolError,
	type LiveRefused,
	type LiveRegistration,
	type LiveRequestBody,
	type LiveWelcome,
	readClientMessage,
} from "../shared/live";

export interface ChannelHandlers {
	welcome(): Omit<LiveWelcome, "type" | "protocol">;
	requests: LiveHandlers;
}

/** What one pi lets its clients hold (docs/live.md "Security"); tests pass smaller ones. */
export interface ChannelLimits {
	/** Connections at a time, said hello or not: more are refused `busy` and closed. */
	maxClients: number;
	/** A client that has not said hello within this long is closed. */
	helloMs: number;
	/** Bytes written to a client and not yet read by it: beyond this the client is closed (it stopped reading). */
	maxUnread: number;
}
export const CHANNEL_LIMITS: ChannelLimits = { maxClients: 16, helloMs: 5_000, maxUnread: 32 * 1024 * 1024 };

/** Thrown by a request handler: becomes an error response with this code. */
export class LiveRequestError extends Error {
	constructor(
		readonly code: LiveErrorData["code"],
		message: string,
	) {
		super(message);
	}
}

interface Client {
	socket: net.Socket;
	ready: boolean;
	hello: ReturnType<typeof setTimeout> | null;
	raiseLimit(): void;
}

export class LiveChannel {
	readonly secret = randomBytes(32).toString("hex");
	readonly startedAt = Date.now();
	readonly dir: string;
	readonly socket: string;
	readonly #server: net.Server;
	readonly #clients = new Set<Client>();
	readonly #handlers: ChannelHandlers;
	readonly #limits: ChannelLimits;
	readonly #registration: LiveRegistration;
	#closed = false;

	private constructor(
		dir: string,
		handlers: ChannelHandlers,
		reg: Pick<LiveRegistration, "agent" | "agentVersion" | "extensionVersion" | "runtime">,
		limits: ChannelLimits,
	) {
		this.dir = dir;
		this.socket = placeSocket(dir, process.pid, randomBytes(6).toString("hex"));
		this.#handlers = handlers;
		this.#limits = limits;
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

	static async open(
		handlers: ChannelHandlers,
		reg: Pick<LiveRegistration, "agent" | "agentVersion" | "extensionVersion" | "runtime">,
		limits: ChannelLimits = CHANNEL_LIMITS,
	): Promise<LiveChannel> {
		const dir = ownPrivateDir(arborLiveDir());
		sweepRegistrations(dir);
		sweepOldTempSocketFolders();
		const ch = new LiveChannel(dir, handlers, reg, limits);
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

	/** Write (or rewrite) the registration: atomically, 0600. */
	register(sessionFile: string | null): void {
		if (this.#closed) return;
		this.#registration.sessionFile = sessionFile;
		writeRegistration(this.dir, this.#registration);
	}

	broadcast(event: LiveEvent): void {
		for (const c of this.#clients) if (c.ready) this.#send(c, { type: "event", event });
	}

	/** Say goodbye, close every client, remove the socket and the registration. Synchronous parts first (exit). */
	close(reason: string): void {
		if (this.#closed) return;
		this.#closed = true;
		removeRegistration(this.dir, this.#registration);
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
		socket.unref();
		socket.on("error", () => {});
		if (this.#clients.size >= this.#limits.maxClients) {
			const refused: LiveRefused = { type: "refused", code: "busy", message: `this pi already serves ${this.#limits.maxClients} connections` };
			socket.end(`${JSON.stringify(refused)}\n`);
			socket.destroySoon();
			return;
		}
		const reader = readLines(socket, {
			maxLine: LIVE_MAX_HELLO_LINE,
			onLine: (line) => this.#line(client, line),
			onTooLong: () => this.#refuse(client, "bad_request", "line too long"),
		});
		const client: Client = {
			socket,
			ready: false,
			hello: setTimeout(() => this.#refuse(client, "bad_request", "no hello in time"), this.#limits.helloMs),
			raiseLimit: () => reader.setMaxLine(LIVE_MAX_LINE),
		};
		client.hello!.unref();
		this.#clients.add(client);
		socket.on("close", () => {
			if (client.hello) clearTimeout(client.hello);
			reader.stop();
			this.#clients.delete(client);
		});
	}

	#send(client: Client, msg: unknown): void {
		if (!writeLine(client.socket, msg)) return;
		if (client.socket.writableLength > this.#limits.maxUnread) client.socket.destroy();
	}

	#refuse(client: Client, code: LiveRefused["code"], message: string): void {
		client.ready = false;
		if (client.socket.destroyed) return;
		const refused: LiveRefused = { type: "refused", code, message };
		client.socket.end(`${JSON.stringify(refused)}\n`);
		client.socket.destroySoon();
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
			if (client.hello) clearTimeout(client.hello);
			client.hello = null;
			client.raiseLimit();
			this.#send(client, { type: "welcome", protocol: LIVE_PROTOCOL, ...this.#handlers.welcome() });
			return;
		}
		if (!client.ready) {
			this.#refuse(client, "bad_request", "say hello with the secret first");
			return;
		}
		const { id, request } = msg;
		const handle = this.#handlers.requests[request.name] as (b: LiveRequestBody) => Promise<unknown>;
		// A handler that throws before its first await answers like one that rejects.
		Promise.resolve()
			.then(() => handle(request))
			.then(
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
