// The record of one tries run, `~/.arbor/tries/<runId>.json` (0600 in a 0700 folder: it names the user's files):
// written before any worktree or process exists and after every change, removed only once every worktree is gone.
// So a crash or a kill at any point leaves a record of whatever it left behind, and the next start can list it.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { isRecord } from "../../../shared/guards";
import { writeReplacingFile } from "../../session";
import { makePrivateDir, PRIVATE_FILE_MODE } from "../arbor-files";
import { arborHome } from "../../../shared-node/paths";
import { pidAlive } from "../../../shared-node/pid";

export const TRIES_STATE_VERSION = 1;

export interface TryRecord {
	index: number;
	/** The fork pi runs (its header's parentSession is the run's source). */
	sessionFile: string;
	/** The try's git worktree (its top folder); null when the source is not in a git repository. */
	worktree: string | null;
	/** The folder pi runs in: the worktree plus the session's place in the repository, or the session's own cwd. */
	cwd: string;
	/** pi's process id while it runs. */
	pid: number | null;
	/** The value of TRY_MARKER_VAR in its pi's environment (sweep.ts); absent in older records. */
	marker?: string;
}

export interface RunRecord {
	version: number;
	runId: string;
	/** The Arbor process that runs (or ran) it: a record whose owner is gone is a leftover. */
	ownerPid: number;
	createdAt: string;
	source: string;
	entryId: string;
	/** The session's working folder (where Keep applies the kept try's changes). */
	cwd: string;
	/** The repository and the snapshot the worktrees hold; null outside git. */
	repo: { root: string; head: string; snapshot: string; ref: string } | null;
	/** Which pi runs the tries: where it came from and its command (piDescription); absent in older records. */
	pi?: string;
	tries: TryRecord[];
}

export function defaultTriesDir(home = os.homedir()): string {
	return path.join(arborHome(home), "tries");
}

/** A try's own temp folder (its TMPDIR; a confined try may write there): under the run's folder, removed with it. */
export function tryTmpDir(triesDir: string, runId: string, index: number): string {
	return path.join(triesDir, runId, `tmp-${index + 1}`);
}

export function writeRun(dir: string, run: RunRecord): void {
	makePrivateDir(dir);
	// The session core's atomic writer (temp file, fsync, rename): a kill mid-write leaves the previous record,
	// never half of one, and a failed write leaves no temp file behind.
	writeReplacingFile(path.join(dir, `${run.runId}.json`), [Buffer.from(`${JSON.stringify(run, null, 2)}\n`, "utf8")], PRIVATE_FILE_MODE);
}

export function removeRun(dir: string, runId: string): void {
	fs.rmSync(path.join(dir, `${runId}.json`), { force: true });
}

function parseRun(text: string): RunRecord | undefined {
	let v: unknown;
	try {
		v = JSON.parse(text);
	} catch {
		return undefined;
	}
	if (!isRecord(v) || v.version !== TRIES_STATE_VERSION || typeof v.runId !== "string" || !Array.isArray(v.tries)) return undefined;
	return v as unknown as RunRecord;
}

/** Every run recorded in `dir` (unreadable records are skipped: they name nothing Arbor could clean safely). */
export function readRuns(dir: string): RunRecord[] {
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return [];
	}
	const runs: RunRecord[] = [];
	for (const name of names.sort()) {
		if (!/^[\w-]+\.json$/.test(name)) continue;
		try {
			const run = parseRun(fs.readFileSync(path.join(dir, name), "utf8"));
			if (run && `${run.runId}.json` === name) runs.push(run);
		} catch {
			/* vanished meanwhile */
		}
	}
	return runs;
}

/** Runs whose Arbor is gone (crashed, killed, or a CLI that ran them ended without Keep or discard). */
export function leftoverRuns(dir: string, self = process.pid): RunRecord[] {
	return readRuns(dir).filter((r) => r.ownerPid !== self && !pidAlive(r.ownerPid));
}

/** The run a file belongs to: as its source or as one of its tries' sessions. */
export function runsForFile(dir: string, file: string): RunRecord[] {
	const want = path.resolve(file);
	return readRuns(dir).filter((r) => r.source === want || r.tries.some((t) => t.sessionFile === want));
}
