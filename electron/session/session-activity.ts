// When a session was last active, by pi 1.6's session-list rule (`modified` in its SessionInfo): the time of the
// latest user or assistant message (the message's own numeric `timestamp`, else the entry's), else the header's
// timestamp, else the file's mtime. A label, a "save position" line, a `usage` or `session_info` line, or a copy
// that resets mtimes does not make a session newer.
//
// pi reads every line; the library reads the file backwards from its end, one chunk at a time, and stops at the
// last user or assistant message in the file (looking back at most ACTIVITY_SCAN_BYTES), so a 100 MB session
// costs a read or two and one parsed line. pi takes the maximum over every message; in an append-only file the
// last message is the newest, so the two agree unless message times go backwards in the file.

import { readSync } from "node:fs";
import { asRecord } from "../../shared/guards";

const CHUNK_BYTES = 64 * 1024;
// One scratch buffer for every read: listing is synchronous, and a library of thousands of files would
// otherwise allocate one per file.
let scratch = Buffer.allocUnsafe(CHUNK_BYTES);
/** How far back from the end to look for a message before falling back to the header's time. */
export const ACTIVITY_SCAN_BYTES = 8 * 1024 * 1024;

const ROLE_BYTES = Buffer.from('"role"');
const USER_BYTES = Buffer.from('"user"');
const ASSISTANT_BYTES = Buffer.from('"assistant"');

/** The activity time one line contributes by pi's rule, or undefined. */
export function messageActivityTime(line: string): number | undefined {
	let obj: Record<string, unknown> | undefined;
	try {
		obj = asRecord(JSON.parse(line));
	} catch {
		return undefined;
	}
	if (obj?.type !== "message") return undefined;
	const m = asRecord(obj.message);
	// pi: a message with a string role and a `content` field, from the user or the assistant.
	if (!m || typeof m.role !== "string" || !("content" in m)) return undefined;
	if (m.role !== "user" && m.role !== "assistant") return undefined;
	if (typeof m.timestamp === "number") return m.timestamp;
	const t = new Date(obj.timestamp as string).getTime();
	return Number.isNaN(t) ? undefined : t;
}

/**
 * Whether a raw line has a `"role"` key whose value is "user" or "assistant": only such lines are parsed. Inside
 * a JSON string the quotes would be escaped (`\"role\"`), so tool output that mentions a role is skipped
 * without parsing it; what passes is then checked by the real rule.
 */
function mayBeConversation(line: Buffer): boolean {
	for (let at = line.indexOf(ROLE_BYTES); at >= 0; at = line.indexOf(ROLE_BYTES, at + ROLE_BYTES.length)) {
		if (at > 0 && line[at - 1] === 92) continue; // \"role\" inside a string
		let k = at + ROLE_BYTES.length;
		while (k < line.length && (line[k] === 32 || line[k] === 9 || line[k] === 13 || line[k] === 10)) k++;
		if (line[k] !== 58) continue; // ':'
		k++;
		while (k < line.length && (line[k] === 32 || line[k] === 9 || line[k] === 13 || line[k] === 10)) k++;
		if (line.subarray(k, k + USER_BYTES.length).equals(USER_BYTES) || line.subarray(k, k + ASSISTANT_BYTES.length).equals(ASSISTANT_BYTES)) return true;
	}
	return false;
}

/** The time of the file's last user/assistant message (see above); undefined when there is none near the end. */
export function lastActivityTime(fd: number, size: number, maxBytes = ACTIVITY_SCAN_BYTES): number | undefined {
	let carry: Buffer = Buffer.alloc(0);
	let end = size;
	const floor = Math.max(0, size - maxBytes);
	while (end > floor) {
		const start = Math.max(floor, end - CHUNK_BYTES);
		if (scratch.length < end - start) scratch = Buffer.allocUnsafe(end - start);
		const got = readSync(fd, scratch, 0, end - start, start);
		// The carry is copied out below, before the next read reuses the scratch buffer.
		const buf = carry.length ? Buffer.concat([scratch.subarray(0, got), carry]) : scratch.subarray(0, got);
		// The bytes before the chunk's first newline belong to a line that started earlier (unless at the file's start).
		const first = start === 0 ? -1 : buf.indexOf(10);
		if (first < 0 && start > 0) {
			carry = Buffer.from(buf);
			end = start;
			continue;
		}
		// Lines from the last to the first complete one: (first, buf.length], split on LF.
		let lineEnd = buf.length;
		while (lineEnd > first) {
			const nl = lineEnd > 0 ? buf.lastIndexOf(10, lineEnd - 1) : -1;
			const lineStart = Math.max(nl, first) + 1;
			const line = buf.subarray(lineStart, lineEnd);
			if (line.length > 0 && mayBeConversation(line)) {
				const t = messageActivityTime(line.toString("utf8"));
				if (t !== undefined) return t;
			}
			lineEnd = lineStart - 1;
		}
		carry = first >= 0 ? Buffer.from(buf.subarray(0, first)) : Buffer.alloc(0);
		end = start;
	}
	return undefined;
}

/** pi's `modified`: latest message activity if positive, else the header's timestamp, else the mtime. */
export function sessionModifiedMs(activity: number | undefined, header: Record<string, unknown>, mtimeMs: number): number {
	if (activity !== undefined && activity > 0) return activity;
	const headerTime = typeof header.timestamp === "string" ? new Date(header.timestamp).getTime() : Number.NaN;
	return Number.isNaN(headerTime) ? mtimeMs : headerTime;
}
