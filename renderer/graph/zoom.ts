// Zoom levels of the session graph: level of detail (cards, compact cards, canvas overview) and the
// zooms that jumps and Fit land on. Shared by the culling and camera hooks.

import { OVERVIEW_ZOOM } from "./CanvasOverview";
import { MOUNT_BUDGET } from "./cull";

/** Level of detail: cards with text, cards without text (unreadable anyway), canvas overview. */
export type Lod = "near" | "far" | "overview";
const FAR_ZOOM = 0.6;
/** Fit on a big session: the leaf's neighbourhood at this zoom (compact one-line cards, ~12 px text). */
export const BIG_FIT_ZOOM = 0.5;
/** Below this zoom even the compact cards' text is too small: jumps (search, reveal) zoom back in. */
export const JUMP_MIN_ZOOM = 0.35;
/**
 * Graphs up to this many nodes stay cards at any zoom: they mount whole within the budget, and a few
 * hundred small boxes show the tree better than the overview's dots (a 40-entry session with every
 * segment open only fits the pane below the overview zoom).
 */
export const SMALL_GRAPH = MOUNT_BUDGET / 2;
export const lodOf = (zoom: number, nodes: number): Lod => (zoom < OVERVIEW_ZOOM && nodes > SMALL_GRAPH ? "overview" : zoom < FAR_ZOOM ? "far" : "near");
export const MAX_ZOOM = 2;
/** Lowest zoom at which card text is comfortably readable: jumps (search, Go to leaf) never land below it. */
export const READABLE_ZOOM = 0.75;
/** Extra flow-space margin (in screen px) mounted around the view so short pans show no gaps. */
export const CULL_MARGIN_PX = 160;
