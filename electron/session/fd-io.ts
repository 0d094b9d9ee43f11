// Small file-descriptor helpers shared by the session writers (write.ts) and the append slot (append-slot.ts).

import { constants as fsConstants, fstatSync, unlinkSync, writeSync } from "node:fs";

/** Opens a path without following a symlink at its last component (0 where the platform has no such flag). */
export const O_NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;

/** Removes a temp file, claim or marker that may already be gone (renamed into place or cleaned by another writer). */
export function removeQuietly(file: string): void {
	try {
		unlinkSync(file);
	} catch {
		// already gone
	}
}

export interface DiskState {
	size: number;
	mtimeMs: number;
	ino: number;
	dev: number;
}

export function writeAll(fd: number, parts: Buffer[]): void {
	for (const p of parts) {
		let off = 0;
		while (off < p.length) off += writeSync(fd, p, off, p.length - off);
	}
}

export function stateOf(fd: number): DiskState {
	const st = fstatSync(fd);
	return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, dev: st.dev };
}

export function sleepMs(ms: number): void {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function errCode(err: unknown): string {
	return typeof err === "object" && err !== null && "code" in err ? String((err as { code: unknown }).code) : "";
}
