// Marks the compare and pruned-copy commands keep between invocations: the entry marked for comparison and
// the branches marked to leave out of a pruned copy, per session. A small store of its own (view state
// only; nothing here is written to the session file).

import { createStore } from "zustand/vanilla";

export interface MarksState {
	/** sessionId -> entry marked "compare from here". */
	compare: Record<string, string>;
	/** sessionId -> entries whose branches a pruned copy leaves out. */
	prune: Record<string, string[]>;
	markCompare(sessionId: string, id: string | null): void;
	togglePrune(sessionId: string, id: string): void;
	clearPrune(sessionId: string): void;
}

export const marks = createStore<MarksState>()((set, get) => ({
	compare: {},
	prune: {},
	markCompare(sessionId, id) {
		const next = { ...get().compare };
		if (id === null) delete next[sessionId];
		else next[sessionId] = id;
		set({ compare: next });
	},
	togglePrune(sessionId, id) {
		const cur = get().prune[sessionId] ?? [];
		const list = cur.includes(id) ? cur.filter((x) => x !== id) : [...cur, id];
		set({ prune: { ...get().prune, [sessionId]: list } });
	},
	clearPrune(sessionId) {
		const next = { ...get().prune };
		delete next[sessionId];
		set({ prune: next });
	},
}));
