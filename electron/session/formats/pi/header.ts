// pi's session header: the first record of a file from its first bytes (for detection, format.ts `detect`:
// pi's header, omp's title slot, another agent's first record), and the header of a new session or a copy.

import { CURRENT_SESSION_VERSION, type SessionHeader } from "../../../../shared/entries";
import { isRecord } from "../../../../shared/guards";

/** The first non-blank line of `head` parsed as a JSON object (a UTF-8 byte-order mark skipped), or undefined. */
export function firstRecord(head: Buffer): Record<string, unknown> | undefined {
	let s = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
	while (s < head.length) {
		let e = head.indexOf(0x0a, s);
		if (e < 0) e = head.length;
		const text = head.toString("utf8", s, e).trim();
		if (text) {
			try {
				const v: unknown = JSON.parse(text);
				return isRecord(v) ? v : undefined;
			} catch {
				return undefined;
			}
		}
		s = e + 1;
	}
	return undefined;
}

/** pi's v3 header for a new session, in pi's key order; `parentFile` (the file it came from) is written as its lineage. */
export function newSessionHeader(id: string, timestamp: string, cwd: string, parentFile?: string): SessionHeader {
	const header: SessionHeader = { type: "session", version: CURRENT_SESSION_VERSION, id, timestamp, cwd };
	if (parentFile !== undefined) header.parentSession = parentFile;
	return header;
}

/** An existing header made a new session's: new id and time, the lineage naming `parentFile`; every other field kept in place. */
export function childHeader(header: Record<string, unknown>, id: string, timestamp: string, parentFile: string): Record<string, unknown> {
	return { ...header, id, timestamp, parentSession: parentFile };
}

/** The parent a `SessionManager.create` call names (pi's API option, named as pi's header key). */
export function createParent(options: { parentSession?: string }): string | undefined {
	return options.parentSession;
}
