// Closing a session (its tab's ×, the Close command, the menu bar, a session_closed event) must also drop
// what the graph keeps for it (dragged positions, expanded segments, viewport), or a long-running window
// collects them forever. Watching the store's open-session set catches every one of those paths.

import type { AppStore } from "../store";
import type { GraphControls } from "./registry";

/** Call graph.forgetSession for each session that leaves the store; returns the unsubscribe function. */
export function forgetClosedSessions(store: AppStore, graph: GraphControls): () => void {
	return store.subscribe((state, prev) => {
		if (state.sessions === prev.sessions || !graph.forgetSession) return;
		for (const id of Object.keys(prev.sessions)) {
			if (!(id in state.sessions)) graph.forgetSession(id);
		}
	});
}
