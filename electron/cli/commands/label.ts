// `arbor label FILE ENTRY_ID [TEXT]`: set or clear an entry's label by appending a label entry (pi's
// appendLabelChange: the new entry hangs under the file's leaf, so pi and omp still resume there), or have
// the live pi holding FILE set it; steered like the app's label (electron/services/steering).

import { flag, parseCommandArgs, positionals } from "../args";
import { printJsonLine, printLine, printUsage } from "../io";
import { openForSteering, steeringFailure } from "../live";

export const labelUsage = `Usage: arbor label FILE ENTRY_ID [TEXT] [--no-live] [--json]

Set the label of ENTRY_ID to TEXT (trimmed), or clear it when TEXT is omitted or empty. Appends one
"label" entry to FILE, as pi's Shift+L does. When a running pi with Arbor's extension holds FILE, that
pi writes it (pi.setLabel; docs/live.md).

Options:
  --no-live   write to the file even when a live pi holds it
  --json      print {"entryId","label","via"} ("via":"pi" adds "pid")
  -h, --help  show this help
Exit codes: 0 done, 1 usage or no such entry, 2 bad file or an entry with no id in the file
(pi could not resolve a label on it), 5 the live pi refused.`;

export async function labelCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { "no-live": { type: "boolean" }, json: { type: "boolean" } }, labelUsage);
	if (flag(args, "help")) {
		printUsage(labelUsage);
		return 0;
	}
	const [file, entryId, text] = positionals(args, ["FILE", "ENTRY_ID", "TEXT"], 1, labelUsage);
	const label = text?.trim() ? text.trim() : undefined;
	const json = flag(args, "json");
	let steered;
	try {
		steered = await openForSteering(file, labelUsage, { noLive: flag(args, "no-live") });
	} catch (err) {
		return steeringFailure("label", err, labelUsage, json);
	}
	try {
		// omp labels no entry from an extension: the steering writes the file then (via "file").
		const via = await steered.steering.label(entryId as string, label ?? null);
		if (json) printJsonLine(JSON.stringify({ entryId, label: label ?? null, ...via }));
		else printLine(label ? `${entryId}: [${label}]` : `${entryId}: label cleared`);
		return 0;
	} catch (err) {
		return steeringFailure("label", err, labelUsage, json);
	} finally {
		steered.close();
	}
}
