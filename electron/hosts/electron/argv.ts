// Session files named on the command line (first launch, or a second launch handed to the first
// instance). Electron and Chromium add their own switches, so only existing files count. Linux file
// managers start the app through its desktop entry (`Exec=arbor %U`), which passes `file://` URIs.

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** A path or a `file://` URI as a path (null for other URIs). */
function argPath(a: string, cwd: string): string | null {
	if (/^file:/i.test(a)) {
		try {
			return fileURLToPath(a);
		} catch {
			return null; // file://host/… on a POSIX system, or a malformed URI
		}
	}
	if (/^[a-z][a-z0-9+.-]+:\/\//i.test(a)) return null;
	return resolve(cwd, a);
}

/** Files among `args` (already stripped of the executable and app path), resolved against `cwd`. */
export function sessionFilesFromArgs(args: readonly string[], cwd: string): string[] {
	const out: string[] = [];
	for (const a of args) {
		if (!a || a.startsWith("-")) continue;
		const p = argPath(a, cwd);
		if (p === null) continue;
		try {
			if (statSync(p).isFile()) out.push(p);
		} catch {
			// not a file: an Electron/Chromium argument or a typo; ignore
		}
	}
	return out;
}

/**
 * The user's arguments in `process.argv`: after the executable when packaged; in development
 * (`electron [switches] dist/main.cjs FILE`) after the app path, the first argument that is not a switch.
 */
export function userArgs(argv: readonly string[], packaged: boolean): string[] {
	if (packaged) return argv.slice(1);
	const appPath = argv.findIndex((a, i) => i > 0 && !a.startsWith("-"));
	return appPath < 0 ? [] : argv.slice(appPath + 1);
}
