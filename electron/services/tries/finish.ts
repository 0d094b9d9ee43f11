// Finishing a tries run: Keep one try (its changes into the user's working tree, its session pointed back at the
// user's folder so it continues there, every worktree removed) or discard the run (worktrees removed). Session
// files always stay: the forks are the record of what was tried, and the family view shows them.

import * as fs from "node:fs";
import * as path from "node:path";
import { writeReplacingFile } from "../../session";
import { errorText } from "../../../shared/guards";
import { pidAlive } from "../../../shared-node/pid";
import { applyTryChanges, type KeepResult } from "./apply";
import { TriesError } from "./errors";
import { deleteRef, removeTryWorktree, treeOfTry } from "./git";
import { type RunRecord, removeRun, runsForFile, tryTmpDir } from "./state";
import { endTryProcesses } from "./sweep";

export { TriesError };

/**
 * The live pi's switch to the kept session, when one holds the source file (the Steering interface's
 * switchSession). Returns false when no live pi holds it; Keep then only reports the file to open.
 */
export type SwitchLiveSession = (source: string, kept: string) => Promise<boolean>;

export interface KeepOutcome extends KeepResult {
	runId: string;
	kept: string;
	/** The worktrees removed (every try's). */
	removed: string[];
	/** True when a live pi switched to the kept session. */
	switched: boolean;
}

function findRunOf(triesDir: string, tryFile: string): { run: RunRecord; index: number } {
	const file = path.resolve(tryFile);
	for (const run of runsForFile(triesDir, file)) {
		const index = run.tries.findIndex((t) => t.sessionFile === file);
		if (index >= 0) return { run, index };
	}
	throw new TriesError(`${file} is not a try Arbor still tracks (kept or discarded already, or never a try)`, "not_found");
}

/**
 * A leftover run's pi that outlived its Arbor: ended with its process group, but only when the process is
 * provably that try's pi (Linux: its command line names the try's session file), never a process that merely
 * reuses the pid.
 */
function endOrphans(run: RunRecord): number[] {
	const killed: number[] = [];
	if (run.ownerPid === process.pid || pidAlive(run.ownerPid)) return killed;
	for (const t of run.tries) {
		if (t.pid === null || !pidAlive(t.pid) || !t.sessionFile) continue;
		let cmdline: string;
		try {
			cmdline = fs.readFileSync(`/proc/${t.pid}/cmdline`, "utf8");
		} catch {
			continue; // no /proc: it is reported as still running
		}
		if (!cmdline.split("\0").includes(t.sessionFile)) continue;
		killed.push(t.pid);
		try {
			process.kill(-t.pid, "SIGKILL");
		} catch {
			try {
				process.kill(t.pid, "SIGKILL");
			} catch {
				/* gone meanwhile */
			}
		}
	}
	return killed;
}

/**
 * Every process a try of this run started that still runs, setsid daemons included (those carrying a try's
 * marker): ended, unless another Arbor that still runs owns the run.
 */
async function endMarked(run: RunRecord): Promise<void> {
	if (run.ownerPid !== process.pid && pidAlive(run.ownerPid)) return;
	// A try whose pi still runs is left to assertIdle (a try running now is stopped, not swept from under it).
	for (const t of run.tries) if (t.marker && !(t.pid !== null && pidAlive(t.pid))) await endTryProcesses(t.marker);
}

function assertIdle(run: RunRecord): void {
	const busy = run.tries.filter((t) => t.pid !== null && pidAlive(t.pid));
	if (busy.length > 0) throw new TriesError(`try ${busy.map((t) => t.index + 1).join(", ")} of this run still runs: stop it first`, "running");
}

/**
 * The session's header names the try's folder (pi runs tools there); once kept, it continues in the user's
 * folder. Only the header line changes, through a temp file and a rename; nothing else in the file moves.
 */
