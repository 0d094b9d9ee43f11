// `arbor try FILE ID`: run N tries of a session from one entry, each a fork run by the user's own pi in its own git
// worktree, to completion; `arbor try keep TRY_FILE` keeps one, `arbor try discard FILE` drops a run's worktrees,
// `arbor try list` names the runs left over by an Arbor that ended without either (docs/tries.md).

import { errorText } from "../../../shared/guards";
import { TRY_THINKING_LEVELS, type TrySpec, type TryState, type TryThinkingLevel } from "../../../shared/tries";
import { defaultLiveDir, registrationsFor } from "../../services";
import {
	defaultTriesDir,
	discardTries,
	keepTry,
	leftoverRuns,
	type LiveSwitchOutcome,
	livePiRuntime,
	MAX_RUNNING_TRIES,
	NoPiError,
	piDescription,
	piForSession,
	readRuns,
	startTries,
	switchLiveToKept,
	TriesError,
} from "../../services/tries";
import { flag, parseCommandArgs, positionals, stringOption, UsageError } from "../args";
import { printError, printJsonLine, printLine, printUsage } from "../io";
import { openForSteering } from "../live";

export const tryUsage = `Usage: arbor try FILE ENTRY_ID [--n N] [--prompt TEXT]... [--model PROVIDER/ID]... [--thinking LEVEL]...
                 [--cap-usd X] [--cap-tokens N] [--json]
       arbor try keep TRY_FILE [--json]
       arbor try discard FILE [--json]
       arbor try list [--json]

Run N tries (2-6, default 2) from ENTRY_ID of the session FILE, side by side, and wait for them to end. Each try is
a new session file forked at ENTRY_ID (its header names FILE as parentSession), run by your own pi
(\`pi --mode rpc\`: the runtime and CLI of the live pi that holds FILE, else \`pi\` from PATH) in its own git
worktree of the session's folder: HEAD plus your uncommitted and untracked files. Where bubblewrap (bwrap)
runs, each try is confined to its worktree (stderr says what a try can touch); without it a try's tools can
write anywhere you can. Outside a git repository the tries get read-only tools. One Arbor runs at most 6 tries
at once; more wait, queued.
One --prompt is sent to every try, or give one per try; the same for --model and --thinking.
Prints each try's session file, worktree, outcome, tokens, cost and the files it changed.

  keep TRY_FILE   apply that try's changes to your working tree (three-way, file by file; on a conflict
                  nothing is applied and the files are named), continue its session in your folder (a live
                  pi holding FILE switches to it, once idle), and remove every worktree of its run. The
                  other tries' session files stay (forks of FILE).
  discard FILE    remove the worktrees of FILE's tries (FILE: the original or a try); session files stay.
  list            the runs whose Arbor ended without keep or discard, with their worktrees.

Options:
  --n N            number of tries (2-6)
  --prompt TEXT    the prompt (once for all, or once per try)
  --model P/ID     the model (once for all, or once per try; default: pi's)
  --thinking L     thinking level: off, minimal, low, medium, high, xhigh, max (once, or once per try)
  --cap-usd X      stop a try once it has cost more than X dollars
  --cap-tokens N   stop a try once it has used more than N tokens
  --json           print JSON
  -h, --help       show this help
Exit codes: 0 done, 1 usage, 2 bad file, 3 no pi to run, a try failed or was stopped, or keep refused or failed (nothing
written), 6 keep found a conflict or a file you changed while it planned.`;

const THINKING: readonly string[] = TRY_THINKING_LEVELS;
export const EXIT_TRY_FAILED = 3;
export const EXIT_CONFLICT = 6;

function many(args: { values: Record<string, unknown> }, name: string): string[] {
	const v = args.values[name];
	return Array.isArray(v) ? (v as string[]) : typeof v === "string" ? [v] : [];
}

/** One value for every try, or one per try. */
function perTry(values: string[], n: number, what: string): (string | undefined)[] {
	if (values.length === 0) return Array.from({ length: n }, () => undefined);
	if (values.length === 1) return Array.from({ length: n }, () => values[0]);
	if (values.length !== n) throw new UsageError(`${values.length} ${what}s for ${n} tries: give one for all, or one per try`, tryUsage);
	return values;
}

function positiveNumber(text: string | undefined, what: string): number | undefined {
	if (text === undefined) return undefined;
	const v = Number(text);
	if (!Number.isFinite(v) || v <= 0) throw new UsageError(`${what} must be a positive number, not "${text}"`, tryUsage);
	return v;
}

