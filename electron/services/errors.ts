// Typed service errors: the router turns an ArborServiceError into ArborErrorData for the client.

import type { ArborErrorCode } from "../../shared/api";

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

const FILE_ERROR_CODES: ReadonlySet<string> = new Set(["bad_file", "io", "legacy_needs_upgrade", "conflict"]);

/**
 * Normalise anything a flow threw. The core's SessionFileError keeps its code, file and line (checked
 * structurally so this file does not depend on the core's class identity across bundles).
 */
export function toServiceError(err: unknown): ArborServiceError {
	if (err instanceof ArborServiceError) return err;
	if (err instanceof Error) {
		const rec = err as Error & { code?: unknown; file?: unknown; line?: unknown };
		if (typeof rec.code === "string" && FILE_ERROR_CODES.has(rec.code)) {
			return new ArborServiceError(
				rec.code as ArborErrorCode,
				err.message,
				typeof rec.file === "string" ? rec.file : undefined,
				typeof rec.line === "number" ? rec.line : undefined,
			);
		}
		// Node fs errors (ENOENT, EACCES...) surface as io with the path when known.
		if (typeof rec.code === "string" && /^E[A-Z]+$/.test(rec.code)) {
			const p = (err as Error & { path?: unknown }).path;
			return new ArborServiceError(rec.code === "ENOENT" ? "not_found" : "io", err.message, typeof p === "string" ? p : undefined);
		}
		return new ArborServiceError("internal", err.message);
	}
	return new ArborServiceError("internal", String(err));
}
