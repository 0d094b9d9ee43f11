// `arbor branch FILE ENTRY_ID`: extract the root -> ENTRY_ID path into a new session file (pi's
// createBranchedSession) and print its path. The source file is never modified. Steered like the app's
// branch (electron/services/steering): the live pi forks "at" ENTRY_ID when one holds FILE.

import { resolve } from "node:path";
import { flag, parseCommandArgs, positionals, stringOption } from "../args";
import { printError, printJsonLine, printLine, printUsage } from "../io";
import { openForSteering, steeringFailure } from "../live";

export const branchUsage = `Usage: arbor branch FILE ENTRY_ID [--dir DIR] [--wait] [--no-live] [--json]

Write a new session file holding the path from the root to ENTRY_ID (labels on that path are carried
over; its header names FILE as parentSession) and print the new file's path. FILE is not changed.
When a running pi with Arbor's extension holds FILE, that pi forks (pi's fork at ENTRY_ID, as its /fork
does) and moves to the new file (docs/live.md); --dir then acts on the file instead.

Options:
  --dir DIR   put the new file in DIR (default: FILE's folder, as pi does)
  --wait      the live pi is mid-turn: wait for the turn to end instead of failing (exit 5)
  --no-live   write the branch file even when a live pi holds FILE (the pi stays where it is)
  --json      print {"path","via"} ("via":"pi" adds "pid")
  -h, --help  show this help
Exit codes: 0 done, 1 usage or no such entry, 2 bad file, 5 the live pi is mid-turn or refused.`;

export async function branchCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(
		argv,
		{ dir: { type: "string" }, wait: { type: "boolean" }, "no-live": { type: "boolean" }, json: { type: "boolean" } },
		branchUsage,
	);
	if (flag(args, "help")) {
		printUsage(branchUsage);
		return 0;
	}
	const [file, entryId] = positionals(args, ["FILE", "ENTRY_ID"], 0, branchUsage);
	const json = flag(args, "json");
	const dir = stringOption(args, "dir");
	let steered;
	try {
		// --dir names where Arbor writes the file: a live pi chooses its own folder, so --dir acts on the file.
		steered = await openForSteering(file, branchUsage, { noLive: flag(args, "no-live") || dir !== undefined });
	} catch (err) {
		return steeringFailure("branch", err, branchUsage, json);
	}
	try {
		const r = await steered.steering.fork({
			entryId: entryId as string,
			position: "at",
			...(flag(args, "wait") ? { waitForIdle: true } : {}),
			...(dir !== undefined ? { sessionDir: resolve(dir) } : {}),
		});
		if (r.cancelled || !r.path) {
			printError("arbor branch: cancelled in pi (one of its extensions); nothing was written");
			return 3;
		}
		if (json) printJsonLine(JSON.stringify({ path: r.path, via: r.via, ...(r.via === "pi" ? { pid: r.pid } : {}) }));
		else printLine(r.path);
		return 0;
	} catch (err) {
		return steeringFailure("branch", err, branchUsage, json);
	} finally {
		steered.close();
	}
}
