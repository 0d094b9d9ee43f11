// Closing a session (its tab's ×, the Close command, the menu bar, a session_closed event) must also drop
// what the graph keeps for it (dragged positions, expanded segments, viewport), or a long-running window
// collects them forever. Watching the store's open-session set catches every one of those paths.

import type { AppStore } from "../store";
import { firstSkeletonKey } from "../store/session";
import type { GraphControls } from "./registry";

/** Call graph.forgetSession for each session that leaves the store; returns the unsubscribe function. */
export function forgetClosedSessions(store: AppStore, graph: GraphControls): () => void {
	return store.subscribe((state, prev) => {
		if (state.sessions === prev.sessions || !graph.forgetSession) return;
		for (const [id, was] of Object.entries(prev.sessions)) {
			const now = state.sessions[id];
			if (!now) graph.forgetSession(id);
			// A first skeleton was drawn under its own key (GraphPane): gone once the whole one replaced it.
			if (was.skeleton?.first && !now?.skeleton?.first) graph.forgetSession(firstSkeletonKey(id));
		}
	});
}
