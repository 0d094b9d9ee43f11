// A new, empty session file that names its parent (the /branch-from-a-root case): pi's header, the core's
// session id (UUIDv7) and file name, written through the core's no-clobber atomic write (temp file, fsync,
// link), so a failed write leaves no file and an existing file is never replaced.

import * as fs from "node:fs";
import * as path from "node:path";
import { createSessionId, derivedFileMode, NEW_SESSION_FILE_MODE, newSessionHeader, sessionFileName, writeNewFile } from "../session";

export function createChildSessionFile(sessionDir: string, cwd: string, parentSession: string | undefined): string {
	fs.mkdirSync(sessionDir, { recursive: true });
	const now = Date.now();
	const id = createSessionId(now);
	const timestamp = new Date(now).toISOString();
	const header = newSessionHeader(id, timestamp, cwd, parentSession || undefined);
	const file = path.join(sessionDir, sessionFileName(timestamp, id));
	// No more readable than the parent it names (issue #23); without one, as pi makes a new file.
	writeNewFile(file, [Buffer.from(`${JSON.stringify(header)}\n`, "utf8")], derivedFileMode(parentSession, NEW_SESSION_FILE_MODE));
	return file;
}
