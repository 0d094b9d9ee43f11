// Web Worker running layoutTree off the UI thread (the 100k-entry graph takes tens of ms, more than a
// frame), and the spatial index over its positions. Receives the parent/kind arrays of a graph, answers
// with transferred positions, index arrays and per-node lookups (layout.ts LaidOut).

import { layOut, type LayoutInput, type WorkerIndex } from "./layout";
import { errorText } from "../../shared/guards";

interface LayoutRequest extends LayoutInput {
	seq: number;
}

const scope = globalThis as unknown as {
	onmessage: ((ev: MessageEvent<LayoutRequest>) => void) | null;
	postMessage(message: unknown, transfer: Transferable[]): void;
};

scope.onmessage = (ev) => {
	const { seq, parent, kind, direction } = ev.data;
	try {
		const { layout, index, children, depth } = layOut({ parent, kind, direction });
		const { layout: _sameLayout, ...rest } = index;
		const sent: WorkerIndex = rest;
		const transfer: Transferable[] = [layout.x.buffer, layout.y.buffer, layout.w.buffer, layout.h.buffer];
		if (layout.lane) transfer.push(layout.lane.buffer);
		if (layout.laneCut) transfer.push(layout.laneCut.buffer);
		transfer.push(sent.start.buffer, sent.items.buffer, sent.stamp.buffer, children.start.buffer, children.list.buffer, depth.buffer);
		scope.postMessage({ seq, layout, index: sent, children, depth }, transfer);
	} catch (err) {
		scope.postMessage({ seq, error: errorText(err) }, []);
	}
};
