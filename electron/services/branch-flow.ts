// /branch: a new session file from a user message; the message text goes back to the composer
// (docs/services.md "branchToFile").

import type { RequestResult } from "../../shared/api";
import { entryText, SessionManager } from "../session";
import { ArborServiceError, toServiceError } from "./errors";
import type { FlowContext } from "./flow-context";
import { isUserMessage } from "./navigation";
import { createChildSessionFile } from "./new-session-file";
import type { OpenSession } from "./open-session";

export async function branchFlow(ctx: FlowContext, s: OpenSession, entryId: string): Promise<RequestResult<"branchToFile">> {
	const { sessions, extensions, events } = ctx;
	const m = s.manager;
	sessions.catchUp(s);
	const entry = sessions.entry(s, entryId);
	if (!isUserMessage(entry)) throw new ArborServiceError("bad_request", "Branching to a new file starts from a user message.");
	const editorText = entryText(entry);
	const cancelled = { cancelled: true, path: null, editorText, session: null };
	const ec = extensions.eventContext(s);
	const before = await extensions.emit(s, { type: "session_before_branch", entryId }, ec);
	if (before?.cancel === true) return cancelled;
	const beforeFork = await extensions.emit(s, { type: "session_before_fork", entryId, position: "before" }, ec);
	if (beforeFork?.cancel === true) return cancelled;

	const parentId = typeof entry.parentId === "string" && m.getEntry(entry.parentId) ? entry.parentId : null;
	const previousFile = m.isPersisted() ? m.getSessionFile() : undefined;
	let target: OpenSession;
	let newPath: string | null = null;
	if (!previousFile) {
		if (parentId === null) {
			target = sessions.register(SessionManager.inMemory(m.getCwd()), { reason: "fork" });
		} else {
			try {
				m.createBranchedSession(parentId);
			} catch (err) {
				throw toServiceError(err);
			}
			target = s;
			sessions.reloaded(s, "branched");
		}
	} else {
		if (parentId === null) {
			newPath = createChildSessionFile(m.getSessionDir(), m.getCwd(), previousFile);
		} else {
			// Written from the open session's own index (no second read of a file that may be 300 MB); the
			// session stays on its file. Caught up first so the core's own catch-up finds nothing new.
			sessions.catchUp(s);
			try {
				newPath = m.createBranchedSession(parentId, { adopt: false }) ?? null;
			} catch (err) {
				throw toServiceError(err);
			}
			if (!newPath) throw new ArborServiceError("internal", "The core did not create a branch file.", previousFile);
		}
		target = await sessions.open(newPath, { reason: "fork", ...(previousFile ? { previousSessionFile: previousFile } : {}) });
	}
	const session = sessions.summary(target);
	if (target !== s) events.emit({ type: "session_loaded", session });
	events.emit({ type: "session_branch", sessionId: s.id, newPath, newSessionId: target.id });
	const after = { previousSessionFile: previousFile, ...(newPath ? { newSessionFile: newPath } : {}) };
	await extensions.emit(s, { type: "session_branch", ...after }, ec);
	await extensions.emit(s, { type: "session_fork", ...after }, ec);
	return { cancelled: false, path: newPath, editorText, session };
}
