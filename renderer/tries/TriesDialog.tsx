// "Try N ways…" (docs/tries.md): N tries (2-6) from one entry, one prompt for all or one per try, a model and a
// thinking level per try from the user's pi models, the estimated cost of the context each try sends (its tokens
// times the model's input price) and a per-try cap. Where the session's folder is not a git repository the tries
// get read-only tools, and the dialog says so; without a pi to run them it says why and starts nothing.

import { useEffect, useMemo, useState } from "react";
import { MAX_TRIES, MIN_TRIES, TRY_THINKING_LEVELS, type TriesPreparation, type TrySpec, type TryThinkingLevel } from "../../shared/tries";
import { useServices } from "../commands/services";
import { Modal } from "../dialogs/Modal";
import { useApp } from "../store";
import { tries } from "./store";
import "./tries.css";

/** pi's own rough count for text it has not sent yet: about four characters per token. */
const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

export function formatUsd(v: number): string {
	return v === 0 ? "$0" : v < 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
}

export function TriesDialog({ entryId }: { entryId: string }) {
	const { client } = useServices();
	const sessionId = useApp((s) => s.activeSessionId);
	const close = useApp((s) => s.closeDialog);
	const toast = useApp((s) => s.toast);
	const [prep, setPrep] = useState<TriesPreparation | null>(null);
	const [contextTokens, setContextTokens] = useState<number | null>(null);
	const [error, setError] = useState<string | null>(null);
	const [n, setN] = useState(3);
	const [onePrompt, setOnePrompt] = useState(true);
	const [prompts, setPrompts] = useState<string[]>(Array.from({ length: MAX_TRIES }, () => ""));
	const [models, setModels] = useState<string[]>(Array.from({ length: MAX_TRIES }, () => ""));
	const [thinking, setThinking] = useState<string[]>(Array.from({ length: MAX_TRIES }, () => ""));
	const [cap, setCap] = useState("");
	const [starting, setStarting] = useState(false);

	useEffect(() => {
		if (!sessionId) return;
		void client.request("prepareTries", { sessionId }).then(setPrep, (e: unknown) => setError(e instanceof Error ? e.message : String(e)));
		void client.request("getContext", { sessionId, leafId: entryId }).then(
			(c) => setContextTokens(c.messages.reduce((k, m) => k + m.estimatedTokens, 0)),
			() => setContextTokens(null),
		);
	}, [client, sessionId, entryId]);

	const promptOf = (i: number): string => (onePrompt ? prompts[0]! : prompts[i]!);
	const priceOf = (i: number): number | null => {
		const id = models[i];
		const m = id ? prep?.models.find((x) => `${x.provider}/${x.id}` === id) : undefined;
		return m ? m.cost.input : null;
	};
	const estimates = useMemo(
		() =>
			Array.from({ length: n }, (_, i) => {
				const tokens = (contextTokens ?? 0) + estimateTokens(promptOf(i));
				const price = priceOf(i);
				return { tokens, cost: price === null ? null : (tokens * price) / 1_000_000 };
			}),
		// eslint-disable-next-line react-hooks/exhaustive-deps
		[n, contextTokens, prompts, onePrompt, models, prep],
	);
	const capUsd = cap.trim() === "" ? undefined : Number(cap);
	const capBad = capUsd !== undefined && (!Number.isFinite(capUsd) || capUsd <= 0);
	const missingPrompt = Array.from({ length: n }, (_, i) => promptOf(i).trim() === "").some(Boolean);
	const canStart = prep !== null && prep.pi !== null && !missingPrompt && !capBad && !starting;

	const start = async (): Promise<void> => {
		if (!sessionId || !canStart) return;
		setStarting(true);
		const specs: TrySpec[] = Array.from({ length: n }, (_, i) => ({
			prompt: promptOf(i),
			...(models[i] ? { model: models[i] } : {}),
			...(thinking[i] ? { thinking: thinking[i] as TryThinkingLevel } : {}),
			...(capUsd !== undefined ? { capUsd } : {}),
		}));
		try {
			const run = await client.request("startTries", { sessionId, entryId, tries: specs });
			tries.getState().started(run);
			close("tries");
			toast("info", `${n} tries started${run.readOnly ? " (read-only tools: no git repository)" : ""}: the Tries panel follows them.`);
		} catch (e) {
			setError(e instanceof Error ? e.message : String(e));
			setStarting(false);
		}
	};

	return (
		<Modal title="Try N ways" testId="tries-dialog" wide>
			<form
				className="tries-form"
				onSubmit={(e) => {
					e.preventDefault();
					void start();
				}}
			>
				<p className="muted">
					From entry <span className="mono">{entryId}</span>: each try is a new session file forked here, run by your own pi
					{prep?.git === false ? "" : " in its own git worktree (HEAD plus your uncommitted files)"}. Your working tree is not touched until you Keep one.
				</p>
				{prep?.git === false && (
					<p className="tries-warning" data-testid="tries-readonly">
						{prep.cwd} is not in a git repository: the tries run with read-only tools (read, grep, find, ls) in that folder.
					</p>
				)}
				{prep?.piError && (
					<p className="tries-error" data-testid="tries-no-pi">
						{prep.piError}
					</p>
				)}
				{prep?.pi && <p className="muted small">Runs with {prep.pi}</p>}
				{prep && (
					<p className={prep.confined ? "muted small" : "tries-warning"} data-testid="tries-confinement">
						What a try can touch: {prep.confinement}.
					</p>
				)}
				<div className="tries-row">
					<label>
						Tries{" "}
						<select data-testid="tries-n" value={n} onChange={(e) => setN(Number(e.target.value))}>
							{Array.from({ length: MAX_TRIES - MIN_TRIES + 1 }, (_, k) => MIN_TRIES + k).map((v) => (
								<option key={v} value={v}>
									{v}
								</option>
							))}
						</select>
					</label>
					<label>
						<input type="checkbox" data-testid="tries-one-prompt" checked={onePrompt} onChange={(e) => setOnePrompt(e.target.checked)} /> One prompt for all
					</label>
					<label>
						Cap per try (USD){" "}
						<input data-testid="tries-cap" className="tries-cap" inputMode="decimal" placeholder="none" value={cap} onChange={(e) => setCap(e.target.value)} />
					</label>
				</div>
				{capBad && <p className="tries-error">The cap must be a positive number of dollars.</p>}
				{onePrompt && (
					<textarea
						autoFocus
						data-testid="tries-prompt"
						rows={3}
						placeholder="What should every try do?"
						value={prompts[0]}
						onChange={(e) => setPrompts([e.target.value, ...prompts.slice(1)])}
					/>
				)}
				<table className="tries-table">
					<thead>
						<tr>
							<th>#</th>
							{!onePrompt && <th>Prompt</th>}
							<th>Model</th>
							<th>Thinking</th>
							<th title="The context up to this entry plus the prompt, times the model's input price">Context sent (est.)</th>
						</tr>
					</thead>
					<tbody>
						{Array.from({ length: n }, (_, i) => (
							<tr key={i} data-testid={`tries-spec-${i + 1}`}>
								<td>{i + 1}</td>
								{!onePrompt && (
									<td>
										<textarea
											rows={2}
											data-testid={`tries-prompt-${i + 1}`}
											value={prompts[i]}
											onChange={(e) => setPrompts(prompts.map((p, k) => (k === i ? e.target.value : p)))}
										/>
									</td>
								)}
								<td>
									<select
										data-testid={`tries-model-${i + 1}`}
										value={models[i]}
										onChange={(e) => setModels(models.map((m, k) => (k === i ? e.target.value : m)))}
									>
										<option value="">pi's default</option>
										{prep?.models.map((m) => (
											<option key={`${m.provider}/${m.id}`} value={`${m.provider}/${m.id}`}>
												{m.provider}/{m.id}
											</option>
										))}
									</select>
								</td>
								<td>
									<select
										data-testid={`tries-thinking-${i + 1}`}
										value={thinking[i]}
										onChange={(e) => setThinking(thinking.map((t, k) => (k === i ? e.target.value : t)))}
									>
										<option value="">pi's default</option>
										{TRY_THINKING_LEVELS.map((t) => (
											<option key={t} value={t}>
												{t}
											</option>
										))}
									</select>
								</td>
								<td className="mono" data-testid={`tries-estimate-${i + 1}`}>
									{contextTokens === null ? "…" : `${estimates[i]!.tokens.toLocaleString()} tokens`}
									{estimates[i]!.cost !== null ? ` · ${formatUsd(estimates[i]!.cost!)}` : " · price: pick a model"}
								</td>
							</tr>
						))}
					</tbody>
				</table>
				{error && (
					<p className="tries-error" data-testid="tries-dialog-error">
						{error}
					</p>
				)}
				<div className="button-row">
					<button type="submit" data-testid="tries-start" disabled={!canStart}>
						{starting ? "Starting…" : `Start ${n} tries`}
					</button>
					<button type="button" onClick={() => close("tries")}>
						Cancel
					</button>
				</div>
			</form>
		</Modal>
	);
}
