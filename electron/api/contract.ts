// What the router needs from the services layer and from its host, as types. The real ArborServices
// (electron/services) satisfies RouterServices structurally; tests pass small fakes.

import type { ArborErrorData, ArborEvent, RequestName, RequestParams, RequestResult } from "../../shared/api";

/** Requests only a host can answer (native dialogs, the OS file manager). */
export type HostRequestName = "showOpenDialog" | "revealInFolder";
export type ServiceRequestName = Exclude<RequestName, HostRequestName>;

/**
 * What a getFamily request may read, from the path policy: files the user opened or served (and, with
 * `library`, the files in pi's and omp's folders the library offers). Every other file is only named.
 */
export interface FamilyScope {
	mayRead(path: string): Promise<boolean>;
	library: boolean;
}

/** Whether a path is in Open Recent and still the very file the user opened then (checked by real path and identity). */
export type RecentCheck = { kind: "not_recent" } | { kind: "same"; path: string } | { kind: "changed"; reason: string };

export type RouterServices = {
	[K in Exclude<ServiceRequestName, "getFamily">]: (params: RequestParams<K>) => Promise<RequestResult<K>>;
} & {
	getFamily(params: RequestParams<"getFamily"> & { scope: FamilyScope }): Promise<RequestResult<"getFamily">>;
	/** Open Recent's check (issue #28); without it no recent file is reopened unasked. */
	checkRecentFile?(path: string): Promise<RecentCheck>;
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
