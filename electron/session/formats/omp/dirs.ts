// Where omp 18 keeps its folders (docs/session-core.md "Agent folders"): `~/.omp/agent` (the folder name from
// `$PI_CONFIG_DIR`), omp5's `$OMP_CODING_AGENT_DIR`, the XDG data folder and named profiles.

import { readdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { DirEnv } from "../format";
import { expandHome } from "../pi/dirs";

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
