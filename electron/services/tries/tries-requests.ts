// The tries requests of the Arbor API (shared/api.ts): start, stop, keep, discard, diffs, leftovers, models. Runs
// live in this process; their events go out as `tries` events. A run this process started is forgotten once kept
// or discarded; runs other Arbors left behind are read from the records in ~/.arbor/tries.

import * as fs from "node:fs";
import type { ArborErrorCode, ArborEvent } from "../../../shared/api";
import { errorText } from "../../../shared/guards";
import type { ChangedFile, LeftoverRun, TriesPreparation, TriesRunInfo, TrySpec } from "../../../shared/tries";
import { ArborServiceError } from "../errors";
import { buildPiCatalog } from "../models";
import type { Env } from "../pi-config";
import { changedFiles, repoOf, treeDiff, treeOfTry } from "./git";
import type { TriesErrorCode } from "./errors";
import { discardRun, keepTry, type KeepOutcome, type SwitchLiveSession, TriesError } from "./finish";
import { type Confinement, confinementNote, detectConfinement } from "./confine";
import type { ModelPrice } from "./meter";
import { type LivePiRuntime, NoPiError, type PiCommand, piDescription, piForSession } from "./pi-process";
import { startTries, type TriesRun } from "./run";
import { processSlots, type TrySlots } from "./slots";
import { leftoverRuns, readRuns } from "./state";

export interface TriesRequestsOptions {
	triesDir: string;
	piAgentDir: string;
	env: Env;
	emit(event: ArborEvent): void;
	/** Which pi runs a session's tries (default: the live pi's runtime from `liveRuntime`, else pi on PATH). */
	pi?: (source: string) => PiCommand;
	/** The runtimes of the live pis (livePiRuntime over ~/.arbor/live); none: tries use pi on PATH. */
	liveRuntime?: LivePiRuntime;
	/** The live pi's switch to a kept session (the Steering interface's switchSession), when wired. */
	switchLive?: SwitchLiveSession;
	/** How tries are confined (default: what this machine offers); null: not confined. */
	confinement?: Confinement | null;
	/** How many tries run at once (default: this process's slots, MAX_RUNNING_TRIES); the rest are queued. */
	slots?: TrySlots;
}

function info(run: TriesRun, finished: boolean): TriesRunInfo {
	return {
		runId: run.runId,
		source: run.record.source,
		entryId: run.record.entryId,
		readOnly: run.readOnly,
		...(run.record.pi ? { pi: run.record.pi } : {}),
		confined: run.confined,
		confinement: run.confinement,
		tries: run.states.map((s) => ({ ...s })),
		finished,
	};
}

const API_CODE: Record<TriesErrorCode, ArborErrorCode> = {
	not_found: "not_found",
	running: "busy",
	gone: "busy",
	conflict: "conflict",
	changed: "conflict",
	unsafe_path: "forbidden",
	too_large: "unsupported",
	io: "io",
};

function asServiceError(err: unknown): never {
	if (err instanceof NoPiError) throw new ArborServiceError("unsupported", err.message);
	if (err instanceof TriesError) throw new ArborServiceError(API_CODE[err.code], err.message);
	throw err;
}

export class TriesRequests {
	readonly #o: TriesRequestsOptions;
	readonly #runs = new Map<string, { run: TriesRun; finished: boolean }>();

	constructor(options: TriesRequestsOptions) {
		this.#o = options;
	}

