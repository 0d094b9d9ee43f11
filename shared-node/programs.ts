// Finding a program Arbor runs (pi, git, xdg-open / open, the agents' CLIs …) on PATH, one rule for every one of
// them: only ABSOLUTE PATH entries count. An empty entry (`PATH=":/usr/bin"`, a trailing ":") means the current
// folder to a shell, and "." or "relative/dir" mean a folder below wherever Arbor happens to run: a session's
// project, a try's worktree, a folder someone else can write. Asking the system to run a bare name would search
// those too, so Arbor resolves the name here and runs the absolute path it gets (docs/security.md "Programs").

import * as fs from "node:fs";
import * as path from "node:path";

/** The file names `name` may have in a folder: itself, and on Windows with each PATHEXT extension first. */
function candidates(name: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] {
	if (platform !== "win32") return [name];
	const exts = (env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").split(";").filter((e) => e.startsWith("."));
	return [...exts.map((e) => name + e.toLowerCase()), name];
}

/** The PATH entries a program may be taken from: absolute ones only, in order (empty and relative ones are skipped). */
export function absolutePathEntries(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
	const value = platform === "win32" ? (env.PATH ?? env.Path ?? "") : (env.PATH ?? "");
	const isAbsolute = platform === "win32" ? path.win32.isAbsolute : path.posix.isAbsolute;
	return value.split(platform === "win32" ? ";" : ":").filter((dir) => dir !== "" && isAbsolute(dir));
}

/**
 * The absolute path of the program `name` (a bare name: "pi", "git") in the first absolute PATH entry that holds
 * it as an executable regular file, or null. A name with a folder in it is not looked up: the caller must say
 * where such a program is itself.
 */
export function findProgram(name: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | null {
	if (name === "" || /[\\/]/.test(name)) return null;
	for (const dir of absolutePathEntries(env, platform)) {
		for (const file of candidates(name, env, platform)) {
			const p = path.join(dir, file);
			try {
				if (!fs.statSync(p).isFile()) continue;
				if (platform !== "win32") fs.accessSync(p, fs.constants.X_OK);
				return p;
			} catch {
				/* not here */
			}
		}
	}
	return null;
}

/** Thrown by `programPath` when a program is on no absolute PATH entry; `program` is the name asked for. */
export class ProgramNotFoundError extends Error {
	constructor(readonly program: string) {
		super(`${program} is not on PATH (only absolute PATH entries are searched)`);
		this.name = "ProgramNotFoundError";
	}
}

/** `findProgram`, throwing ProgramNotFoundError (code ENOENT, as a failed spawn would say) when there is none. */
export function programPath(name: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
	const found = findProgram(name, env, platform);
	if (found === null) throw Object.assign(new ProgramNotFoundError(name), { code: "ENOENT" });
	return found;
}
