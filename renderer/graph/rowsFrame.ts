// Where the rows view sits sideways. The rows are a list, so horizontally the pane behaves like a document
// viewer: a list narrower than the pane (zoomed out) is centred, a wider one (zoomed in, or a narrow pane)
// scrolls between its left edge (the lanes) and its right edge, never past either. The user's own pan and
// zoom are held there by React Flow's translateExtent (rowsExtent); the camera's moves (jumps, re-layouts,
// zoom steps, the minimap) put the lanes at the left edge through rowsX, the same rule, so a later wheel
// tick does not snap the view sideways. A re-layout used to keep the selected row's card where it was on
// screen, and a row's card starts after the lanes beside it: a filter showing more branches there pushed
// the lane column off the pane's left edge.

import type { CoordinateExtent } from "@xyflow/react";
import { ROW, type GraphLayout } from "./model";

/** Screen pixels between the pane's left edge and the lane column at zoom 1. */
export const ROWS_INSET = 8;
/** Pixels left free after a row's right end at zoom 1. */
const END_GAP = 16;

/** Where a row ends (flow x): at the pane's right edge as the view shows it at zoom 1, at least ROW.w wide. */
export const rowEnd = (paneWidth: number): number => Math.max(ROW.w, paneWidth - ROWS_INSET - END_GAP);

/** The list's horizontal bounds (flow x) with their margins; unbounded vertically. */
export function rowsExtent(layout: GraphLayout, paneWidth: number): CoordinateExtent {
	return [
		[layout.minX - ROWS_INSET, -Infinity],
		[Math.max(layout.maxX, rowEnd(paneWidth)) + END_GAP, Infinity],
	];
}

/** The viewport x that shows the list at `zoom`: centred when narrower than the pane, else from its left edge. */
export function rowsX(layout: GraphLayout, paneWidth: number, zoom: number): number {
	const [[left], [right]] = rowsExtent(layout, paneWidth);
	const width = (right - left) * zoom;
	return width <= paneWidth ? (paneWidth - width) / 2 - left * zoom : -left * zoom;
}
