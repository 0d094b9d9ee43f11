// Who may talk to the browser host: a request must come to 127.0.0.1:PORT or localhost:PORT (a foreign
// Host header means DNS rebinding) and from our own origin (a foreign Origin or a cross-site fetch means
// another web page). The API (the WebSocket, the only way to any session byte) also needs the launch
// token in its handshake URL. The page's own files (the built renderer, no user data) need no token, so
// the token never has to live in a cookie: a cookie would be sent to every other server on 127.0.0.1,
// since browsers do not scope cookies by port. Anything else is refused before it reaches a file or the API.
//
// One exception to the same-origin rule: the browser opening the page itself. `arbor serve` and `/arbor` launch
// the browser on a local file:// page that forwards to the host (so the token never sits on a command line),
// and Chromium marks that navigation `Sec-Fetch-Site: cross-site`. A top-level GET navigation to the page's
// HTML shell is not an API call: the answer is the same shell anyone on this machine can fetch, holds no token
// and no session byte, cannot be framed (X-Frame-Options DENY, frame-ancestors 'none') and is severed from its
// opener (COOP same-origin). Everything the page then loads is same-origin, and the API still needs the token.

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

/** The paths of the page's HTML shell, the only ones a navigation from another site may open. */
const SHELL_PATHS = new Set(["/", "/index.html"]);

/** A top-level GET navigation (the address bar, a link, a redirect) to the page's HTML shell. */
export function isShellNavigation(req: IncomingMessage): boolean {
	if (req.method !== "GET" && req.method !== "HEAD") return false;
	if (req.headers["sec-fetch-mode"] !== "navigate" || req.headers["sec-fetch-dest"] !== "document") return false;
	return SHELL_PATHS.has(new URL(req.url ?? "/", "http://127.0.0.1").pathname);
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
	const opensThePage = token === null && isShellNavigation(req);
	if (site !== undefined && site !== "same-origin" && site !== "none" && !opensThePage) {
		return { ok: false, status: 403, reason: `cross-origin request (${String(site)})` };
	}
	if (token === null) return { ok: true };
	const url = new URL(req.url ?? "/", "http://127.0.0.1");
	const fromQuery = url.searchParams.get("token");
	if (fromQuery !== null && sameToken(fromQuery, token)) return { ok: true };
	return { ok: false, status: 401, reason: fromQuery === null ? "missing token" : "wrong token" };
}