export async function tryCommand(argv: string[]): Promise<number> {
	const sub = argv[0];
	if (sub === "keep" || sub === "discard" || sub === "list") return finishCommand(sub, argv.slice(1));
	const args = parseCommandArgs(
		argv,
		{
			n: { type: "string" },
			prompt: { type: "string", multiple: true },
			model: { type: "string", multiple: true },
			thinking: { type: "string", multiple: true },
			"cap-usd": { type: "string" },
			"cap-tokens": { type: "string" },
			json: { type: "boolean" },
		},
		tryUsage,
	);
	if (flag(args, "help")) {
		printUsage(tryUsage);
		return 0;
	}
	const [file, entryId] = positionals(args, ["FILE", "ENTRY_ID"], 0, tryUsage) as [string, string];
	const prompts = many(args, "prompt");
	const models = many(args, "model");
	const thinking = many(args, "thinking");
	const nText = stringOption(args, "n");
	const n = nText !== undefined ? Number(nText) : Math.max(2, prompts.length, models.length, thinking.length);
	if (!Number.isInteger(n) || n < 2 || n > 6) throw new UsageError(`--n must be a whole number from 2 to 6, not "${nText}"`, tryUsage);
	if (prompts.length === 0 || prompts.some((p) => !p.trim())) throw new UsageError("give the tries a prompt (--prompt TEXT)", tryUsage);
	for (const m of models) if (!/^[^/\s]+\/\S+$/.test(m)) throw new UsageError(`--model takes PROVIDER/ID, not "${m}"`, tryUsage);
	for (const t of thinking) if (!THINKING.includes(t)) throw new UsageError(`--thinking takes ${THINKING.join(", ")}, not "${t}"`, tryUsage);
	const capUsd = positiveNumber(stringOption(args, "cap-usd"), "--cap-usd");
	const capTokens = positiveNumber(stringOption(args, "cap-tokens"), "--cap-tokens");
	const p = perTry(prompts, n, "prompt");
	const m = perTry(models, n, "model");
	const t = perTry(thinking, n, "thinking level");
	const specs: TrySpec[] = p.map((prompt, i) => ({
		prompt: prompt!,
		...(m[i] ? { model: m[i] } : {}),
		...(t[i] ? { thinking: t[i] as TryThinkingLevel } : {}),
		...(capUsd !== undefined ? { capUsd } : {}),
		...(capTokens !== undefined ? { capTokens } : {}),
	}));
	const json = flag(args, "json");
	const triesDir = defaultTriesDir();
	for (const run of leftoverRuns(triesDir))
		printError(
			`arbor try: tries of ${run.source} from ${run.createdAt} were left behind (${run.tries.length} worktrees): "arbor try discard ${run.source}" removes them`,
		);

	let pi;
	try {
		pi = piForSession(file, livePiRuntime(defaultLiveDir()));
	} catch (err) {
		if (err instanceof NoPiError) {
			printError(`arbor try: ${err.message}`);
			return EXIT_TRY_FAILED;
		}
		throw err;
	}
	if (!json) printError(`pi: ${piDescription(pi)}`);
	let run;
	const announced = new Set<number>();
	try {
		run = await startTries({
			source: file,
			entryId,
			tries: specs,
			pi,
			triesDir,
			onEvent: (e) => {
				if (json || e.type !== "try_state" || e.state.status !== "running" || announced.has(e.state.index)) return;
				announced.add(e.state.index);
				printError(`try ${e.state.index + 1}: running in ${e.state.cwd}`);
			},
		});
		if (!json) printError(`what a try can touch: ${run.confinement}`);
		for (const s of run.states) if (!json && s.status === "queued") printError(`try ${s.index + 1}: queued (at most ${MAX_RUNNING_TRIES} tries run at once)`);
	} catch (err) {
		printError(`arbor try: ${errorText(err)}`);
		return /no entry/.test(errorText(err)) ? 1 : 2;
	}
	// Ctrl-C stops every try (abort, then kill) and still prints where each one ended.
	const onSignal = (): void => void run.stopAll();
	process.on("SIGINT", onSignal);
	process.on("SIGTERM", onSignal);
	let states: TryState[];
	try {
		states = await run.done;
	} finally {
		process.off("SIGINT", onSignal);
		process.off("SIGTERM", onSignal);
	}
	if (json)
		printJsonLine(
			JSON.stringify({
				runId: run.runId,
				source: run.record.source,
				entryId,
				readOnly: run.readOnly,
				confined: run.confined,
				confinement: run.confinement,
				pi: run.record.pi,
				tries: states.map(tryJson),
			}),
		);
	else {
		if (run.readOnly) printLine(`${run.record.cwd} is not in a git repository: the tries ran with read-only tools (${"read, grep, find, ls"}).`);
		for (const s of states) printTry(s);
		printLine(`Keep one: arbor try keep TRY_FILE  ·  drop them all: arbor try discard ${run.record.source}`);
	}
	return states.every((s) => s.status === "done") ? 0 : EXIT_TRY_FAILED;
}

function tryJson(s: TryState): Record<string, unknown> {
	return {
		index: s.index + 1,
		sessionFile: s.sessionFile,
		worktree: s.worktree,
		status: s.status,
		message: s.message,
		prompt: s.prompt,
		model: s.model,
		thinking: s.thinking,
		tokens: s.tokens,
		cost: s.cost,
		durationMs: s.endedAt !== null ? s.endedAt - s.startedAt : null,
		files: s.files,
	};
}

