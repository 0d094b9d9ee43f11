// What a SessionGraph is given: the session's skeleton and tree view, the selection, previews, and the
// callbacks it reports through. Its own module so the graph's hooks read it without importing the component.

import type { Skeleton } from "../../shared/skeleton";
import type { Direction, GraphTreeInput } from "./model";
import type { StreamCard } from "./streaming";

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
	/** A live pi's assistant messages as they stream (drawn under their parent until the file has them). */
	streaming?: readonly StreamCard[];
	/** A live pi holds the session: its in-memory leaf (entry index, -1 not in the file yet); null/absent = file mode. */
	liveLeaf?: number | null;
	/** Switch between the rows view and the tree of cards (the graph's own button); no button when absent. */
	onToggleView?(): void;
}
