// Open Recent (issue #28): a later run reopens a recent file without asking only while its path still leads to
// the very file the user chose. Each opened file is recorded by its real path (symlinks resolved when it was
// opened) and its identity (device and inode, in `recent-files.json` beside the settings, 0600). A path that now
// resolves elsewhere (swapped for a symlink) or names another file (replaced) is refused with the reason; the
// user can still open it again by choosing it.

import * as fs from "node:fs";
import * as path from "node:path";
import { isRecord } from "../../shared/guards";
import { writeReplacingFile } from "../session";
import { makePrivateDir, PRIVATE_FILE_MODE } from "./arbor-files";
import { readJsonFile } from "./fs-util";
import { RECENT_FILES_MAX, type SettingsStore } from "./settings";

export type RecentCheck = { kind: "not_recent" } | { kind: "same"; path: string } | { kind: "changed"; reason: string };

interface Identity {
	dev: number;
	ino: number;
}

export class RecentFiles {
	readonly #settings: SettingsStore;
	readonly #file: string;

	constructor(settings: SettingsStore, settingsDir: string) {
		this.#settings = settings;
		this.#file = path.join(settingsDir, "recent-files.json");
	}

	/** The user opened `file`: it heads Open Recent by its real path, with its identity. */
	record(file: string): void {
		const real = fs.realpathSync(file);
		const st = fs.statSync(real);
		this.#settings.addRecentFile(real);
		const keep = new Set(this.#settings.load().recentFiles.slice(0, RECENT_FILES_MAX));
		const ids = Object.fromEntries(Object.entries(this.#identities()).filter(([p]) => keep.has(p)));
		ids[real] = { dev: st.dev, ino: st.ino };
		makePrivateDir(path.dirname(this.#file));
		writeReplacingFile(this.#file, [Buffer.from(`${JSON.stringify(ids, null, "\t")}\n`, "utf8")], PRIVATE_FILE_MODE);
	}

	/** Whether `file` is in Open Recent and still the file the user opened. */
	check(file: string): RecentCheck {
		if (!this.#settings.load().recentFiles.includes(file)) return { kind: "not_recent" };
		let real: string;
		let st: fs.Stats;
		try {
			real = fs.realpathSync(file);
			st = fs.statSync(real);
		} catch {
			return { kind: "changed", reason: "it no longer exists" };
		}
		if (real !== file) return { kind: "changed", reason: `it now leads to ${real}` };
		if (!st.isFile()) return { kind: "changed", reason: "it is no longer a regular file" };
		const id = this.#identities()[file];
		// An entry an older Arbor recorded has no identity: its real path is all there is to hold it to.
		if (id && (id.dev !== st.dev || id.ino !== st.ino)) return { kind: "changed", reason: "another file has replaced it since you opened it" };
		return { kind: "same", path: real };
	}

	#identities(): Record<string, Identity> {
		const raw = readJsonFile(this.#file);
		const out: Record<string, Identity> = {};
		if (!isRecord(raw)) return out;
		for (const [p, v] of Object.entries(raw)) {
			if (isRecord(v) && typeof v.dev === "number" && typeof v.ino === "number") out[p] = { dev: v.dev, ino: v.ino };
		}
		return out;
	}
}
