// A tries run: N forks of one session at one entry, each run to the end of one prompt by its own headless pi in its
// own working copy. Order matters for "no orphan unaccounted for": the run's record is written before the first
// worktree exists and updated after every worktree, fork and process, so whatever a crash leaves is listed in it.

import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { errorText } from "../../../shared/guards";
import { piAgentDir as defaultPiAgentDir, SessionManager } from "../../session";
import type { TryEvent, TrySpec, TryState, TryStatus } from "../../../shared/tries";
import { addTryWorktree, changedFiles, deleteRef, removeTryWorktree, repoOf, snapshotWorkingTree, treeOfTry } from "./git";
import { type Confinement, confinementNote, detectConfinement } from "./confine";
import { type PriceOf, TryMeter } from "./meter";
import { type PiCommand, piDescription, type PiProcess, type PiRecord, startPi } from "./pi-process";
import { processSlots, type TrySlot, type TrySlots } from "./slots";
import { defaultTriesDir, removeRun, type RunRecord, type TryRecord, TRIES_STATE_VERSION, tryTmpDir, writeRun } from "./state";

/** Tools a try may use where there is no worktree to write in: it reads the user's own folder. */
export const READ_ONLY_TOOLS = ["read", "grep", "find", "ls"];

export interface StartTriesOptions {
	source: string;
	entryId: string;
	tries: TrySpec[];
	pi: PiCommand;
	triesDir?: string;
	/** Where the worktrees go (default: `<triesDir>/<runId>/`). */
	worktreesDir?: string;
	onEvent?(event: TryEvent): void;
	/** How the tries' pi is confined (default: what this machine offers, detectConfinement); null: not confined. */
	confinement?: Confinement | null;
	/** The slots the tries take (default: this process's, MAX_RUNNING_TRIES at once); a try past them is queued. */
	slots?: TrySlots;
	/** pi's agent folder (default: PI_CODING_AGENT_DIR, else ~/.pi/agent), as a confined try sees it (confine.ts). */
	piAgentDir?: string;
	/** A model's price from pi's model list, for what an answer streams before pi reports its usage. */
	priceOf?: PriceOf;
}

export interface TriesRun {
	readonly runId: string;
	readonly record: RunRecord;
	readonly states: TryState[];
	/** Resolves when every try has ended (done, error, stopped or capped) and its files are counted. */
	readonly done: Promise<TryState[]>;
	stop(index: number): Promise<void>;
	stopAll(): Promise<void>;
	/** Read-only tools only (the session's folder is not in a git repository). */
	readonly readOnly: boolean;
	/** True when each try's pi runs confined (confine.ts); `confinement` says what a try can touch. */
	readonly confined: boolean;
	readonly confinement: string;
}

function newRunId(): string {
	return `${new Date().toISOString().replace(/[-:.]/g, "").slice(0, 15)}-${randomBytes(4).toString("hex")}`;
}

const TERMINAL: TryStatus[] = ["done", "error", "stopped", "capped"];

