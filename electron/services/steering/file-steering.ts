// Steering on the file (no live pi holds it, or `--no-live`): Arbor's own flows write pi's entries, as pi
// would (docs/services.md "navigate", "branchToFile", "setLabel"). send, abort and switchSession need a
// running pi: they fail with `no_live_agent` and write nothing.

import type { NavigateResult } from "../../../shared/api";
import { branchFlow } from "../branch-flow";
import { ArborServiceError, toServiceError } from "../errors";
import { navigateFlow } from "../navigate-flow";
import type { OpenSession } from "../open-session";
import type { ForkAnswer, ForkRequest, Steering, SteeringDeps, SwitchAnswer, Via } from "./index";

export class FileSteering implements Steering {
	readonly via = "file" as const;
	readonly pid = null;
	readonly #d: SteeringDeps;
	readonly #s: OpenSession;

	constructor(deps: SteeringDeps, s: OpenSession) {
		this.#d = deps;
		this.#s = s;
	}

	async navigate(p: Parameters<Steering["navigate"]>[0]): Promise<NavigateResult & Via> {
		// waitForIdle is for a live pi's turn: the file has none.
		const { waitForIdle: _wait, ...fileParams } = p;
		const s = this.#s;
		const r = await this.#d.sessions.exclusive(s, () => navigateFlow(this.#d.flow, s, { sessionId: s.id, ...fileParams }));
		return { ...r, via: "file" };
	}

	async fork(p: ForkRequest): Promise<ForkAnswer> {
		const { sessions, live } = this.#d;
		const s = this.#s;
		if ((p.position ?? "before") === "before") {
			const r = await sessions.exclusive(s, () => branchFlow(this.#d.flow, s, p.entryId));
			// The new file may be held by a live pi too (one resumed it): follow it like any opened file.
			if (r.session && live) void live.track(r.session.sessionId, r.session.path);
			return { ...r, via: "file" };
		}
		// "at": the path root -> entryId in a new file (pi's createBranchedSession); the session stays on its file.
		const path = await sessions.exclusive(s, async () => {
			sessions.catchUp(s);
			sessions.entry(s, p.entryId);
			try {
				return s.manager.createBranchedSession(p.entryId, { adopt: false, ...(p.sessionDir !== undefined ? { sessionDir: p.sessionDir } : {}) }) ?? null;
			} catch (err) {
				throw toServiceError(err);
			}
		});
		return { cancelled: false, path, editorText: "", session: null, via: "file" };
	}

	async label(entryId: string, label: string | null): Promise<Via> {
		const { sessions } = this.#d;
		const s = this.#s;
		sessions.entry(s, entryId);
		const text = label?.trim() ? label.trim() : undefined;
		sessions.write(s, (m) => {
			// The write catches up with the file first; another program may have replaced it meanwhile.
			if (m.getEntry(entryId) === undefined) {
				throw new ArborServiceError(
					"conflict",
					`Entry ${entryId} is no longer in ${m.getSessionFile() ?? "the session"}: the file was replaced on disk and has been reloaded. Nothing was written.`,
				);
			}
			// Parented on pi's resume point, not the in-app leaf: labelling an entry while looking at another
			// branch must not move where pi resumes (pi #9930).
			return m.appendLabelChange(entryId, text, { atResume: true });
		});
		return { via: "file" };
	}

	async send(): Promise<never> {
		throw new ArborServiceError(
			"no_live_agent",
			"No live agent holds this file: start pi with Arbor's extension (pi -e $(arbor pi-extension)) on it, or add the text to the file.",
		);
	}

	async abort(): Promise<never> {
		throw new ArborServiceError("no_live_agent", "No live agent holds this file: nothing runs that Arbor could stop.");
	}

	async switchSession(sessionFile: string): Promise<SwitchAnswer> {
		// Nothing runs on this file, so nothing can move: the other file is simply opened (pi resumes it with --session).
		throw new ArborServiceError(
			"no_live_agent",
			`No live agent holds this file: there is no running pi to switch to ${sessionFile}. Open that file in Arbor, or resume it in pi (pi --session FILE).`,
		);
	}
}
