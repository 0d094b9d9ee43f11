// Follows the files that decide which model a summary uses (docs/summaries.md "Model"): pi's models.json,
// settings.json and auth.json in its agent folder, and Arbor's own settings.json. Nothing is cached from
// them (each resolution reads them afresh); this only tells clients to ask again, so the status bar and
// the navigate dialog never name a model that is no longer the one used, with no restart.
//
// Polled with fs.watchFile: it works for a file that does not exist yet (pi's agent folder may be created
// after Arbor starts) and survives the write-temp-and-rename that editors and pi use.

import * as fs from "node:fs";
import * as path from "node:path";

/** How often the files are looked at (a stat each). */
const POLL_MS = 1000;

export function watchModelConfig(piAgentDir: string, settingsDir: string, onChange: () => void): () => void {
	const files = ["models.json", "settings.json", "auth.json"].map((n) => path.join(piAgentDir, n));
	files.push(path.join(settingsDir, "settings.json"));
	let timer: ReturnType<typeof setTimeout> | null = null;
	const listener = (cur: fs.Stats, prev: fs.Stats): void => {
		if (cur.mtimeMs === prev.mtimeMs && cur.size === prev.size && cur.ino === prev.ino) return;
		// Files written together (pi's models.json and settings.json): one notice.
		timer ??= setTimeout(() => {
			timer = null;
			onChange();
		}, 50);
	};
	for (const f of files) fs.watchFile(f, { interval: POLL_MS, persistent: false }, listener);
	return () => {
		if (timer) clearTimeout(timer);
		for (const f of files) fs.unwatchFile(f, listener);
	};
}
