// A new file written in pieces (a pruned copy of a 1 GB session): bytes go to a temp file in the target's
// folder through a fixed buffer, and only a complete, fsynced file is linked into place, never replacing
// anything (write.ts publishNewFile). Memory stays bounded by the buffer, whatever the file's size.

import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from "node:fs";
import { ioError } from "./errors";
import { type DiskState, publishNewFile, tempPathFor } from "./write";

const BUFFER_BYTES = 1 << 20;

export class NewFileStream {
	readonly path: string;
	readonly #tmp: string;
	#fd: number | null;
	readonly #buf = Buffer.allocUnsafe(BUFFER_BYTES);
	#used = 0;

	/** `mode`: whose file it is, as for writeNewFile (a pruned copy takes derivedFileMode(source)). */
	constructor(path: string, mode: number) {
		this.path = path;
		this.#tmp = tempPathFor(path);
		try {
			this.#fd = openSync(this.#tmp, "wx", mode);
		} catch (err) {
			throw ioError(this.#tmp, err, "creating a temporary file");
		}
	}

	write(bytes: Buffer): void {
		if (this.#used + bytes.length > this.#buf.length) this.#flush();
		if (bytes.length >= this.#buf.length) this.#writeOut(bytes);
		else {
			bytes.copy(this.#buf, this.#used);
			this.#used += bytes.length;
		}
	}

	/** fsyncs and links the file into place (code "conflict" when a file already has the name). */
	commit(): DiskState {
		this.#flush();
		const fd = this.#open();
		try {
			fsyncSync(fd);
		} catch (err) {
			this.abort();
			throw ioError(this.#tmp, err, "writing a temporary file");
		}
		closeSync(fd);
		this.#fd = null;
		return publishNewFile(this.#tmp, this.path);
	}

	/** Drops the temp file (nothing was published). Safe to call twice or after commit. */
	abort(): void {
		if (this.#fd === null) return;
		try {
			closeSync(this.#fd);
		} catch {
			// already closed
		}
		this.#fd = null;
		try {
			unlinkSync(this.#tmp);
		} catch {
			// already gone
		}
	}

	#open(): number {
		if (this.#fd === null) throw new Error("NewFileStream used after commit or abort");
		return this.#fd;
	}

	#flush(): void {
		if (this.#used === 0) return;
		const used = this.#used;
		this.#used = 0;
		this.#writeOut(this.#buf.subarray(0, used));
	}

	#writeOut(bytes: Buffer): void {
		const fd = this.#open();
		try {
			let off = 0;
			while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
		} catch (err) {
			this.abort();
			throw ioError(this.#tmp, err, "writing a temporary file");
		}
	}
}
