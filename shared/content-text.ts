// The text of a message's content, one home for every reader (issue #13): pi stores `content` either as a
// string or as an array of blocks, and only `{ type: "text", text }` blocks are text. Callers differ in
// the joiner (pi's rows concatenate, the copy-text panel separates paragraphs, the summarizer lines) and
// in what a non-string `text` means; both are parameters here, never a second copy.
import { isRecord, safeString } from "./guards";

export interface ContentTextOptions {
	/**
	 * A text block whose `text` is not a string: "skip" (default) leaves it out; "coerce" reads it as pi's
	 * tree rows do (`result += block.text`, so `undefined` prints "undefined"), through `safeString` so a
	 * hostile deep array cannot overflow the stack.
	 */
	nonString?: "skip" | "coerce";
	/** Leave out blocks whose text is empty (so no joiner doubles up around them). */
	dropEmpty?: boolean;
	/** Put the joiner only once some text was collected (leading empty blocks add no joiner). */
	joinAfterText?: boolean;
	/** Stop reading blocks once the text is longer than this (the caller still cuts it to its own length). */
	stopAfter?: number;
}

/**
 * String content as it is; block content as the text of its text blocks joined by `joiner`. Anything else
 * (a number, an object, null) has no text: "". Non-record blocks are skipped; only the top level is read,
 * so a deeply nested hostile value costs nothing.
 */
export function contentText(content: unknown, joiner: string, opts: ContentTextOptions = {}): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	const coerce = opts.nonString === "coerce";
	const stopAfter = opts.stopAfter ?? Number.POSITIVE_INFINITY;
	let out = "";
	let first = true;
	for (const b of content) {
		if (!isRecord(b) || b.type !== "text") continue;
		let text: string;
		if (typeof b.text === "string") text = b.text;
		else if (coerce) text = safeString(b.text);
		else continue;
		if (opts.dropEmpty && text === "") continue;
		out = first || (opts.joinAfterText && out === "") ? text : out + joiner + text;
		first = false;
		if (out.length > stopAfter) break;
	}
	return out;
}
