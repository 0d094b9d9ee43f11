// The control door of the user's browser host: a later `arbor serve FILE` (and so `/arbor` in pi) hands its
// files to the host that already runs instead of starting another one. It is for local processes of this
// user only: the secret is in `~/.arbor/host.json` (0600) and never given to a page, the request must carry
// no Origin and no Sec-Fetch-* header (a browser always sends them), and it comes to 127.0.0.1:PORT. What it
// may do is what the user's command line may do: open files the user named.
//
// The secret never travels (issue 39): host.json can outlive its host (SIGKILL, a crash) and its pid and port
// can be someone else's by then, so whoever listens on the recorded port must learn nothing. The client first
// sends a random nonce to HELLO_PATH; the host answers with hostProof (an HMAC of the nonce under the secret,
// bound to its port) and a nonce of its own. Only a host that proves it knows the secret is sent the files,
// with clientProof (an HMAC of the host's nonce and the exact body) in place of the secret. Each host nonce
// is good for one request and a short while.

import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export const CONTROL_PATH = "/control/open";
/** Where a client asks the host to prove it knows the secret, before it sends anything private. */
export const HELLO_PATH = "/control/hello";
/** Largest request body: a list of paths. */
const MAX_BODY = 256 * 1024;
/** A host nonce is good for one open request within this time. */
const NONCE_MS = 60_000;
/** Host nonces waiting for their request at most (the oldest go first). */
const MAX_NONCES = 64;
/** A nonce on the wire: 16 to 128 base64url characters. */
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;

export const newNonce = (): string => randomBytes(32).toString("base64url");

const mac = (secret: string, text: string): string => createHmac("sha256", secret).update(text).digest("base64url");

/** The host's answer to a client's nonce: proves it holds `secret`, only for this port (a relayed answer fails). */
export const hostProof = (secret: string, port: number, clientNonce: string): string => mac(secret, `arbor-control-host\n${port}\n${clientNonce}`);

/** The client's proof for one open request: the host's nonce and the exact body, under the secret. */
export const clientProof = (secret: string, port: number, hostNonce: string, body: string): string =>
	mac(secret, `arbor-control-open\n${port}\n${hostNonce}\n${createHash("sha256").update(body).digest("base64url")}`);

/** The Authorization header of an open request. */
export const proofHeader = (hostNonce: string, proof: string): string => `Arbor-Proof ${hostNonce} ${proof}`;

export interface ControlRequest {
	files: string[];
	/** Open the page in the browser when no page is connected. */
	show: boolean;
}

export interface ControlAnswer {
	opened: string[];
	failed: { path: string; message: string }[];
	/** Pages connected when the files were opened (each got them as new tabs). */
	pages: number;
	/** The browser was asked to open the page. */
	shown: boolean;
}

function answer(res: ServerResponse, status: number, body: object): void {
	const text = JSON.stringify(body);
	res.writeHead(status, { "Content-Type": "application/json", "Content-Length": String(Buffer.byteLength(text)), "Cache-Control": "no-store" });
	res.end(text);
}

/** Equal strings, compared in constant time. */
export function sameText(given: string, expected: string): boolean {
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

function parse(text: string): ControlRequest | null {
	try {
		const v = JSON.parse(text) as { files?: unknown; show?: unknown };
		if (!Array.isArray(v.files) || !v.files.every((f) => typeof f === "string" && f.length > 0 && f.length <= 4096)) return null;
		return { files: v.files as string[], show: v.show === true };
	} catch {
		return null;
	}
}

/** Reads a request body up to MAX_BODY; answers 413 and gives null past it. */
function readBody(req: IncomingMessage, res: ServerResponse, done: (body: string) => void): void {
	let body = "";
	let tooBig = false;
	req.setEncoding("utf8");
	req.on("data", (chunk: string) => {
		body += chunk;
		if (body.length > MAX_BODY && !tooBig) {
			tooBig = true;
			answer(res, 413, { error: "too large" });
			req.destroy();
		}
	});
	req.on("end", () => {
		if (!tooBig) done(body);
	});
}

export interface ControlDoor {
	/** The paths the door answers. */
	handles(pathname: string): boolean;
	/** Answers a request to one of them; the Host header was checked by the caller. */
	handle(req: IncomingMessage, res: ServerResponse): void;
}

/** The door of a host on `port()` holding `secret`; `run` opens the files of a proven request. */
export function controlDoor(secret: string, port: () => number, run: (r: ControlRequest) => Promise<ControlAnswer>): ControlDoor {
	/** Host nonces handed out and not used yet, with when they stop being good. */
	const nonces = new Map<string, number>();
	const issue = (): string => {
		const now = Date.now();
		for (const [n, until] of nonces) if (until < now || nonces.size >= MAX_NONCES) nonces.delete(n);
		const n = newNonce();
		nonces.set(n, now + NONCE_MS);
		return n;
	};
	/** Takes a nonce: true once, while it is good. */
	const take = (n: string): boolean => {
		const until = nonces.get(n);
		nonces.delete(n);
		return until !== undefined && until >= Date.now();
	};
	const hello = (req: IncomingMessage, res: ServerResponse): void =>
		readBody(req, res, (body) => {
			let nonce: unknown;
			try {
				nonce = (JSON.parse(body) as { nonce?: unknown }).nonce;
			} catch {}
			if (typeof nonce !== "string" || !NONCE.test(nonce)) return answer(res, 400, { error: "expected {nonce: base64url}" });
			answer(res, 200, { proof: hostProof(secret, port(), nonce), nonce: issue() });
		});
	const open = (req: IncomingMessage, res: ServerResponse): void => {
		const m = /^Arbor-Proof ([A-Za-z0-9_-]+) ([A-Za-z0-9_-]+)$/.exec(req.headers.authorization ?? "");
		// A request without a nonce of ours is refused before its body is read; the nonce is used up either way.
		if (!m || !take(m[1])) return answer(res, 401, { error: "no proof" });
		readBody(req, res, (body) => {
			if (!sameText(m[2], clientProof(secret, port(), m[1], body))) return answer(res, 401, { error: "wrong proof" });
			const request = parse(body);
			if (!request) return answer(res, 400, { error: "expected {files: string[], show: boolean}" });
			run(request).then(
				(a) => answer(res, 200, a),
				(err: unknown) => answer(res, 500, { error: err instanceof Error ? err.message : String(err) }),
			);
		});
	};
	return {
		handles: (pathname) => pathname === CONTROL_PATH || pathname === HELLO_PATH,
		handle(req, res) {
			const fromBrowser = req.headers.origin !== undefined || Object.keys(req.headers).some((h) => h.startsWith("sec-fetch-"));
			if (req.method !== "POST" || fromBrowser) return answer(res, 403, { error: "not for browsers" });
			if (new URL(req.url ?? "/", "http://127.0.0.1").pathname === HELLO_PATH) hello(req, res);
			else open(req, res);
		},
	};
}
