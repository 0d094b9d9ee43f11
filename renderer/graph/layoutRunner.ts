// Runs layouts in a Web Worker when the graph is big enough for the layout to cost more than a frame
// (~8 ms, around 4k nodes here), synchronously otherwise, and always synchronously where no Worker
// exists (jsdom tests) or the worker failed to start. The spatial index over the positions is built
// where the layout is: on a 100k-entry session that is ~10 ms more kept off the UI thread.

import { layOut, type LaidOut, type LayoutInput, type WorkerIndex } from "./layout";
import type { GraphLayout } from "./model";

export const WORKER_THRESHOLD = 4000;

export interface LayoutRunner {
	run(input: LayoutInput): Promise<LaidOut>;
	dispose(): void;
}

type Reply = { seq: number; layout?: GraphLayout; index?: WorkerIndex; error?: string };

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
			worker = new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module" });
		} catch {
			broken = true;
			return null;
		}
		worker.onmessage = (ev: MessageEvent<Reply>) => {
			const p = pending.get(ev.data.seq);
			if (!p) return;
			pending.delete(ev.data.seq);
			const { layout, index } = ev.data;
			p.resolve(layout && index ? { layout, index: { ...index, layout } } : layOut(p.input));
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
				// The arrays are copied, not transferred: the model keeps using them on this side.
				pending.set(id, { resolve, input });
				w.postMessage({ seq: id, parent: input.parent, kind: input.kind, direction: input.direction });
			});
		},
		dispose() {
			worker?.terminate();
			worker = null;
			pending.clear();
		},
	};
}
