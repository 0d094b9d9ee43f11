// "Save position for pi" (docs/session-core.md "Resume point"): the one place that decides the position saved
// (issue 39: a marker must never name a leaf read before the write, nor move the leaf back to an old branch).

import { SAVED_POSITION_TYPE } from "../session";
import { ArborServiceError } from "./errors";
import type { OpenSession } from "./open-session";
import type { SessionRegistry } from "./session-registry";

/**
 * Appends the `arbor.position` marker under `at` (the entry the resume banner names: the leaf moves there in
 * the same write) or else under the in-app leaf as it is when the write runs — read inside the write, after
 * the catch-up with the file. A user message is saved as itself (not its parent, as Navigate would): pi
 * resumes right after it. Returns the marker's id.
 */
export function savePosition(sessions: SessionRegistry, s: OpenSession, at: string | undefined): string {
	if (at !== undefined) sessions.entry(s, at);
	return sessions.write(s, (m) => {
		if (at !== undefined) {
			if (m.getEntry(at) === undefined)
				throw new ArborServiceError(
					"conflict",
					`Entry ${at} is no longer in ${m.getSessionFile() ?? "the session"}: the file was replaced on disk. Nothing was written.`,
				);
			m.branch(at);
		}
		return m.appendCustomEntry(SAVED_POSITION_TYPE, { leafId: m.getLeafId(), savedAt: new Date().toISOString() });
	});
}
