// The tries requests of the Arbor API as ArborServices answers them: a session id resolved to its file, Keep
// followed by opening the kept session, and Keep's switch of a connected pi to the kept session through the
// source session's Steering (pi's own ctx.switchSession).

import type { RequestParams, RequestResult, SessionSummary } from "../../../shared/api";
import { errorText } from "../../../shared/guards";
import { ArborServiceError } from "../errors";
import type { OpenSession } from "../open-session";
import type { Steering } from "../steering";
import type { TriesRequests } from "./tries-requests";

export interface TriesSessionDeps {
	session(sessionId: string): OpenSession;
	all(): OpenSession[];
	open(path: string): Promise<SessionSummary>;
	steering(sessionId: string): Steering;
	notice(sessionId: string, message: string): void;
}

function fileOf(s: OpenSession): string {
	const file = s.manager.getSessionFile();
	if (!file) throw new ArborServiceError("unsupported", "tries fork a session file: this session has none");
	return file;
}

export class TriesSessionRequests {
	constructor(
		readonly tries: () => TriesRequests,
		readonly deps: TriesSessionDeps,
	) {}

	start(p: RequestParams<"startTries">): Promise<RequestResult<"startTries">> {
		return this.tries().start(fileOf(this.deps.session(p.sessionId)), p.entryId, p.tries);
	}

	prepare(p: RequestParams<"prepareTries">): Promise<RequestResult<"prepareTries">> {
		const s = this.deps.session(p.sessionId);
		return this.tries().prepare(fileOf(s), s.manager.getCwd());
	}

	/** Keep one try, then open its session (it continues in the user's folder). */
	async keep(p: RequestParams<"keepTry">): Promise<RequestResult<"keepTry">> {
		const outcome = await this.tries().keep(p.runId, p.index);
		const session = outcome.conflicts.length === 0 ? await this.deps.open(outcome.kept) : null;
		return { ...outcome, session };
	}

	/**
	 * Keep's one call into a live pi: when a live pi holds the source file, it switches to the kept session, so
	 * pi continues where the kept try ended. Without a live pi nothing switches (false). A pi that refuses (busy,
	 * gone) leaves the kept changes applied and says why in a notice: the switch can be made in pi with /resume.
	 */
	async switchLive(source: string, kept: string): Promise<boolean> {
		const s = this.deps.all().find((x) => x.manager.getSessionFile() === source);
		if (!s) return false;
		const r = await switchLiveToKept(this.deps.steering(s.id), kept);
		if (r.error) this.deps.notice(s.id, `The kept try's changes are applied, but pi did not switch to its session: ${r.error}`);
		return r.switched;
	}
}

/** What Keep did to the live pi of the source session: the pi that switched, or none (error: why a pi did not). */
export type LiveSwitchOutcome = { switched: true; pid: number; error?: undefined } | { switched: false; pid: number | null; error?: string };

/**
 * Keep's one call into a live pi, for the app's Keep and `arbor try keep` alike: through the source session's
 * Steering (pi's own ctx.switchSession, once pi is idle). File steering means no live pi: nothing switches.
 */
export async function switchLiveToKept(steering: Steering, kept: string): Promise<LiveSwitchOutcome> {
	if (steering.via !== "pi" || steering.pid === null) return { switched: false, pid: null };
	try {
		const r = await steering.switchSession(kept, { waitForIdle: true });
		if (r.cancelled) return { switched: false, pid: r.pid, error: "pi cancelled the switch (one of its extensions refused it)" };
		return { switched: true, pid: r.pid };
	} catch (err) {
		return { switched: false, pid: steering.pid, error: errorText(err) };
	}
}
