// Plain text of an entry (copy text, composer prefill) and small readers of untrusted entry fields.
// Every field of a session file may be missing or of the wrong type, so each read narrows first.

import type { ContentBlock, SessionEntry } from "../../shared/entries";
import { contentText } from "../../shared/content-text";
import { isRecord } from "../../shared/guards";

export function str(v: unknown): string {
	return typeof v === "string" ? v : "";
}

export function blocksOf(content: unknown): ContentBlock[] {
	if (typeof content === "string") return [{ type: "text", text: content }];
	if (!Array.isArray(content)) return [];
	const out: ContentBlock[] = [];
	for (const b of content) if (isRecord(b) && typeof b.type === "string") out.push(b as ContentBlock);
	return out;
}

export function textOfBlocks(content: unknown): string {
	return contentText(content, "\n\n", { dropEmpty: true });
}

/** The text a person would want from an entry: message text, summary, command + output... */
export function entryPlainText(entry: SessionEntry): string {
	const e = entry as Record<string, unknown>;
	switch (entry.type) {
		case "message": {
			const m = isRecord(e.message) ? e.message : {};
			switch (m.role) {
				case "bashExecution":
					return `$ ${str(m.command)}\n${str(m.output)}`;
				case "branchSummary":
				case "compactionSummary":
					return str(m.summary);
				default:
					return textOfBlocks(m.content);
			}
		}
		case "compaction":
		case "branch_summary":
			return str(e.summary);
		case "custom_message":
			return textOfBlocks(e.content);
		case "label":
			return str(e.label);
		case "session_info":
			return str(e.name);
		case "model_change":
			return str(e.model) || [str(e.provider), str(e.modelId)].filter(Boolean).join("/");
		case "thinking_level_change":
			return str(e.thinkingLevel);
		default:
			return JSON.stringify(entry, null, 2);
	}
}

/** An entry (or any value) as indented JSON, for the inspector and "Copy JSON". */
export function prettyJson(v: unknown): string {
	try {
		return JSON.stringify(v, null, 2) ?? String(v);
	} catch {
		return String(v);
	}
}
