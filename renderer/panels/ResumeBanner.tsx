// Resume-point safety (pi #9930, omp #12242): pi and omp resume at the file's last line. When that line sits
// on another branch than the newest conversation (a label or cache-warmer line written from an old leaf),
// say so plainly and offer to save the position on the branch the user most likely means.

import { useEffect, useState } from "react";
import type { ResumePointInfo } from "../../shared/api";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { indexOfId } from "../store/selectors";
import { visibleText } from "../../shared/visible-text";

/** Dismissed warnings: session id -> the resume leaf id it was about (a new stale point shows again). */
const dismissed = new Map<string, string | null>();

export function ResumeBanner() {
	const { client, deps, reveal } = useServices();
	const sessionId = useApp((s) => s.activeSessionId);
	const sk = useApp((s) => (s.activeSessionId ? (s.sessions[s.activeSessionId]?.skeleton ?? null) : null));
	const count = sk?.count ?? 0;
	const resumeLeaf = sk?.resumeLeaf ?? -1;
	const [info, setInfo] = useState<{ sessionId: string; r: ResumePointInfo; text: string } | null>(null);
	const [busy, setBusy] = useState(false);
	const isLive = useApp((s) => (s.activeSessionId ? s.live[s.activeSessionId] !== undefined : false));
	const [, bump] = useState(0);

	useEffect(() => {
		if (!sessionId || count === 0) {
			setInfo(null);
			return;
		}
		let live = true;
		void (async () => {
			try {
				const r = await client.request("getResumePoint", { sessionId });
				let text = "";
				const cur = deps.store.getState().sessions[sessionId]?.skeleton;
				const i = r.suggestedId && cur ? indexOfId(cur, r.suggestedId) : -1;
				if (r.stale && i >= 0) {
					const [p] = await client.request("getPreviews", { sessionId, indices: [i] });
					text = visibleText((p ?? "").replace(/^(user|assistant): /, ""));
				}
				if (live) setInfo({ sessionId, r, text });
			} catch {
				if (live) setInfo(null);
			}
		})();
		return () => {
			live = false;
		};
	}, [client, deps, sessionId, count, resumeLeaf]);

	// Live, the running pi is not resuming from the file: its own leaf is on the graph and in the status bar.
	if (isLive) return null;
	// The user moved the leaf since: that is the position they chose, and the status bar's "Save position for pi"
	// saves it. The banner's suggestion would move the leaf back (issue 39), so it steps aside.
	if (!sk || sk.leaf !== sk.resumeLeaf) return null;
	if (!sessionId || !info || info.sessionId !== sessionId || !info.r.stale || !info.r.suggestedId) return null;
	if (dismissed.has(sessionId) && dismissed.get(sessionId) === info.r.resumeLeafId) return null;
	const suggested = info.r.suggestedId;

	const save = async (): Promise<void> => {
		setBusy(true);
		try {
			// Read at the click, not at the last render: a leaf the user moved meanwhile is their choice.
			const cur = deps.store.getState().sessions[sessionId]?.skeleton;
			const untouched = cur != null && cur.leaf === cur.resumeLeaf;
			// One request: the service moves the leaf to the entry named here and writes the marker under it.
			await deps.store.getState().savePosition(untouched ? suggested : undefined);
		} finally {
			setBusy(false);
		}
	};

	return (
		<div className="banner warn" role="status" data-testid="resume-banner">
			pi will resume on another branch than your latest conversation:{" "}
			<button type="button" className="linkish" data-testid="resume-banner-entry" title={`Show ${suggested}`} onClick={() => reveal(suggested)}>
				{info.text ? `“${info.text.slice(0, 80)}${info.text.length > 80 ? "…" : ""}”` : suggested}
			</button>
			<span className="muted"> (the file's last line, {info.r.resumeLeafId ?? "?"}, is on an older branch)</span>
			<span className="banner-actions">
				<button type="button" data-testid="resume-banner-save" disabled={busy} onClick={() => void save()}>
					Save position for pi
				</button>
				<button
					type="button"
					data-testid="resume-banner-dismiss"
					aria-label="Dismiss"
					onClick={() => {
						dismissed.set(sessionId, info.r.resumeLeafId);
						bump((n) => n + 1);
					}}
				>
					Dismiss
				</button>
			</span>
		</div>
	);
}

/** Tests: forget dismissed warnings. */
export function resetResumeBannerDismissals(): void {
	dismissed.clear();
}
