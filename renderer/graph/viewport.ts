// The live pan/zoom of the React Flow pane, for the canvases that follow it frame by frame (overview,
// minimap) without re-rendering the whole graph component.

import { useMemo } from "react";
import { useStore as useFlowStore } from "@xyflow/react";

export function useViewportTransform(): { x: number; y: number; zoom: number } {
	const x = useFlowStore((s) => s.transform[0]);
	const y = useFlowStore((s) => s.transform[1]);
	const zoom = useFlowStore((s) => s.transform[2]);
	return useMemo(() => ({ x, y, zoom }), [x, y, zoom]);
}
