// The control door of the user's browser host: a later `arbor serve FILE` (and so `/arbor` in pi) hands its
// files to the host that already runs instead of starting another one. It is for local processes of this
// user only: the secret is in `~/.arbor/host.json` (0600) and never given to a page, the request must carry
// no Origin and no Sec-Fetch-* header (a browser always sends them), and it comes to 127.0.0.1:PORT. What it
// may do is what the user's command line may do: open files the user named.

import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

export const CONTROL_PATH = "/control/open";
/** Largest request body: a list of paths. */
const MAX_BODY = 256 * 1024;

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

function sameSecret(given: string, secret: string): boolean {
	const a = Buffer.from(given);
	const b = Buffer.from(secret);
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

/** Answers a request to CONTROL_PATH; `run` opens the files. The Host header was checked by the caller. */
export function handleControl(req: IncomingMessage, res: ServerResponse, secret: string, run: (r: ControlRequest) => Promise<ControlAnswer>): void {
	const fromBrowser = req.headers.origin !== undefined || Object.keys(req.headers).some((h) => h.startsWith("sec-fetch-"));
	if (req.method !== "POST" || fromBrowser) return answer(res, 403, { error: "not for browsers" });
	const auth = req.headers.authorization ?? "";
	if (!auth.startsWith("Bearer ") || !sameSecret(auth.slice(7), secret)) return answer(res, 401, { error: "wrong secret" });
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
		if (tooBig) return;
		const request = parse(body);
		if (!request) return answer(res, 400, { error: "expected {files: string[], show: boolean}" });
		run(request).then(
			(a) => answer(res, 200, a),
			(err: unknown) => answer(res, 500, { error: err instanceof Error ? err.message : String(err) }),
		);
	});
}
