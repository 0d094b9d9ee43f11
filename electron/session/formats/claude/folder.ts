// What a Claude Code session is beyond its own lines: its title (the one Claude shows), the subagent transcripts
// beside it, and the session it was forked from. These read the session's folder; everything else in the format
// is pure. docs/formats-claude.md "Lineage" and "Title".

import * as fs from "node:fs";
import * as path from "node:path";
import { isRecord } from "../../../../shared/guards";
import type { Lineage } from "../format";
import { roleOf, textOf, messageOf } from "./entry";

type Raw = Record<string, unknown>;

/** The JSON objects of a JSONL file; unreadable lines are skipped (a file Claude is still writing may end mid-line). */
export function readRecords(file: string): Raw[] {
	const out: Raw[] = [];
	for (const line of fs.readFileSync(file, "utf8").split("\n")) {
		if (!line.trim()) continue;
		try {
			const v: unknown = JSON.parse(line);
			if (isRecord(v)) out.push(v);
		} catch {}
	}
	return out;
}

/**
 * The title Claude Code shows: the latest `custom-title` (the user's /rename), else the latest `ai-title`, else the
 * latest `summary` record's text, else the first prompt the user typed (not a command or injected text).
 */
export function claudeTitle(records: readonly Raw[]): string | undefined {
	const latest = (type: string, key: string): string | undefined => {
		for (let i = records.length - 1; i >= 0; i--) {
			const r = records[i]!;
			if (r.type === type && typeof r[key] === "string" && (r[key] as string).trim()) return (r[key] as string).trim();
		}
		return undefined;
	};
	const prompt = (): string | undefined => {
		for (const r of records) {
			if (roleOf(r) !== "user" || r.isSidechain === true) continue;
			const t = textOf(messageOf(r).content).trim();
			if (t && !t.startsWith("<")) return t.split("\n")[0]!.slice(0, 200);
		}
		return undefined;
	};
	return latest("custom-title", "customTitle") ?? latest("ai-title", "aiTitle") ?? latest("summary", "summary") ?? prompt();
}

export interface ClaudeSubagent {
	/** The transcript file. */
	file: string;
	agentId: string;
	/** From the `.meta.json` beside it (agentType), when there is one. */
	agentType?: string;
	/** The parent's tool call that started it (Task / Agent), when the parent names the agent in its result. */
	toolCallId?: string;
}

/** The session file's subagent transcripts: `<session>/subagents/agent-*.jsonl` (current) and `agent-*.jsonl` beside it naming this session (older). */
export function claudeSubagents(sessionFile: string, parentRecords: readonly Raw[] = readRecords(sessionFile)): ClaudeSubagent[] {
	const dir = path.dirname(sessionFile);
	const stem = path.basename(sessionFile, ".jsonl");
	const found: ClaudeSubagent[] = [];
	const sub = path.join(dir, stem, "subagents");
	const list = (d: string): string[] => {
		try {
			return fs.readdirSync(d).filter((n) => /^agent-.+\.jsonl$/.test(n));
		} catch {
			return [];
		}
	};
	for (const n of list(sub).sort()) found.push(subagent(path.join(sub, n)));
	for (const n of list(dir).sort()) {
		const file = path.join(dir, n);
		const first = readRecords(file).find((r) => typeof r.sessionId === "string");
		if (first?.sessionId === stem) found.push(subagent(file));
	}
	// The parent's tool result names the agent it ran (toolUseResult.agentId); its tool_use_id is the call.
	const callOf = new Map<string, string>();
	for (const r of parentRecords) {
		const res = isRecord(r.toolUseResult) ? r.toolUseResult : undefined;
		const block = Array.isArray(messageOf(r).content) ? (messageOf(r).content as unknown[]).find(isRecord) : undefined;
		if (res && typeof res.agentId === "string" && isRecord(block) && typeof block.tool_use_id === "string") callOf.set(res.agentId, block.tool_use_id);
	}
	for (const s of found) if (callOf.has(s.agentId)) s.toolCallId = callOf.get(s.agentId);
	return found;
}

function subagent(file: string): ClaudeSubagent {
	const agentId = path.basename(file, ".jsonl").replace(/^agent-/, "");
	let agentType: string | undefined;
	try {
		const meta: unknown = JSON.parse(fs.readFileSync(file.replace(/\.jsonl$/, ".meta.json"), "utf8"));
		if (isRecord(meta) && typeof meta.agentType === "string") agentType = meta.agentType;
	} catch {}
	return { file, agentId, ...(agentType ? { agentType } : {}) };
}

/**
 * Where a session was forked from. `/branch` stamps `forkedFrom {sessionId, messageUuid}` on its records;
 * `--fork-session` stamps nothing but copies the path with the same uuids, and the copied answers keep the
 * original's `requestSessionId`: the parent is that session's file beside this one, the fork point the last
 * record of the copy that the parent holds.
 */
export function claudeForkOf(sessionFile: string, records: readonly Raw[] = readRecords(sessionFile)): Lineage | undefined {
	const own = path.basename(sessionFile, ".jsonl");
	for (const r of records) {
		const f = r.forkedFrom;
		if (isRecord(f) && typeof f.sessionId === "string" && f.sessionId !== own) {
			const file = path.join(path.dirname(sessionFile), `${f.sessionId}.jsonl`);
			return { sessionId: f.sessionId, ...(fs.existsSync(file) ? { file } : {}), ...(typeof f.messageUuid === "string" ? { entryId: f.messageUuid } : {}) };
		}
	}
	const copied = records.find((r) => typeof r.requestSessionId === "string" && r.requestSessionId !== own && r.requestSessionId !== r.sessionId);
	if (!copied) return undefined;
	const parentId = copied.requestSessionId as string;
	const file = path.join(path.dirname(sessionFile), `${parentId}.jsonl`);
	if (!fs.existsSync(file)) return { sessionId: parentId };
	const inParent = new Set(readRecords(file).map((r) => r.uuid));
	let entryId: string | undefined;
	for (const r of records) {
		if (typeof r.uuid !== "string") continue;
		if (!inParent.has(r.uuid)) break;
		entryId = r.uuid;
	}
	return { sessionId: parentId, file, ...(entryId ? { entryId } : {}) };
}
