// Builders for session entries and small session files used by the service tests.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { SessionEntry } from "../../../../shared/entries";

let clock = Date.parse("2026-01-01T00:00:00.000Z");

function ts(): string {
	clock += 1000;
	return new Date(clock).toISOString();
}

export function user(id: string, parentId: string | null, text: string): SessionEntry {
	return { type: "message", id, parentId, timestamp: ts(), message: { role: "user", content: [{ type: "text", text }], timestamp: clock } };
}

export function assistant(id: string, parentId: string | null, text: string, toolCalls: { name: string; args: Record<string, unknown> }[] = []): SessionEntry {
	const content: unknown[] = [];
	if (text) content.push({ type: "text", text });
	toolCalls.forEach((c, i) => content.push({ type: "toolCall", id: `${id}-call${i}`, name: c.name, arguments: c.args }));
	return {
		type: "message",
		id,
		parentId,
		timestamp: ts(),
		message: { role: "assistant", content, provider: "anthropic", model: "claude-test", stopReason: toolCalls.length ? "toolUse" : "stop", timestamp: clock },
	} as SessionEntry;
}

export function toolResult(id: string, parentId: string | null, toolName: string, text: string): SessionEntry {
	return {
		type: "message",
		id,
		parentId,
		timestamp: ts(),
		message: { role: "toolResult", toolCallId: `${parentId}-call0`, toolName, content: [{ type: "text", text }], isError: false, timestamp: clock },
	} as SessionEntry;
}

export function compaction(id: string, parentId: string | null, summary: string, firstKeptEntryId: string): SessionEntry {
	return { type: "compaction", id, parentId, timestamp: ts(), summary, firstKeptEntryId, tokensBefore: 50_000 } as SessionEntry;
}

export function customMessage(id: string, parentId: string | null, text: string): SessionEntry {
	return { type: "custom_message", id, parentId, timestamp: ts(), customType: "note", content: text, display: true } as SessionEntry;
}

export function header(id = "sess-1", cwd = "/work/project"): Record<string, unknown> {
	return { type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd };
}

export function tempDir(prefix = "arbor-services-"): string {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Write a session file (header + entries, one line each, final newline) and return its path. */
export function writeSession(dir: string, entries: SessionEntry[], name = "session.jsonl", hdr: Record<string, unknown> = header()): string {
	const file = path.join(dir, name);
	fs.writeFileSync(file, [hdr, ...entries].map((e) => JSON.stringify(e)).join("\n") + "\n");
	return file;
}

/**
 * A session with two branches off u1:
 *   u1 ─ a1 ─ u2 ─ a2(read src/a.ts) ─ t2 ─ a3(edit src/b.ts)      ← leaf (last line)
 *       └─ u3 ─ a4
 */
export function branchySession(): SessionEntry[] {
	return [
		user("u1", null, "Build the parser"),
		assistant("a1", "u1", "Sure, starting."),
		user("u3", "a1", "Try another approach instead"),
		assistant("a4", "u3", "Other approach done."),
		user("u2", "a1", "Fix the tokenizer"),
		assistant("a2", "u2", "", [{ name: "read", args: { path: "src/a.ts" } }]),
		toolResult("t2", "a2", "read", "export const a = 1;"),
		assistant("a3", "t2", "Edited b.", [{ name: "edit", args: { path: "src/b.ts", oldText: "x", newText: "y" } }]),
	];
}
