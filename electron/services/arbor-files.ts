// Arbor's own files and folders (~/.arbor: settings, window state, the search index; the app's logs): the
// user's alone, whatever the umask (issue #23). The search index holds the words, titles and paths of every
// session, so a 0644 dictionary file would hand a 0600 conversation to every local user. Every folder Arbor
// keeps its data in is made here (0700) and every file it writes there is opened here (0600).

import * as fs from "node:fs";
import * as path from "node:path";
import { PRIVATE_FILE_MODE } from "../session";

export { PRIVATE_FILE_MODE };
export const PRIVATE_DIR_MODE = 0o700;

function tighten(fd: number | null, file: string, want: number): void {
	const st = fd === null ? fs.statSync(file) : fs.fstatSync(fd);
	// Only what this user owns (a folder someone else shares with us is theirs to set).
	if ((st.mode & 0o077) === 0 || (typeof process.getuid === "function" && st.uid !== process.getuid())) return;
	if (fd === null) fs.chmodSync(file, want);
	else fs.fchmodSync(fd, want);
}

/**
 * Creates `dir` (and missing parents) 0700; a folder Arbor made wider before (0755 from an older Arbor)
 * is narrowed to 0700 once it holds Arbor's data again.
 */
export function makePrivateDir(dir: string): void {
	fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
	tighten(null, dir, PRIVATE_DIR_MODE);
}

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
