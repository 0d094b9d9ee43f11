// Session files named on the command line (first launch, or a second launch handed to the first
// instance). Electron and Chromium add their own switches, so only existing files count.

import { statSync } from "node:fs";
import { resolve } from "node:path";

/** Files among `args` (already stripped of the executable and app path), resolved against `cwd`. */
export function sessionFilesFromArgs(args: readonly string[], cwd: string): string[] {
	const out: string[] = [];
	for (const a of args) {
		if (!a || a.startsWith("-")) continue;
		const p = resolve(cwd, a);
		try {
			if (statSync(p).isFile()) out.push(p);
		} catch {
			// not a file: an Electron/Chromium argument or a typo; ignore
		}
	}
	return out;
}

/** The user's arguments in `process.argv`: after the executable (packaged) or after the app path (dev). */
export function userArgs(argv: readonly string[], packaged: boolean): string[] {
	return argv.slice(packaged ? 1 : 2);
}
