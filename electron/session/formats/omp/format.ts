// oh-my-pi's session format (omp 18.3): pi's v3 records plus omp's own entry types (mapped onto Arbor's model as
// their own kinds, shared/skeleton.ts), its fixed-width title slot (title-slot.ts), header fields of its own,
// its folders (dirs.ts) and its context rules (context.ts). Read and written like pi's: the records are the
// model's entries as they are. docs/formats.md "omp".

import { AGENT_NAMES } from "../../../../shared/agents";
import type { SessionEntry } from "../../../../shared/entries";
import type { DirEnv, FormatProbe, Lineage, SessionFormat } from "../format";
import { firstRecord } from "../pi/header";
import { headerLineage, lastResumableRow, piRecordReader } from "../pi/format";
import { buildOmpContext, ompByHeader } from "./context";
import { ompSessionRoots } from "./dirs";
import { isTitleRecord } from "./title-slot";

export const ompFormat: SessionFormat = {
	id: "omp",
	agentName: AGENT_NAMES.omp,
	writable: true,
	readsAsPi: true,
	// From the first bytes alone: the title slot, or a header with a field only omp writes. A file whose only omp
	// mark is an entry further down is told by the whole-file rule (sessionWriter, context.ts).
	detect(probe: FormatProbe): boolean {
		const first = firstRecord(probe.head);
		if (!first) return false;
		return isTitleRecord(first) || (first.type === "session" && ompByHeader(first, false));
	},
	sessionRoots: (env: DirEnv, home: string) => ompSessionRoots(env, home),
	isSessionFile: (file: string) => file.endsWith(".jsonl"),
	newReader: () => piRecordReader,
	toEntry: (raw: Record<string, unknown>) => raw as unknown as SessionEntry,
	buildContext: (sm, leafId) => buildOmpContext(sm, leafId),
	// omp's createBranchedSession names the parent as pi does (a path, or the parent's session id for its /fork);
	// a file omp moved lists its earlier paths.
	lineage(header: Record<string, unknown> | undefined): Lineage | undefined {
		const own = headerLineage(header);
		const prev = header?.previousSessionFiles;
		const previousFiles = Array.isArray(prev) ? prev.filter((x): x is string => typeof x === "string") : [];
		return previousFiles.length ? { ...own, previousFiles } : own;
	},
	resumeRow: lastResumableRow,
};
