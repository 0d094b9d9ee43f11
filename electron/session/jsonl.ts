// Chunked JSONL reading: lines are found in fixed-size Buffer chunks (never one string for the whole file),
// and handed to a sink as byte ranges. Also the lenient recovery of lines that hold more than one record.

import { readSync } from "node:fs";
import { runSteps } from "./steps";
import { isRecord } from "../../shared/guards";

export interface LineSink {
	/** `start`/`end` index into `buf` (end excludes the "\n"); `offset` is the file position of `start`. */
	(buf: Buffer, start: number, end: number, offset: number, lineNo: number, hasEol: boolean): void;
}

export interface ScanResult {
	/** File offset just past the last byte handed to the sink. */
	end: number;
	/** Next 1-based line number. */
	nextLineNo: number;
	/** Whether the last byte read was "\n" (or nothing was read). */
	endsWithNewline: boolean;
}

const CHUNK = 8 * 1024 * 1024;

/**
 * Reads [from, to) of an open file and reports every line. A final line without "\n" is reported with
 * hasEol=false unless `completeLinesOnly` (then it is left unread for a later scan).
 */
export function scanLines(
	fd: number,
	from: number,
	to: number,
	firstLineNo: number,
	sink: LineSink,
	opts: { completeLinesOnly?: boolean; onProgress?: (done: number, total: number) => void } = {},
): ScanResult {
	return runSteps(scanLinesSteps(fd, from, to, firstLineNo, sink, opts));
}

/** scanLines as steps (steps.ts): one step per chunk read. */
export function* scanLinesSteps(
	fd: number,
	from: number,
	to: number,
	firstLineNo: number,
	sink: LineSink,
	opts: {
		completeLinesOnly?: boolean;
		onProgress?: (done: number, total: number) => void;
		/**
		 * Before the lines of each read go to the sink: `end` = index in buf of its last "\n" (-1: none yet),
		 * `offset` = file position of buf[0].
		 */
		onChunk?: (buf: Buffer, end: number, offset: number) => void;
	} = {},
): Generator<void, ScanResult> {
	let buf = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(64, to - from)));
	let filled = 0; // bytes valid in buf
	let bufOffset = from; // file offset of buf[0]
	let readPos = from;
	let lineNo = firstLineNo;
	let lastByteNl = true;
	let consumedEnd = from;
	while (readPos < to) {
		if (filled === buf.length) {
			// A single line longer than the buffer (20 MB base64 images): grow instead of splitting it.
			const bigger = Buffer.allocUnsafe(buf.length * 2);
			buf.copy(bigger, 0, 0, filled);
			buf = bigger;
		}
		const want = Math.min(buf.length - filled, to - readPos);
		const n = readSync(fd, buf, filled, want, readPos);
		if (n <= 0) break;
		readPos += n;
		filled += n;
		lastByteNl = buf[filled - 1] === 10;
		const view = buf.subarray(0, filled);
		opts.onChunk?.(buf, view.lastIndexOf(10), bufOffset);
		let pos = 0;
		for (;;) {
			const nl = view.indexOf(10, pos);
			if (nl < 0) break;
			sink(buf, pos, nl, bufOffset + pos, lineNo++, true);
			pos = nl + 1;
		}
		consumedEnd = bufOffset + pos;
		opts.onProgress?.(consumedEnd - from, to - from);
		if (pos > 0) {
			buf.copyWithin(0, pos, filled);
			filled -= pos;
			bufOffset += pos;
		}
		yield;
	}
	if (filled > 0 && !opts.completeLinesOnly) {
		sink(buf, 0, filled, bufOffset, lineNo++, false);
		consumedEnd = bufOffset + filled;
	}
	return { end: consumedEnd, nextLineNo: lineNo, endsWithNewline: filled > 0 ? false : lastByteNl };
}

/**
 * A line that failed JSON.parse may hold records glued together (a writer appended without the "\n"
 * after a truncated or unterminated line). pi drops the whole line; we try to recover every complete
 * record. Records written by pi/omp start with `{"type":` and that byte sequence cannot occur inside a
 * JSON string (the quotes would be escaped), so it marks candidate starts.
 * Returns the recovered objects and whether some bytes could not be recovered.
 */
export function recoverGlued(text: string): { objects: Record<string, unknown>[]; lost: boolean } {
	const starts: number[] = [];
	let k = text.indexOf('{"type":', 1);
	while (k >= 0 && starts.length < 64) {
		starts.push(k);
		k = text.indexOf('{"type":', k + 1);
	}
	for (const s of starts) {
		let tail: unknown;
		try {
			tail = JSON.parse(text.slice(s));
		} catch {
			continue;
		}
		if (!isRecord(tail)) continue;
		const head = text.slice(0, s);
		try {
			const h: unknown = JSON.parse(head);
			if (isRecord(h)) return { objects: [h, tail], lost: false };
		} catch {
			// The head may itself be glued records or a truncated one.
		}
		const inner = head.trim() ? recoverGlued(head) : { objects: [], lost: false };
		return { objects: [...inner.objects, tail], lost: inner.lost || inner.objects.length === 0 };
	}
	return { objects: [], lost: true };
}
