// Readers of untrusted values, one home each (issue #13): every field of a session file, a settings file
// or a peer's message may be missing, of the wrong type, or built to hurt (a 20,000-deep array where a
// string belongs), so code narrows through these instead of writing its own copy.

/** A plain object (not null, not an array): the shape of a JSON record. */
export function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The value as a record, or undefined when it is not one (for `asRecord(x)?.field` chains). */
export function asRecord(v: unknown): Record<string, unknown> | undefined {
	return isRecord(v) ? v : undefined;
}

/** Any non-null object, arrays included (an extension's handler result, a module namespace). */
export function isObjectLike(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null;
}

/**
 * String() of a value from an untrusted file. A hostile line can hold a 20,000-deep array where a string
 * belongs; String() then recurses until the stack overflows. Same text as String() otherwise (pi's rows).
 */
export function safeString(v: unknown): string {
	if (typeof v === "string") return v;
	try {
		return String(v);
	} catch {
		return "[unreadable value]";
	}
}

/** The text to show for a caught value: an Error's message, anything else as String() would print it. */
export function errorText(err: unknown): string {
	return err instanceof Error ? err.message : safeString(err);
}
