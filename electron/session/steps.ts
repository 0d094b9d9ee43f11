// Long core operations (opening a file, a first search) are written once as generators: each `yield` marks
// a point where a caller may hand the thread back. The CLI and pi-compatible calls run them in one piece;
// the app's main process runs them in slices, so one 300 MB session never stops the others from answering.

/** Runs every step at once and returns the result. */
export function runSteps<T>(steps: Generator<void, T>): T {
	for (;;) {
		const r = steps.next();
		if (r.done) return r.value;
	}
}

/**
 * Runs the steps in slices of about `sliceMs`, with a macrotask turn (setImmediate) between slices. After
 * every turn `stop()` is asked; when it says true the generator is closed (its `finally` blocks run) and
 * the result is undefined.
 */
export async function runStepsCooperatively<T>(steps: Generator<void, T>, sliceMs: number, stop?: () => boolean): Promise<T | undefined> {
	let sliceStart = performance.now();
	for (;;) {
		const r = steps.next();
		if (r.done) return r.value;
		if (performance.now() - sliceStart < sliceMs) continue;
		await new Promise<void>((ok) => setImmediate(ok));
		if (stop?.()) {
			steps.return(undefined as T);
			return undefined;
		}
		sliceStart = performance.now();
	}
}
