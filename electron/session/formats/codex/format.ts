// Codex's rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`, closed ones possibly
// `.jsonl.zst`): a read-only format. Lines become rows by the reader's chain rules (reader.ts) and entries by the
// mapper (entry.ts); the folder functions (folder.ts) give names, fork points and compressed files.
// docs/formats-codex.md.

import * as path from "node:path";
import { AGENT_NAMES } from "../../../../shared/agents";
import type { SessionEntry } from "../../../../shared/entries";
import { isRecord } from "../../../../shared/guards";
import type { DirEnv, FormatProbe, Lineage, ResumeInput, SessionFormat } from "../format";
import { firstRecord } from "../pi/header";
import { codexEntry } from "./entry";
import { BOOKKEEPING_PREFIX, CodexReader } from "./reader";

/** Codex's home: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: DirEnv, home: string): string {
	return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(home, ".codex");
}

/** Whether a first record is a Codex rollout line: `{timestamp, type, payload}` with a type Codex writes. */
export function isCodexRecord(r: Record<string, unknown>): boolean {
	return isRecord(r.payload) && typeof r.type === "string" && ["session_meta", "response_item", "event_msg", "turn_context", "compacted"].includes(r.type);
}

export const codexFormat: SessionFormat = {
	id: "codex",
	agentName: AGENT_NAMES.codex,
	writable: false,
	// A compressed rollout is known by its name (its first bytes are zstd's).
	detect(probe: FormatProbe): boolean {
		if (/rollout-.*\.jsonl\.zst$/.test(path.basename(probe.path))) return true;
		const first = firstRecord(probe.head);
		return first !== undefined && isCodexRecord(first);
	},
	sessionRoots: (env: DirEnv, home: string) => [path.join(codexHome(env, home), "sessions"), path.join(codexHome(env, home), "archived_sessions")],
	isSessionFile: (file: string) => /^rollout-.*\.jsonl(\.zst)?$/.test(path.basename(file)),
	newReader: () => new CodexReader(),
	toEntry: (raw: Record<string, unknown>, row): SessionEntry => codexEntry(raw, row),
	// A fork names its parent thread and the ordinal it forks at (folder.ts codexForkPoint finds the entry);
	// a subagent thread names the thread that spawned it.
	lineage(first: Record<string, unknown> | undefined): Lineage | undefined {
		const meta = first?.type === "session_meta" && isRecord(first.payload) ? first.payload : undefined;
		if (!meta) return undefined;
		if (typeof meta.forked_from_id === "string" && meta.forked_from_id) return { sessionId: meta.forked_from_id };
		const source = isRecord(meta.source) ? meta.source : undefined;
		const spawn = source && isRecord(source.subagent) && isRecord(source.subagent.thread_spawn) ? source.subagent.thread_spawn : undefined;
		if (spawn && typeof spawn.parent_thread_id === "string") return { sessionId: spawn.parent_thread_id };
		return undefined;
	},
	// `codex resume` continues the thread's chain: the latest item, or the point a rollback went back to.
	resumeRow(ix: ResumeInput): number {
		for (let i = ix.count - 1; i >= 0; i--) if (ix.resumableAt(i) && !ix.idAt(i).startsWith(BOOKKEEPING_PREFIX)) return i;
		return -1;
	},
};
