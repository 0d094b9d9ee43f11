// What the Electron preload exposes as `window.arbor`: the ArborClient, plus the raw envelope call and the
// drop helper. contextBridge copies only `message` of a thrown Error, so the renderer builds its
// ArborRequestError (with `code`) from `invoke`'s envelope on its own side of the bridge.

import type { ArborClient, ArborErrorData, RequestName, SessionSummary } from "./api";

export type BridgeResponse<T = unknown> = { ok: true; result: T } | { ok: false; error: ArborErrorData };

export interface ArborBridge extends ArborClient {
	readonly host: "electron";
	/** Same as `request`, but answers with the envelope instead of throwing. */
	invoke(name: RequestName, params: unknown): Promise<BridgeResponse>;
	/**
	 * Open a file dropped on the window. The preload reads its path (webUtils.getPathForFile), so the page
	 * can only open files the user really dropped, never a path it made up.
	 */
	openDroppedFile(file: unknown): Promise<BridgeResponse<SessionSummary>>;
}

export function isArborBridge(v: unknown): v is ArborBridge {
	if (v === null || typeof v !== "object") return false;
	const b = v as Record<string, unknown>;
	return b.host === "electron" && typeof b.invoke === "function" && typeof b.onEvent === "function";
}
