// Arbor's end of one live channel (docs/live.md): connect to a pi's socket, present its secret, then send
// requests (each answered once) and receive its broadcasts. Every line from pi is validated (shared/live.ts).

import * as net from "node:net";
import {
	LIVE_MAX_LINE,
	LIVE_PROTOCOL,
	type LiveErrorData,
	type LiveEvent,
	type LiveRegistration,
	type LiveRequestBody,
	type LiveResults,
	type LiveWelcome,
	readServerMessage,
} from "../../../shared/live";

/** A refusal or failure of the channel, or pi's error answer to a request. */
export class LiveError extends Error {
	constructor(
		readonly code: LiveErrorData["code"] | "bad_secret" | "protocol" | "disconnected" | "unreachable",
		message: string,
	) {
		super(message);
		this.name = "LiveError";
	}
}

type Pending = { resolve: (v: unknown) => void; reject: (e: unknown) => void };

export class LiveConnection {
	readonly registration: LiveRegistration;
	readonly welcome: LiveWelcome;
	readonly #socket: net.Socket;
	readonly #pending = new Map<number, Pending>();
	readonly #eventListeners = new Set<(e: LiveEvent) => void>();
	readonly #closeListeners = new Set<(reason: string) => void>();
	#nextId = 1;
	#closed: string | null = null;
	#closeWhenIdle = false;

	private constructor(reg: LiveRegistration, socket: net.Socket, welcome: LiveWelcome) {
		this.registration = reg;
		this.#socket = socket;
		this.welcome = welcome;
	}

	get closed(): boolean {
		return this.#closed !== null;
	}

	/** Connect and shake hands; rejects with LiveError (unreachable: nothing listens, a stale registration). */
	static connect(reg: LiveRegistration, client: { name: string; version: string }, secret = reg.secret): Promise<LiveConnection> {
		return new Promise((resolve, reject) => {
			const socket = net.createConnection(reg.socket);
			socket.setEncoding("utf8");
			let conn: LiveConnection | null = null;
			let buf = "";
			let settled = false;
			const fail = (err: LiveError): void => {
				if (settled) return;
				settled = true;
				socket.destroy();
				reject(err);
			};
			socket.on("connect", () => {
				socket.write(`${JSON.stringify({ type: "hello", protocol: LIVE_PROTOCOL, secret, client })}\n`);
			});
			socket.on("error", (err: NodeJS.ErrnoException) => {
				if (!settled) fail(new LiveError("unreachable", `pi ${reg.pid} does not answer on its socket (${err.code ?? err.message})`));
			});
			socket.on("data", (chunk: string) => {
				buf += chunk;
				if (buf.length > LIVE_MAX_LINE && !buf.includes("\n")) {
					if (conn) conn.#close("pi sent a line longer than the protocol allows");
					else fail(new LiveError("failed", "pi sent a line longer than the protocol allows"));
					return;
				}
				let nl: number;
				while ((nl = buf.indexOf("\n")) >= 0) {
					const line = buf.slice(0, nl);
					buf = buf.slice(nl + 1);
					if (!line.trim()) continue;
					let msg;
					try {
						msg = readServerMessage(JSON.parse(line));
					} catch (err) {
						const why = `pi ${reg.pid} sent a malformed message (${err instanceof Error ? err.message : String(err)})`;
						if (conn) conn.#close(why);
						else fail(new LiveError("failed", why));
						return;
					}
					if (msg === null) continue; // an event type of a newer extension
					if (!conn) {
						if (msg.type === "welcome") {
							conn = new LiveConnection(reg, socket, msg);
							settled = true;
							resolve(conn);
						} else if (msg.type === "refused") fail(new LiveError(msg.code, `pi ${reg.pid} refused Arbor: ${msg.message}`));
						else fail(new LiveError("failed", `pi ${reg.pid} answered before the handshake`));
						continue;
					}
					conn.#receive(msg);
				}
			});
			socket.on("close", () => {
				if (conn) conn.#close(`pi ${reg.pid} closed the connection`);
				else fail(new LiveError("unreachable", `pi ${reg.pid} closed the connection before the handshake`));
			});
		});
	}

	#receive(msg: NonNullable<ReturnType<typeof readServerMessage>>): void {
		if (msg.type === "response") {
			const p = this.#pending.get(msg.id);
			if (!p) return;
			this.#pending.delete(msg.id);
			if (msg.ok) p.resolve(msg.result);
			else p.reject(new LiveError(msg.error.code, msg.error.message));
			if (this.#closeWhenIdle && this.#pending.size === 0) this.#close("closed by Arbor");
		} else if (msg.type === "event") {
			for (const l of [...this.#eventListeners]) l(msg.event);
			if (msg.event.type === "bye") this.#close(msg.event.reason);
		}
	}

	#close(reason: string): void {
		if (this.#closed !== null) return;
		this.#closed = reason;
		this.#socket.destroy();
		for (const p of this.#pending.values()) p.reject(new LiveError("disconnected", `${reason} before it answered`));
		this.#pending.clear();
		for (const l of [...this.#closeListeners]) l(reason);
	}

	request<K extends LiveRequestBody["name"]>(body: Extract<LiveRequestBody, { name: K }>): Promise<LiveResults[K]> {
		if (this.#closed !== null) return Promise.reject(new LiveError("disconnected", this.#closed));
		const id = this.#nextId++;
		return new Promise((resolve, reject) => {
			this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
			this.#socket.write(`${JSON.stringify({ type: "request", id, request: body })}\n`);
		});
	}

	/** A request body the contract may not know (a newer Arbor's request, a test of pi's refusal). */
	requestUnchecked(body: unknown): Promise<unknown> {
		return this.request(body as LiveRequestBody) as Promise<unknown>;
	}

	onEvent(l: (e: LiveEvent) => void): () => void {
		this.#eventListeners.add(l);
		return () => this.#eventListeners.delete(l);
	}

	onClose(l: (reason: string) => void): () => void {
		this.#closeListeners.add(l);
		return () => this.#closeListeners.delete(l);
	}

	close(): void {
		this.#close("closed by Arbor");
	}

	/** Close once the requests in flight are answered (pi answers a fork after it moved to the new file). */
	closeWhenIdle(): void {
		if (this.#pending.size === 0) this.close();
		else this.#closeWhenIdle = true;
	}
}
