// Counts macrotask turns (setImmediate) while it runs: proof that a cooperative operation handed the
// thread back, without measuring any time.
export interface TurnCounter {
	/** Turns counted so far. */
	readonly count: number;
	stop(): void;
}

export function countTurns(): TurnCounter {
	let count = 0;
	let running = true;
	const tick = (): void => {
		count++;
		if (running) setImmediate(tick);
	};
	setImmediate(tick);
	return {
		get count() {
			return count;
		},
		stop() {
			running = false;
		},
	};
}
