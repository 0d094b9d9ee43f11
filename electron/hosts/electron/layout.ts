// Where the desktop app's files are, for the two ways Electron runs it:
// - development, `electron dist/main.cjs [FILE]`: Electron sets app.getAppPath() to the folder of the file
//   it was given (`<repo>/dist`), or to the repo with `electron .`;
// - packaged: app.getAppPath() is the app root inside the package (`…/resources/app.asar`).
// Both are resolved by walking up from the app path to Arbor's package.json, so the renderer, preload and
// sample are found in either layout. Dev runs get their own name and data folder: Electron's default
// (`Electron`, ~/.config/Electron) is shared by every unpackaged Electron app, and so is its
// single-instance lock.

import { dirname, join } from "node:path";
import { findAppRoot } from "../app-root";

export interface AppLayout {
	/** The folder with Arbor's package.json (the repo, or app.asar when packaged). */
	appRoot: string;
	rendererDir: string;
	preload: string;
	/**
	 * The pi extension this copy ships ("Connect pi"): in the packaged app outside app.asar, under resources/pi-arbor
	 * (extraResources: pi runs it from there), in a checkout the repo's own folder.
	 */
	piExtension: string;
	/** The bundled sample session, read-only inside the app. */
	sample: string;
	/** The app's name (menus, dialogs) and the user data folder name under the OS's app-data folder. */
	name: string;
	dataFolderName: string;
}

export const PACKAGED_NAME = "Arbor";
export const DEV_NAME = "Arbor Dev";

export function appLayout(appPath: string, packaged: boolean): AppLayout {
	const appRoot = packaged ? appPath : findAppRoot(appPath);
	return {
		appRoot,
		rendererDir: join(appRoot, "dist", "renderer"),
		preload: join(appRoot, "dist", "preload.cjs"),
		piExtension: packaged ? join(dirname(appRoot), "pi-arbor", "pi-extension") : join(appRoot, "pi-extension"),
		sample: join(appRoot, "build", "sample-session.jsonl"),
		name: packaged ? PACKAGED_NAME : DEV_NAME,
		dataFolderName: packaged ? PACKAGED_NAME : DEV_NAME,
	};
}
