// What a SessionGraph is given: the session's skeleton and tree view, the selection, previews, and the
// callbacks it reports through. Its own module so the graph's hooks read it without importing the component.

import type { Skeleton } from "../../shared/skeleton";
import type { Direction, GraphTreeInput } from "./model";

export interface SessionGraphProps {
	sessionKey: string;
	skeleton: Skeleton;
	view: GraphTreeInput & { activePath?: Uint8Array };
	selectedIndex: number;
	searchMatches?: readonly number[] | ReadonlySet<number> | null;
	abandonedPreview?: ReadonlySet<string> | null;
	previews: (index: number) => string | undefined;
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
	/** Switch between the rows view and the tree of cards (the graph's own button); no button when absent. */
	onToggleView?(): void;
}
