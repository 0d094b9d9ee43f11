// "Hide branch" is view state Arbor keeps in its own settings (hiddenBranches, per file, never in the session
// file): the visible tree leaves those subtrees out (shared/tree-view `hidden`; the active path is exempt).
// This is the way back: "N hidden branches — show" over the graph, which clears the file's hidden list.

import { useApp, useAppStore } from "../store";
import { activeSession, selectTreeView } from "../store/selectors";

export function HiddenBranches() {
	const store = useAppStore();
	const path = useApp((s) => activeSession(s)?.summary.path ?? null);
	const count = useApp((s) => selectTreeView(s)?.hiddenBranches.length ?? 0);
	if (!path || count === 0) return null;
	const show = async () => {
		const st = store.getState();
		const all = { ...(st.settings?.hiddenBranches ?? {}) };
		delete all[path];
		await st.updateSettings({ hiddenBranches: all });
	};
	return (
		<button
			type="button"
			className="hidden-branches"
			data-testid="hidden-branches-show"
			onClick={() => void show()}
			title="Show the branches hidden with “Hide branch” again"
		>
			{count} hidden branch{count === 1 ? "" : "es"} — show
		</button>
	);
}
