// Label list panel: every resolved label (pi's bookmarks) with its time; click selects, and the
// next/previous buttons run the same registry commands as the "]" / "[" keys.

import { Shown } from "../graph/Shown";
import { useMemo } from "react";
import { useServices } from "../commands/services";
import { formatLabelTime } from "../graph/cards";
import { useApp } from "../store";

// One time format for labels everywhere (cards' tooltips and this list): graph/cards formatLabelTime.
const labelTime = (t: number): string => formatLabelTime(t);

export function LabelList() {
	const { run, reveal } = useServices();
	const skeleton = useApp((s) => (s.activeSessionId ? (s.sessions[s.activeSessionId]?.skeleton ?? null) : null));
	const selectedId = useApp((s) => s.selectedId);
	const labels = useMemo(() => (skeleton ? [...skeleton.labels].sort((a, b) => a.target - b.target) : []), [skeleton]);
	if (!skeleton) return null;
	return (
		<div className="label-list" data-testid="label-list">
			<div className="label-list-head">
				<span>
					{labels.length} label{labels.length === 1 ? "" : "s"}
				</span>
				<button type="button" data-testid="label-prev" onClick={() => void run("label.prev", { source: "button" })} disabled={labels.length === 0}>
					↑ Previous
				</button>
				<button type="button" data-testid="label-next" onClick={() => void run("label.next", { source: "button" })} disabled={labels.length === 0}>
					↓ Next
				</button>
			</div>
			{labels.length === 0 && <div className="panel-empty">No labels. Select an entry and press Shift+L to add one.</div>}
			<ul>
				{labels.map((l) => {
					const id = skeleton.ids[l.target];
					return (
						<li key={l.target}>
							<button type="button" className={`linkish${id === selectedId ? " selected" : ""}`} data-testid="label-item" onClick={() => reveal(id)}>
								<span className="label-badge">
									<Shown text={l.label} />
								</span>
								<span className="muted">{labelTime(l.time)}</span>
							</button>
						</li>
					);
				})}
			</ul>
		</div>
	);
}
