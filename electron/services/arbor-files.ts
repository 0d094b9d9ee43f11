// Arbor's own files and folders (~/.arbor: settings, window state, the search index; the app's logs): the
// user's alone, whatever the umask (issue #23). The search index holds the words, titles and paths of every
// session, so a 0644 dictionary file would hand a 0600 conversation to every local user. Every folder Arbor
// keeps its data in is made 0700 (shared-node/private.ts, the live channel's rules too) and every file it
// writes there is opened here (0600).

import * as fs from "node:fs";
import * as path from "node:path";
import { makePrivateDir, tighten } from "../../shared-node/private";
import { PRIVATE_FILE_MODE } from "../session";

export { PRIVATE_FILE_MODE };
export { makePrivateDir, PRIVATE_DIR_MODE } from "../../shared-node/private";

/**
 * Opens `file` for writing (created 0600, truncated), also when an older run left it with a wider mode.
 * The caller closes the descriptor.
 */
export function openPrivateFile(file: string, flags: "w" | "a" = "w"): number {
	const fd = fs.openSync(file, flags, PRIVATE_FILE_MODE);
	try {
		tighten(fd, file, PRIVATE_FILE_MODE);
	} catch (err) {
		fs.closeSync(fd);
		throw err;
	}
	return fd;
}

/** Writes `data` to `file` (created or truncated) as a 0600 file. */
export function writePrivateFile(file: string, data: string | Buffer): void {
	const fd = openPrivateFile(file, "w");
	try {
		fs.writeFileSync(fd, data);
	} finally {
		fs.closeSync(fd);
	}
}

/** Appends `text` to a 0600 log file in a 0700 folder (both created when missing). */
export function appendPrivateLog(file: string, text: string): void {
	makePrivateDir(path.dirname(file));
	const fd = openPrivateFile(file, "a");
	try {
		fs.writeFileSync(fd, text);
	} finally {
		fs.closeSync(fd);
	}
}
