// Where Arbor keeps its own files (~/.arbor): one home for every path under it, used by the app, the CLI and
// the pi extension alike.

import * as os from "node:os";
import * as path from "node:path";

/** Arbor's folder: ~/.arbor (settings, window state, search index, extensions, live registrations). */
export function arborHome(home = os.homedir()): string {
	return path.join(home, ".arbor");
}

/** The live channel's registrations (and, when the path fits, sockets): ~/.arbor/live. */
export function arborLiveDir(home = os.homedir()): string {
	return path.join(arborHome(home), "live");
}

/** Extensions Arbor loads for itself: ~/.arbor/extensions. */
export function arborExtensionsDir(home = os.homedir()): string {
	return path.join(arborHome(home), "extensions");
}

/** The cross-session search index: ~/.arbor/search-index. */
export function arborSearchIndexDir(home = os.homedir()): string {
	return path.join(arborHome(home), "search-index");
}

/** The desktop window's size and place: ~/.arbor/window-state.json. */
export function arborWindowStateFile(home = os.homedir()): string {
	return path.join(arborHome(home), "window-state.json");
}
