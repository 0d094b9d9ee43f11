// Zoom levels of the session graph: level of detail (cards, compact cards, canvas overview) and the
// zooms that jumps and Fit land on. Shared by the culling and camera hooks.

import { MOUNT_BUDGET } from "./cull";

/**
 * Level of detail: full cards, compact cards (first words in a bigger font), canvas overview. The rule is
 * "text at 11 px or more, or the overview": full cards' 12 px text reads from FAR_ZOOM up, compact cards'
 * 22 px text from READABLE_COMPACT_ZOOM up; below that a big graph is drawn as the overview.
 */
export type Lod = "near" | "far" | "overview";
/** Lowest screen size of card text we call readable (issue 21). */
export const MIN_TEXT_PX = 11;
/** Full card text is 12 px (graph.css .arbor-card__text): 11 px on screen from this zoom. */
export const FAR_ZOOM = 0.92;
/** Compact card text is 22 px (graph.css far zoom): 11 px on screen from this zoom. */
export const READABLE_COMPACT_ZOOM = 0.5;
/** Below this zoom card text would be unreadable: jumps (search, reveal) zoom back in. */
export const JUMP_MIN_ZOOM = READABLE_COMPACT_ZOOM;
/**
 * Graphs up to this many nodes stay cards at any zoom: they mount whole within the budget, and a few
 * hundred small boxes show the tree better than the overview's dots (a 40-entry session with every
 * segment open only fits the pane below the overview zoom).
 */
export const SMALL_GRAPH = MOUNT_BUDGET / 2;
export const lodOf = (zoom: number, nodes: number): Lod =>
	zoom < READABLE_COMPACT_ZOOM - 1e-9 && nodes > SMALL_GRAPH ? "overview" : zoom < FAR_ZOOM ? "far" : "near";
export const MAX_ZOOM = 2;
/** Lowest zoom at which card text is comfortably readable: jumps (search, Go to leaf) never land below it. */
export const READABLE_ZOOM = 0.75;
/** Extra flow-space margin (in screen px) mounted around the view so short pans show no gaps. */
export const CULL_MARGIN_PX = 160;
