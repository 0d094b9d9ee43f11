// Serves the built renderer (dist/renderer, from `vite build`) with strict security headers. Session
// content is untrusted, so the page may only load its own scripts and talk to its own socket.

import { existsSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import type { ServerResponse } from "node:http";
import { resolve } from "node:path";
import { contentType, resolveRendererFile } from "../renderer-files";

export function contentSecurityPolicy(port: number): string {
	return [
		"default-src 'self'",
		"style-src 'self' 'unsafe-inline'",
		"img-src 'self' data:",
		`connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`,
		"object-src 'none'",
		"base-uri 'none'",
		"frame-ancestors 'none'",
		"form-action 'none'",
	].join("; ");
}

export function securityHeaders(port: number): Record<string, string> {
	return {
		"Content-Security-Policy": contentSecurityPolicy(port),
		"X-Content-Type-Options": "nosniff",
		"X-Frame-Options": "DENY",
		"Referrer-Policy": "no-referrer",
		"Cross-Origin-Opener-Policy": "same-origin",
		"Cross-Origin-Resource-Policy": "same-origin",
		"Permissions-Policy": "camera=(), microphone=(), geolocation=(), clipboard-read=()",
		"Cache-Control": "no-store",
	};
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Arbor: renderer not built</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40em; margin: 4em auto">
<h1>The Arbor renderer is not built yet</h1>
<p>Run <code>npm run build</code> in the Arbor folder, then start <code>arbor serve</code> again.</p>
</body></html>`;

export function send(
	res: ServerResponse,
	port: number,
	status: number,
	body: string | Buffer,
	type = "text/plain; charset=utf-8",
	extra: Record<string, string> = {},
): void {
	res.writeHead(status, { ...securityHeaders(port), "Content-Type": type, "Content-Length": String(Buffer.byteLength(body)), ...extra });
	res.end(body);
}

/** Answer a GET for `pathname` from `rootDir`; never outside it. */
export async function serveStatic(
	res: ServerResponse,
	port: number,
	rootDir: string,
	pathname: string,
	head: boolean,
	extra: Record<string, string>,
): Promise<void> {
	const root = resolve(rootDir);
	const index = resolve(root, "index.html");
	if (!existsSync(index)) {
		send(res, port, 503, head ? "" : NOT_BUILT, "text/html; charset=utf-8", extra);
		return;
	}
	const file = resolveRendererFile(root, pathname);
	if (file === null) {
		send(res, port, 404, "not found", undefined, extra);
		return;
	}
	// Browsers ask for /favicon.ico on their own; the page declares its icon inline, so answer "nothing".
	if (pathname === "/favicon.ico" && !existsSync(file)) {
		res.writeHead(204, securityHeaders(port));
		res.end();
		return;
	}
	try {
		const st = await stat(file);
		if (!st.isFile()) throw new Error("not a file");
		const body = await readFile(file);
		send(res, port, 200, head ? "" : body, contentType(file), extra);
	} catch {
		send(res, port, 404, "not found", undefined, extra);
	}
}
