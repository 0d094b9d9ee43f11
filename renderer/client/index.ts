// renderer/client: how the renderer reaches the main process. In the Electron app the preload has put
// the bridge on `window.arbor`; in a browser (`arbor serve`) we connect to the host's WebSocket.
// Either way the app gets one ArborClient.

import { type ArborClient, ArborRequestError, type RequestName, type RequestParams, type RequestResult, type SessionSummary } from "../../shared/api";
import { type ArborBridge, isArborBridge } from "../../shared/bridge";
import { connectBrowserClient } from "./browser-client";

export { connectBrowserClient, socketUrlFromLocation, type BrowserClient, type BrowserClientOptions, type WebSocketLike } from "./browser-client";

export interface ArborAppClient extends ArborClient {
	/**
	 * Open a file dropped on the window (Electron only: a browser page cannot learn a dropped file's
	 * path; there the library and `arbor serve FILE` open files).
	 */
	openDroppedFile?: (file: File) => Promise<SessionSummary>;
}

/** Wrap the preload's bridge so errors keep their `code` (contextBridge would keep only the message). */
export function clientFromBridge(bridge: ArborBridge): ArborAppClient {
	return {
		host: "electron",
		async request<K extends RequestName>(name: K, params: RequestParams<K>): Promise<RequestResult<K>> {
			const r = await bridge.invoke(name, params);
			if (r.ok) return r.result as RequestResult<K>;
			throw new ArborRequestError(r.error);
		},
		onEvent: (listener) => bridge.onEvent(listener),
		async openDroppedFile(file: File): Promise<SessionSummary> {
			const r = await bridge.openDroppedFile(file);
			if (r.ok) return r.result;
			throw new ArborRequestError(r.error);
		},
	};
}

/** The app's one client: Electron's bridge when present, else the browser host's socket. */
export function createArborClient(): ArborAppClient {
	const bridge = (globalThis as { arbor?: unknown }).arbor;
	if (isArborBridge(bridge)) return clientFromBridge(bridge);
	const client = connectBrowserClient();
	// The token now lives in this tab's sessionStorage (browser-client.ts); keep it out of the address bar,
	// history and screenshots.
	const loc = globalThis.location;
	const hash = new URLSearchParams((loc?.hash ?? "").replace(/^#/, ""));
	if (loc && (new URLSearchParams(loc.search).has("token") || hash.has("token")) && typeof history !== "undefined") {
		const url = new URL(loc.href);
		url.searchParams.delete("token");
		hash.delete("token");
		const rest = hash.toString();
		history.replaceState(history.state, "", url.pathname + url.search + (rest ? `#${rest}` : ""));
	}
	return client;
}
