// `arbor label FILE ENTRY_ID [TEXT]`: set or clear an entry's label by appending a label entry (pi's
// appendLabelChange: the new entry hangs under the file's leaf, so pi and omp still resume there).

import { errorText } from "../../../shared/guards";
import { flag, parseCommandArgs, positionals, UsageError } from "../args";
import { asBadFile, openSession, reportWarnings } from "../io";
import { liveExitCode, liveHolder, noteOthers } from "../live";

export const labelUsage = `Usage: arbor label FILE ENTRY_ID [TEXT] [--no-live] [--json]

Set the label of ENTRY_ID to TEXT (trimmed), or clear it when TEXT is omitted or empty. Appends one
"label" entry to FILE, as pi's Shift+L does. When a running pi with Arbor's extension holds FILE, that
pi writes it (pi.setLabel; docs/live.md).

Options:
  --no-live   write to the file even when a live pi holds it
  --json      print {"entryId","label","via"} ("via":"pi" adds "pid")
  -h, --help  show this help
Exit codes: 0 done, 1 usage or no such entry, 2 bad file, 5 the live pi refused.`;

export async function labelCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { "no-live": { type: "boolean" }, json: { type: "boolean" } }, labelUsage);
	if (flag(args, "help")) {
		process.stdout.write(`${labelUsage}\n`);
		return 0;
	}
	const [file, entryId, text] = positionals(args, ["FILE", "ENTRY_ID", "TEXT"], 1, labelUsage);
	const label = text?.trim() ? text.trim() : undefined;
	const json = flag(args, "json");
	const print = (via: { via: "pi"; pid: number } | { via: "file" }): void => {
		if (json) process.stdout.write(`${JSON.stringify({ entryId, label: label ?? null, ...via })}\n`);
		else process.stdout.write(label ? `${entryId}: [${label}]\n` : `${entryId}: label cleared\n`);
	};
	if (!flag(args, "no-live")) {
		let live;
		try {
			live = await liveHolder(file as string);
		} catch (err) {
			process.stderr.write(`arbor label: ${errorText(err)}\n`);
			return liveExitCode(err);
		}
		if (live) {
			noteOthers(live.conn, live.otherPids);
			try {
				await live.conn.request({ name: "label", entryId: entryId as string, label: label ?? null });
				print({ via: "pi", pid: live.conn.registration.pid });
				return 0;
			} catch (err) {
				const code = (err as { code?: unknown }).code;
				// omp labels no entry from an extension: the file is written as without a live agent.
				if (code !== "unsupported") {
					if (code === "not_found") throw new UsageError(errorText(err), labelUsage);
					process.stderr.write(`arbor label: ${errorText(err)}\n`);
					return liveExitCode(err);
				}
			} finally {
				live.conn.close();
			}
		}
	}
	const sm = openSession(file, labelUsage);
	try {
		reportWarnings(sm);
		if (sm.indexOf(entryId) < 0) throw new UsageError(`no entry "${entryId}" in ${sm.getSessionFile()}`, labelUsage);
		try {
			sm.appendLabelChange(entryId, label);
		} catch (err) {
			asBadFile(err);
		}
		print({ via: "file" });
		return 0;
	} finally {
		sm.close();
	}
}
