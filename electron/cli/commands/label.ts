// `arbor label FILE ENTRY_ID [TEXT]`: set or clear an entry's label by appending a label entry (pi's
// appendLabelChange: the new entry hangs under the file's leaf, so pi and omp still resume there).

import { flag, parseCommandArgs, positionals, UsageError } from "../args";
import { asBadFile, openSession, printLine, printUsage, reportWarnings } from "../io";

export const labelUsage = `Usage: arbor label FILE ENTRY_ID [TEXT]

Set the label of ENTRY_ID to TEXT (trimmed), or clear it when TEXT is omitted or empty. Appends one
"label" entry to FILE, as pi's Shift+L does.

Options:
  -h, --help  show this help`;

export async function labelCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, {}, labelUsage);
	if (flag(args, "help")) {
		printUsage(labelUsage);
		return 0;
	}
	const [file, entryId, text] = positionals(args, ["FILE", "ENTRY_ID", "TEXT"], 1, labelUsage);
	const sm = openSession(file, labelUsage);
	try {
		reportWarnings(sm);
		if (sm.indexOf(entryId) < 0) throw new UsageError(`no entry "${entryId}" in ${sm.getSessionFile()}`, labelUsage);
		const label = text?.trim() ? text.trim() : undefined;
		try {
			sm.appendLabelChange(entryId, label);
		} catch (err) {
			asBadFile(err);
		}
		printLine(label ? `${entryId}: [${label}]` : `${entryId}: label cleared`);
		return 0;
	} finally {
		sm.close();
	}
}
