// Resume point safety (pi #9930, omp #12242). pi and omp resume a session at the file's last line. A
// bookkeeping line appended from a stale leaf (a label, pi's cache-warmer `usage`) can leave that last line
// on another branch than the newest conversation, so the next `pi -c` silently continues an old branch.
// Pure functions over skeleton-like columns (no Node, no DOM): the session core and the renderer share them.

import { EntryKind } from "./skeleton";
import { isAlwaysHiddenKind } from "./tree-view";

export interface ResumeColumns {
	count: number;
	parent: Int32Array;
	kind: Uint8Array;
	/** Index of the last entry in file order (pi's resume point), -1 when none. */
	resumeLeaf: number;
}

export interface ResumePointStatus {
	/** The last line's entry (pi's resume point), -1 when none. */
	resumeLeaf: number;
	/** The resume leaf, or its nearest ancestor when it is a line no tree shows (usage): where to draw it. */
	anchor: number;
	/** Newest entry (file order) of the conversation: a message, custom message, branch summary or compaction. */
	newestConversation: number;
	/** The newest conversation is not on the resume leaf's path: pi would resume on another branch. */
	stale: boolean;
	/** The entry the user likely means to resume from (the newest conversation) when stale, else -1. */
	suggested: number;
}

/** Kinds that are conversation (what a user means by "where I was"), as opposed to bookkeeping lines. */
export function isConversationKind(kind: number): boolean {
	return kind <= EntryKind.otherRole || kind === EntryKind.customMessage || kind === EntryKind.branchSummary || kind === EntryKind.compaction;
}

/**
 * `deliberate(i)`: entry i was placed on purpose (Arbor's "Save position for pi" entry), so a resume point
 * on it, or on bookkeeping lines under it (a label set at the saved position hangs under the marker), away
 * from the newest conversation is what the user asked for.
 */
export function resumePointStatus(c: ResumeColumns, deliberate?: (index: number) => boolean): ResumePointStatus {
	const r = c.resumeLeaf;
	const none: ResumePointStatus = { resumeLeaf: r, anchor: -1, newestConversation: -1, stale: false, suggested: -1 };
	if (r < 0 || r >= c.count) return none;
	let anchor = r;
	for (let steps = 0; anchor >= 0 && steps <= c.count && isAlwaysHiddenKind(c.kind[anchor]); steps++) {
		const p = c.parent[anchor];
		anchor = p === anchor ? -1 : p;
	}
	let newest = -1;
	for (let i = c.count - 1; i >= 0; i--)
		if (isConversationKind(c.kind[i])) {
			newest = i;
			break;
		}
	const out: ResumePointStatus = { resumeLeaf: r, anchor, newestConversation: newest, stale: false, suggested: -1 };
	if (newest < 0 || isConversationKind(c.kind[r])) return out;
	// Is the newest conversation on the resume leaf's path?
	let cur = r;
	for (let steps = 0; cur >= 0 && cur < c.count && steps <= c.count; steps++) {
		if (cur === newest) return out;
		const p = c.parent[cur];
		cur = p === cur ? -1 : p;
	}
	// Issue 39: without the walk, a label under a saved marker made it "stale" and the banner moved the leaf back.
	for (let i = r, steps = 0; i >= 0 && steps <= c.count && !isConversationKind(c.kind[i]); steps++) {
		if (deliberate?.(i)) return out;
		const p = c.parent[i];
		i = p === i ? -1 : p;
	}
	out.stale = true;
	out.suggested = newest;
	return out;
}
