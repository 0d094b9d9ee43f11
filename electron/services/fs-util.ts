// Small file helpers shared by the services: lenient JSON reads, atomic writes.

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

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

/** Write via a temp file in the same folder, fsync, rename: a crash leaves the old file or the new one. */
export function writeFileAtomic(file: string, data: string, mode = 0o644, exclusive = false): void {
	const dir = path.dirname(file);
	const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`);
	const fd = fs.openSync(tmp, "wx", mode);
	try {
		fs.writeSync(fd, data);
		fs.fsyncSync(fd);
	} finally {
		fs.closeSync(fd);
	}
	try {
		if (exclusive) {
			// link() fails if the target exists: a new session file never overwrites another.
			fs.linkSync(tmp, file);
			fs.unlinkSync(tmp);
		} else {
			fs.renameSync(tmp, file);
		}
	} catch (err) {
		try {
			fs.unlinkSync(tmp);
		} catch {
			// already gone
		}
		throw err;
	}
	try {
		const dfd = fs.openSync(dir, "r");
		try {
			fs.fsyncSync(dfd);
		} finally {
			fs.closeSync(dfd);
		}
	} catch {
		// Directory fsync is not supported everywhere (Windows); the rename itself is still atomic.
	}
}
