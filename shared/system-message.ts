// pi 1.6 system messages (role "system"): the first on a path is the full prompt and tool state, later ones
// patch it. Replaying them gives the state at a point, which pi writes as a compaction's `systemMessage`
// checkpoint and Arbor shows in the inspector. Pure functions over untrusted values (no Node, no DOM).

import { contentText } from "./content-text";
import type { AgentMessage, SystemMessage } from "./entries";
import { asRecord } from "./guards";

/** Text of string content, or of its text blocks joined by "\n" (pi-ai's contentText). */
export function systemContentText(content: unknown): string {
	return contentText(content, "\n", { nonString: "coerce" });
}

function toolName(t: unknown): string | undefined {
	const r = asRecord(t);
	return r && typeof r.name === "string" ? r.name : undefined;
}

/** Tools available after replaying every system message: removals, then additions, per message. */
export function currentTools(messages: readonly AgentMessage[]): SystemMessage["toolsAdded"] & object {
	const tools = new Map<string, NonNullable<SystemMessage["toolsAdded"]>[number]>();
	for (const m of messages) {
		const r = asRecord(m);
		if (!r || r.role !== "system") continue;
		for (const t of Array.isArray(r.toolsRemoved) ? r.toolsRemoved : []) {
			const n = toolName(t);
			if (n !== undefined) tools.delete(n);
		}
		for (const t of Array.isArray(r.toolsAdded) ? r.toolsAdded : []) {
			const n = toolName(t);
			if (n !== undefined) tools.set(n, t as NonNullable<SystemMessage["toolsAdded"]>[number]);
		}
	}
	return [...tools.values()];
}

/**
 * One system message holding the state after every system message in `messages`: non-empty contents joined
 * by a blank line, sections patched by name (`null` removes), the current tools; undefined when there is no
 * system message and no tool. The timestamp is the first system message's.
 */
export function currentSystemMessage(messages: readonly AgentMessage[]): SystemMessage | undefined {
	const content: string[] = [];
	const sections = new Map<string, string>();
	let timestamp: number | undefined;
	for (const m of messages) {
		const r = asRecord(m);
		if (!r || r.role !== "system") continue;
		timestamp ??= r.timestamp as number;
		const text = systemContentText(r.content);
		if (text.length > 0) content.push(text);
		for (const [name, value] of Object.entries(asRecord(r.sections) ?? {})) {
			if (value === null) sections.delete(name);
			else sections.set(name, value as string);
		}
	}
	const tools = currentTools(messages);
	if (timestamp === undefined && tools.length === 0) return undefined;
	return {
		role: "system",
		content: content.join("\n\n"),
		...(sections.size > 0 ? { sections: Object.fromEntries(sections) } : {}),
		...(tools.length > 0 ? { toolsAdded: tools } : {}),
		timestamp: timestamp ?? 0,
	};
}

/** What a system message changes, for cards: section names set / removed, tools added / removed. */
export interface SystemChangeCounts {
	sectionsSet: number;
	sectionsRemoved: number;
	toolsAdded: number;
	toolsRemoved: number;
	/** Characters of `content` (the base prompt on the first message, extra instructions later). */
	contentChars: number;
}

export function systemChangeCounts(message: unknown): SystemChangeCounts {
	const r = asRecord(message) ?? {};
	let set = 0;
	let removed = 0;
	for (const v of Object.values(asRecord(r.sections) ?? {})) {
		if (v === null) removed++;
		else set++;
	}
	return {
		sectionsSet: set,
		sectionsRemoved: removed,
		toolsAdded: Array.isArray(r.toolsAdded) ? r.toolsAdded.length : 0,
		toolsRemoved: Array.isArray(r.toolsRemoved) ? r.toolsRemoved.length : 0,
		contentChars: systemContentText(r.content).length,
	};
}
