// The Tries panel's state (docs/tries.md): the run this window started, each try's streamed answer, the two tries
// chosen for Compare, and the runs an earlier Arbor left behind. A small store of its own,
// fed by `tries` events; the main process is the truth, this only mirrors what it says.

import { createStore } from "zustand/vanilla";
import { type LeftoverRun, type TriesRunInfo, type TryEvent, tryActive } from "../../shared/tries";

export interface TriesUiState {
	run: TriesRunInfo | null;
	/** Streamed answer text per try index. */
	answers: Record<number, string>;
	/** Tool calls per try index, as the model made them. */
	tools: Record<number, { name: string; args: string }[]>;
	/** The tries chosen for Compare (indices), at most two. */
	compare: number[];
	leftovers: LeftoverRun[];
	/** A request in flight ("keep", "stop", "discard"): buttons wait. */
	busy: string | null;
	/** The host stopped: what became of the tries is unknown here (a new host lists them as leftovers). */
	lost: boolean;
	hostLost(): void;
	apply(event: TryEvent): void;
	started(run: TriesRunInfo): void;
	toggleCompare(index: number): void;
	clear(): void;
	setBusy(busy: string | null): void;
	setLeftovers(l: LeftoverRun[]): void;
}

/** Every try has ended (done, error, stopped or capped). */
export function runFinished(run: TriesRunInfo | null): boolean {
	return run !== null && (run.finished || run.tries.every((t) => !tryActive(t.status)));
}

export const tries = createStore<TriesUiState>()((set, get) => ({
	run: null,
	answers: {},
	tools: {},
	compare: [],
	leftovers: [],
	busy: null,
	lost: false,
	hostLost: () => set({ lost: true, busy: null }),
	apply(e) {
		const run = get().run;
		if (!run || e.runId !== run.runId) return;
		if (e.type === "try_state") set({ run: { ...run, tries: run.tries.map((t) => (t.index === e.state.index ? e.state : t)) } });
		else if (e.type === "try_delta" && e.kind === "text") set({ answers: { ...get().answers, [e.index]: (get().answers[e.index] ?? "") + e.delta } });
		else if (e.type === "try_tool") set({ tools: { ...get().tools, [e.index]: [...(get().tools[e.index] ?? []), { name: e.name, args: e.args }] } });
		else if (e.type === "run_done") set({ run: { ...run, finished: true } });
	},
	started: (run) => set({ run, answers: {}, tools: {}, compare: [], busy: null, lost: false }),
	toggleCompare(index) {
		const cur = get().compare;
		set({ compare: cur.includes(index) ? cur.filter((i) => i !== index) : [...cur, index].slice(-2) });
	},
	clear: () => set({ run: null, answers: {}, tools: {}, compare: [], busy: null }),
	setBusy: (busy) => set({ busy }),
	setLeftovers: (leftovers) => set({ leftovers }),
}));

/** Split a unified diff into one part per file (`diff --git a/X b/X`). */
export function diffByFile(diff: string): Map<string, string> {
	const out = new Map<string, string>();
	const parts = diff.split(/^(?=diff --git )/m).filter((p) => p.startsWith("diff --git "));
	for (const p of parts) {
		const m = /^diff --git a\/(.*?) b\/(.*)$/m.exec(p);
		if (m) out.set(m[2]!, p);
	}
	return out;
}
