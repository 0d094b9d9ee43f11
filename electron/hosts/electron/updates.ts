// Updates for the packaged app through electron-updater: only when packaged and built with a `publish`
// target (electron-builder then writes resources/app-update.yml). The update downloads in the background
// and installs when the user quits; Arbor never restarts on its own. Every failure is logged, never thrown.

import { existsSync } from "node:fs";
import { join } from "node:path";

export function startAutoUpdate(packaged: boolean, log: (what: string, err?: unknown) => void): void {
	const resources = (process as { resourcesPath?: string }).resourcesPath;
	if (!packaged || !resources || !existsSync(join(resources, "app-update.yml"))) return;
	void import("electron-updater")
		.then(({ autoUpdater }) => {
			autoUpdater.autoDownload = true;
			autoUpdater.autoInstallOnAppQuit = true;
			autoUpdater.on("error", (err) => log("update check failed", err));
			return autoUpdater.checkForUpdatesAndNotify();
		})
		.catch((err: unknown) => log("update check failed", err));
}
