// Tries (docs/tries.md): what the API and the CLI say about N forks of a session run side by side from one entry,
// each by its own pi in its own git worktree. Types only.

/** "queued": waiting for one of the tries Arbor runs at once to end (MAX_RUNNING_TRIES, docs/tries.md). */
export type TryStatus = "queued" | "starting" | "running" | "done" | "error" | "stopped" | "capped";

/** A try that has not ended yet (queued, starting or running). */
export function tryActive(status: TryStatus): boolean {
	return status === "queued" || status === "starting" || status === "running";
}

/** One file that differs between a try's worktree and the snapshot it started from. */
export interface ChangedFile {
	/** Relative to the repository's top folder. */
	path: string;
	status: "added" | "modified" | "deleted";
	/** Lines added / removed; null for a binary file. */
	added: number | null;
	removed: number | null;
}

/** What the Tries panel and the CLI show of one try. */
export interface TryState {
	index: number;
	/** The fork pi runs (its header's parentSession is the run's source). */
	sessionFile: string;
	/** The try's git worktree; null outside git (the try then ran read-only in the session's folder). */
	worktree: string | null;
	cwd: string;
	prompt: string;
	/** provider/id, null: pi's default. */
	model: string | null;
	thinking: string | null;
	status: TryStatus;
	/** Why it ended in error, or how it was stopped or capped. */
	message: string | null;
	tokens: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
	/** USD, as pi prices the model. */
	cost: number;
	startedAt: number;
	endedAt: number | null;
	/** The worktree's files that differ from the snapshot (null outside git, or until the try ends). */
	files: ChangedFile[] | null;
}

export const TRY_THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type TryThinkingLevel = (typeof TRY_THINKING_LEVELS)[number];
export const MIN_TRIES = 2;
export const MAX_TRIES = 6;

export interface TrySpec {
	prompt: string;
	/** provider/id; pi's default model when omitted. */
	model?: string;
	thinking?: TryThinkingLevel;
	/** Stop the try once its turns cost more than this (USD) or used more tokens than this. */
	capUsd?: number;
	capTokens?: number;
}

/** A run as the UI knows it. */
export interface TriesRunInfo {
	runId: string;
	source: string;
	entryId: string;
	/** No git repository: the tries ran with read-only tools in the session's own folder. */
	readOnly: boolean;
	/** Which pi runs the tries: "the live pi's runtime (pid N): RUNTIME CLI" or "pi on PATH: PATH". */
	pi?: string;
	/** True when each try's pi runs confined; `confinement` says in words what a try can touch. */
	confined?: boolean;
	confinement?: string;
	tries: TryState[];
	/** Every try has ended. */
	finished: boolean;
}

/** A run an Arbor that ended (crash, kill, a CLI without keep or discard) left behind. */
export interface LeftoverRun {
	runId: string;
	source: string;
	createdAt: string;
	worktrees: string[];
}

/** A model the user's pi can run (credentials present), with pi's prices (USD per million tokens). */
export interface TryModelInfo {
	provider: string;
	id: string;
	name: string;
	reasoning: boolean;
	cost: { input: number; output: number };
}

export type TryEvent =
	| { type: "try_state"; runId: string; state: TryState }
	/** A piece of the answer as pi streams it (text or thinking), for live cards. */
	| { type: "try_delta"; runId: string; index: number; kind: "text" | "thinking"; delta: string }
	/** A tool call the try's model made (name and its first string argument, shortened), for live cards. */
	| { type: "try_tool"; runId: string; index: number; name: string; args: string }
	| { type: "run_done"; runId: string };

/** What Keep did: the files written into the user's tree, or (then nothing was written) the conflicting ones. */
export interface KeepResult {
	applied: string[];
	conflicts: string[];
}

export interface TriesPreparation {
	/** The session's working folder. */
	cwd: string;
	/** True when it is in a git repository (worktrees); false: the tries get read-only tools. */
	git: boolean;
	/** How pi would be started ("pi on PATH: /usr/local/bin/pi"), or null with `piError` saying why none can. */
	pi: string | null;
	piError?: string;
	/** True when a try's pi would run confined; `confinement` says in words what a try can touch. */
	confined: boolean;
	confinement: string;
	models: TryModelInfo[];
}
