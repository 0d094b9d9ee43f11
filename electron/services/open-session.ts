// One open session: its core manager plus what the services track for it (entries the client holds,
// last reported leaf and labels, leaf history, watcher, running abort, the queue of async flows).

import { EntryKind } from "../../shared/skeleton";
import type { SearchAsker } from "../../shared/api";
import type { SessionManager } from "../session";
import { LeafHistory } from "./leaf-history";
import type { FileWatcher } from "./watcher";

export class OpenSession {
	readonly id: string;
	manager: SessionManager;
	/** Entries the client holds (skeleton + deltas sent). */
	sentCount = 0;
	/** The manager's getGeneration() when the client's copy was last made whole (see SessionRegistry.sync). */
	generation: number;
	lastLeafId: string | null;
	lastResumeLeafId: string | null;
	labelsKey = "";
	history: LeafHistory;
	watcher: FileWatcher | undefined;
	/** Abort for the running summary / extension call. */
	abort: AbortController | undefined;
	/** Serialises the async flows (navigate, branch) of one session. */
	queue: Promise<unknown> = Promise.resolve();
	title: string | null | undefined;
	/**
	 * Bumped by every search request, per asker: a running cooperative search stops when it is no longer its
	 * asker's latest (the toolbar's search and the Branches panel's filter run side by side).
	 */
	searchSeq: Record<SearchAsker, number> = { toolbar: 0, branches: 0 };
	closed = false;
	/** A live pi holds the file: it appends only at its own leaf, and Arbor's leaf is pi's (docs/live.md "One leaf"). */
	leafFollowsPi = false;
	/** pi's session name as extensions last heard it (session_info_changed). */
	sessionName: string | undefined;

	constructor(id: string, manager: SessionManager) {
		this.id = id;
		this.manager = manager;
		this.generation = manager.getGeneration();
		this.lastLeafId = manager.getLeafAnchorId();
		this.lastResumeLeafId = manager.getResumeAnchorId();
		this.history = new LeafHistory(this.lastLeafId);
	}
}

export function titleOf(m: SessionManager): string | null {
	// omp keeps the current title in its fixed-width first line (rewritten in place); the header's is the first one.
	const slot = m.getTitleSlot() as { title?: unknown } | undefined;
	if (typeof slot?.title === "string" && slot.title.trim()) return slot.title;
	const header = m.getHeader();
	if (typeof header.title === "string" && header.title.trim()) return header.title;
	// pi's display name: the latest session_info entry (an empty name clears it). Found through the
	// skeleton's kinds so a 100k-entry file is not parsed entry by entry.
	const sk = m.getSkeleton();
	for (let i = sk.count - 1; i >= 0; i--) {
		if (sk.kind[i] !== EntryKind.sessionInfo) continue;
		const e = m.getEntry(sk.ids[i] as string);
		const n = (e as { name?: unknown } | undefined)?.name;
		return typeof n === "string" && n.trim() ? n.trim() : null;
	}
	return null;
}
