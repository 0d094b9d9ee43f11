// Where pi keeps its folders: the one home for that rule (docs/session-core.md "Agent folders"; omp's are in
// ../omp/dirs.ts). pi 1.6: the agent folder is `$PI_CODING_AGENT_DIR` ("~" and "~/x" expanded) or
// `~/.pi/agent`; sessions go to `$PI_CODING_AGENT_SESSION_DIR`, else the `sessionDir` of its settings.json,
// else `<agentDir>/sessions/--<cwd>--`.

import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { projectDirName } from "../../ids";
import type { DirEnv } from "../format";

export type { DirEnv };

/** pi's rule for configured folders: "~" and "~/x" (or "~\x") are under the home folder; "~user" is not expanded. */
export function expandHome(p: string, home: string = homedir()): string {
	if (p === "~") return home;
	if (p.startsWith("~/") || p.startsWith("~\\")) return join(home, p.slice(2));
	return p;
}

/** pi's agent folder (settings.json, auth.json, models.json, sessions/), absolute. */
export function piAgentDir(env: DirEnv = process.env, home: string = homedir()): string {
	const dir = env.PI_CODING_AGENT_DIR;
	return dir ? resolve(expandHome(dir, home)) : join(home, ".pi", "agent");
}

/** pi's default sessions root: `<agentDir>/sessions`. */
export function piSessionsRoot(env: DirEnv = process.env, home: string = homedir()): string {
	return join(piAgentDir(env, home), "sessions");
}

/** pi's default sessions folder for a working folder: `<agentDir>/sessions/--<cwd>--`. */
export function piProjectSessionDir(cwd: string, env: DirEnv = process.env, home: string = homedir()): string {
	return join(piSessionsRoot(env, home), projectDirName(cwd));
}

/** pi's default sessions folder for a cwd under the name pi's SessionManager API uses. */
export function defaultSessionDir(cwd: string): string {
	return piProjectSessionDir(cwd);
}

/** The raw `sessionDir` of pi's global settings.json (BOM allowed), when it names one. */
export function piSessionDirSetting(agentDir: string): string | undefined {
	try {
		const text = readFileSync(join(agentDir, "settings.json"), "utf8");
		const v = (JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) as { sessionDir?: unknown } | null)?.sessionDir;
		return typeof v === "string" && v.trim() ? v : undefined;
	} catch {
		return undefined;
	}
}

/**
 * The folder pi 1.6 keeps new sessions in when one is configured: `$PI_CODING_AGENT_SESSION_DIR`, else the
 * `sessionDir` setting (both with "~" expanded; a relative one is relative to the working folder, as in
 * pi), else undefined (pi's default `<agentDir>/sessions`). pi's `--session-dir` flag would come first.
 */
export function piConfiguredSessionDir(env: DirEnv = process.env, agentDir: string = piAgentDir(env), home: string = homedir()): string | undefined {
	const fromEnv = env.PI_CODING_AGENT_SESSION_DIR;
	if (fromEnv) return resolve(expandHome(fromEnv, home));
	const s = piSessionDirSetting(agentDir);
	return s === undefined ? undefined : resolve(expandHome(s, home));
}
