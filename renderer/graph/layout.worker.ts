// Web Worker running layoutTree off the UI thread (the 100k-entry graph takes tens of ms, more than a
// frame). Receives the parent/kind arrays of a compressed graph, answers with transferred positions.

import { layoutTree, type LayoutInput } from "./layout";
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
		const layout = layoutTree({ parent, kind, direction });
		const transfer = [layout.x.buffer, layout.y.buffer, layout.w.buffer, layout.h.buffer];
		if (layout.lane) transfer.push(layout.lane.buffer);
		if (layout.laneCut) transfer.push(layout.laneCut.buffer);
		scope.postMessage({ seq, layout }, transfer);
	} catch (err) {
		scope.postMessage({ seq, error: errorText(err) }, []);
	}
};
