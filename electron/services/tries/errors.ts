// The tries' typed errors: every refusal of Keep, start, discard carries a code the API and the CLI map (the
// message is for the user; no stack trace reaches them).

/**
 * - not_found: no such run or try; running: a try still runs, or a file moved under Arbor; gone: the try's worktree
 *   is gone; conflict: the user's tree and the try differ on a file.
 * - changed: a file of the user's tree changed while Keep planned (nothing written; keep again).
 * - unsafe_path: a file Keep would write lies at or under a symbolic link in the user's tree (nothing written).
 * - too_large: a file is over MAX_KEEP_FILE_BYTES (nothing written).
 * - io: a write failed; everything Keep had already changed was put back.
 */
export type TriesErrorCode = "not_found" | "running" | "conflict" | "gone" | "changed" | "unsafe_path" | "too_large" | "io";

export class TriesError extends Error {
	constructor(
		message: string,
		readonly code: TriesErrorCode,
		/** The files the error is about (relative to the repository's top folder), when it is about files. */
		readonly files: string[] = [],
	) {
		super(message);
		this.name = "TriesError";
	}
}
