// The Tries panel (docs/tries.md): one row per try with its status, tokens, cost, time, files changed and the
// answer as it streams; Stop one, Stop all (Escape); Compare two tries (the Compare dialog across their session
// files, with their worktree diffs file by file: TriesCompare.tsx); Keep one (its changes into the user's tree,
// its session opened); Discard all.

import { useEffect, useState } from "react";
import { useStore } from "zustand";
import { tryActive, type TryState } from "../../shared/tries";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { keepTry, stopAllTries } from "./commands";
import { runFinished, tries } from "./store";
import { formatUsd } from "./TriesDialog";
import "./tries.css";

function seconds(t: TryState, now: number): string {
	// A queued try has not started: its time starts when it leaves the queue.
	if (t.status === "queued") return "—";
	return `${(((t.endedAt ?? now) - t.startedAt) / 1000).toFixed(1)}s`;
}

function filesText(t: TryState): string {
	if (t.files === null) return t.worktree ? "…" : "read-only";
	const add = t.files.reduce((k, f) => k + (f.added ?? 0), 0);
	const del = t.files.reduce((k, f) => k + (f.removed ?? 0), 0);
	return `${t.files.length} file${t.files.length === 1 ? "" : "s"} +${add} −${del}`;
}

export function TriesPanel() {
	const { client, deps } = useServices();
	const run = useStore(tries, (s) => s.run);
	const answers = useStore(tries, (s) => s.answers);
	const compare = useStore(tries, (s) => s.compare);
	const busy = useStore(tries, (s) => s.busy);
	const lost = useStore(tries, (s) => s.lost);
	const toast = useApp((s) => s.toast);
	const openDialog = useApp((s) => s.openDialog);
	const reportError = useApp((s) => s.reportError);
	const [now, setNow] = useState(() => Date.now());
	const finished = runFinished(run);
	useEffect(() => {
		if (!run || finished || lost) return;
		const t = setInterval(() => setNow(Date.now()), 500);
		return () => clearInterval(t);
	}, [run, finished, lost]);
	if (!run) return null;

	/** The Compare dialog across the two chosen tries' session files (each at its leaf), with their worktree diffs. */
	const openCompare = (): void => {
		const [i, j] = [...compare].sort((x, y) => x - y) as [number, number];
		const ti = run.tries[i]!;
		const tj = run.tries[j]!;
		openDialog({
			kind: "compare",
			files: {
				a: { path: ti.sessionFile },
				b: { path: tj.sessionFile },
				names: [`Try ${i + 1}`, `Try ${j + 1}`],
				source: run.source,
				tries: { runId: run.runId, indices: [i, j] },
			},
		});
	};
	const discard = async (): Promise<void> => {
		tries.getState().setBusy("discard");
		try {
			const r = await client.request("discardTries", { runId: run.runId });
			tries.getState().clear();
			toast("info", `Discarded the tries: ${r.removed.length} worktree${r.removed.length === 1 ? "" : "s"} removed; their session files stay.`);
		} catch (err) {
			tries.getState().setBusy(null);
			reportError(err, "Could not discard the tries");
		}
	};

	return (
		<section className="tries-panel" data-testid="tries-panel" aria-label="Tries">
			<header className="tries-head">
				<strong>Tries</strong>
				<span className="muted">
					from <span className="mono">{run.entryId}</span>
					{run.readOnly ? " · read-only tools (no git repository)" : ""}
					{run.confined === false ? " · not confined: a try can write outside its worktree" : ""}
				</span>
				<span className="spacer" />
				{lost && (
					<span className="error-text" data-testid="tries-host-lost">
						Arbor&apos;s host stopped: these tries&apos; state is unknown. A new host lists them under leftovers.
					</span>
				)}
				{!finished && !lost && (
					<button type="button" data-testid="tries-stop-all" title="Stop all (Escape)" onClick={() => void stopAllTries(deps)}>
						Stop all
					</button>
				)}
				{finished && (
					<button
						type="button"
						data-testid="tries-compare-open"
						disabled={compare.length !== 2}
						title={compare.length === 2 ? undefined : "tick Compare on two tries"}
						onClick={openCompare}
					>
						{compare.length === 2 ? `Compare tries ${Math.min(...compare) + 1} and ${Math.max(...compare) + 1}` : "Compare two tries"}
					</button>
				)}
				{finished && (
					<button type="button" data-testid="tries-discard" disabled={busy !== null} onClick={() => void discard()}>
						Discard all
					</button>
				)}
			</header>
			<table className="tries-table">
				<thead>
					<tr>
						<th>#</th>
						<th>Model</th>
						<th>Status</th>
						<th>Tokens</th>
						<th>Cost</th>
						<th>Time</th>
						<th>Files</th>
						<th>Answer</th>
						<th />
					</tr>
				</thead>
				<tbody>
					{run.tries.map((t) => (
						<tr key={t.index} data-testid={`try-row-${t.index + 1}`} data-status={t.status}>
							<td>{t.index + 1}</td>
							<td className="mono">{t.model ?? "pi's default"}</td>
							<td>
								<span className={`tries-status ${t.status}`} data-testid={`try-status-${t.index + 1}`} title={t.message ?? undefined}>
									{lost && tryActive(t.status) ? "unknown" : t.status}
								</span>
							</td>
							<td className="mono">{t.tokens.total.toLocaleString()}</td>
							<td className="mono">{formatUsd(t.cost)}</td>
							<td className="mono">{seconds(t, now)}</td>
							<td className="mono" data-testid={`try-files-${t.index + 1}`}>
								{filesText(t)}
							</td>
							<td className="tries-answer-cell" data-testid={`try-answer-${t.index + 1}`}>
								{(answers[t.index] ?? "").slice(-160)}
							</td>
							<td className="tries-actions">
								{tryActive(t.status) && !lost && (
									<button
										type="button"
										data-testid={`try-stop-${t.index + 1}`}
										onClick={() => void client.request("stopTries", { runId: run.runId, index: t.index })}
									>
										Stop
									</button>
								)}
								{finished && (
									<label className="tries-compare-pick">
										<input
											type="checkbox"
											data-testid={`try-compare-${t.index + 1}`}
											checked={compare.includes(t.index)}
											onChange={() => tries.getState().toggleCompare(t.index)}
										/>{" "}
										Compare
									</label>
								)}
								{finished && (
									<button type="button" data-testid={`try-keep-${t.index + 1}`} disabled={busy !== null} onClick={() => void keepTry(deps, t.index)}>
										Keep
									</button>
								)}
							</td>
						</tr>
					))}
				</tbody>
			</table>
		</section>
	);
}
