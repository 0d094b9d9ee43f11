// Small file helpers shared by the services: lenient JSON reads, atomic writes.

import * as fs from "node:fs";
import { writeNewFile, writeReplacingFile } from "../session/write";

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

/**
 * Write via a temp file in the same folder, fsync, rename (or a no-clobber link when `exclusive`): a crash
 * or a full disk leaves the old file or the new one, never a part. The one atomic-write helper of the core
 * (session/write.ts) does the work, so a short write or ENOSPC can never be mistaken for success.
 */
export function writeFileAtomic(file: string, data: string, mode = 0o644, exclusive = false): void {
	const parts = [Buffer.from(data, "utf8")];
	if (exclusive) writeNewFile(file, parts, mode);
	else writeReplacingFile(file, parts, mode);
}
