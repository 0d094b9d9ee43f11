// The inspector's roll-up of the selected entry's subtree: entries, tokens, cost, errors, time span (from
// the skeleton) and the files its tool calls read, edited and wrote (asked for on demand).

import { useEffect, useState } from "react";
import type { SideFiles } from "../../shared/compare";
import { formatSpan, formatTokens } from "../../shared/rollup";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { activeSkeleton, indexOfId } from "../store/selectors";
import { subtreeRollup } from "../store/rollups";
import "./compare.css";

export function SubtreeStats({ entryId }: { entryId: string }) {
	const { client } = useServices();
	const sessionId = useApp((s) => s.activeSessionId);
	const sk = useApp(activeSkeleton);
	const index = sk ? indexOfId(sk, entryId) : -1;
	const r = subtreeRollup(sk, index);
	const [files, setFiles] = useState<{ id: string; files: SideFiles } | null>(null);
	useEffect(() => {
		if (!sessionId) return;
		let live = true;
		const t = setTimeout(() => {
			client.request("getSubtreeStats", { sessionId, entryId }).then(
				(s) => live && setFiles({ id: entryId, files: s.files }),
				() => undefined,
			);
		}, 120);
		return () => {
			live = false;
			clearTimeout(t);
		};
	}, [client, sessionId, entryId, sk?.count]);
	if (!r) return null;
	const f = files && files.id === entryId ? files.files : null;
	const touched = f ? new Set([...f.read, ...f.edited, ...f.written]).size : null;
	return (
		<details className="inspector-rollup" data-testid="inspector-rollup" open>
			<summary>Subtree from here</summary>
			<p className="muted rollup-covers">Every branch under this entry, the entry included (Compare shows one path).</p>
			<dl className="rollup">
				<dt>Entries</dt>
				<dd data-testid="rollup-entries">{r.entries}</dd>
				<dt>Tokens</dt>
				<dd>{formatTokens(r.tokens)}</dd>
				<dt>Cost</dt>
				<dd data-testid="rollup-cost">${r.cost.toFixed(4)}</dd>
				<dt>Errors</dt>
				<dd>
					{r.errors}
					{r.aborts > 0 ? ` · ${r.aborts} aborted` : ""}
				</dd>
				<dt>Time span</dt>
				<dd>{r.spanMs === null ? "–" : `${formatSpan(r.spanMs)}${r.first !== null ? ` from ${new Date(r.first).toLocaleString()}` : ""}`}</dd>
				<dt>Files touched</dt>
				<dd
					data-testid="rollup-files"
					title={f ? `read: ${f.read.join(", ") || "–"}\nedited: ${f.edited.join(", ") || "–"}\nwritten: ${f.written.join(", ") || "–"}` : undefined}
				>
					{touched === null ? "…" : `${touched} (${f!.read.length} read, ${f!.edited.length} edited, ${f!.written.length} written)`}
				</dd>
			</dl>
		</details>
	);
}
