// "Typed error or load with counted warnings": the two acceptable outcomes for hostile input, captured so a
// test can assert on whichever happened and report the other precisely.
import { SessionFileError, SessionManager } from "../../index";

export type LoadOutcome = { kind: "loaded"; sm: SessionManager } | { kind: "typed_error"; err: SessionFileError } | { kind: "other_error"; err: unknown };

export function tryOpen(file: string): LoadOutcome {
	try {
		return { kind: "loaded", sm: SessionManager.open(file) };
	} catch (err) {
		if (err instanceof SessionFileError) return { kind: "typed_error", err };
		return { kind: "other_error", err };
	}
}

/** A readable one-liner of an outcome for assertion messages. */
export function describeOutcome(o: LoadOutcome): string {
	if (o.kind === "loaded") return `loaded: ${o.sm.getEntries().length} entries, warnings ${JSON.stringify(o.sm.getWarnings().slice(0, 5))}`;
	const e = o.err as { name?: string; message?: string; code?: string; line?: number };
	return `${o.kind}: ${e?.name} code=${e?.code} line=${e?.line} ${e?.message}`;
}
