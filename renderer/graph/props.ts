// What a SessionGraph is given: the session's skeleton and tree view, the selection, previews, and the
// callbacks it reports through. Its own module so the graph's hooks read it without importing the component.

import type { CardFacts, UsageRollup } from "../../shared/card-facts";
import type { Skeleton } from "../../shared/skeleton";
import type { FamilyChild } from "../store/cards";
import type { Direction, GraphTreeInput } from "./model";
import type { StreamCard } from "./streaming";

/**
 * What entry cards show beyond the skeleton and the previews, and what their buttons do: given by the app
 * (cards render what they are given; the graph never reads the app's store or reaches its commands).
 * Pass a new object when any of it changes (the cards select from it).
 */
export interface CardSources {
	/** Card facts of entry i: undefined while not loaded, null when there are none. */
	facts(index: number): CardFacts | null | undefined;
	/** Asked for the facts of a mounted card that needs them (cheap to call again). */
	requestFacts(index: number): void;
	/** Usage lines folded into entry i, or null. */
	usage(index: number): UsageRollup | null;
	/** Roll-up text of the subtree under entry i, or null. */
	rollup(index: number): string | null;
	/** Files branched from this one at entry id. */
	familyAt(entryId: string): readonly FamilyChild[] | undefined;
	openFile(path: string): void;
	/** Select an entry and bring it into view. */
	reveal(entryId: string): void;
}

export interface SessionGraphProps {
	sessionKey: string;
	skeleton: Skeleton;
	view: GraphTreeInput & { activePath?: Uint8Array };
	selectedIndex: number;
	searchMatches?: readonly number[] | ReadonlySet<number> | null;
	abandonedPreview?: ReadonlySet<string> | null;
	previews: (index: number) => string | undefined;
	/** Card facts, usage, roll-ups, family badges (none when absent). */
	cards?: CardSources;
	previewsVersion?: number;
	requestPreviews?: (indices: number[]) => void;
	direction?: Direction;
	/** Collapse linear chains into "+N" segments (default true). */
	compress?: boolean;
	showMinimap?: boolean;
	onSelect(index: number): void;
	onActivate?(index: number): void;
	onContextMenu?(index: number, clientX: number, clientY: number): void;
	onToggleFold?(index: number): void;
	/** The leaf badge was dragged onto a card (entry index), or dropped elsewhere (-1: cancelled). */
	onLeafDrop?(index: number): void;
	focusTick?: number;
	/** A live pi's assistant messages as they stream (drawn under their parent until the file has them). */
	streaming?: readonly StreamCard[];
	/** A live pi holds the session: its in-memory leaf (entry index, -1 not in the file yet); null/absent = file mode. */
	liveLeaf?: number | null;
	/** Switch between the rows view and the tree of cards (the graph's own button); no button when absent. */
	onToggleView?(): void;
	/**
	 * Called once this graph shows its layout with every mounted card measured (React Flow keeps a card
	 * hidden until then), and again after each later such state while it is passed. The progressive open
	 * keeps the first skeleton's graph on screen until the whole one's says so (docs/graph.md).
	 */
	onDrawn?(): void;
	/**
	 * Where a new sessionKey's first layout opens instead of its saved viewport or the leaf: this entry
	 * (an index of `skeleton`) at this point of the pane, at this zoom. The whole skeleton's graph opens
	 * where the first skeleton's graph shows the same entry. Asked when that layout is installed.
	 */
	openAt?(): EntryPoint | null;
}

/** An entry's centre on the pane (pixels from the pane's top left) at a zoom. */
export interface EntryPoint {
	entry: number;
	x: number;
	y: number;
	zoom: number;
}
