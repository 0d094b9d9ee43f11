// electron/hosts/electron: the desktop app's main process. Thin on purpose: app.ts wires the router and
// services to a hardened window; everything Arbor does lives below electron/hosts.

import { app, dialog } from "electron";
import { startElectronApp } from "./app";

startElectronApp().catch((err: unknown) => {
	dialog.showErrorBox("Arbor could not start", err instanceof Error ? err.message : String(err));
	app.exit(1);
});
