// The preload: the only code with both the page and IPC in reach. It exposes `window.arbor` (shared/
// bridge.ts) and nothing else; the page never touches ipcRenderer. Requests are limited to the API's
// names, and a dropped file's path is read here from the real File, so the page cannot invent one.

import { contextBridge, ipcRenderer, webUtils } from "electron";
import { type ArborEvent, ArborRequestError, REQUEST_NAMES, type RequestName } from "../../../shared/api";
import type { ArborBridge, BridgeResponse } from "../../../shared/bridge";
import { DROP_REQUEST, EVENT_CHANNEL, REQUEST_CHANNEL } from "./channels";

const listeners = new Set<(event: ArborEvent) => void>();
ipcRenderer.on(EVENT_CHANNEL, (_event, payload: ArborEvent) => {
	for (const l of [...listeners]) {
		try {
			l(payload);
		} catch (err) {
			console.error("arbor: event listener failed", err);
		}
	}
});

const refuse = (message: string): Promise<BridgeResponse> => Promise.resolve({ ok: false, error: { code: "bad_request", message } });

function invoke(name: RequestName, params: unknown): Promise<BridgeResponse> {
	if (!(REQUEST_NAMES as readonly string[]).includes(name)) return refuse(`unknown request ${String(name).slice(0, 100)}`);
	return ipcRenderer.invoke(REQUEST_CHANNEL, name, params) as Promise<BridgeResponse>;
}

const bridge: ArborBridge = {
	host: "electron",
	invoke,
	async request(name, params) {
		const r = await invoke(name, params);
		if (r.ok) return r.result as never;
		throw new ArborRequestError(r.error);
	},
	onEvent(listener) {
		listeners.add(listener);
		return () => {
			listeners.delete(listener);
		};
	},
	openDroppedFile(file) {
		let path = "";
		try {
			path = webUtils.getPathForFile(file as File);
		} catch {
			path = "";
		}
		if (!path) return refuse("the dropped item is not a file on disk") as Promise<BridgeResponse<never>>;
		return ipcRenderer.invoke(REQUEST_CHANNEL, DROP_REQUEST, { path });
	},
};

contextBridge.exposeInMainWorld("arbor", bridge);
