// The first record of a file from its first bytes, for detection (format.ts `detect`): pi's header, omp's
// title slot, another agent's first record. Reads one line; a line cut by the probe's end or not JSON gives undefined.

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
