// The tries requests of the Arbor API (docs/tries.md), part of ArborRequests (shared/api.ts): start, stop, keep,
// discard, a try's diff, the runs of this Arbor and those left behind, and what a run would use before it starts.

import type { SessionSummary } from "./api";
import type { ChangedFile, KeepResult, LeftoverRun, TriesPreparation, TriesRunInfo, TrySpec } from "./tries";

export interface ArborTriesRequests {
	/**
	 * Tries (docs/tries.md): N forks of the session at `entryId`, each run by the user's own pi in its own git
	 * worktree; answers once every fork and worktree exists, then `tries` events follow.
	 */
	startTries: { params: { sessionId: string; entryId: string; tries: TrySpec[] }; result: TriesRunInfo };
	/** Stop one try (`index`) or all of a run: abort, then end its pi. */
	stopTries: { params: { runId: string; index?: number }; result: void };
	/**
	 * Keep one try: its changes into the user's working tree (nothing on a conflict: `conflicts` names the files),
	 * its session continued in the user's folder and opened (`session`), every worktree of the run removed.
	 */
	keepTry: {
		params: { runId: string; index: number };
		result: KeepResult & { kept: string; removed: string[]; switched: boolean; session: SessionSummary | null };
	};
	/** Remove a run's worktrees (this Arbor's, or one left over); its session files stay. */
	discardTries: { params: { runId: string }; result: { removed: string[] } };
	/** A try's changed files against the snapshot it started from, and their unified diff (`path`: one file). */
	getTryDiff: { params: { runId: string; index: number; path?: string }; result: { files: ChangedFile[]; diff: string } };
	/** This Arbor's runs, and the runs an Arbor that ended left behind. */
	listTries: { params: Record<string, never>; result: { runs: TriesRunInfo[]; leftovers: LeftoverRun[] } };
	/** Before "Try N ways…": where the tries would run, which pi runs them (or why none can), the models it can use. */
	prepareTries: { params: { sessionId: string }; result: TriesPreparation };
}
