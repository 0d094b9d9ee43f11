// `arbor tree FILE`: the session tree as pi's tree selector shows it (text), or the visible tree as JSON.

import { FILTER_MODES, type FilterMode, type SearchScope } from "../../../shared/api";
import type { SessionEntry } from "../../../shared/entries";
import { describeByKind, renderTreeLines, writeTreeJson, type EntryDescriber } from "../../../shared/tree-text";
import { EntryKind, type Skeleton } from "../../../shared/skeleton";
import { computeTreeView, indexMask } from "../../../shared/tree-view";
import type { SessionManager } from "../../session";
import { flag, parseCommandArgs, positionals, stringOption, UsageError } from "../args";
import { openSession, Output, printUsage, reportWarnings, warn } from "../io";

export const treeUsage = `Usage: arbor tree FILE [--filter MODE] [--search QUERY] [--scope pi|full] [--json]

Print the session tree the way pi's /tree selector shows it: the active branch first, "• " on the
path to the leaf, [labels], one line per entry, "← active" on the leaf.

Options:
  --filter MODE   default | no-tools | user-only | labeled-only | all   (default: default)
  --search QUERY  keep entries whose text contains every word of QUERY (case-insensitive)
  --scope SCOPE   pi (pi's searchable text, default) | full (whole contents, tool arguments)
  --json          print {"leafId", "shownLeafId", "roots": [{"id","type","role"?,"label"?,"children"}]}
  -h, --help      show this help`;

/**
 * Entry type and role. The skeleton's kind code names them exactly except for unknown types and uncommon
 * roles (custom vs hookMessage, developer...): only those entries are read from the file.
 */
function describer(sm: SessionManager, skeleton: Skeleton): EntryDescriber {
	const byKind = describeByKind(skeleton);
	return (i) => {
		const k = skeleton.kind[i];
		if (k !== EntryKind.unknown && k !== EntryKind.otherRole && k !== EntryKind.customMessageRole) return byKind(i);
		const e = sm.getEntryAt(i) as (SessionEntry & { message?: unknown }) | undefined;
		if (!e || typeof e.type !== "string") return byKind(i);
		if (e.type !== "message") return { type: e.type };
		const m = e.message;
		const role = typeof m === "object" && m !== null && typeof (m as { role?: unknown }).role === "string" ? (m as { role: string }).role : undefined;
		return role === undefined ? { type: "message" } : { type: "message", role };
	};
}

export async function treeCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(
		argv,
		{
			filter: { type: "string" },
			search: { type: "string" },
			scope: { type: "string" },
			json: { type: "boolean" },
		},
		treeUsage,
	);
	if (flag(args, "help")) {
		printUsage(treeUsage);
		return 0;
	}
	const [file] = positionals(args, ["FILE"], 0, treeUsage);
	const filter = (stringOption(args, "filter") ?? "default") as FilterMode;
	if (!FILTER_MODES.includes(filter)) throw new UsageError(`unknown filter "${filter}" (expected ${FILTER_MODES.join(", ")})`, treeUsage);
	const scope = (stringOption(args, "scope") ?? "pi") as SearchScope;
	if (scope !== "pi" && scope !== "full") throw new UsageError(`unknown scope "${scope}" (expected pi or full)`, treeUsage);
	const query = stringOption(args, "search");

	const sm = openSession(file, treeUsage);
	try {
		reportWarnings(sm);
		const skeleton = sm.getSkeleton();
		const matches = query !== undefined && query.trim() !== "" ? indexMask(skeleton.count, sm.search(query, scope)) : null;
		const view = computeTreeView(skeleton, { filter, matches });
		const out = new Output();
		if (flag(args, "json")) {
			// pi's leaf is the file's last entry even when no tree shows it (a `usage` line); the view marks its
			// nearest shown ancestor.
			writeTreeJson(view, (chunk) => out.json(chunk), describer(sm, skeleton), sm.getLeafId());
			out.json("\n");
		} else if (view.rows.length === 0) {
			warn("no entries match");
		} else {
			const previews = sm.getPreviews(Array.from(view.rows));
			for (const line of renderTreeLines(view, previews)) out.line(line);
		}
		await out.flush();
		return 0;
	} finally {
		sm.close();
	}
}
