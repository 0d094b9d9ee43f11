// The branch point of a family child, marked on the parent's graph (issue #12): the card of the entry a
// file was branched or forked at carries "branched → <child title>", which opens that child. The family is
// the app's (read per opened file, renderer/store/cards.ts) and given to the cards (CardSources).

import { useGraphStore, type GraphStore } from "./store";

/** "branched → <title>" on the card of entry `entry` when a family member branched there. */
export function FamilyBranchBadge({ entry }: { entry: number }) {
	const entryId = useGraphStore((s) => (s.skeleton && entry < s.skeleton.count ? s.skeleton.ids[entry] : null));
	const children = useGraphStore((s) => (entryId ? s.cards.familyAt(entryId) : undefined));
	const openFile = useGraphStore((s) => s.cards.openFile);
	if (!children?.length) return null;
	return (
		<>
			{children.map((c) => (
				<button
					key={c.path}
					type="button"
					className="arbor-badge arbor-badge--family nodrag nopan"
					data-testid="family-branch-badge"
					title={`${c.path} was branched from this entry — open it`}
					onClick={(ev) => {
						ev.stopPropagation();
						openFile(c.path);
					}}
				>
					branched → {c.title.length > 24 ? `${c.title.slice(0, 23)}…` : c.title}
				</button>
			))}
		</>
	);
}

/**
 * Reveal `entryId` once the graph shows session `sessionId` (laid out): right after opening a file the
 * graph still holds the previous session, whose skeleton may hold the same id (a fork copies the path).
 */
export function revealWhenShown(graphStore: GraphStore, reveal: (entryId: string) => void, sessionId: string, entryId: string): void {
	const shown = (): boolean => {
		const s = graphStore.getState();
		return s.sessionKey === sessionId && s.model !== null && s.skeleton !== null && s.skeleton.ids.includes(entryId);
	};
	if (shown()) {
		reveal(entryId);
		return;
	}
	const stop = graphStore.subscribe(() => {
		if (!shown()) return;
		stop();
		clearTimeout(timer);
		// After the graph's own first placement of the new session (centered on its leaf).
		setTimeout(() => reveal(entryId), 0);
	});
	const timer = setTimeout(stop, 15_000);
}
