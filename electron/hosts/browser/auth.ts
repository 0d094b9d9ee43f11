// Who may talk to the browser host: a request must come to 127.0.0.1:PORT or localhost:PORT (a foreign
// Host header means DNS rebinding), from our own origin (a foreign Origin or a cross-site fetch means
// another web page), and carry the launch token (query or the cookie set by the first load). Anything
// else is refused before it reaches a file or the API.

import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";

export function newToken(): string {
	return randomBytes(32).toString("base64url");
}

/** Cookies are not port-scoped: two `arbor serve` instances must not overwrite each other's token. */
export function cookieName(port: number): string {
	return `arbor_token_${port}`;
}

export function tokenCookie(port: number, token: string): string {
	return `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

export type Verdict = { ok: true; viaQuery: boolean } | { ok: false; status: 401 | 403; reason: string };

function sameToken(given: string, token: string): boolean {
	const a = Buffer.from(given);
	const b = Buffer.from(token);
	return a.length === b.length && timingSafeEqual(a, b);
}

function readCookie(header: string | undefined, name: string): string | null {
	if (!header) return null;
	for (const part of header.split(";")) {
		const eq = part.indexOf("=");
		if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
	}
	return null;
}

export function checkRequest(req: IncomingMessage, port: number, token: string): Verdict {
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
	const url = new URL(req.url ?? "/", "http://127.0.0.1");
	const fromQuery = url.searchParams.get("token");
	if (fromQuery !== null && sameToken(fromQuery, token)) return { ok: true, viaQuery: true };
	const fromCookie = readCookie(req.headers.cookie, cookieName(port));
	if (fromCookie !== null && sameToken(fromCookie, token)) return { ok: true, viaQuery: false };
	return { ok: false, status: 401, reason: fromQuery === null && fromCookie === null ? "missing token" : "wrong token" };
}
