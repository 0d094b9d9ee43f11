// A new, empty session file that names its parent (the /branch-from-a-root case): pi's header and file
// naming, written atomically and never over an existing file.

import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { CURRENT_SESSION_VERSION } from "../../shared/entries";
import { writeFileAtomic } from "./fs-util";

export function createChildSessionFile(sessionDir: string, cwd: string, parentSession: string | undefined): string {
	fs.mkdirSync(sessionDir, { recursive: true });
	const id = crypto.randomUUID();
	const timestamp = new Date().toISOString();
	const header: Record<string, unknown> = { type: "session", version: CURRENT_SESSION_VERSION, id, timestamp, cwd };
	if (parentSession) header.parentSession = parentSession;
	// pi names files <ISO timestamp with ':' and '.' as '-'>_<session id>.jsonl.
	const file = path.join(sessionDir, `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`);
	writeFileAtomic(file, `${JSON.stringify(header)}\n`, 0o644, true);
	return file;
}
