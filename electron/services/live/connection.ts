// Arbor's end of one live channel (docs/live.md): check that the socket is the user's own, connect, present
// its secret, then send requests (each answered once, its result checked) and receive its broadcasts. Every
// line from pi is validated (shared/live.ts). pi must answer the handshake and each request in time: a
// request that may run long (a summary, a wait the user asked for, a whole turn) keeps waiting only while
// pi answers a `state` ping every so often.

import * as net from "node:net";
import { readLines, writeLine } from "../../../shared-node/json-lines";
import { socketProblem } from "../../../shared-node/live-files";
import {
	LIVE_MAX_LINE,
	LIVE_PROTOCOL,
	type LiveErrorData,
	type LiveEvent,
	type LiveRegistration,
	type LiveRequestBody,
	type LiveRequestName,
	type LiveRequestOf,
	type LiveResults,
	type LiveWelcome,
	readLiveResult,
	readServerMessage,
	type ServerMessage,
} from "../../../shared/live";

/** How long pi has to answer the handshake, a request, or a ping during a long request. */
export const LIVE_ANSWER_MS = 10_000;

/**
 * A refusal or failure of the channel, or pi's error answer to a request. untrusted: the socket or its folder
 * is not the user's own and private (nothing was sent); timeout: pi did not answer in time (stopped, stuck);
 * bad_answer: pi's extension answered with a result this Arbor cannot read (another version).
 */
export class LiveError extends Error {
	constructor(
		readonly code: LiveErrorData["code"] | "bad_secret" | "protocol" | "disconnected" | "unreachable" | "untrusted" | "timeout" | "bad_answer",
		message: string,
	) {
		super(message);
		this.name = "LiveError";
	}
}

export interface ConnectOptions {
	/** The secret to present (default: the registration's; tests pass a wrong one). */
	secret?: string;
	/** How long pi has to answer (default LIVE_ANSWER_MS). */
	answerMs?: number;
}

export interface RequestOptions {
	/** Keep waiting past `answerMs` while pi answers pings (default: for the requests that may run long, see `patient`). */
	patient?: boolean;
}

/** Requests that may run long once pi took them: a summary, a wait for pi's turn the user asked for, a whole turn. */
export function patient(body: LiveRequestBody): boolean {
	if (body.name === "navigate") return body.summarize === true || body.waitForIdle === true;
	if (body.name === "fork") return body.waitForIdle === true;
	if (body.name === "send") return (body.wait ?? "end") === "end";
	return false;
}

type Pending = { name: LiveRequestName; resolve: (v: unknown) => void; reject: (e: unknown) => void };

const seconds = (ms: number): string => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

export class LiveConnection {
	readonly registration: LiveRegistration;
	readonly welcome: LiveWelcome;
	readonly #socket: net.Socket;
	readonly #answerMs: number;
	readonly #pending = new Map<number, Pending>();
	readonly #eventListeners = new Set<(e: LiveEvent) => void>();
	readonly #closeListeners = new Set<(reason: string) => void>();
	readonly #warningListeners = new Set<(warning: string) => void>();
	#nextId = 1;
	#closed: string | null = null;
	#closeWhenIdle = false;

	private constructor(reg: LiveRegistration, socket: net.Socket, welcome: LiveWelcome, answerMs: number) {
		this.registration = reg;
		this.#socket = socket;
		this.welcome = welcome;
		this.#answerMs = answerMs;
	}

	get closed(): boolean {
		return this.#closed !== null;
	}

