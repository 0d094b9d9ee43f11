// Tails one session file: fs.watch for prompt notice, plus a light stat poll because fs.watch misses
// events on some filesystems (network mounts, some editors' replace-by-rename) and stops after a rename.

import * as fs from "node:fs";

export const DEFAULT_POLL_MS = 500;
/** Coalesce bursts (pi writes several lines per turn) into one catch-up. */
const SETTLE_MS = 15;

interface StatKey {
	size: number;
	mtimeMs: number;
	ino: number;
}

function statKey(file: string): StatKey | undefined {
	try {
		const st = fs.statSync(file);
		return { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
	} catch {
		return undefined;
	}
}

function sameKey(a: StatKey | undefined, b: StatKey | undefined): boolean {
	return a?.size === b?.size && a?.mtimeMs === b?.mtimeMs && a?.ino === b?.ino;
}

export class FileWatcher {
	readonly #file: string;
	readonly #onChange: () => void;
	#watcher: fs.FSWatcher | undefined;
	#poll: NodeJS.Timeout | undefined;
	#pending: NodeJS.Timeout | undefined;
	#last: StatKey | undefined;
	#closed = false;

	constructor(file: string, onChange: () => void, pollMs = DEFAULT_POLL_MS) {
		this.#file = file;
		this.#onChange = onChange;
		this.#last = statKey(file);
		this.#attach();
		this.#poll = setInterval(() => this.#check(), pollMs);
		this.#poll.unref();
	}

	#attach(): void {
		try {
			this.#watcher?.close();
			this.#watcher = fs.watch(this.#file, { persistent: false }, (eventType) => {
				// After a rename the watch follows the old inode: watch the path again.
				if (eventType === "rename") setTimeout(() => !this.#closed && this.#attach(), SETTLE_MS).unref();
				this.#schedule();
			});
			this.#watcher.on("error", () => {
				this.#watcher?.close();
				this.#watcher = undefined;
			});
		} catch {
			// The file may be gone for a moment (replaced); the poll picks it up again.
			this.#watcher = undefined;
		}
	}

	#check(): void {
		const key = statKey(this.#file);
		if (!sameKey(key, this.#last)) {
			if (key && key.ino !== this.#last?.ino) this.#attach();
			this.#schedule();
		}
	}

	#schedule(): void {
		if (this.#closed || this.#pending) return;
		this.#pending = setTimeout(() => {
			this.#pending = undefined;
			if (this.#closed) return;
			this.#last = statKey(this.#file);
			this.#onChange();
		}, SETTLE_MS);
		this.#pending.unref();
	}

	/** Forget the current state as a change (after Arbor's own write, so it does not trigger a catch-up). */
	sync(): void {
		this.#last = statKey(this.#file);
	}

	/** Check the file again at the next poll even if it looks unchanged (the catch-up could not tell yet). */
	recheck(): void {
		// An mtime no stat can equal: the next poll sees a change (same inode, so fs.watch stays attached).
		if (this.#last) this.#last = { ...this.#last, mtimeMs: Number.NaN };
	}

	close(): void {
		this.#closed = true;
		this.#watcher?.close();
		if (this.#poll) clearInterval(this.#poll);
		if (this.#pending) clearTimeout(this.#pending);
	}
}
