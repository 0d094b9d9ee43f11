// The one mapping from a thrown value to the API's error data (issue #31): the router answers every request
// through it, and the services' toServiceError uses it too, so a core error means the same at every door.
// Errors are told apart by shape (name, code, file, line), not by class: the session core, the services and a
// host may be bundled separately, so one class can have several identities at run time.

import { ARBOR_ERROR_CODES, type ArborErrorCode, type ArborErrorData } from "./api";

const API_CODES: ReadonlySet<string> = new Set<string>(ARBOR_ERROR_CODES);
/** The session core's own codes (SessionFileError), each an API code of the same name. */
const CORE_CODES: ReadonlySet<string> = new Set(["bad_file", "io", "legacy_needs_upgrade", "conflict", "read_only_format"]);

type Shaped = Error & { code?: unknown; file?: unknown; line?: unknown; path?: unknown; syscall?: unknown };

function withPlace(data: ArborErrorData, file: unknown, line: unknown): ArborErrorData {
	if (typeof file === "string") data.file = file;
	if (typeof line === "number") data.line = line;
	return data;
}

/**
 * The API error for `err`: an Arbor service error keeps its code; a session-core error (SessionFileError) its
 * code, file and line; a Node system error is `not_found` (ENOENT) or `io`, naming its path. null for anything
 * else: a real bug, which the router answers as `internal` (details in the host's log).
 */
export function errorDataOf(err: unknown): ArborErrorData | null {
	if (!(err instanceof Error)) return null;
	const e = err as Shaped;
	if (typeof e.code !== "string") return null;
	if (err.name === "ArborServiceError" && API_CODES.has(e.code)) return withPlace({ code: e.code as ArborErrorCode, message: err.message }, e.file, e.line);
	if (err.name === "SessionFileError" && CORE_CODES.has(e.code)) return withPlace({ code: e.code as ArborErrorCode, message: err.message }, e.file, e.line);
	if (/^E[A-Z]+$/.test(e.code) && typeof e.syscall === "string") {
		return withPlace({ code: e.code === "ENOENT" ? "not_found" : "io", message: err.message }, e.path, undefined);
	}
	return null;
}
