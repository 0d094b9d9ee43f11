// Tries (issue 30, docs/tries.md): from one entry, N forks run side by side by the user's own pi, each in a git
// worktree of the session's folder holding the user's uncommitted work; Keep carries one try's changes into the
// user's tree and continues its session; a record per run under ~/.arbor/tries accounts for every worktree.

export { GitError } from "./git";
export { type LivePiRuntime, livePiRuntime, NoPiError, type PiCommand, piDescription, piForSession, piOnPath } from "./pi-process";
export { READ_ONLY_TOOLS, startTries, type StartTriesOptions, type TriesRun } from "./run";
export { defaultTriesDir, leftoverRuns, readRuns, type RunRecord, runsForFile } from "./state";
export { discardRun, discardTries, keepTry, type KeepOutcome, type SwitchLiveSession, TriesError } from "./finish";
export { TriesRequests, type TriesRequestsOptions } from "./tries-requests";
export { type Confinement, confinementNote, detectConfinement } from "./confine";
export { MAX_RUNNING_TRIES, TrySlots } from "./slots";
export { TRY_MARKER_VAR } from "./sweep";
export { type LiveSwitchOutcome, switchLiveToKept } from "./session-requests";