function pointSessionAt(file: string, cwd: string): void {
	const bytes = fs.readFileSync(file);
	const nl = bytes.indexOf(0x0a);
	const header = JSON.parse(bytes.subarray(0, nl < 0 ? bytes.length : nl).toString("utf8")) as Record<string, unknown>;
	if (header.type !== "session" || header.cwd === cwd) return;
	header.cwd = cwd;
	const st = fs.statSync(file);
	const rest = nl < 0 ? Buffer.alloc(0) : bytes.subarray(nl);
	const unchanged = (): boolean => {
		const now = fs.statSync(file);
		return now.ino === st.ino && now.size === st.size;
	};
	if (!writeReplacingFile(file, [Buffer.from(JSON.stringify(header), "utf8"), rest], st.mode & 0o777, unchanged, true))
		throw new TriesError(`${file} changed while Arbor pointed it at ${cwd}; run keep again`, "running");
}

async function removeWorktrees(triesDir: string, run: RunRecord): Promise<string[]> {
	const removed: string[] = [];
	for (const t of run.tries) {
		fs.rmSync(tryTmpDir(triesDir, run.runId, t.index), { recursive: true, force: true });
		if (!t.worktree) continue;
		if (run.repo) await removeTryWorktree(run.repo.root, t.worktree);
		else fs.rmSync(t.worktree, { recursive: true, force: true });
		removed.push(t.worktree);
	}
	// The run's folder of worktrees, once empty (rmdir refuses a folder that still holds anything).
	for (const dir of new Set([path.join(triesDir, run.runId), ...run.tries.flatMap((t) => (t.worktree ? [path.dirname(t.worktree)] : []))])) {
		try {
			fs.rmdirSync(dir);
		} catch {
			/* not empty or gone */
		}
	}
	return removed;
}

/** Keep the try whose session is `tryFile`. On a conflict nothing changes anywhere and the files are named. */
export async function keepTry(triesDir: string, tryFile: string, switchLive?: SwitchLiveSession): Promise<KeepOutcome> {
	const { run, index } = findRunOf(triesDir, tryFile);
	await endMarked(run);
	assertIdle(run);
	const kept = run.tries[index]!;
	let result: KeepResult = { applied: [], conflicts: [] };
	if (run.repo && kept.worktree) {
		if (!fs.existsSync(kept.worktree)) throw new TriesError(`the try's worktree ${kept.worktree} is gone: its changes cannot be kept`, "gone");
		const tree = await treeOfTry(run.repo, kept.worktree).catch((err: unknown) => {
			throw new TriesError(`the try's worktree ${kept.worktree} cannot be read: ${errorText(err)}`, "gone");
		});
		result = await applyTryChanges(run.repo.root, run.repo.snapshot, tree);
		if (result.conflicts.length > 0) return { ...result, runId: run.runId, kept: kept.sessionFile, removed: [], switched: false };
	}
	pointSessionAt(kept.sessionFile, run.cwd);
	const removed = await removeWorktrees(triesDir, run);
	if (run.repo) await deleteRef(run.repo.root, run.repo.ref);
	removeRun(triesDir, run.runId);
	const switched = switchLive ? await switchLive(run.source, kept.sessionFile).catch(() => false) : false;
	return { ...result, runId: run.runId, kept: kept.sessionFile, removed, switched };
}

/** Discard every run `file` belongs to (as source or try): their worktrees removed, their sessions kept. */
export async function discardTries(triesDir: string, file: string): Promise<{ runId: string; removed: string[] }[]> {
	const runs = runsForFile(triesDir, file);
	if (runs.length === 0) throw new TriesError(`no tries of ${path.resolve(file)} are left to discard`, "not_found");
	return Promise.all(runs.map((run) => discardRun(triesDir, run)));
}

export async function discardRun(triesDir: string, run: RunRecord): Promise<{ runId: string; removed: string[] }> {
	await waitForExit(endOrphans(run), 5000);
	await endMarked(run);
	assertIdle(run);
	const removed = await removeWorktrees(triesDir, run);
	if (run.repo) await deleteRef(run.repo.root, run.repo.ref);
	removeRun(triesDir, run.runId);
	return { runId: run.runId, removed };
}

/** Waits (polling the process table, at most `ms`) until the processes just killed are gone. */
async function waitForExit(pids: number[], ms: number): Promise<void> {
	const until = Date.now() + ms;
	while (pids.some((p) => pidAlive(p)) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
}
