// The text pi puts back in its editor when the leaf moves to a user message's (or custom message's) parent:
// its text blocks concatenated. One rule for Arbor's file flows (navigate, branch) and the pi extension.

import { contentText } from "./content-text";
import { isRecord } from "./guards";

/** The editor text of `entry`, or undefined when it is not a user message or custom message. */
export function editorText(entry: unknown): string | undefined {
	if (!isRecord(entry)) return undefined;
	if (entry.type === "message" && isRecord(entry.message) && entry.message.role === "user") return contentText(entry.message.content, "");
	if (entry.type === "custom_message") return contentText(entry.content, "");
	return undefined;
}
