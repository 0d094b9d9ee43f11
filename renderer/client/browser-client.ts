// The renderer's client for the browser host (`arbor serve`): the Arbor API over one WebSocket with
// binary wire frames. The token comes from the page URL's fragment (`#token=…`, never sent in any HTTP
// request) on first load and is then kept in this tab's sessionStorage (scoped to this exact origin,
// port included) and removed from the address bar. It is only ever sent on the WebSocket handshake to
// this same host; there is no cookie, so no other server on 127.0.0.1 can receive it.

import { type ArborClient, type ArborEvent, ArborRequestError, type RequestName, type RequestParams, type RequestResult } from "../../shared/api";
import { decodeWire, encodeWire, type WireMessage } from "../../shared/wire";
import { errorText } from "../../shared/guards";

/** The subset of the DOM WebSocket this client uses (the `ws` package matches it too, for tests). */
export interface WebSocketLike {
	binaryType: string;
	readonly readyState: number;
	onopen: ((ev: unknown) => void) | null;
	onclose: ((ev: unknown) => void) | null;
	onerror: ((ev: unknown) => void) | null;
	onmessage: ((ev: { data: unknown }) => void) | null;
	send(data: Uint8Array): void;
	close(): void;
}

export interface BrowserClientOptions {
	/** ws://host:port/api?token=…; by default derived from the page's location. */
	url?: string;
	createSocket?: (url: string) => WebSocketLike;
}

export interface BrowserClient extends ArborClient {
	readonly host: "browser";
	close(): void;
}

const OPEN = 1;

/** Where this tab keeps the token between reloads (sessionStorage is per tab and per origin, port included). */
export const TOKEN_STORAGE_KEY = "arbor.token";

interface StorageLike {
	getItem(k: string): string | null;
	setItem(k: string, v: string): void;
}

/** The token in the page URL (`#token=`, or the older `?token=`), else the one this tab stored. */
export function tokenFromLocation(loc: { search: string; hash?: string }, storage?: StorageLike | null): string | null {
	const fromHash = new URLSearchParams((loc.hash ?? "").replace(/^#/, "")).get("token");
	const fromQuery = new URLSearchParams(loc.search).get("token");
	const token = fromHash || fromQuery || null;
	if (token) {
		try {
			storage?.setItem(TOKEN_STORAGE_KEY, token);
		} catch {
			/* storage disabled: memory only */
		}
		return token;
	}
	try {
		return storage?.getItem(TOKEN_STORAGE_KEY) ?? null;
	} catch {
		return null;
	}
}

/** The socket URL for this page: same host, path /api, the token (from the URL or this tab's storage). */
export function socketUrlFromLocation(loc: { protocol: string; host: string; search: string; hash?: string }, storage?: StorageLike | null): string {
	const token = tokenFromLocation(loc, storage);
	const scheme = loc.protocol === "https:" ? "wss:" : "ws:";
	return `${scheme}//${loc.host}/api${token ? `?token=${encodeURIComponent(token)}` : ""}`;
}

function sessionStore(): StorageLike | null {
	try {
		return (globalThis as { sessionStorage?: StorageLike }).sessionStorage ?? null;
	} catch {
		return null;
	}
}

export function connectBrowserClient(options: BrowserClientOptions = {}): BrowserClient {
	const url = options.url ?? socketUrlFromLocation(globalThis.location, sessionStore());
	const socket = options.createSocket ? options.createSocket(url) : (new WebSocket(url) as unknown as WebSocketLike);
	socket.binaryType = "arraybuffer";

	const listeners = new Set<(event: ArborEvent) => void>();
	const pending = new Map<number, { ok: (v: unknown) => void; fail: (e: unknown) => void }>();
	const queue: Uint8Array[] = [];
	let nextId = 1;
	let closedError: ArborRequestError | null = null;

	const dispatch = (event: ArborEvent): void => {
		for (const l of [...listeners]) {
			try {
				l(event);
			} catch (err) {
				console.error("arbor: event listener failed", err);
			}
		}
	};

	let opened = false;
	socket.onopen = () => {
		opened = true;
		for (const frame of queue.splice(0)) socket.send(frame);
	};
	socket.onmessage = (ev) => {
		// Binary frames only; the tag check also accepts an ArrayBuffer from another realm.
		if (Object.prototype.toString.call(ev.data) !== "[object ArrayBuffer]") return;
		let message: WireMessage;
		try {
			message = decodeWire(ev.data as ArrayBuffer);
		} catch (err) {
			console.error("arbor: malformed frame from host", err);
			return;
		}
		if (message.t === "evt") dispatch(message.event);
		else if (message.t === "res") {
			const p = pending.get(message.id);
			if (!p) return;
			pending.delete(message.id);
			if (message.ok) p.ok(message.result);
			else p.fail(new ArborRequestError(message.error));
		}
	};
	const onGone = (): void => {
		if (closedError) return;
		closedError = new ArborRequestError({
			code: "io",
			message: opened
				? // Said for both ways a host starts: `/arbor` in pi (most users) and `arbor serve` (issue 38).
					"Lost the connection to Arbor's host: it stopped. Type /arbor in pi again (or run `npx -y pi-arbor serve FILE`) and open the page it gives."
				: "Could not connect to Arbor's host: open the exact URL it gave (it carries the access token).",
		});
		for (const p of pending.values()) p.fail(closedError);
		pending.clear();
		queue.length = 0;
		if (opened) dispatch({ type: "host_lost", message: closedError.message });
		else dispatch({ type: "error", sessionId: null, error: { code: "io", message: closedError.message } });
	};
	socket.onclose = onGone;
	socket.onerror = onGone;

	return {
		host: "browser",
		request<K extends RequestName>(name: K, params: RequestParams<K>): Promise<RequestResult<K>> {
			if (closedError) return Promise.reject(closedError);
			const id = nextId++;
			let frame: Uint8Array;
			try {
				frame = encodeWire({ t: "req", id, name, params });
			} catch (err) {
				return Promise.reject(new ArborRequestError({ code: "bad_request", message: errorText(err) }));
			}
			return new Promise<RequestResult<K>>((ok, fail) => {
				pending.set(id, { ok: ok as (v: unknown) => void, fail });
				if (socket.readyState === OPEN) socket.send(frame);
				else queue.push(frame);
			});
		},
		onEvent(listener) {
			listeners.add(listener);
			return () => {
				listeners.delete(listener);
			};
		},
		close() {
			socket.close();
		},
	};
}