	#confinement(): Confinement | null {
		return this.#o.confinement === undefined ? detectConfinement() : this.#o.confinement;
	}

	/** pi's prices of its models (USD per million tokens), for what an answer streams before pi reports its usage. */
	async #prices(): Promise<Map<string, ModelPrice>> {
		const prices = new Map<string, ModelPrice>();
		try {
			const cat = await buildPiCatalog(this.#o.piAgentDir, this.#o.env);
			for (const m of await cat.models.getAvailable()) prices.set(`${m.provider}/${m.id}`, { input: m.cost?.input ?? 0, output: m.cost?.output ?? 0 });
		} catch {
			/* no model list: streamed output is priced once pi reports it */
		}
		return prices;
	}

	#pi(source: string): PiCommand {
		return this.#o.pi ? this.#o.pi(source) : piForSession(source, this.#o.liveRuntime);
	}

	async start(source: string, entryId: string, tries: TrySpec[]): Promise<TriesRunInfo> {
		let run: TriesRun;
		try {
			const pi = this.#pi(source);
			const prices = await this.#prices();
			run = await startTries({
				source,
				entryId,
				tries,
				pi,
				triesDir: this.#o.triesDir,
				confinement: this.#confinement(),
				piAgentDir: this.#o.piAgentDir,
				slots: this.#o.slots ?? processSlots,
				priceOf: (provider, model) => prices.get(`${provider}/${model}`),
				onEvent: (e) => {
					const held = this.#runs.get(e.runId);
					if (e.type === "run_done" && held) held.finished = true;
					this.#o.emit({ type: "tries", event: e });
				},
			});
		} catch (err) {
			if (err instanceof NoPiError) asServiceError(err);
			throw new ArborServiceError("bad_request", err instanceof Error ? err.message : String(err));
		}
		this.#runs.set(run.runId, { run, finished: false });
		void run.done.then(() => {
			const held = this.#runs.get(run.runId);
			if (held) held.finished = true;
		});
		return info(run, false);
	}

	#held(runId: string): { run: TriesRun; finished: boolean } {
		const held = this.#runs.get(runId);
		if (!held) throw new ArborServiceError("not_found", `no tries run ${runId} in this Arbor`);
		return held;
	}

	async stop(runId: string, index?: number): Promise<void> {
		const { run } = this.#held(runId);
		if (index === undefined) await run.stopAll();
		else await run.stop(index);
	}

	list(): { runs: TriesRunInfo[]; leftovers: LeftoverRun[] } {
		const runs = [...this.#runs.values()].map((h) => info(h.run, h.finished));
		const leftovers = leftoverRuns(this.#o.triesDir).map((r) => ({
			runId: r.runId,
			source: r.source,
			createdAt: r.createdAt,
			worktrees: r.tries.flatMap((t) => (t.worktree && fs.existsSync(t.worktree) ? [t.worktree] : [])),
		}));
		return { runs, leftovers };
	}

	async keep(runId: string, index: number): Promise<KeepOutcome> {
		const { run, finished } = this.#held(runId);
		if (!finished) throw new ArborServiceError("busy", "the tries still run: stop them (or wait) before keeping one");
		const t = run.states[index];
		if (!t) throw new ArborServiceError("not_found", `no try ${index + 1} in run ${runId}`);
		let outcome: KeepOutcome;
		try {
			outcome = await keepTry(this.#o.triesDir, t.sessionFile, this.#o.switchLive);
		} catch (err) {
			asServiceError(err);
		}
		if (outcome.conflicts.length === 0) this.#runs.delete(runId);
		return outcome;
	}

	/** Discard a run of this Arbor or a leftover one: its worktrees removed, its session files kept. */
	async discard(runId: string): Promise<{ removed: string[] }> {
		const held = this.#runs.get(runId);
		if (held && !held.finished) await held.run.stopAll();
		if (held) await held.run.done;
		const rec = readRuns(this.#o.triesDir).find((r) => r.runId === runId);
		if (!rec) throw new ArborServiceError("not_found", `no tries run ${runId} is left to discard`);
		try {
			const r = await discardRun(this.#o.triesDir, rec);
			this.#runs.delete(runId);
			return { removed: r.removed };
		} catch (err) {
			asServiceError(err);
		}
	}

	/** A try's changes: its files against the snapshot, and the unified diff (of one file, or all). */
	async diff(runId: string, index: number, file?: string): Promise<{ files: ChangedFile[]; diff: string }> {
		const { run } = this.#held(runId);
		const t = run.states[index];
		const repo = run.record.repo;
		if (!t) throw new ArborServiceError("not_found", `no try ${index + 1} in run ${runId}`);
		if (!repo || !t.worktree) return { files: [], diff: "" };
		if (!fs.existsSync(t.worktree)) throw new ArborServiceError("not_found", `the worktree of try ${index + 1} is gone`);
		const tree = await treeOfTry(repo, t.worktree);
		return { files: await changedFiles(repo.root, repo.snapshot, tree), diff: await treeDiff(repo.root, repo.snapshot, tree, file) };
	}

	/** Where the tries would run, which pi would run them, and the models it can use (with pi's prices). */
	async prepare(source: string, cwd: string): Promise<TriesPreparation> {
		let pi: string | null = null;
		let piError: string | undefined;
		try {
			pi = piDescription(this.#pi(source));
		} catch (err) {
			piError = errorText(err);
		}
		const git = fs.existsSync(cwd) && (await repoOf(cwd).catch(() => undefined)) !== undefined;
		const cat = await buildPiCatalog(this.#o.piAgentDir, this.#o.env);
		const available = await cat.models.getAvailable().catch(() => []);
		const models = available.map((m) => ({
			provider: m.provider,
			id: m.id,
			name: m.name ?? m.id,
			reasoning: Boolean(m.reasoning),
			cost: { input: m.cost?.input ?? 0, output: m.cost?.output ?? 0 },
		}));
		const confinement = this.#confinement();
		return { cwd, git, pi, ...(piError ? { piError } : {}), confined: confinement !== null, confinement: confinementNote(confinement, !git), models };
	}

	/** Stop every try this process runs (Arbor is closing): their records stay for the next start. */
	async dispose(): Promise<void> {
		await Promise.all([...this.#runs.values()].map((h) => h.run.stopAll()));
	}
}
