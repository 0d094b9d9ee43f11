// The CLI's way to a live pi (docs/live.md): the pi with Arbor's extension that holds FILE, if any. The
// commands that steer (navigate, label, branch, send) go through it; `--no-live` acts on the file instead.

import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { connectToHolder, defaultLiveDir, type LiveConnection, LiveError } from "../services";
import { EXIT_BAD_FILE, EXIT_NO_MODEL } from "./args";
import { printError } from "./io";

/** `arbor send` on a file no live pi holds. */
export const EXIT_NO_LIVE = 4;
/** The live pi is running a turn (navigate / branch without --wait) or refused the request. */
export const EXIT_BUSY = 5;

export function cliClient(): { name: string; version: string } {
	try {
		const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as { version?: unknown };
		return { name: "arbor-cli", version: typeof pkg.version === "string" ? pkg.version : "unknown" };
	} catch {
		return { name: "arbor-cli", version: "unknown" };
	}
}

/** The live pi holding `file`, or null. A pi that refuses the handshake is an error the user should see. */
export async function liveHolder(file: string): Promise<{ conn: LiveConnection; otherPids: number[] } | null> {
	return connectToHolder(defaultLiveDir(), resolve(file), cliClient());
}

/** Exit code for a failure of a request the live pi answered. */
export function liveExitCode(err: unknown): number {
	const code = err instanceof LiveError ? err.code : (err as { code?: unknown })?.code;
	if (code === "busy") return EXIT_BUSY;
	if (code === "no_model" || code === "llm_error" || code === "cancelled") return EXIT_NO_MODEL;
	if (code === "bad_secret" || code === "protocol" || code === "unsupported" || code === "failed" || code === "extension_error") return EXIT_BUSY;
	// pi did not answer in time (stopped, stuck), or answered what this Arbor cannot read (another extension version).
	if (code === "timeout" || code === "bad_answer") return EXIT_BUSY;
	return EXIT_BAD_FILE;
}

/** A note on stderr when more than one pi holds the file (the newest one is steered). */
export function noteOthers(conn: LiveConnection, otherPids: number[]): void {
	if (otherPids.length > 0)
		printError(`note: pis ${[conn.registration.pid, ...otherPids].join(", ")} all hold this file; Arbor steers the newest, ${conn.registration.pid}`);
}
