// Small oracles the session tests assert with (kept out of the production modules they check).
import { EntryKind } from "../../../../shared/skeleton";

/** Every query token occurs in the text, case-insensitively (the reference the search tests compare to). */
export function matchesQuery(text: string, tokens: readonly string[]): boolean {
	if (tokens.length === 0) return true;
	const lower = text.toLowerCase();
	return tokens.every((t) => lower.includes(t));
}

/** omp-only record kinds (bookkeeping an omp session writes; pi treats them as unknown types). */
export function isOmpRecordKind(kind: number): boolean {
	return kind >= EntryKind.modelUsage && kind <= EntryKind.credentialPin;
}
