// How many tries one Arbor runs at once (docs/tries.md "How many at once"): each try is a pi process, its tools and
// its model calls, so requests that start run after run cannot start any number of them. A try past the limit
// waits, queued, and starts (first come, first served) as a running try ends; Stop takes a queued one off the queue.

/** Tries one Arbor runs at the same time: one full run of MAX_TRIES. */
export const MAX_RUNNING_TRIES = 6;

/** A place in the queue: `ready` resolves once the try may run; release() gives the slot back (or leaves the queue). */
export interface TrySlot {
	readonly ready: Promise<void>;
	/** True once `ready` has resolved (the try holds a slot). */
	readonly granted: boolean;
	release(): void;
}

export class TrySlots {
	#running = 0;
	readonly #waiting: (() => void)[] = [];

	constructor(readonly max = MAX_RUNNING_TRIES) {}

	get running(): number {
		return this.#running;
	}

	get queued(): number {
		return this.#waiting.length;
	}

	take(): TrySlot {
		let granted = false;
		let released = false;
		let grant!: () => void;
		const ready = new Promise<void>((resolve) => {
			grant = () => {
				granted = true;
				this.#running++;
				resolve();
			};
		});
		if (this.#running < this.max) grant();
		else this.#waiting.push(grant);
		return {
			ready,
			get granted() {
				return granted;
			},
			release: () => {
				if (released) return;
				released = true;
				if (!granted) {
					const at = this.#waiting.indexOf(grant);
					if (at >= 0) this.#waiting.splice(at, 1);
					return;
				}
				this.#running--;
				this.#waiting.shift()?.();
			},
		};
	}
}

/** The limit of this process (the app's services, or one `arbor try`). */
export const processSlots = new TrySlots();
