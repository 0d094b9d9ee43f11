// One JSON message per "\n"-terminated UTF-8 line (the live channel's framing, docs/live.md), read with a
// bound on the bytes a peer may make us hold: a line longer than the bound ends the read, whatever arrives.

import type { Socket } from "node:net";

export interface LineReaderOptions {
	/** Longest line accepted, in bytes (without the "\n"); may change later (`setMaxLine`). */
	maxLine: number;
	onLine(line: string): void;
	/** The peer sent a longer line: nothing more is read (the caller closes the connection). */
	onTooLong(): void;
}

/** Splits byte chunks into lines, holding at most `maxLine` bytes of an unfinished one. */
export class LineReader {
	#parts: Buffer[] = [];
	#held = 0;
	#max: number;
	#stopped = false;
	readonly #o: LineReaderOptions;

	constructor(o: LineReaderOptions) {
		this.#o = o;
		this.#max = o.maxLine;
	}

	setMaxLine(n: number): void {
		this.#max = n;
	}

	stop(): void {
		this.#stopped = true;
		this.#parts = [];
		this.#held = 0;
	}

	push(chunk: Buffer): void {
		let start = 0;
		while (!this.#stopped) {
			const nl = chunk.indexOf(10, start);
			const end = nl < 0 ? chunk.length : nl;
			if (this.#held + (end - start) > this.#max) {
				this.stop();
				this.#o.onTooLong();
				return;
			}
			if (nl < 0) {
				if (end > start) {
					this.#parts.push(chunk.subarray(start));
					this.#held += end - start;
				}
				return;
			}
			const line = this.#held === 0 ? chunk.toString("utf8", start, nl) : Buffer.concat([...this.#parts, chunk.subarray(start, nl)]).toString("utf8");
			this.#parts = [];
			this.#held = 0;
			start = nl + 1;
			if (line.trim()) this.#o.onLine(line);
		}
	}
}

/** Read `socket` as lines (the socket must not have an encoding set). */
export function readLines(socket: Socket, o: LineReaderOptions): LineReader {
	const reader = new LineReader(o);
	socket.on("data", (chunk: Buffer | string) => reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
	return reader;
}

/** Write one message as a line; false when the socket is gone. */
export function writeLine(socket: Socket, msg: unknown): boolean {
	if (socket.destroyed || !socket.writable) return false;
	socket.write(`${JSON.stringify(msg)}\n`);
	return true;
}
