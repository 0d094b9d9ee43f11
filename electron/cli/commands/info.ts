// `arbor info FILE`: what is in a session file: header facts, counts by type and role, tree shape,
// labels and load warnings.

import { statSync } from "node:fs";
import { EntryKind, ENTRY_KIND_NAMES, KIND_ENTRY_TYPES } from "../../../shared/skeleton";
import { countBranchPoints, treeShape } from "../../../shared/tree-view";
import { lineageOf, type SessionManager } from "../../session";
import { flag, parseCommandArgs, positionals } from "../args";
import { openSession, Output, printUsage } from "../io";

export const infoUsage = `Usage: arbor info FILE [--json]

Describe a session file: session id, format version, cwd, title, size, entry counts by type and by
message role, branch points, depth, leaves, roots, the leaf, labels and load warnings.

Options:
  --json      print the same facts as one JSON object
  -h, --help  show this help`;

const KIND_TYPE: Partial<Record<number, string>> = KIND_ENTRY_TYPES;
const KIND_ROLE: Partial<Record<number, string>> = {
	[EntryKind.user]: "user",
	[EntryKind.assistant]: "assistant",
	[EntryKind.toolResult]: "toolResult",
	[EntryKind.bashExecution]: "bashExecution",
	[EntryKind.system]: "system",
};

export interface SessionInfo {
	file: string;
	sessionId: string;
	fileVersion: number;
	needsUpgrade: boolean;
	cwd: string | null;
	title: string | null;
	parentSession: string | null;
	size: number;
	entries: number;
	types: Record<string, number>;
	roles: Record<string, number>;
	branchPoints: number;
	maxDepth: number;
	leaves: number;
	roots: number;
	leafId: string | null;
	/** pi resumes at the last line; `stale` when it sits on another branch than the newest conversation. */
	resumePoint: { leafId: string | null; stale: boolean; suggestedId: string | null };
	labels: number;
	warningCount: number;
	warnings: { line: number; kind: string; message: string }[];
}

function bump(m: Record<string, number>, k: string): void {
	m[k] = (m[k] ?? 0) + 1;
}

/** The file the session was branched or forked from, as its format's lineage rule reads the header (null: none). */
function parentOf(sm: SessionManager): string | null {
	const lineage = lineageOf(sm.getHeader());
	return lineage?.file ?? lineage?.sessionId ?? null;
}

export function sessionInfo(sm: SessionManager): SessionInfo {
	const s = sm.getSkeleton();
	const types: Record<string, number> = {};
	const roles: Record<string, number> = {};
	let title: string | null = null;
	for (let i = 0; i < s.count; i++) {
		const k = s.kind[i];
		const role = KIND_ROLE[k];
		if (role) {
			bump(types, "message");
			bump(roles, role);
			continue;
		}
		const type = KIND_TYPE[k];
		if (type) bump(types, type);
		// Unknown types and uncommon roles need the entry itself; session_info for the latest name.
		if (type && k !== EntryKind.sessionInfo) continue;
		const e = sm.getEntryAt(i) as Record<string, unknown> | undefined;
		if (k === EntryKind.sessionInfo) {
			if (typeof e?.name === "string") title = e.name.trim() || null;
			continue;
		}
		if (e && e.type === "message") {
			bump(types, "message");
			const m = e.message as Record<string, unknown> | undefined;
			bump(roles, typeof m?.role === "string" ? m.role : "(none)");
		} else bump(types, typeof e?.type === "string" ? e.type : (ENTRY_KIND_NAMES[k] ?? "unknown"));
	}
	const header = sm.getHeader();
	const slot = sm.getTitleSlot();
	if (slot && typeof slot.title === "string" && slot.title) title = slot.title;
	else if (typeof header.title === "string" && header.title) title = header.title;
	const shape = treeShape(s);
	const file = sm.getSessionFile() ?? "";
	let size = 0;
	try {
		size = statSync(file).size;
	} catch {
		/* reported by the caller's open already */
	}
	const parent = parentOf(sm);
	return {
		file,
		sessionId: sm.getSessionId(),
		fileVersion: sm.getFileVersion(),
		needsUpgrade: sm.needsUpgrade(),
		cwd: typeof header.cwd === "string" ? header.cwd : null,
		title,
		parentSession: parent,
		size,
		entries: s.count,
		types,
		roles,
		branchPoints: countBranchPoints(s),
		maxDepth: shape.maxDepth,
		leaves: shape.leaves,
		roots: shape.roots,
		leafId: sm.getLeafId(),
		resumePoint: resumeOf(sm),
		labels: s.labels.length,
		warningCount: sm.getWarningCount(),
		warnings: sm.getWarnings(),
	};
}

function resumeOf(sm: SessionManager): SessionInfo["resumePoint"] {
	const st = sm.getResumePointStatus();
	return { leafId: sm.getResumeLeafId(), stale: st.stale, suggestedId: st.suggested >= 0 ? sm.idAt(st.suggested) : null };
}

const counts = (m: Record<string, number>): string =>
	Object.entries(m)
		.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
		.map(([k, v]) => `${k} ${v}`)
		.join(", ") || "none";

export async function infoCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { json: { type: "boolean" } }, infoUsage);
	if (flag(args, "help")) {
		printUsage(infoUsage);
		return 0;
	}
	const [file] = positionals(args, ["FILE"], 0, infoUsage);
	const sm = openSession(file, infoUsage);
	try {
		const info = sessionInfo(sm);
		const out = new Output();
		if (flag(args, "json")) out.jsonLine(JSON.stringify(info));
		else {
			out.line(`file:          ${info.file}`);
			out.line(`session id:    ${info.sessionId}`);
			out.line(`version:       ${info.fileVersion}${info.needsUpgrade ? " (legacy: read-only until upgraded to v3)" : ""}`);
			out.line(`cwd:           ${info.cwd ?? "(none)"}`);
			if (info.title) out.line(`title:         ${info.title}`);
			const parent = parentOf(sm);
			if (parent) out.line(`parent:        ${parent}`);
			out.line(`size:          ${info.size} bytes`);
			out.line(`entries:       ${info.entries}`);
			out.line(`by type:       ${counts(info.types)}`);
			out.line(`by role:       ${counts(info.roles)}`);
			out.line(`branch points: ${info.branchPoints}`);
			out.line(`max depth:     ${info.maxDepth}`);
			out.line(`leaves:        ${info.leaves}`);
			out.line(`roots:         ${info.roots}`);
			out.line(`leaf:          ${info.leafId ?? "(none)"}`);
			if (info.resumePoint.stale) {
				out.line(
					`resume point:  ${info.resumePoint.leafId} is on another branch than the newest conversation (${info.resumePoint.suggestedId}); pi resumes there`,
				);
			}
			out.line(`labels:        ${info.labels}`);
			out.line(`warnings:      ${info.warningCount}`);
			for (const w of info.warnings) out.line(`  line ${w.line}: ${w.message}`);
			if (info.warningCount > info.warnings.length) out.line(`  … ${info.warningCount - info.warnings.length} more`);
		}
		await out.flush();
		return 0;
	} finally {
		sm.close();
	}
}