	/**
	 * Check the socket, connect and shake hands. Rejects with LiveError: untrusted (nothing sent), unreachable
	 * (nothing listens: a stale registration), timeout (pi did not answer), or pi's refusal.
	 */
	static connect(reg: LiveRegistration, client: { name: string; version: string }, options: ConnectOptions | string = {}): Promise<LiveConnection> {
		const o = typeof options === "string" ? { secret: options } : options;
		const secret = o.secret ?? reg.secret;
		const answerMs = o.answerMs ?? LIVE_ANSWER_MS;
		const problem = socketProblem(reg.socket);
		if (problem) return Promise.reject(new LiveError("untrusted", `pi ${reg.pid}'s socket is not private to you (${problem}): Arbor sent it nothing`));
		return new Promise((resolve, reject) => {
			const socket = net.createConnection(reg.socket);
			let conn: LiveConnection | null = null;
			let settled = false;
			const timer = setTimeout(
				() => fail(new LiveError("timeout", `pi ${reg.pid} did not answer within ${seconds(answerMs)} (is it stopped or stuck?)`)),
				answerMs,
			);
			const fail = (err: LiveError): void => {
				if (settled) return;
				settled = true;
				clearTimeout(timer);
				socket.destroy();
				reject(err);
			};
			const bad = (why: string): void => {
				if (conn) conn.#close(why);
				else fail(new LiveError("failed", why));
			};
			socket.on("connect", () => writeLine(socket, { type: "hello", protocol: LIVE_PROTOCOL, secret, client }));
			socket.on("error", (err: NodeJS.ErrnoException) => {
				if (!settled) fail(new LiveError("unreachable", `pi ${reg.pid} does not answer on its socket (${err.code ?? err.message})`));
			});
			const reader = readLines(socket, {
				maxLine: LIVE_MAX_LINE,
				onTooLong: () => bad(`pi ${reg.pid} sent a line longer than the protocol allows`),
				onLine: (line) => {
					let msg;
					try {
						msg = readServerMessage(JSON.parse(line));
					} catch (err) {
						reader.stop();
						bad(`pi ${reg.pid} sent a malformed message (${err instanceof Error ? err.message : String(err)})`);
						return;
					}
					if (msg.type === "skip") {
						if (msg.warning && conn) for (const l of [...conn.#warningListeners]) l(`pi ${reg.pid}: ${msg.warning}`);
						return;
					}
					if (conn) {
						conn.#receive(msg);
						return;
					}
					if (msg.type === "welcome") {
						conn = new LiveConnection(reg, socket, msg, answerMs);
						settled = true;
						clearTimeout(timer);
						resolve(conn);
					} else if (msg.type === "refused") fail(new LiveError(msg.code, `pi ${reg.pid} refused Arbor: ${msg.message}`));
					else fail(new LiveError("failed", `pi ${reg.pid} answered before the handshake`));
				},
			});
			socket.on("close", () => {
				if (conn) conn.#close(`pi ${reg.pid} closed the connection`);
				else fail(new LiveError("unreachable", `pi ${reg.pid} closed the connection before the handshake`));
			});
		});
	}

	#receive(msg: ServerMessage): void {
		if (msg.type === "response") {
			const p = this.#pending.get(msg.id);
			if (!p) return; // answered after it timed out
			this.#pending.delete(msg.id);
			if (!msg.ok) p.reject(new LiveError(msg.error.code, msg.error.message));
			else {
				try {
					p.resolve(readLiveResult(p.name, msg.result));
				} catch (err) {
					const w = this.welcome;
					p.reject(
						new LiveError(
							"bad_answer",
							`pi ${this.registration.pid}'s Arbor extension ${w.extensionVersion} answered ${p.name} with a result this Arbor cannot read ` +
								`(${err instanceof Error ? err.message : String(err)}): install the extension of this Arbor in pi (arbor pi-extension)`,
						),
					);
				}
			}
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

	/** Send one request; its answer, checked against the request's result shape (see `patient` for how long it may take). */
	request<K extends LiveRequestName>(body: LiveRequestOf<K>, o: RequestOptions = {}): Promise<LiveResults[K]> {
		if (this.#closed !== null) return Promise.reject(new LiveError("disconnected", this.#closed));
		const id = this.#nextId++;
		const pid = this.registration.pid;
		const long = o.patient ?? patient(body);
		return new Promise<LiveResults[K]>((resolve, reject) => {
			let timer: ReturnType<typeof setTimeout> | null = null;
			const done = (): void => {
				if (timer) clearTimeout(timer);
				timer = null;
			};
			const silent = (what: string) =>
				new LiveError("timeout", `pi ${pid} did not answer ${what} within ${seconds(this.#answerMs)} (is it stopped or stuck?); Arbor stopped waiting`);
			this.#pending.set(id, {
				name: body.name,
				resolve: (v) => {
					done();
					resolve(v as LiveResults[K]);
				},
				reject: (e) => {
					done();
					reject(e);
				},
			});
			const giveUp = (err: LiveError): void => {
				if (!this.#pending.delete(id)) return;
				done();
				reject(err);
				if (this.#closeWhenIdle && this.#pending.size === 0) this.#close("closed by Arbor");
			};
			if (!long) timer = setTimeout(() => giveUp(silent(body.name)), this.#answerMs);
			else {
				// pi took a request that may run long: wait while pi proves it is alive.
				const ping = (): void => {
					timer = setTimeout(() => {
						this.request({ name: "state" }, { patient: false }).then(
							() => this.#pending.has(id) && ping(),
							(err: unknown) =>
								giveUp(err instanceof LiveError && err.code === "timeout" ? silent(`${body.name} (nor a check that it is alive)`) : (err as LiveError)),
						);
					}, this.#answerMs);
				};
				ping();
			}
			writeLine(this.#socket, { type: "request", id, request: body });
		});
	}

	onEvent(l: (e: LiveEvent) => void): () => void {
		this.#eventListeners.add(l);
		return () => this.#eventListeners.delete(l);
	}

	onClose(l: (reason: string) => void): () => void {
		this.#closeListeners.add(l);
		return () => this.#closeListeners.delete(l);
	}

	/** A line pi sent that was dropped (a malformed event): the app shows it as a notice. */
	onWarning(l: (warning: string) => void): () => void {
		this.#warningListeners.add(l);
		return () => this.#warningListeners.delete(l);
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
