// The Tries panel (docs/tries.md): one row per try with its status, tokens, cost, time, files changed and the
// answer as it streams; Stop one, Stop all (Escape); Compare two tries (their answers and worktree diffs, file by
// file); Keep one (its changes into the user's tree, its session opened); Discard all.

import { useEffect, useState } from "react";
import { useStore } from "zustand";
import type { TryState } from "../../shared/tries";
import { useServices } from "../commands/services";
import { useApp } from "../store";
import { stopAllTries } from "./commands";
import { diffByFile, runFinished, type TryDiff, tries } from "./store";
import { formatUsd } from "./TriesDialog";
import "./tries.css";

function seconds(t: TryState, now: number): string {
	return `${(((t.endedAt ?? now) - t.startedAt) / 1000).toFixed(1)}s`;
}

function filesText(t: TryState): string {
	if (t.files === null) return t.worktree ? "…" : "read-only";
	const add = t.files.reduce((k, f) => k + (f.added ?? 0), 0);
	const del = t.files.reduce((k, f) => k + (f.removed ?? 0), 0);
	return `${t.files.length} file${t.files.length === 1 ? "" : "s"} +${add} −${del}`;
}

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

function Compare({ a, b }: { a: number; b: number }) {
	const diffs = useStore(tries, (s) => s.diffs);
	const answers = useStore(tries, (s) => s.answers);
	const da = diffs[a];
	const db = diffs[b];
	if (!da || !db) return <p className="muted">Loading the worktree diffs…</p>;
	if ("error" in da || "error" in db) return <p className="tries-error">{"error" in da ? da.error : (db as { error: string }).error}</p>;
	const byA = diffByFile((da as TryDiff).diff);
	const byB = diffByFile((db as TryDiff).diff);
	const files = [...new Set([...byA.keys(), ...byB.keys()])].sort();
	return (
		<section className="tries-compare" data-testid="tries-compare">
			<div className="tries-compare-grid">
				<h4>Try {a + 1}</h4>
				<h4>Try {b + 1}</h4>
				<div className="tries-answer">{answers[a] ?? ""}</div>
				<div className="tries-answer">{answers[b] ?? ""}</div>
			</div>
			{files.length === 0 && <p className="muted">Neither try changed a file.</p>}
			{files.map((f) => (
				<div key={f} className="tries-compare-file" data-testid="tries-compare-file">
					<h5 className="mono">{f}</h5>
					<div className="tries-compare-grid">
						{byA.has(f) ? <DiffText text={byA.get(f)!} /> : <p className="muted">unchanged in try {a + 1}</p>}
						{byB.has(f) ? <DiffText text={byB.get(f)!} /> : <p className="muted">unchanged in try {b + 1}</p>}
					</div>
				</div>
			))}
		</section>
	);
}

export function TriesPanel() {
	const { client, deps } = useServices();
	const run = useStore(tries, (s) => s.run);
	const answers = useStore(tries, (s) => s.answers);
	const compare = useStore(tries, (s) => s.compare);
	const busy = useStore(tries, (s) => s.busy);
	const addSession = useApp((s) => s.addSession);
	const toast = useApp((s) => s.toast);
	const reportError = useApp((s) => s.reportError);
	const [now, setNow] = useState(() => Date.now());
	const finished = runFinished(run);
	useEffect(() => {
		if (!run || finished) return;
		const t = setInterval(() => setNow(Date.now()), 500);
		return () => clearInterval(t);
	}, [run, finished]);
	const compareKey = compare.join(",");
	useEffect(() => {
		if (compare.length === 2 && finished) void tries.getState().loadDiffs(client);
		// eslint-disable-next-line react-hooks/exhaustive-deps
	}, [compareKey, finished, client]);
	if (!run) return null;

	const keep = async (index: number): Promise<void> => {
		tries.getState().setBusy("keep");
		try {
			const r = await client.request("keepTry", { runId: run.runId, index });
			if (r.conflicts.length > 0) {
				toast(
					"error",
					`Nothing was applied: ${r.conflicts.join(", ")} changed in your working tree since the tries started, differently from try ${index + 1}.`,
				);
				tries.getState().setBusy(null);
				return;
			}
			tries.getState().clear();
			if (r.session) await addSession(r.session);
			toast(
				"info",
				`Kept try ${index + 1}: ${r.applied.length} file${r.applied.length === 1 ? "" : "s"} applied to your working tree; its session continues${r.switched ? " in your live pi" : ""}. The other tries' sessions stay as forks.`,
			);
		} catch (err) {
			tries.getState().setBusy(null);
			reportError(err, "Could not keep the try");
		}
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
				</span>
				<span className="spacer" />
				{!finished && (
					<button type="button" data-testid="tries-stop-all" title="Stop all (Escape)" onClick={() => void stopAllTries(deps)}>
						Stop all
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
									{t.status}
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
								{(t.status === "starting" || t.status === "running") && (
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
									<button type="button" data-testid={`try-keep-${t.index + 1}`} disabled={busy !== null} onClick={() => void keep(t.index)}>
										Keep
									</button>
								)}
							</td>
						</tr>
					))}
				</tbody>
			</table>
			{finished && compare.length === 2 && <Compare a={compare[0]!} b={compare[1]!} />}
		</section>
	);
}
