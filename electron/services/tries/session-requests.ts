// The tries requests of the Arbor API as ArborServices answers them: a session id resolved to its file, Keep
// followed by opening the kept session, and Keep's switch of a connected pi to the kept session through the
// source session's Steering (pi's own ctx.switchSession).

import type { RequestParams, RequestResult, SessionSummary } from "../../../shared/api";
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
		const steering = this.deps.steering(s.id);
		if (steering.via !== "pi") return false;
		try {
			const r = await steering.switchSession(kept, { waitForIdle: true });
			return !r.cancelled;
		} catch (err) {
			this.deps.notice(s.id, `The kept try's changes are applied, but pi did not switch to its session: ${err instanceof Error ? err.message : String(err)}`);
			return false;
		}
	}
}
