// Runs layouts in a Web Worker when the graph is big enough for the layout to cost more than a frame
// (~8 ms, around 4k nodes here), synchronously otherwise, and always synchronously where no Worker
// exists (jsdom tests) or the worker failed to start. What a new layout needs on its first frame (the
// spatial index, the child index, the depths: layout.ts LaidOut) is built where the layout is: on a
// 100k-entry session that is ~25 ms more kept off the UI thread.

import { layOut, type LaidOut, type LayoutInput, type WorkerIndex } from "./layout";
import type { ChildIndex } from "./cull";
import type { GraphLayout } from "./model";

export const WORKER_THRESHOLD = 4000;

export interface LayoutRunner {
	run(input: LayoutInput): Promise<LaidOut>;
	dispose(): void;
}

type Reply = { seq: number; layout?: GraphLayout; index?: WorkerIndex; children?: ChildIndex; depth?: Int32Array; error?: string };

function startWorker(): Worker {
	return new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module" });
}

/** A worker started ahead of need (warmLayoutWorker); the next runner that needs one takes it. */
let spare: Worker | null = null;

/**
 * Start a layout worker now, so the next big layout does not wait for the worker's script to load and
 * start (the progressive open calls it while the first skeleton is drawn: the whole one's layout follows).
 */
export function warmLayoutWorker(): void {
	if (spare || typeof (globalThis as { Worker?: unknown }).Worker !== "function") return;
	try {
		const w = startWorker();
		// A worker that fails to start before a runner took it is dropped; the runner then starts its own
		// (and falls back to the main thread if that fails too).
		w.onerror = () => {
			w.terminate();
			if (spare === w) spare = null;
		};
		spare = w;
	} catch {
		spare = null;
	}
}

export function createLayoutRunner(threshold = WORKER_THRESHOLD): LayoutRunner {
	let worker: Worker | null = null;
	let broken = typeof (globalThis as { Worker?: unknown }).Worker !== "function";
	let seq = 0;
	const pending = new Map<number, { resolve: (l: LaidOut) => void; input: LayoutInput }>();

	const fallBack = (): void => {
		broken = true;
		worker?.terminate();
		worker = null;
		for (const [, p] of pending) p.resolve(layOut(p.input));
		pending.clear();
	};

	const ensureWorker = (): Worker | null => {
		if (broken) return null;
		if (worker) return worker;
		try {
			worker = spare ?? startWorker();
			spare = null;
		} catch {
			broken = true;
			return null;
		}
		worker.onmessage = (ev: MessageEvent<Reply>) => {
			const p = pending.get(ev.data.seq);
			if (!p) return;
			pending.delete(ev.data.seq);
			const { layout, index, children, depth } = ev.data;
			p.resolve(layout && index && children && depth ? { layout, index: { ...index, layout }, children, depth } : layOut(p.input));
		};
		worker.onerror = () => fallBack();
		return worker;
	};

	return {
		run(input) {
			const w = input.parent.length >= threshold ? ensureWorker() : null;
			if (!w) return Promise.resolve(layOut(input));
			const id = ++seq;
			return new Promise<LaidOut>((resolve) => {
				// Copies are transferred, so the model keeps its own arrays.
				pending.set(id, { resolve, input });
				const parent = input.parent.slice();
				const kind = input.kind.slice();
				w.postMessage({ seq: id, parent, kind, direction: input.direction }, [parent.buffer, kind.buffer]);
			});
		},
		dispose() {
			worker?.terminate();
			worker = null;
			pending.clear();
		},
	};
}
