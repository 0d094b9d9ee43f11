// `arbor prune FILE ID... [--dir DIR]`: save a pruned copy — a new session file without the branches rooted
// at the given entries (kept lines byte for byte, new session id, parentSession = FILE). FILE is not changed.

import { resolve } from "node:path";
import { savePrunedCopy } from "../../services/export";
import { flag, parseCommandArgs, stringOption, UsageError } from "../args";
import { ArborServiceError } from "../../services/errors";
import { asBadFile, BadFileError, openSession, printLine, printUsage, reportWarnings, warn } from "../io";

export const pruneUsage = `Usage: arbor prune FILE ID... [--dir DIR]

Save a pruned copy of FILE: a new session file without the entries under (and including) each ID.
Labels on kept entries are kept. An incomplete last line (no newline) is left out, with a note.
Prints the new file's path; FILE is not changed.

Options:
  --dir DIR   put the new file in DIR, created when missing (default: FILE's folder)
  -h, --help  show this help`;

export async function pruneCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { dir: { type: "string" } }, pruneUsage);
	if (flag(args, "help")) {
		printUsage(pruneUsage);
		return 0;
	}
	const [file, ...ids] = args.positionals;
	if (ids.length === 0) throw new UsageError(file ? "missing ID (the branch to leave out)" : "missing FILE", pruneUsage);
	const sm = openSession(file, pruneUsage);
	try {
		reportWarnings(sm);
		for (const id of ids) if (sm.indexOf(id) < 0) throw new UsageError(`no entry "${id}" in ${sm.getSessionFile()}`, pruneUsage);
		const dir = stringOption(args, "dir");
		try {
			const r = savePrunedCopy(sm, ids, dir !== undefined ? resolve(dir) : undefined);
			printLine(r.file);
			warn(`kept ${r.kept} entries, left out ${r.dropped}`);
			if (r.tornTailBytes > 0)
				warn(`the last line of ${sm.getSessionFile()} is incomplete (${r.tornTailBytes} bytes, no newline): it was left out of the copy`);
		} catch (err) {
			if (err instanceof ArborServiceError) throw new BadFileError(err.message);
			asBadFile(err);
		}
		return 0;
	} finally {
		sm.close();
	}
}
