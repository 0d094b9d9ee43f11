// Typed failures of the session core. Every error names the file (and the line when one is to blame) so a
// user can find the problem without a stack trace.

import { errorText } from "../../shared/guards";

/** `read_only_format`: the file is a read-only format's (another agent's); every write path refuses it. */
export type SessionFileErrorCode = "bad_file" | "io" | "legacy_needs_upgrade" | "conflict" | "read_only_format";

export class SessionFileError extends Error {
	readonly code: SessionFileErrorCode;
	readonly file: string;
	readonly line?: number;

	constructor(code: SessionFileErrorCode, file: string, message: string, line?: number, options?: { cause?: unknown }) {
		super(`${file}${line !== undefined ? `:${line}` : ""}: ${message}`, options);
		this.name = "SessionFileError";
		this.code = code;
		this.file = file;
		if (line !== undefined) this.line = line;
	}
}

/** Wraps a Node fs error (ENOENT, EISDIR, EACCES...) as an "io" SessionFileError naming the file. */
export function ioError(file: string, err: unknown, what: string): SessionFileError {
	const code = typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : "";
	const detail = errorText(err);
	return new SessionFileError("io", file, `${what} failed${code ? ` (${code})` : ""}: ${detail}`, undefined, { cause: err });
}
