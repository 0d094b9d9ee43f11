// The plain text of a user message or custom message: what pi puts back in the editor when the user
// navigates to it (the rule is shared/editor-text.ts, the pi extension's too).

import type { SessionEntry } from "../../shared/entries";
import { editorText } from "../../shared/editor-text";

export function entryText(entry: SessionEntry): string {
	return editorText(entry) ?? "";
}
