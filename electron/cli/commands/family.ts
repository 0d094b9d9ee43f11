// `arbor family FILE [--json]`: the files linked to FILE by their headers (pi /fork, omp /fork and /branch,
// Arbor's branch-to-file), root first, with where each one branched off its parent.

import { sessionFamily } from "../../services/family";
import { flag, parseCommandArgs, UsageError } from "../args";
import { Output, printUsage } from "../io";
import { errorText } from "../../../shared/guards";

export const familyUsage = `Usage: arbor family FILE [DIR...] [--json]

Print the session family of FILE: the file it was branched from (and that file's parent, up to the
root) and every file branched from any of them, found in FILE's folder, pi's and omp's session
folders and any DIR given. Each member shows the entry of its parent it branched at.

Options:
  --json      print {"members":[{"path","parentPath","branchedAtEntryId","sessionId","title","entries","createdAt"}]}
  -h, --help  show this help`;

export async function familyCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { json: { type: "boolean" } }, familyUsage);
	if (flag(args, "help")) {
		printUsage(familyUsage);
		return 0;
	}
	const [file] = args.positionals;
	if (file === undefined) throw new UsageError("missing FILE", familyUsage);
	let family;
	try {
		family = await sessionFamily(file, { dirs: args.positionals.slice(1) });
	} catch (err) {
		throw new UsageError(errorText(err), familyUsage);
	}
	const out = new Output();
	if (flag(args, "json")) out.jsonLine(JSON.stringify(family));
	else {
		const depth = new Map<string, number>();
		for (const m of family.members) {
			const d = m.parentPath ? (depth.get(m.parentPath) ?? 0) + 1 : 0;
			depth.set(m.path, d);
			const at = m.parentPath ? (m.branchedAtEntryId ? `  branched at ${m.branchedAtEntryId}` : "  (new file, no entries copied)") : "";
			out.line(`${"  ".repeat(d)}${m.path === family.members[0].path ? "" : "└ "}${m.title ?? "(untitled)"}  [${m.entries ?? "?"} entries]${at}`);
			out.line(`${"  ".repeat(d)}    ${m.path}`);
		}
	}
	await out.flush();
	return 0;
}
