// Steering requests carried out by the live pi (docs/live.md "What goes through pi"): the same Arbor API
// answers as the file flows give, plus `via: "pi"` and the pid. Arbor's own view of the file follows: the
// appended entries through the watcher's catch-up, and the leaf moved where pi's leaf now is.

import type { ArborErrorCode, NavigateResult, RequestParams, RequestResult } from "../../../shared/api";
import { ArborServiceError } from "../errors";
import type { OpenSession } from "../open-session";
import type { SessionRegistry } from "../session-registry";
import { type LiveConnection, LiveError } from "./connection";

const CODES: Partial<Record<LiveError["code"], ArborErrorCode>> = {
	busy: "busy",
	not_found: "not_found",
	no_model: "no_model",
	unsupported: "unsupported",
	bad_request: "bad_request",
	unknown_request: "unsupported",
	no_session: "conflict",
	disconnected: "conflict",
	failed: "extension_error",
};

/** pi's refusal or failure as the Arbor error the router passes on (busy stays busy: the UI offers wait / stop). */
export function liveFailure(err: unknown, pid: number): ArborServiceError {
	if (err instanceof LiveError) {
		const code = CODES[err.code] ?? "extension_error";
		const message = err.code === "disconnected" ? `pi ${pid} went away before it answered (${err.message}); the file shows what was done` : err.message;
		return new ArborServiceError(code, message);
	}
	return new ArborServiceError("internal", err instanceof Error ? err.message : String(err));
}

/** Arbor's copy of the file catches up with what pi wrote, and its leaf goes where pi's is. */
function follow(sessions: SessionRegistry, s: OpenSession, leafId: string | null): void {
	sessions.write(s, (m) => {
		if (leafId === null) m.resetLeaf();
		else if (m.getEntry(leafId) !== undefined) m.branch(leafId);
	});
}

export async function navigateViaPi(conn: LiveConnection, sessions: SessionRegistry, s: OpenSession, p: RequestParams<"navigate">): Promise<NavigateResult> {
	const pid = conn.registration.pid;
	let r;
	try {
		r = await conn.request({
			name: "navigate",
			targetId: p.targetId,
			summarize: p.summarize,
			customInstructions: p.customInstructions,
			replaceInstructions: p.replaceInstructions,
			label: p.label,
			waitForIdle: p.waitForIdle,
		});
	} catch (err) {
		throw liveFailure(err, pid);
	}
	if (!r.cancelled) follow(sessions, s, r.newLeafId);
	return {
		cancelled: r.cancelled,
		...(r.cancelled ? { reason: "cancelled in pi (an extension of pi, or the summary was stopped)" } : {}),
		newLeafId: r.newLeafId,
		oldLeafId: r.oldLeafId,
		...(r.editorText !== undefined ? { editorText: r.editorText } : {}),
		...(r.summaryEntryId ? { summaryEntryId: r.summaryEntryId } : {}),
		...(r.oldLeafId === r.newLeafId && !r.summaryEntryId ? { noop: true } : {}),
		via: "pi",
		pid,
	};
}

/**
 * /branch through pi: pi forks and moves to the new file, as its own /fork does; Arbor opens that file (the
 * live pi now holds it, so the new tab is live).
 */
export async function forkViaPi(
	conn: LiveConnection,
	open: (path: string) => Promise<RequestResult<"branchToFile">["session"]>,
	p: RequestParams<"branchToFile">,
): Promise<RequestResult<"branchToFile">> {
	const pid = conn.registration.pid;
	let r;
	try {
		r = await conn.request({ name: "fork", entryId: p.entryId, waitForIdle: p.waitForIdle });
	} catch (err) {
		throw liveFailure(err, pid);
	}
	const editorText = r.editorText ?? "";
	if (r.cancelled || !r.sessionFile) return { cancelled: true, path: null, editorText, session: null, via: "pi", pid };
	return { cancelled: false, path: r.sessionFile, editorText, session: await open(r.sessionFile), via: "pi", pid };
}

export async function labelViaPi(
	conn: LiveConnection,
	sessions: SessionRegistry,
	s: OpenSession,
	p: RequestParams<"setLabel">,
): Promise<{ via: "pi"; pid: number }> {
	const pid = conn.registration.pid;
	const label = p.label?.trim() ? p.label.trim() : null;
	try {
		await conn.request({ name: "label", entryId: p.entryId, label });
	} catch (err) {
		throw liveFailure(err, pid);
	}
	sessions.catchUp(s);
	return { via: "pi", pid };
}

export async function sendViaPi(conn: LiveConnection, sessions: SessionRegistry, s: OpenSession, p: RequestParams<"send">): Promise<RequestResult<"send">> {
	const pid = conn.registration.pid;
	let r;
	try {
		r = await conn.request({ name: "send", text: p.text, deliverAs: p.deliverAs, wait: p.wait ?? "start" });
	} catch (err) {
		throw liveFailure(err, pid);
	}
	if (r.outcome === "ended") follow(sessions, s, r.leafId);
	return {
		via: "pi",
		pid,
		outcome: r.outcome,
		leafId: r.leafId,
		...(r.stopReason !== undefined ? { stopReason: r.stopReason } : {}),
		...(r.errorMessage !== undefined ? { errorMessage: r.errorMessage } : {}),
	};
}

export async function abortViaPi(conn: LiveConnection): Promise<RequestResult<"abort">> {
	const pid = conn.registration.pid;
	try {
		const r = await conn.request({ name: "abort" });
		return { via: "pi", pid, wasStreaming: r.wasStreaming };
	} catch (err) {
		throw liveFailure(err, pid);
	}
}
