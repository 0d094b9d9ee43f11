// electron/hosts/electron: the desktop app's main process. Thin on purpose: app.ts wires the router and
// services to a hardened window; everything Arbor does lives below electron/hosts.

import { join } from "node:path";
import { app, dialog } from "electron";
import { appendPrivateLog } from "../../services/arbor-files";
import { describeError } from "../crash-guard";
import { startElectronApp } from "./app";
import { errorText } from "../../../shared/guards";

startElectronApp().catch((err: unknown) => {
	try {
		appendPrivateLog(join(app.getPath("userData"), "logs", "main.log"), `${new Date().toISOString()} could not start: ${describeError(err)}\n`);
	} catch {
		// the dialog below still tells the user
	}
	dialog.showErrorBox("Arbor could not start", errorText(err));
	app.exit(1);
});
