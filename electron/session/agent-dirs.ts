// Where pi and omp keep their folders: the one home for that rule (docs/session-core.md "Agent folders").
// pi 1.6: the agent folder is `$PI_CODING_AGENT_DIR` ("~" and "~/x" expanded) or `~/.pi/agent`; sessions
// go to `$PI_CODING_AGENT_SESSION_DIR`, else the `sessionDir` of its settings.json, else
// `<agentDir>/sessions/--<cwd>--`. omp 18: `~/.omp/agent` (the folder name from `$PI_CONFIG_DIR`), omp5's
// `$OMP_CODING_AGENT_DIR`, the XDG data folder and named profiles.

import { readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { projectDirName } from "./ids";

export type DirEnv = Readonly<Record<string, string | undefined>>;

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

/** omp's config root: `~/.omp` (the folder name from `$PI_CONFIG_DIR`). */
export function ompConfigRoot(env: DirEnv = process.env, home: string = homedir()): string {
	return join(home, env.PI_CONFIG_DIR || ".omp");
}

/** omp's agent folder: `<configRoot>/agent`. */
export function ompAgentDir(env: DirEnv = process.env, home: string = homedir()): string {
	return join(ompConfigRoot(env, home), "agent");
}

/**
 * Every folder omp may keep sessions in, whether it exists or not (named profiles only when their folder
 * exists): `<agentDir>/sessions`, omp5's `$OMP_CODING_AGENT_DIR/sessions`, `$XDG_DATA_HOME/omp/sessions`
 * (`~/.local/share` by default) and `<configRoot>/profiles/NAME/agent/sessions`.
 */
export function ompSessionRoots(env: DirEnv = process.env, home: string = homedir()): string[] {
	const root = ompConfigRoot(env, home);
	const out = [join(root, "agent", "sessions")];
	if (env.OMP_CODING_AGENT_DIR) out.push(join(resolve(expandHome(env.OMP_CODING_AGENT_DIR, home)), "sessions"));
	const xdg = env.XDG_DATA_HOME ? resolve(expandHome(env.XDG_DATA_HOME, home)) : join(home, ".local", "share");
	out.push(join(xdg, "omp", "sessions"));
	try {
		for (const d of readdirSync(join(root, "profiles"), { withFileTypes: true })) {
			if (d.isDirectory()) out.push(join(root, "profiles", d.name, "agent", "sessions"));
		}
	} catch {
		// No profiles folder: the common case.
	}
	return out;
}
