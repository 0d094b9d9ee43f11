// `arbor branch FILE ENTRY_ID`: extract the root -> ENTRY_ID path into a new session file (pi's
// createBranchedSession) and print its path. The source file is never modified.

import { resolve } from "node:path";
import { errorText } from "../../../shared/guards";
import { flag, parseCommandArgs, positionals, stringOption, UsageError } from "../args";
import { asBadFile, openSession, reportWarnings } from "../io";
import { liveExitCode, liveHolder, noteOthers } from "../live";

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
		process.stdout.write(`${branchUsage}\n`);
		return 0;
	}
	const [file, entryId] = positionals(args, ["FILE", "ENTRY_ID"], 0, branchUsage);
	const json = flag(args, "json");
	const print = (path: string, via: { via: "pi"; pid: number } | { via: "file" }): void => {
		process.stdout.write(json ? `${JSON.stringify({ path, ...via })}\n` : `${path}\n`);
	};
	if (!flag(args, "no-live") && stringOption(args, "dir") === undefined) {
		let live;
		try {
			live = await liveHolder(file as string);
		} catch (err) {
			process.stderr.write(`arbor branch: ${errorText(err)}\n`);
			return liveExitCode(err);
		}
		if (live) {
			noteOthers(live.conn, live.otherPids);
			try {
				const r = await live.conn.request({ name: "fork", entryId: entryId as string, position: "at", ...(flag(args, "wait") ? { waitForIdle: true } : {}) });
				if (r.cancelled || !r.sessionFile) {
					process.stderr.write("arbor branch: cancelled in pi (one of its extensions); nothing was written\n");
					return 3;
				}
				print(r.sessionFile, { via: "pi", pid: live.conn.registration.pid });
				return 0;
			} catch (err) {
				if ((err as { code?: unknown }).code === "not_found") throw new UsageError(errorText(err), branchUsage);
				process.stderr.write(`arbor branch: ${errorText(err)}\n`);
				return liveExitCode(err);
			} finally {
				live.conn.close();
			}
		}
	}
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
		print(created, { via: "file" });
		return 0;
	} finally {
		sm.close();
	}
}
