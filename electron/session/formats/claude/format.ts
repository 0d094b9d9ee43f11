// Claude Code's session files (`~/.claude/projects/<cwd>/<session>.jsonl`): a read-only format. Its records form a
// real tree (uuid / parentUuid) which the reader (reader.ts) turns into index rows and the mapper (entry.ts) into
// pi's entries; the folder functions (folder.ts) give the title, subagents and fork lineage. docs/formats-claude.md.

import * as path from "node:path";
import { AGENT_NAMES } from "../../../../shared/agents";
import type { SessionEntry } from "../../../../shared/entries";
import type { DirEnv, FormatProbe, Lineage, ResumeInput, SessionFormat } from "../format";
import { firstRecord } from "../pi/header";
import { claudeEntry } from "./entry";
import { BOOKKEEPING_PREFIX, ClaudeReader } from "./reader";

/** First-record types only Claude Code writes (a session starts with bookkeeping or a conversation record). */
const FIRST_TYPES = new Set([
	"queue-operation",
	"mode",
	"permission-mode",
	"api-request-route",
	"atis-latch",
	"tools-used",
	"file-history-snapshot",
	"summary",
	"custom-title",
	"ai-title",
	"agent-name",
	"last-prompt",
	"cost-state",
]);

/** Whether a first record is Claude Code's: one of its own types, or a conversation record shaped like its own. */
export function isClaudeRecord(r: Record<string, unknown>): boolean {
	if (typeof r.type !== "string" || "payload" in r) return false;
	if (FIRST_TYPES.has(r.type)) return true;
	if (!["user", "assistant", "system", "attachment", "progress"].includes(r.type)) return false;
	return "uuid" in r || "parentUuid" in r || "sessionId" in r || typeof r.message === "object";
}

/** Claude Code's folder for projects: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function claudeProjectsRoot(env: DirEnv, home: string): string {
	const dir = env.CLAUDE_CONFIG_DIR;
	return path.join(dir ? path.resolve(dir) : path.join(home, ".claude"), "projects");
}

export const claudeFormat: SessionFormat = {
	id: "claude",
	agentName: AGENT_NAMES.claude,
	writable: false,
	detect(probe: FormatProbe): boolean {
		const first = firstRecord(probe.head);
		return first !== undefined && isClaudeRecord(first);
	},
	sessionRoots: (env: DirEnv, home: string) => [claudeProjectsRoot(env, home)],
	// Subagent transcripts are children of their session (folder.ts), not sessions of their own.
	isSessionFile: (file: string) =>
		file.endsWith(".jsonl") && !/^agent-[A-Za-z0-9-]+\.jsonl$/.test(path.basename(file)) && !file.split(path.sep).includes("subagents"),
	newReader: () => new ClaudeReader(),
	toEntry: (raw: Record<string, unknown>, row): SessionEntry => claudeEntry(raw, row),
	// `/branch` stamps the parent on every record; a `--fork-session` copy is found from its folder (claudeForkOf).
	lineage(first: Record<string, unknown> | undefined): Lineage | undefined {
		const f = first?.forkedFrom as Record<string, unknown> | undefined;
		if (!f || typeof f.sessionId !== "string") return undefined;
		return { sessionId: f.sessionId, ...(typeof f.messageUuid === "string" ? { entryId: f.messageUuid } : {}) };
	},
	// `claude --resume` hangs the next prompt under the last conversation record of the file (checked with the real
	// CLI, real-agent-files.test.ts), which the latest `last-prompt` names too; bookkeeping rows do not count.
	resumeRow(ix: ResumeInput): number {
		for (let i = ix.count - 1; i >= 0; i--) if (ix.resumableAt(i) && !ix.idAt(i).startsWith(BOOKKEEPING_PREFIX)) return i;
		return -1;
	},
};
