// Which live pi holds which file: the registration files in ~/.arbor/live (docs/live.md). Reading them sweeps
// the stale ones (shared-node/live-files.ts, the same sweep the extension runs when a pi starts).

import * as fs from "node:fs";
import * as path from "node:path";
import { removeRegistration, sweepRegistrations } from "../../../shared-node/live-files";
import { arborLiveDir } from "../../../shared-node/paths";
import type { LiveRegistration } from "../../../shared/live";

export { removeRegistration };
/** Every live registration, stale ones removed on the way. Empty when the folder is missing or not private. */
export const readRegistrations = sweepRegistrations;
export const defaultLiveDir = arborLiveDir;

/** The same file, however named (symlinks, relative paths): real paths when they exist. */
export function sameFile(a: string, b: string): boolean {
	const real = (p: string): string => {
		try {
			return fs.realpathSync(p);
		} catch {
			return path.resolve(p);
		}
	};
	return real(a) === real(b);
}

/** The pis holding `file`, the one Arbor steers first: the newest (most recently started) wins. */
export function registrationsFor(dir: string, file: string): LiveRegistration[] {
	return sweepRegistrations(dir)
		.filter((r) => r.sessionFile !== null && sameFile(r.sessionFile, file))
		.sort((a, b) => b.startedAt - a.startedAt || b.pid - a.pid);
}
