// What the router needs from the services layer and from its host, as types. The real ArborServices
// (electron/services) satisfies RouterServices structurally; tests pass small fakes.

import type { ArborErrorData, ArborEvent, RequestName, RequestParams, RequestResult } from "../../shared/api";

/** Requests only a host can answer (native dialogs, the OS file manager). */
export type HostRequestName = "showOpenDialog" | "revealInFolder";
export type ServiceRequestName = Exclude<RequestName, HostRequestName>;

export type RouterServices = {
	[K in ServiceRequestName]: (params: RequestParams<K>) => Promise<RequestResult<K>>;
} & {
	onEvent(listener: (event: ArborEvent) => void): () => void;
	dispose(): void | Promise<void>;
};

/** Host-provided implementations of the host-only requests; a missing one answers `unsupported`. */
export interface HostHandlers {
	/** Show the native open dialog; resolves to the chosen path or null when cancelled. */
	showOpenDialog?: () => Promise<string | null>;
	/** Show the file in the OS file manager. */
	revealInFolder?: (path: string) => Promise<void>;
}

export type RouterResponse = { ok: true; result: unknown } | { ok: false; error: ArborErrorData };
