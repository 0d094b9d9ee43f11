// Typed service errors: the router turns an ArborServiceError into ArborErrorData for the client.

import type { ArborErrorCode } from "../../shared/api";
import { errorDataOf } from "../../shared/errors";

export class ArborServiceError extends Error {
	readonly code: ArborErrorCode;
	readonly file?: string;
	readonly line?: number;
	constructor(code: ArborErrorCode, message: string, file?: string, line?: number) {
		super(message);
		this.name = "ArborServiceError";
		this.code = code;
		this.file = file;
		this.line = line;
	}
}

/**
 * Normalise anything a flow threw: a core error keeps its code, file and line, a Node system error becomes
 * io / not_found with its path (shared/errors.ts, the same mapping the router answers with); the rest is
 * `internal`.
 */
export function toServiceError(err: unknown): ArborServiceError {
	if (err instanceof ArborServiceError) return err;
	const data = errorDataOf(err);
	if (data) return new ArborServiceError(data.code, data.message, data.file, data.line);
	return new ArborServiceError("internal", err instanceof Error ? err.message : String(err));
}
