// A live pi's answer to a fork names the file Arbor then opens, allows and adds to Recent: it is checked
// first (docs/security.md, docs/live.md "What goes through pi"). Only a session file that is a fork of this
// one, in a folder pi 1.6 writes forks to, is taken.
//
// Where pi 1.6 puts a fork (its AgentSessionRuntime.fork): in its session manager's folder, which is the
// `--session-dir` / `$PI_CODING_AGENT_SESSION_DIR` / `sessionDir` setting when one was given, else the
// folder of the file it opened (SessionManager.open), or `<agentDir>/sessions/--<cwd>--` for a session it
// created itself. A `--session-dir` flag is not visible from here: such a fork lands next to the original
// in practice (pi opened the original from that folder), and is refused otherwise.

import { realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { piConfiguredSessionDir, projectDirName } from "../../session";
import { readHeaderFacts } from "../family";

function real(p: string): string {
	try {
		return realpathSync(p);
	} catch {
		return resolve(p);
	}
}

/** The folders a fork of `original` may be in (see above), as real paths. */
export function forkFolders(original: string, cwds: readonly string[], piAgentDir: string, env: NodeJS.ProcessEnv): string[] {
	const dirs = [dirname(original), ...cwds.filter((c) => c).map((c) => join(piAgentDir, "sessions", projectDirName(c)))];
	const configured = piConfiguredSessionDir(env, piAgentDir);
	if (configured) dirs.push(configured);
	return [...new Set(dirs.map(real))];
}

/**
 * Why `answer` is not a fork of `original` Arbor may open, or null when it is one: an existing `.jsonl`
 * file in one of `folders`, not the original itself, whose header names the original (its path, or its
 * session id as omp's fork writes it) as `parentSession`.
 */
export function notAForkBecause(answer: string, original: { path: string; id: string | null }, folders: readonly string[]): string | null {
	if (!isAbsolute(answer)) return "it is not an absolute path";
	let file: string;
	try {
		file = realpathSync(answer);
		if (!statSync(file).isFile()) return "it is not a file";
	} catch {
		return "no such file";
	}
	if (!file.endsWith(".jsonl")) return "it is not a .jsonl session file";
	if (file === real(original.path)) return "it is the session itself";
	if (!folders.includes(dirname(file))) return `it is outside pi's session folders (${folders.join(", ")})`;
	const header = readHeaderFacts(file);
	if (!header) return "it has no session header";
	const parent = header.parent;
	if (parent === null) return "its header names no parentSession";
	if (parent !== original.id && real(parent) !== real(original.path)) return `its header names another parentSession (${parent})`;
	return null;
}
