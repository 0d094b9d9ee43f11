// Steering a session (docs/services.md "Steering", docs/live.md): navigate (with or without a summary),
// fork, label, send, abort and switchSession, carried out either by the live pi that holds the file
// (live-steering.ts) or by Arbor on the file (file-steering.ts). `steeringFor` is the one place that
// chooses, from the session's live connection and the capabilities its pi announced; the app's requests
// (arbor-services.ts) and every CLI command that steers go through it, so `via`, the capability checks,
// pi's refusals as Arbor errors and the checks of pi's answers are the same everywhere.

import type { NavigateResult, RequestResult, SessionSummary } from "../../../shared/api";
import type { NavigateOptions } from "../../../shared/live";
import type { FlowContext } from "../flow-context";
import type { LiveConnection } from "../live/connection";
import type { LiveService } from "../live/live-service";
import type { OpenSession } from "../open-session";
import type { SessionRegistry } from "../session-registry";
import { FileSteering } from "./file-steering";
import { LiveSteering } from "./live-steering";

/** Who carried a request out: the running pi (its pid), or Arbor on the file. */
export type Via = { via: "pi"; pid: number } | { via: "file" };

export interface ForkRequest {
	entryId: string;
	/**
	 * before (the app's /branch): from a user message, the path up to its parent; its text goes back to the
	 * composer. at (`arbor branch`): the path root -> entryId.
	 */
	position?: "before" | "at";
	/** A live pi busy with a turn: wait for it instead of failing with `busy`. */
	waitForIdle?: boolean;
	/** On the file, "at": the folder of the new file (default: the session's own, as pi does). A live pi chooses its own. */
	sessionDir?: string;
}

export type ForkAnswer = {
	cancelled: boolean;
	/** The new file (null: cancelled, or an in-memory session). */
	path: string | null;
	editorText: string;
	/** The new session when the file flow opened it; a fork made by pi is opened by the caller. */
	session: SessionSummary | null;
} & Via;

export type SwitchAnswer = { cancelled: boolean; sessionFile: string | null; via: "pi"; pid: number };

export interface Steering {
	readonly via: "pi" | "file";
	/** The live pi's pid (null: file mode). */
	readonly pid: number | null;
	/** pi's /tree: move the leaf, with `summarize` a summary of the branch left behind. */
	navigate(p: { targetId: string } & NavigateOptions): Promise<NavigateResult & Via>;
	/** A new session file from this one (pi's fork; Arbor's branch-to-file). */
	fork(p: ForkRequest): Promise<ForkAnswer>;
	/** Set (or, with null / blank, clear) an entry's label. */
	label(entryId: string, label: string | null): Promise<Via>;
	/** A real turn in the live pi (`no_live_agent` in file mode). */
	send(p: { text: string; deliverAs?: "steer" | "followUp"; wait?: "start" | "end" }): Promise<RequestResult<"send">>;
	/** Stop the live pi's turn or summary (`no_live_agent` in file mode). */
	abort(): Promise<RequestResult<"abort">>;
	/** The live pi leaves this file for another session file (`no_live_agent` in file mode: nothing runs to switch). */
	switchSession(sessionFile: string, opts?: { waitForIdle?: boolean }): Promise<SwitchAnswer>;
}

/** What both implementations work with. */
export interface SteeringDeps {
	sessions: SessionRegistry;
	flow: FlowContext;
	live: LiveService | null;
	/** pi's agent folder and environment: where pi puts a fork (its sessions folders). */
	piAgentDir: string;
	env: NodeJS.ProcessEnv;
}

const chosen = new WeakMap<OpenSession, { conn: LiveConnection | null; steering: Steering }>();

/**
 * The steering for this session now: its live pi when one is connected, else the file. Chosen once per
 * session and connection: again only when a pi comes, goes or is replaced by a newer one.
 */
export function steeringFor(deps: SteeringDeps, s: OpenSession): Steering {
	const conn = deps.live?.connection(s.id) ?? null;
	const known = chosen.get(s);
	if (known && known.conn === conn) return known.steering;
	const file = new FileSteering(deps, s);
	const steering = conn ? new LiveSteering(deps, s, conn, file) : file;
	chosen.set(s, { conn, steering });
	return steering;
}
