// pi's session format (v1–v3, pi 1.6): the reference format. Its records are Arbor's entry model as they are
// (shared/entries.ts), so mapping a record is the identity; v1/v2 files are migrated in memory (migrate.ts),
// large files are indexed by the byte skimmer (scan-line.ts), and the header's `parentSession` is the lineage.
// docs/formats.md "pi".

import { join } from "node:path";
import { AGENT_NAMES } from "../../../../shared/agents";
import type { SessionEntry } from "../../../../shared/entries";
import { factsOf } from "../../classify";
import type { DirEnv, FormatProbe, IndexRow, Lineage, RecordReader, ResumeInput, SessionFormat } from "../format";
import { piAgentDir, piConfiguredSessionDir } from "./dirs";
import { firstRecord } from "./header";
import { skimLine } from "./scan-line";

/** pi's reader: the skimmer on the bytes (entry lines only: a header line is parsed), `factsOf` on a parsed record. */
export const piRecordReader: RecordReader = {
	skim(buf: Buffer, s: number, e: number): IndexRow[] | undefined {
		const sk = skimLine(buf, s, e);
		return sk && sk.type !== "session" ? [sk] : undefined;
	},
	read(raw: Record<string, unknown>): IndexRow[] {
		const f = factsOf(raw);
		const id = typeof raw.id === "string" ? raw.id : undefined;
		const rp = raw.parentId;
		const row: IndexRow = { id, parentId: typeof rp === "string" || rp === null ? rp : undefined, ...f };
		if (raw.type === "label") {
			row.timestamp = typeof raw.timestamp === "string" ? raw.timestamp : undefined;
			row.targetId = typeof raw.targetId === "string" ? raw.targetId : undefined;
			row.label = raw.label as string | null | undefined;
		}
		return [row];
	},
};

/** The lineage pi's header names: `parentSession` (pi's /fork and /clone, Arbor's branches), or the older `branchedFrom`. */
export function headerLineage(header: Record<string, unknown> | undefined): Lineage | undefined {
	if (!header) return undefined;
	const p = header.parentSession;
	if (typeof p === "string" && p) return { file: p };
	const b = header.branchedFrom;
	if (typeof b === "string" && b) return { file: b };
	return undefined;
}

/** pi and omp resume at the last line they parsed whole (a record recovered from a glued line is not one). */
export function lastResumableRow(ix: ResumeInput): number {
	for (let i = ix.count - 1; i >= 0; i--) if (ix.resumableAt(i)) return i;
	return -1;
}

export const piFormat: SessionFormat = {
	id: "pi",
	agentName: AGENT_NAMES.pi,
	writable: true,
	readsAsPi: true,
	detect(probe: FormatProbe): boolean {
		const first = firstRecord(probe.head);
		return first !== undefined && first.type === "session";
	},
	sessionRoots(env: DirEnv, home: string): string[] {
		const agent = piAgentDir(env, home);
		// pi 1.6 keeps new sessions in $PI_CODING_AGENT_SESSION_DIR, else its `sessionDir` setting; the default
		// folder stays listed for the sessions written before either was set.
		const configured = piConfiguredSessionDir(env, agent, home);
		return configured ? [configured, join(agent, "sessions")] : [join(agent, "sessions")];
	},
	isSessionFile: (file: string) => file.endsWith(".jsonl"),
	newReader: () => piRecordReader,
	toEntry: (raw: Record<string, unknown>) => raw as unknown as SessionEntry,
	lineage: headerLineage,
	resumeRow: lastResumableRow,
};
