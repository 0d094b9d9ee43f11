// The page's open tabs kept across a reload: their paths in tab order and the active one, in the page's
// sessionStorage (one browser tab's, so two pages on one host keep their own tabs; a new host on another port
// is another origin and starts clean). Only paths are kept: the host checks each again when it is reopened.

import type { AppState } from "./store";
import type { KeptTabs } from "./store/session";

export type TabStorage = Pick<Storage, "getItem" | "setItem">;

const KEY = "arbor.tabs";

/** The page's sessionStorage, or null where there is none (a test runtime, storage disabled). */
export function pageStorage(): TabStorage | null {
	try {
		return typeof sessionStorage === "undefined" ? null : sessionStorage;
	} catch {
		return null;
	}
}

export function readKeptTabs(storage: TabStorage | null): KeptTabs | undefined {
	try {
		const raw = storage?.getItem(KEY);
		if (!raw) return undefined;
		const v = JSON.parse(raw) as Partial<KeptTabs>;
		const paths = Array.isArray(v.paths) ? v.paths.filter((p): p is string => typeof p === "string") : [];
		return { paths, active: typeof v.active === "string" ? v.active : null };
	} catch {
		return undefined;
	}
}

export function writeKeptTabs(storage: TabStorage | null, s: Pick<AppState, "order" | "sessions" | "activeSessionId">): void {
	if (!storage) return;
	const pathOf = (id: string | null): string | null => (id ? (s.sessions[id]?.summary.path ?? null) : null);
	const kept: KeptTabs = { paths: s.order.map(pathOf).filter((p): p is string => p !== null), active: pathOf(s.activeSessionId) };
	const text = JSON.stringify(kept);
	try {
		if (storage.getItem(KEY) !== text) storage.setItem(KEY, text);
	} catch {
		// A full or disabled storage: the tabs are simply not kept.
	}
}
