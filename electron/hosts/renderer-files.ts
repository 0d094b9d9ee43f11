// Mapping a URL path to a file of the built renderer, for both hosts (the browser host's HTTP server and
// the Electron app's arbor:// protocol). A path can never leave the renderer folder.

import { extname, resolve, sep } from "node:path";

const TYPES: Record<string, string> = {
	".html": "text/html; charset=utf-8",
	".js": "text/javascript; charset=utf-8",
	".mjs": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".json": "application/json; charset=utf-8",
	".svg": "image/svg+xml",
	".png": "image/png",
	".ico": "image/x-icon",
	".woff2": "font/woff2",
	".woff": "font/woff",
	".ttf": "font/ttf",
	".map": "application/json; charset=utf-8",
	".txt": "text/plain; charset=utf-8",
};

export function contentType(file: string): string {
	return TYPES[extname(file).toLowerCase()] ?? "application/octet-stream";
}

/** The file under `rootDir` that URL path `pathname` names, or null when it is malformed or escapes. */
export function resolveRendererFile(rootDir: string, pathname: string): string | null {
	let decoded: string;
	try {
		decoded = decodeURIComponent(pathname);
	} catch {
		return null;
	}
	if (decoded.includes("\0")) return null;
	const root = resolve(rootDir);
	const rel = decoded === "/" || decoded === "" ? "index.html" : decoded.replace(/^[/\\]+/, "");
	const file = resolve(root, rel);
	return file.startsWith(root + sep) ? file : null;
}
