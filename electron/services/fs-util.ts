// Lenient JSON reads for the services' hand-edited config files. Atomic writes are the session core's
// (electron/session/write.ts: writeNewFile, writeReplacingFile).

import * as fs from "node:fs";

/** Parsed JSON, or undefined when the file is missing or not valid JSON (config files are hand-edited). */
export function readJsonFile(file: string): unknown {
	let text: string;
	try {
		text = fs.readFileSync(file, "utf8");
	} catch {
		return undefined;
	}
	try {
		return JSON.parse(text) as unknown;
	} catch {
		return undefined;
	}
}
