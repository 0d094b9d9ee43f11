// The installed desktop app records where it is (shared/app-record.ts) each time it starts, so `/arbor` in pi
// opens the app rather than the browser. Plain Node, so it is tested without Electron; the app calls it once
// it is ready, and only when packaged (a development run is no installed app: its binary needs the repo).

import * as path from "node:path";
import { APP_RECORD_FILE, type AppRecord } from "../../shared/app-record";
import { makePrivateDir, writePrivateFile } from "./arbor-files";

/**
 * What the OS should start to open the app again. An AppImage runs from a mount that is gone once it exits:
 * its own path is in $APPIMAGE. Elsewhere the running executable is the app's (Arbor.exe, …/MacOS/Arbor).
 */
export function appExecutable(execPath: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
	if (platform === "linux" && env.APPIMAGE) return env.APPIMAGE;
	return execPath;
}

/** Writes ~/.arbor/app.json (0600 in the 0700 ~/.arbor): it names programs `/arbor` will start. */
export function recordAppInstall(arborDir: string, record: AppRecord): void {
	makePrivateDir(arborDir);
	writePrivateFile(path.join(arborDir, APP_RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
}
