// "Hide branch" is view state Arbor keeps in its own settings (hiddenBranches, per file): when a file is
// shown, its hidden branches are folded, so each shows as one pill with its roll-up. Renders nothing.

import { useEffect } from "react";
import { useAppStore, useApp } from "../store";
import { activeSession, activeSkeleton } from "../store/selectors";

export function HiddenBranches() {
	const store = useAppStore();
	const path = useApp((s) => activeSession(s)?.summary.path ?? null);
	const hidden = useApp((s) => (path ? s.settings?.hiddenBranches?.[path] : undefined));
	const hasSkeleton = useApp((s) => activeSkeleton(s) !== null);
	useEffect(() => {
		if (!hidden || !hasSkeleton) return;
		const st = store.getState();
		const sk = activeSkeleton(st);
		if (!sk) return;
		const ids = new Set(sk.ids);
		for (const id of hidden) if (ids.has(id) && !st.folded.has(id)) st.setFolded(id, true);
	}, [store, path, hidden, hasSkeleton]);
	return null;
}
