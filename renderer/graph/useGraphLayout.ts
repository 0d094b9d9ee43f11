// The graph's layout hook: model -> positions (layout.ts) and a spatial index, both in a worker for big graphs.
// A model with unchanged structure reuses the previous positions; a stale run never overwrites a newer one.

import { useEffect, useMemo, useRef, useState } from "react";
import { lazyIdIndex, sameStructure, type Laid } from "./laid";
import { createLayoutRunner } from "./layoutRunner";
import type { Direction, GraphModel } from "./model";
import { adoptChildIndex } from "./cull";
import type { LaidOut } from "./layout";

export interface GraphLayoutResult {
	/** The layout for this session, null until the first one arrives. */
	laid: Laid | null;
	/** The layout installed on screen (set by useGraphCamera once it placed the view for it). */
	laidRef: React.MutableRefObject<Laid | null>;
}

export function useGraphLayout(model: GraphModel, direction: Direction, sessionKey: string): GraphLayoutResult {
	const runner = useMemo(() => createLayoutRunner(), []);
	useEffect(() => () => runner.dispose(), [runner]);
	const [laidState, setLaid] = useState<Laid | null>(null);
	const laid = laidState !== null && laidState.key === sessionKey ? laidState : null;
	const laidRef = useRef<Laid | null>(null);
	const layoutSeq = useRef(0);
	useEffect(() => {
		const seq = ++layoutSeq.current;
		const prev = laidRef.current;
		// A fresh layout comes with its child index; a reused one already has it (culling built or adopted it).
		const install = ({ layout, index, depth, children }: Pick<LaidOut, "layout" | "index" | "depth"> & Partial<LaidOut>): void => {
			if (seq !== layoutSeq.current) return;
			if (children) adoptChildIndex(model, children);
			setLaid({ model, layout, index, depth, nodeById: lazyIdIndex(model), key: sessionKey });
		};
		if (prev && prev.layout.direction === direction && sameStructure(prev.model, model)) {
			install(prev);
			return;
		}
		void runner.run({ parent: model.parent, kind: model.kind, direction }).then(install);
	}, [model, direction, runner, sessionKey]);
	return { laid, laidRef };
}
