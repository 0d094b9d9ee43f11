// Who may talk to the browser host: a request must come to 127.0.0.1:PORT or localhost:PORT (a foreign
// Host header means DNS rebinding) and from our own origin (a foreign Origin or a cross-site fetch means
// another web page). The API (the WebSocket, the only way to any session byte) also needs the launch
// token in its handshake URL. The page's own files (the built renderer, no user data) need no token, so
// the token never has to live in a cookie: a cookie would be sent to every other server on 127.0.0.1,
// since browsers do not scope cookies by port. Anything else is refused before it reaches a file or the API.

import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export function newToken(): string {
	return randomBytes(32).toString("base64url");
}

export type Verdict = { ok: true } | { ok: false; status: 401 | 403; reason: string };

function sameToken(given: string, token: string): boolean {
	const a = Buffer.from(given);
	const b = Buffer.from(token);
	return a.length === b.length && timingSafeEqual(a, b);
}

/** `token`: null for the page's own static files, the launch token for the API. */
export function checkRequest(req: IncomingMessage, port: number, token: string | null): Verdict {
	const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
	const host = (req.headers.host ?? "").toLowerCase();
	if (!allowedHosts.includes(host)) return { ok: false, status: 403, reason: "unexpected Host header" };
	const origin = req.headers.origin;
	if (origin !== undefined && !allowedHosts.some((h) => origin.toLowerCase() === `http://${h}`)) {
		return { ok: false, status: 403, reason: "foreign Origin" };
	}
	// Another server on 127.0.0.1 (any port) is "same-site", so SameSite cookies alone do not stop it.
	const site = req.headers["sec-fetch-site"];
	if (site !== undefined && site !== "same-origin" && site !== "none") {
		return { ok: false, status: 403, reason: `cross-origin request (${String(site)})` };
	}
	if (token === null) return { ok: true };
	const url = new URL(req.url ?? "/", "http://127.0.0.1");
	const fromQuery = url.searchParams.get("token");
	if (fromQuery !== null && sameToken(fromQuery, token)) return { ok: true };
	return { ok: false, status: 401, reason: fromQuery === null ? "missing token" : "wrong token" };
}
