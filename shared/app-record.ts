// Where the installed desktop app is (docs/hosts.md "Finding the desktop app"): the packaged app records its
// executable, version and its copy of the pi extension in `~/.arbor/app.json` (0600) each time it starts, so
// `/arbor` in pi can open the app rather than the browser. This is the file's one definition: the app writes
// it, the extension reads it.

export const APP_RECORD_FILE = "app.json";

export interface AppRecord {
	/** The app's executable (what the OS starts: the AppImage, Arbor.exe, …/Contents/MacOS/Arbor). */
	executable: string;
	version: string;
	/** The pi extension shipped with this copy of the app, outside its asar archive; null when it has none. */
	extension: string | null;
}

/** The record in `text`, or null when it is not one (a damaged or foreign file is ignored, never trusted). */
export function parseAppRecord(text: string): AppRecord | null {
	let v: unknown;
	try {
		v = JSON.parse(text);
	} catch {
		return null;
	}
	if (typeof v !== "object" || v === null) return null;
	const r = v as Record<string, unknown>;
	if (typeof r.executable !== "string" || r.executable === "" || typeof r.version !== "string") return null;
	if (r.extension !== null && typeof r.extension !== "string") return null;
	return { executable: r.executable, version: r.version, extension: r.extension };
}
