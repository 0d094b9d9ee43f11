// One WebSocket connection: binary wire frames in (requests), binary frames out (responses, events).
// A client is untrusted: malformed frames get a bad_request answer or close the socket, never the host.

import type { WebSocket } from "ws";
import type { ArborRouter } from "../../api/router";
import { decodeWire, encodeWire, type WireMessage } from "../../../shared/wire";
import { errorText } from "../../../shared/guards";

/** Requests one connection may have in flight; more are refused so a flood cannot queue unbounded work. */
export const MAX_IN_FLIGHT = 256;
/** Unsent bytes after which a client that stopped reading is dropped (its page can reload). */
export const MAX_BUFFERED = 256 * 1024 * 1024;

export function serveConnection(ws: WebSocket, router: ArborRouter, log: (m: string) => void): void {
	let inFlight = 0;

	const send = (message: WireMessage): void => {
		if (ws.readyState !== ws.OPEN) return;
		let frame: Uint8Array;
		try {
			frame = encodeWire(message);
		} catch (err) {
			log(`arbor serve: cannot encode ${message.t}: ${errorText(err)}`);
			if (message.t !== "res") return;
			frame = encodeWire({ t: "res", id: message.id, ok: false, error: { code: "internal", message: "the result could not be encoded" } });
		}
		if (ws.bufferedAmount + frame.byteLength > MAX_BUFFERED) {
			log("arbor serve: a client stopped reading; closing its connection");
			ws.terminate();
			return;
		}
		ws.send(frame, { binary: true });
	};

	const unsubscribe = router.onEvent((event) => send({ t: "evt", event }));

	ws.on("message", (data, isBinary) => {
		if (!isBinary) {
			ws.close(1003, "binary frames only");
			return;
		}
		const bytes = Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : data;
		let message: WireMessage;
		try {
			message = decodeWire(bytes);
		} catch {
			ws.close(1007, "malformed frame");
			return;
		}
		if (message.t !== "req" || !Number.isSafeInteger(message.id)) {
			ws.close(1008, "only requests are accepted");
			return;
		}
		const { id, name, params } = message;
		if (inFlight >= MAX_IN_FLIGHT) {
			send({ t: "res", id, ok: false, error: { code: "bad_request", message: `too many requests in flight (max ${MAX_IN_FLIGHT})` } });
			return;
		}
		inFlight++;
		router
			.handle(name, params)
			.then(
				(response) => send({ t: "res", id, ...response }),
				// handle() never rejects by contract; this is a last guard so one request cannot kill the host.
				() => send({ t: "res", id, ok: false, error: { code: "internal", message: "internal error" } }),
			)
			.finally(() => inFlight--);
	});

	ws.on("close", unsubscribe);
	ws.on("error", (err) => log(`arbor serve: socket error: ${err.message}`));
}
