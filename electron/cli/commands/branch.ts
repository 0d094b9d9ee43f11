// `arbor branch FILE ENTRY_ID`: extract the root -> ENTRY_ID path into a new session file (pi's
// createBranchedSession) and print its path. The source file is never modified.

import { copyFileSync, fsyncSync, linkSync, mkdirSync, openSync, closeSync, renameSync, statSync, unlinkSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { flag, parseCommandArgs, positionals, stringOption, UsageError } from "../args";
import { asBadFile, openSession, reportWarnings } from "../io";

export const branchUsage = `Usage: arbor branch FILE ENTRY_ID [--dir DIR]

Write a new session file holding the path from the root to ENTRY_ID (labels on that path are carried
over; its header names FILE as parentSession) and print the new file's path. FILE is not changed.

Options:
  --dir DIR   put the new file in DIR (default: FILE's folder, as pi does)
  -h, --help  show this help`;

/** Move a finished file into another folder without ever leaving a partial file at the destination. */
function moveInto(src: string, dir: string): string {
	mkdirSync(dir, { recursive: true });
	const dest = join(dir, basename(src));
	try {
		// A hard link fails instead of replacing an existing file, and is atomic.
		linkSync(src, dest);
	} catch (err) {
		const code = typeof err === "object" && err !== null ? (err as { code?: string }).code : undefined;
		if (code === "EEXIST") throw new UsageError(`${dest} already exists`);
		if (code !== "EXDEV" && code !== "EPERM" && code !== "ENOTSUP") throw err;
		// Another file system: copy to a temp name, fsync, rename.
		const tmp = join(dir, `.${basename(src)}.${process.pid}.tmp`);
		copyFileSync(src, tmp);
		const fd = openSync(tmp, "r+");
		try { fsyncSync(fd); } finally { closeSync(fd); }
		try { statSync(dest); unlinkSync(tmp); throw new UsageError(`${dest} already exists`); } catch (e) { if (e instanceof UsageError) throw e; }
		renameSync(tmp, dest);
	}
	unlinkSync(src);
	return dest;
}

export async function branchCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { dir: { type: "string" } }, branchUsage);
	if (flag(args, "help")) {
		process.stdout.write(`${branchUsage}\n`);
		return 0;
	}
	const [file, entryId] = positionals(args, ["FILE", "ENTRY_ID"], 0, branchUsage);
	const sm = openSession(file, branchUsage);
	try {
		reportWarnings(sm);
		if (sm.indexOf(entryId) < 0) throw new UsageError(`no entry "${entryId}" in ${sm.getSessionFile()}`, branchUsage);
		let created: string | undefined;
		try {
			created = sm.createBranchedSession(entryId);
		} catch (err) {
			asBadFile(err);
		}
		if (!created) throw new Error("the session core did not create a file");
		const dir = stringOption(args, "dir");
		const finalPath = dir !== undefined && resolve(dir) !== resolve(created, "..") ? moveInto(created, resolve(dir)) : created;
		process.stdout.write(`${finalPath}\n`);
		return 0;
	} finally {
		sm.close();
	}
}
