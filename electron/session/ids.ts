// Id generation with pi's shapes: entry ids are the first 8 hex chars of a random UUID (retried while taken,
// full UUID after 100 collisions); session ids are UUIDv7 (time-ordered), as pi 0.73 writes them.

import { randomBytes, randomUUID } from "node:crypto";

export function generateEntryId(taken: (id: string) => boolean): string {
	for (let i = 0; i < 100; i++) {
		const id = randomUUID().slice(0, 8);
		if (!taken(id)) return id;
	}
	return randomUUID();
}

export function createSessionId(now: number = Date.now()): string {
	const b = randomBytes(16);
	const ms = BigInt(now);
	for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
	b[6] = (b[6] & 0x0f) | 0x70;
	b[8] = (b[8] & 0x3f) | 0x80;
	const h = b.toString("hex");
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** pi's file name: header timestamp with ":" and "." replaced by "-", then "_<session id>.jsonl". */
export function sessionFileName(timestamp: string, sessionId: string): string {
	return `${timestamp.replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
}

/** pi's per-project folder name under the sessions root: `--<cwd without leading slash, / \ : as ->--`. */
export function projectDirName(cwd: string): string {
	return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}