function printTry(s: TryState): void {
	const secs = s.endedAt !== null ? `${((s.endedAt - s.startedAt) / 1000).toFixed(1)}s` : "";
	const files = s.files === null ? "files: -" : `${s.files.length} file${s.files.length === 1 ? "" : "s"} changed`;
	printLine(`try ${s.index + 1}: ${s.status}${s.message ? ` (${s.message})` : ""}  ${s.tokens.total} tokens  $${s.cost.toFixed(4)}  ${secs}  ${files}`);
	printLine(`  session:  ${s.sessionFile}`);
	if (s.worktree) printLine(`  worktree: ${s.worktree}`);
	for (const f of s.files ?? [])
		printLine(`    ${f.status === "added" ? "A" : f.status === "deleted" ? "D" : "M"} ${f.path}  +${f.added ?? "?"} -${f.removed ?? "?"}`);
}

async function finishCommand(sub: "keep" | "discard" | "list", argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { json: { type: "boolean" } }, tryUsage);
	if (flag(args, "help")) {
		printUsage(tryUsage);
		return 0;
	}
	const json = flag(args, "json");
	const triesDir = defaultTriesDir();
	if (sub === "list") {
		positionals(args, [], 0, tryUsage);
		const left = leftoverRuns(triesDir);
		if (json) printJsonLine(JSON.stringify({ leftovers: left, running: readRuns(triesDir).length - left.length }));
		else if (left.length === 0) printLine("no tries left behind");
		else
			for (const r of left) {
				printLine(`${r.source}  (${r.createdAt}, from ${r.entryId}): arbor try discard ${r.source}`);
				for (const t of r.tries) if (t.worktree) printLine(`  ${t.worktree}`);
			}
		return 0;
	}
	const [file] = positionals(args, [sub === "keep" ? "TRY_FILE" : "FILE"], 0, tryUsage) as [string];
	try {
		if (sub === "discard") {
			const done = await discardTries(triesDir, file);
			if (json) printJsonLine(JSON.stringify({ discarded: done }));
			else for (const d of done) printLine(`discarded ${d.runId}: ${d.removed.length} worktree${d.removed.length === 1 ? "" : "s"} removed`);
			return 0;
		}
		let switchResult: LiveSwitchOutcome | undefined;
		const outcome = await keepTry(triesDir, file, async (source, kept) => {
			switchResult = await switchLivePi(source, kept);
			return switchResult.switched;
		});
		const live: LiveSwitchOutcome = switchResult ?? { switched: false, pid: null };
		if (json) printJsonLine(JSON.stringify({ ...outcome, livePid: live.pid, ...(live.switched || !live.error ? {} : { switchError: live.error }) }));
		else if (outcome.conflicts.length > 0) {
			printError(`arbor try keep: nothing was applied: these files changed in your tree since the tries started, differently from the try:`);
			for (const f of outcome.conflicts) printError(`  ${f}`);
		} else {
			printLine(`kept ${outcome.kept}: ${outcome.applied.length} file${outcome.applied.length === 1 ? "" : "s"} applied to your working tree`);
			for (const f of outcome.applied) printLine(`  ${f}`);
			if (live.switched) printLine(`switched pi ${live.pid} to ${outcome.kept}: it continues there`);
			else if (live.pid === null && !live.error) printLine(`no live pi: continue with \`pi --session ${outcome.kept}\``);
			else {
				printError(`arbor try keep: ${live.pid === null ? "the live pi" : `pi ${live.pid}`} did not switch to the kept session: ${live.error}`);
				printLine(`continue it: /resume it in pi, or \`pi --session ${outcome.kept}\``);
			}
		}
		return outcome.conflicts.length > 0 ? EXIT_CONFLICT : 0;
	} catch (err) {
		if (err instanceof TriesError) {
			printError(`arbor try ${sub}: ${err.message}`);
			return err.code === "not_found" ? 1 : err.code === "changed" || err.code === "conflict" ? EXIT_CONFLICT : EXIT_TRY_FAILED;
		}
		throw err;
	}
}

/**
 * `arbor try keep`'s switch of the live pi holding the source session: the app's Keep switch (switchLiveToKept,
 * through the source's Steering), reached the way every steering command reaches a live pi (openForSteering).
 * Without a registration for the source nothing is opened: there is no pi to switch.
 */
async function switchLivePi(source: string, kept: string): Promise<LiveSwitchOutcome> {
	if (registrationsFor(defaultLiveDir(), source).length === 0) return { switched: false, pid: null };
	let steered;
	try {
		steered = await openForSteering(source, tryUsage);
	} catch (err) {
		return { switched: false, pid: null, error: `Arbor could not reach the pi holding ${source}: ${errorText(err)}` };
	}
	try {
		return await switchLiveToKept(steered.steering, kept);
	} finally {
		steered.close();
	}
}
