// The progressive open's hand-over (docs/session-core.md "Progressive open"): the graph of a big session's
// first skeleton stays on screen after the whole skeleton arrived, until the whole one's graph, laid out
// and measured out of sight, says it is drawn; then one commit hides the part and shows the whole, and the
// part's graph is unmounted after that frame.

import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { Skeleton } from "../../shared/skeleton";
import type { TreeView } from "../../shared/tree-view";

/** What the part's graph was drawn with when the store last held it. */
export interface HeldPart {
	sessionId: string;
	skeleton: Skeleton;
	view: TreeView;
	previews: (index: number) => string | undefined;
}

export interface PartHandOver {
	/** The part to draw: the store's own while it holds one, then the last one until the whole is drawn. */
	held: HeldPart | null;
	/** The part just replaced: still mounted, out of sight, until the frame after the swap. */
	retired: HeldPart | null;
	/** The whole skeleton's graph is drawn with its cards measured: drop the part. */
	wholeDrawn(): void;
	partLayer: React.RefObject<HTMLDivElement | null>;
	wholeLayer: React.RefObject<HTMLDivElement | null>;
}

export function usePartHandOver(
	sessionId: string | null,
	skeleton: Skeleton | null,
	view: TreeView | null,
	previews: (index: number) => string | undefined,
): PartHandOver {
	const last = useRef<HeldPart | null>(null);
	const [retired, setRetired] = useState<HeldPart | null>(null);
	if (sessionId && skeleton?.first && view) last.current = { sessionId, skeleton, view, previews };
	const partLayer = useRef<HTMLDivElement>(null);
	const wholeLayer = useRef<HTMLDivElement>(null);
	const refocus = useRef(false);
	const wholeDrawn = useCallback(() => {
		if (!last.current) return;
		// Keyboard focus in the part's tree moves to the whole one's, which takes its place.
		refocus.current = partLayer.current?.contains(document.activeElement) ?? false;
		setRetired(last.current);
		last.current = null;
	}, []);
	const held = last.current;
	// The retired part's graph is unmounted after the frame that shows the whole one, not in it.
	useEffect(() => {
		if (!retired) return;
		let timer: ReturnType<typeof setTimeout> | undefined;
		const frame = requestAnimationFrame(() => {
			timer = setTimeout(() => setRetired(null), 0);
		});
		return () => {
			cancelAnimationFrame(frame);
			if (timer !== undefined) clearTimeout(timer);
		};
	}, [retired]);
	useLayoutEffect(() => {
		if (held || !refocus.current) return;
		refocus.current = false;
		wholeLayer.current?.querySelector<HTMLElement>(".arbor-tree")?.focus({ preventScroll: true });
	}, [held]);
	return { held, retired, wholeDrawn, partLayer, wholeLayer };
}
