// Compare two tries (docs/tries.md): the app's Compare dialog across the two tries' session files (each at its
// leaf: prompts, files, tokens, cost, time, errors, the answers' word diff), with the tries' worktree diffs file by
// file after it (the dialog's one scroll area) and Keep for either in its bottom row.

import { useEffect, useState } from "react";
import { useStore } from "zustand";
import type { ChangedFile } from "../../shared/tries";
import { CompareDialog } from "../compare/CompareDialog";
import { useServices } from "../commands/services";
import type { CompareFiles } from "../store/dialogs";
import { errorText } from "../store/dialogs";
import { keepTry } from "./commands";
import { diffByFile, tries } from "./store";

type TryDiff = { files: ChangedFile[]; diff: string } | { error: string };

function DiffText({ text }: { text: string }) {
	return (
		<pre className="tries-diff">
			{text.split("\n").map((line, i) => (
				<span key={i} className={line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : ""}>
					{line}
					{"\n"}
				</span>
			))}
		</pre>
	);
}

/** Both tries' changes against the snapshot they started from, one row per file, side by side. */
function TryDiffs({ runId, indices, names }: { runId: string; indices: [number, number]; names: [string, string] }) {
	const { client } = useServices();
	const [diffs, setDiffs] = useState<[TryDiff, TryDiff] | null>(null);
	const [ia, ib] = indices;
	useEffect(() => {
		let live = true;
		const one = (index: number): Promise<TryDiff> => client.request("getTryDiff", { runId, index }).catch((err: unknown) => ({ error: errorText(err) }));
		void Promise.all([one(ia), one(ib)]).then((d) => live && setDiffs(d));
		return () => {
			live = false;
		};
	}, [client, runId, ia, ib]);
	if (!diffs) return <p className="muted">Loading the worktree diffs…</p>;
	const [da, db] = diffs;
	if ("error" in da || "error" in db) return <p className="error-text">{"error" in da ? da.error : (db as { error: string }).error}</p>;
	const byA = diffByFile(da.diff);
	const byB = diffByFile(db.diff);
	const files = [...new Set([...byA.keys(), ...byB.keys()])].sort();
	return (
		<section className="tries-compare" data-testid="tries-compare">
			<h3>Worktree changes, file by file</h3>
			{files.length === 0 && <p className="muted">Neither try changed a file.</p>}
			{files.map((f) => (
				<div key={f} className="tries-compare-file" data-testid="tries-compare-file">
					<h4 className="mono">{f}</h4>
					<div className="tries-compare-grid">
						{([byA, byB] as const).map((by, k) =>
							by.has(f) ? <DiffText key={k} text={by.get(f)!} /> : <p key={k} className="muted">{`unchanged in ${names[k]}`}</p>,
						)}
					</div>
				</div>
			))}
		</section>
	);
}

export function TriesCompareDialog({ files }: { files: CompareFiles & { tries: { runId: string; indices: [number, number] } } }) {
	const { deps } = useServices();
	const busy = useStore(tries, (s) => s.busy);
	const keep = (k: 0 | 1) => async () => {
		if (await keepTry(deps, files.tries.indices[k])) deps.store.getState().closeDialog("compare");
	};
	return (
		<CompareDialog
			files={files}
			extra={<TryDiffs runId={files.tries.runId} indices={files.tries.indices} names={files.names} />}
			actions={([0, 1] as const).map((k) => (
				<button key={k} type="button" data-testid={`compare-keep-${k === 0 ? "a" : "b"}`} disabled={busy !== null} onClick={() => void keep(k)()}>
					Keep {files.names[k]}
				</button>
			))}
		/>
	);
}