export async function startTries(o: StartTriesOptions): Promise<TriesRun> {
	if (o.tries.length < 1) throw new Error("no try to run");
	const source = path.resolve(o.source);
	const sm = SessionManager.open(source);
	let cwd: string;
	try {
		if (sm.indexOf(o.entryId) < 0) throw new Error(`no entry "${o.entryId}" in ${source}`);
		cwd = sm.getCwd();
	} catch (err) {
		sm.close();
		throw err;
	}
	if (!cwd || !fs.existsSync(cwd)) {
		sm.close();
		throw new Error(`the session's working folder ${cwd || "(none)"} does not exist: pi could not run a try there`);
	}
	const triesDir = o.triesDir ?? defaultTriesDir();
	const confinement = o.confinement === undefined ? detectConfinement() : o.confinement;
	const agentDir = o.piAgentDir ?? defaultPiAgentDir();
	const runId = newRunId();
	const worktreesDir = path.join(o.worktreesDir ?? triesDir, runId);
	const emit = (e: TryEvent): void => o.onEvent?.(e);
	const record: RunRecord = {
		version: TRIES_STATE_VERSION,
		runId,
		ownerPid: process.pid,
		createdAt: new Date().toISOString(),
		source,
		entryId: o.entryId,
		cwd,
		repo: null,
		pi: piDescription(o.pi),
		tries: [],
	};
	const states: TryState[] = [];
	try {
		const repo = await repoOf(cwd);
		writeRun(triesDir, record);
		if (repo) {
			const ref = `refs/arbor/tries/${runId}`;
			record.repo = { root: repo.root, head: repo.head, snapshot: "", ref };
			writeRun(triesDir, record);
			record.repo.snapshot = await snapshotWorkingTree(repo, ref);
			writeRun(triesDir, record);
		}
		for (let i = 0; i < o.tries.length; i++) {
			const spec = o.tries[i]!;
			const worktree = repo ? path.join(worktreesDir, `try-${i + 1}`) : null;
			const tryCwd = repo && worktree ? path.join(worktree, repo.prefix) : cwd;
			const t: TryRecord = { index: i, sessionFile: "", worktree, cwd: tryCwd, pid: null, marker: randomBytes(16).toString("hex") };
			record.tries.push(t);
			writeRun(triesDir, record);
			if (repo && worktree) {
				fs.mkdirSync(worktreesDir, { recursive: true, mode: 0o700 });
				await addTryWorktree(repo, worktree, record.repo!.snapshot);
			}
			// pi runs tools in the session's cwd (its header), so the fork names the try's folder.
			t.sessionFile = sm.createBranchedSession(o.entryId, { adopt: false, cwd: tryCwd }) ?? "";
			writeRun(triesDir, record);
			// Its own temp folder (TMPDIR), the one place outside its worktree a confined try may write.
			fs.mkdirSync(tryTmpDir(triesDir, runId, i), { recursive: true, mode: 0o700 });
			states.push({
				index: i,
				sessionFile: t.sessionFile,
				worktree,
				cwd: tryCwd,
				prompt: spec.prompt,
				model: spec.model ?? null,
				thinking: spec.thinking ?? null,
				status: "queued",
				message: null,
				tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
				cost: 0,
				startedAt: Date.now(),
				endedAt: null,
				files: null,
			});
		}
	} catch (err) {
		// Nothing ran yet: undo what this run made (forks of a second ago, worktrees, the snapshot ref, the
		// record), so a failed start leaves nothing behind. What cannot be undone stays in the record.
		await undoStart(triesDir, record).catch(() => undefined);
		throw err;
	} finally {
		sm.close();
	}

	const procs: (PiProcess | undefined)[] = [];
	const stopReason: (TryStatus | undefined)[] = [];
	const save = (): void => writeRun(triesDir, record);
	const publish = (s: TryState): void => emit({ type: "try_state", runId, state: { ...s, tokens: { ...s.tokens } } });
	const slotPool = o.slots ?? processSlots;
	// Each try's place in the queue, taken now in order, and how Stop leaves the queue before pi exists.
	const slots: TrySlot[] = states.map(() => slotPool.take());
	const leaveQueue: (() => void)[] = [];
	const unqueued = states.map((_, i) => new Promise<void>((r) => (leaveQueue[i] = r)));
	for (const [i, s] of states.entries()) if (slots[i]!.granted) s.status = "starting";

	const runOne = async (s: TryState): Promise<void> => {
		const spec = o.tries[s.index]!;
		// A try with a slot starts at once, before startTries returns (its answer then already says "running":
		// the app learns of the run from that answer and of later changes from events); a queued one waits.
		if (!slots[s.index]!.granted) await Promise.race([slots[s.index]!.ready, unqueued[s.index]]);
		if (stopReason[s.index] !== undefined && !slots[s.index]!.granted) {
			// Stopped while queued: it never ran; nothing to count.
			s.endedAt = Date.now();
			s.status = stopReason[s.index]!;
			publish(s);
			return;
		}
		try {
			await runStarted(s, spec);
		} finally {
			slots[s.index]!.release();
		}
	};

	const runStarted = async (s: TryState, spec: TrySpec): Promise<void> => {
		if (s.status === "queued") {
			s.status = "starting";
			s.startedAt = Date.now();
			publish(s);
		}
		let settled!: () => void;
		const settledP = new Promise<void>((r) => (settled = r));
		const meter = new TryMeter(s, o.priceOf);
		const capCheck = (): void => {
			if (stopReason[s.index] !== undefined || !meter.over(spec.capUsd, spec.capTokens)) return;
			stopReason[s.index] = "capped";
			s.message = `over its cap (${spec.capUsd !== undefined ? `$${spec.capUsd}` : `${spec.capTokens} tokens`})`;
			publish(s);
			void procs[s.index]?.stop();
		};
		const onRecord = (rec: PiRecord): void => {
			const m = rec.message as { role?: string; usage?: unknown; stopReason?: string; errorMessage?: string; provider?: unknown; model?: unknown } | undefined;
			if (rec.type === "message_start" && m?.role === "assistant") meter.start(m);
			else if (rec.type === "message_end") {
				if (m?.role === "assistant") {
					meter.end(m.usage);
					if (m.stopReason === "error") s.message = m.errorMessage ?? "the model failed";
					publish(s);
					capCheck();
				}
			} else if (rec.type === "message_update") {
				const ev = rec.assistantMessageEvent as { type?: string; delta?: string; toolCall?: { name?: unknown; arguments?: unknown } } | undefined;
				// Every streamed piece counts towards the cap at once: one endless answer must not run uncapped.
				meter.update(typeof ev?.delta === "string" ? ev.delta.length : 0, rec.usage);
				capCheck();
				if (ev && typeof ev.delta === "string" && (ev.type === "text_delta" || ev.type === "thinking_delta"))
					emit({ type: "try_delta", runId, index: s.index, kind: ev.type === "text_delta" ? "text" : "thinking", delta: ev.delta });
				else if (ev?.type === "toolcall_end" && ev.toolCall && typeof ev.toolCall.name === "string") {
					const args = ev.toolCall.arguments;
					const first = args && typeof args === "object" ? Object.values(args).find((v) => typeof v === "string") : undefined;
					emit({ type: "try_tool", runId, index: s.index, name: ev.toolCall.name, args: typeof first === "string" ? first.slice(0, 80) : "" });
				}
			} else if (rec.type === "agent_settled") settled();
		};
		let exitInfo: string | undefined;
		const t = record.tries[s.index]!;
		const tmp = tryTmpDir(triesDir, runId, s.index);
		const proc = startPi({
			pi: o.pi,
			sessionFile: s.sessionFile,
			cwd: s.cwd,
			model: spec.model,
			thinking: spec.thinking,
			tools: record.repo ? undefined : READ_ONLY_TOOLS,
			marker: t.marker ?? "",
			confine: confinement ? { by: confinement, tmp, paths: { writable: [...(t.worktree ? [t.worktree] : []), s.sessionFile, tmp], agentDir } } : undefined,
			onRecord,
			onExit: (info) => {
				exitInfo = info;
				settled();
			},
		});
		procs[s.index] = proc;
		t.pid = proc.pid ?? null;
		save();
		if (stopReason[s.index] === undefined) {
			s.status = "running";
			publish(s);
			const r = await proc.send({ type: "prompt", message: s.prompt });
			if (r.success === false) s.message ??= String(r.error ?? "pi refused the prompt");
			else if ((r.data as { disposition?: string } | undefined)?.disposition === "started") await settledP;
			// pi ended on its own before the turn settled: a crash, not an answer.
			if (exitInfo !== undefined && stopReason[s.index] === undefined) s.message ??= exitInfo;
		}
		await proc.stop();
		t.pid = null;
		save();
		s.endedAt = Date.now();
		s.status = stopReason[s.index] ?? (s.message ? "error" : "done");
		if (s.worktree && record.repo) {
			try {
				s.files = await changedFiles(record.repo.root, record.repo.snapshot, await treeOfTry(record.repo, s.worktree));
			} catch (err) {
				s.message ??= `its files could not be read: ${errorText(err)}`;
			}
		}
		publish(s);
	};

	const done = Promise.all(
		states.map((s) =>
			runOne(s).catch((err: unknown) => {
				s.status = "error";
				s.message = errorText(err);
				s.endedAt ??= Date.now();
				publish(s);
			}),
		),
	).then(() => {
		emit({ type: "run_done", runId });
		return states;
	});
	for (const s of states) publish(s);

	const stop = async (index: number): Promise<void> => {
		const s = states[index];
		if (!s || TERMINAL.includes(s.status)) return;
		stopReason[index] ??= "stopped";
		s.message ??= s.status === "queued" ? "stopped before it started (it was queued)" : "stopped";
		if (!slots[index]!.granted) slots[index]!.release(); // off the queue; a running try gives its slot back once ended
		leaveQueue[index]!();
		await procs[index]?.stop();
	};
	return {
		runId,
		record,
		states,
		done,
		readOnly: record.repo === null,
		confined: confinement !== null,
		confinement: confinementNote(confinement, record.repo === null),
		stop,
		stopAll: async () => {
			await Promise.all(states.map((s) => stop(s.index)));
		},
	};
}

async function undoStart(triesDir: string, record: RunRecord): Promise<void> {
	for (const t of record.tries) {
		if (t.worktree && record.repo) await removeTryWorktree(record.repo.root, t.worktree);
		if (t.sessionFile) fs.rmSync(t.sessionFile, { force: true });
		fs.rmSync(tryTmpDir(triesDir, record.runId, t.index), { recursive: true, force: true });
	}
	const dirs = new Set([path.join(triesDir, record.runId), ...record.tries.flatMap((t) => (t.worktree ? [path.dirname(t.worktree)] : []))]);
	for (const d of dirs) {
		try {
			fs.rmdirSync(d);
		} catch {
			/* not made, or not empty */
		}
	}
	if (record.repo) await deleteRef(record.repo.root, record.repo.ref);
	removeRun(triesDir, record.runId);
}
