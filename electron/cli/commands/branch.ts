// `arbor branch FILE ENTRY_ID`: extract the root -> ENTRY_ID path into a new session file (pi's
// createBranchedSession) and print its path. The source file is never modified.

import { resolve } from "node:path";
import { flag, parseCommandArgs, positionals, stringOption, UsageError } from "../args";
import { asBadFile, openSession, printLine, printUsage, reportWarnings } from "../io";

export const branchUsage = `Usage: arbor branch FILE ENTRY_ID [--dir DIR]

Write a new session file holding the path from the root to ENTRY_ID (labels on that path are carried
over; its header names FILE as parentSession) and print the new file's path. FILE is not changed.

Options:
  --dir DIR   put the new file in DIR (default: FILE's folder, as pi does)
  -h, --help  show this help`;

export async function branchCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { dir: { type: "string" } }, branchUsage);
	if (flag(args, "help")) {
		printUsage(branchUsage);
		return 0;
	}
	const [file, entryId] = positionals(args, ["FILE", "ENTRY_ID"], 0, branchUsage);
	const sm = openSession(file, branchUsage);
	try {
		reportWarnings(sm);
		if (sm.indexOf(entryId) < 0) throw new UsageError(`no entry "${entryId}" in ${sm.getSessionFile()}`, branchUsage);
		const dir = stringOption(args, "dir");
		let created: string | undefined;
		try {
			// The core writes straight into DIR (temp file, fsync, link there): nothing appears next to FILE.
			created = sm.createBranchedSession(entryId, dir !== undefined ? { sessionDir: resolve(dir) } : {});
		} catch (err) {
			asBadFile(err);
		}
		if (!created) throw new Error("the session core did not create a file");
		printLine(created);
		return 0;
	} finally {
		sm.close();
	}
}
