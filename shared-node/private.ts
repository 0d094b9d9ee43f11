// The private-folder rules of Arbor's own files (issue #23) and of the live channel (docs/security.md):
// folders 0700 and files 0600, the user's alone whatever the umask; a folder the live channel trusts must be
// the user's own, a real folder (not a link) and closed to everyone else.

import * as fs from "node:fs";

export const PRIVATE_DIR_MODE = 0o700;

const myUid = (): number | null => (typeof process.getuid === "function" ? process.getuid() : null);

/** Narrow a file or folder to `want` when it is ours and open to others (one someone else owns is theirs to set). */
export function tighten(fd: number | null, file: string, want: number): void {
	const st = fd === null ? fs.statSync(file) : fs.fstatSync(fd);
	const uid = myUid();
	if ((st.mode & 0o077) === 0 || (uid !== null && st.uid !== uid)) return;
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
 * Why `p` is not a private place of this user's (POSIX), or null when it is: it exists, is what `kind` says
 * (checked without following a final link), belongs to this user and grants nothing to group or others.
 * Windows has no modes to check: always null there.
 */
export function privacyProblem(p: string, kind: "folder" | "socket" | "file"): string | null {
	if (process.platform === "win32") return null;
	let st: fs.Stats;
	try {
		st = fs.lstatSync(p);
	} catch (err) {
		return `is missing (${(err as NodeJS.ErrnoException).code ?? "unreadable"})`;
	}
	if (kind === "folder" && !st.isDirectory()) return st.isSymbolicLink() ? "is a link, not a folder" : "is not a folder";
	if (kind === "socket" && !st.isSocket()) return "is not a socket";
	if (kind === "file" && !st.isFile()) return st.isSymbolicLink() ? "is a link, not a file" : "is not a regular file";
	const uid = myUid();
	if (uid !== null && st.uid !== uid) return `belongs to another user (uid ${st.uid})`;
	if ((st.mode & 0o077) !== 0) return `is open to other users (mode ${(st.mode & 0o777).toString(8).padStart(4, "0")})`;
	return null;
}

/**
 * The live channel's folder: created 0700, narrowed if this user made it wider, refused (throws) when it is
 * someone else's or not a real folder. Returns `dir`.
 */
export function ownPrivateDir(dir: string): string {
	makePrivateDir(dir);
	const why = privacyProblem(dir, "folder");
	if (why) throw new Error(`${dir} ${why}: Arbor's live channel will not use it`);
	return dir;
}
