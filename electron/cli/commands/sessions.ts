// `arbor sessions [DIR...]`: the session library (pi's and omp's default folders, or the given ones),
// grouped by project, newest first.

import type { SessionListItem } from "../../../shared/api";
import { groupByProject, listSessions } from "../../session/library";
import { flag, parseCommandArgs } from "../args";
import { Output, printUsage, warn } from "../io";

export const sessionsUsage = `Usage: arbor sessions [DIR...] [--json]

List session files grouped by project (newest first) with their entry counts and first user message.
Without DIR: pi's sessions folders ($PI_CODING_AGENT_SESSION_DIR or pi's sessionDir setting, and
~/.pi/agent/sessions or $PI_CODING_AGENT_DIR/sessions, "~" expanded) and omp's (~/.omp/agent/sessions,
$OMP_CODING_AGENT_DIR/sessions, $XDG_DATA_HOME/omp/sessions, profiles). With DIRs: *.jsonl files in each DIR
and in its immediate subfolders. Files are described from their first KiB, never read whole, so entry
counts of large files are estimates (shown with "~").

Options:
  --json      print the list as a JSON array of SessionListItem (flat, newest first)
  -h, --help  show this help`;

function when(ms: number): string {
	const d = new Date(ms);
	const p = (n: number) => String(n).padStart(2, "0");
	return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

function summary(item: SessionListItem): string {
	if (item.error) return `(unreadable: ${item.error})`;
	const count = `${item.entryCountExact ? "" : "~"}${item.entryCount} entries`;
	const text = item.title
		? item.title
		: item.firstUserMessage
			? `"${item.firstUserMessage.length > 100 ? `${item.firstUserMessage.slice(0, 100)}…` : item.firstUserMessage}"`
			: "(no user message)";
	return `${count.padEnd(15)} ${text}`;
}

export async function sessionsCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { json: { type: "boolean" } }, sessionsUsage);
	if (flag(args, "help")) {
		printUsage(sessionsUsage);
		return 0;
	}
	const items = listSessions(args.positionals);
	const out = new Output();
	if (flag(args, "json")) out.jsonLine(JSON.stringify(items));
	else if (items.length === 0) {
		warn(args.positionals.length ? "no session files found in the given folders" : "no pi or omp sessions found");
	} else {
		let first = true;
		for (const group of groupByProject(items)) {
			if (!first) out.line();
			first = false;
			out.line(`${group.project}  (${group.sessions.length} session${group.sessions.length === 1 ? "" : "s"})`);
			for (const s of group.sessions) {
				out.line(`  ${when(s.modifiedMs)}  ${s.source.padEnd(3)}  ${summary(s)}`);
				out.line(`      ${s.path}`);
			}
		}
	}
	await out.flush();
	return 0;
}
