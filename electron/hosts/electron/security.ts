// Hardening of the Electron window and its session: a strict CSP (no unsafe-eval, no inline script),
// no navigation, no new windows, no webviews, no permissions, no requests leaving the app. Session
// content is untrusted: if something in it ever ran as script, it would still have nowhere to go.

import type { Session, WebContents } from "electron";
import { APP_ORIGIN, APP_SCHEME } from "./channels";

// One literal (not built with join) so electronegativity's CSP_GLOBAL_CHECK can parse and grade it.
export const ELECTRON_CSP =
	"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/** The only permission the page gets: writing text to the clipboard (Copy text / Copy id). */
const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(["clipboard-sanitized-write"]);

function isAppUrl(url: string): boolean {
	return url === APP_ORIGIN || url.startsWith(`${APP_ORIGIN}/`);
}

/** Requests the renderer may make: its own files, inline data, and the devtools' own. */
export function isAllowedRequest(url: string): boolean {
	return isAppUrl(url) || url.startsWith("data:") || url.startsWith("devtools:") || url.startsWith("chrome-extension:");
}

export function hardenSession(ses: Session): void {
	ses.webRequest.onHeadersReceived((details, callback) => {
		callback({
			responseHeaders: {
				...details.responseHeaders,
				"Content-Security-Policy": [ELECTRON_CSP],
				"X-Content-Type-Options": ["nosniff"],
			},
		});
	});
	// No remote content, ever: the app is its own files plus the IPC bridge.
	ses.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !isAllowedRequest(details.url) }));
	ses.setPermissionRequestHandler((_contents, permission, callback) => callback(ALLOWED_PERMISSIONS.has(permission)));
	ses.setPermissionCheckHandler((_contents, permission) => ALLOWED_PERMISSIONS.has(permission));
	ses.setDevicePermissionHandler(() => false);
}

/** Applied to every WebContents the app creates (app "web-contents-created"). */
export function hardenWebContents(contents: WebContents): void {
	// The renderer is a single page: any navigation is a link or script in session content. Block it.
	contents.on("will-navigate", (event) => event.preventDefault());
	contents.on("will-redirect", (event) => event.preventDefault());
	contents.on("will-attach-webview", (event) => event.preventDefault());
	contents.setWindowOpenHandler(() => ({ action: "deny" }));
}

/** Link schemes that may leave the app for the system's handler; everything else is refused. */
const EXTERNAL_PROTOCOLS: ReadonlySet<string> = new Set(["http:", "https:", "mailto:"]);

/** The link as a URL the system may open, or null (javascript:, file:, arbor:, malformed, …). */
export function externalLink(url: string): string | null {
	let u: URL;
	try {
		u = new URL(url);
	} catch {
		return null;
	}
	if (!EXTERNAL_PROTOCOLS.has(u.protocol)) return null;
	if (u.protocol !== "mailto:" && u.username + u.password !== "") return null; // https://bank.example@evil.example/
	return u.href;
}

export interface ExternalOpener {
	confirm(message: string, detail: string): Promise<boolean>;
	openExternal(url: string): Promise<void>;
}

/** A link from session content: ask first, then hand it to the system (never to the app's window). */
export async function confirmAndOpenExternal(url: string, opener: ExternalOpener): Promise<boolean> {
	const href = externalLink(url);
	if (href === null) return false;
	if (!(await opener.confirm("Open this link outside Arbor?", href))) return false;
	try {
		await opener.openExternal(href); // eng-disable OPEN_EXTERNAL_JS_CHECK -- href passed externalLink (http/https/mailto) and the user confirmed
		return true;
	} catch {
		return false;
	}
}

export { APP_SCHEME };
