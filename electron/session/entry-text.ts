// The plain text of a user message or custom message: what pi puts back in the editor when the user
// navigates to it (its text blocks concatenated, shared/content-text.ts).

import type { SessionEntry } from "../../shared/entries";
import { contentText } from "../../shared/content-text";
import { isRecord } from "../../shared/guards";

export function entryText(entry: SessionEntry): string {
	const e = entry as Record<string, unknown>;
	let content: unknown;
	if (e.type === "message" && isRecord(e.message)) content = e.message.content;
	else if (e.type === "custom_message") content = e.content;
	return contentText(content, "");
}
