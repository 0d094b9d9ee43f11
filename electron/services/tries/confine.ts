// Confining a try's pi (docs/tries.md "What a try can touch"): on Linux, bubblewrap runs it with the whole file
// system read-only except the try's own folder, its session file and a private temp folder, in a PID namespace of
// its own (so every process it starts, setsid daemons included, ends when the namespace's first process does).
// Where bwrap is missing or cannot start here, nothing is confined, and the dialog and `arbor try` say so.

import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/** How a try's pi is confined: bubblewrap at this path. */
export interface Confinement {
	kind: "bwrap";
	bwrap: string;
}

/** What a confined try may write: folders and files bound writable at their own paths. */
export interface ConfinedPaths {
	writable: string[];
	/**
	 * pi's agent folder: pi must make lock folders in it (trust.json.lock, auth.json.lock) and refreshes its
	 * credentials in auth.json. The try sees a throwaway folder there holding the real entries read-only (its
	 * extensions, settings, sessions …: nothing a try writes can become code or instructions of the user's next pi)
	 * and auth.json writable; whatever else it writes there vanishes with it.
	 */
	agentDir?: string;
}

// Fixed system places only, never PATH: the program that confines a try must not be one a PATH folder the user
// (or a try) can write could swap.
const BWRAP_PLACES = ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap", "/run/current-system/sw/bin/bwrap"];

// The sandbox minus the try's own binds: everything read-only, a fresh /dev and /proc, its own PID namespace, and
// bwrap ends with its parent (Arbor), so a crash of Arbor leaves no try running.
const BASE_ARGS = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent"];

let probed: Confinement | null | undefined;

/**
 * The confinement this machine offers: bwrap found in a system folder and able to start a trivial program with
 * the options a try uses (user namespaces can be off, /proc can refuse a new mount). Probed once per process.
 */
export function detectConfinement(): Confinement | null {
	if (probed !== undefined) return probed;
	probed = null;
	if (process.platform !== "linux") return probed;
	const bwrap = BWRAP_PLACES.find((p) => {
		try {
			fs.accessSync(p, fs.constants.X_OK);
			return true;
		} catch {
			return false;
		}
	});
	const sh = ["/bin/sh", "/usr/bin/sh"].find((p) => fs.existsSync(p));
	if (!bwrap || !sh) return probed;
	const r = spawnSync(bwrap, [...BASE_ARGS, "--", sh, "-c", "exit 0"], { stdio: "ignore", timeout: 10_000 });
	if (r.status === 0) probed = { kind: "bwrap", bwrap };
	return probed;
}

/** The command that runs `command args` confined: writable only where `paths` say, the rest read-only. */
export function confinedCommand(c: Confinement, command: string, args: string[], paths: ConfinedPaths): { command: string; args: string[] } {
	const agent: string[] = [];
	const dir = paths.agentDir;
	if (dir && fs.existsSync(dir)) {
		agent.push("--tmpfs", dir);
		for (const name of fs.readdirSync(dir).sort()) {
			const p = path.join(dir, name);
			agent.push(name === "auth.json" ? "--bind-try" : "--ro-bind-try", p, p);
		}
	}
	// After the agent folder: a session file under its sessions/ is bound writable over the read-only copy.
	const binds = [...new Set(paths.writable)].flatMap((p) => ["--bind", p, p]);
	return { command: c.bwrap, args: [...BASE_ARGS, ...agent, ...binds, "--", command, ...args] };
}

/** What a try can touch, in words, for the Try dialog and `arbor try`. */
export function confinementNote(c: Confinement | null, readOnly: boolean): string {
	if (c)
		return readOnly
			? "confined (bubblewrap): a try's pi can write only its session file, a private temp folder and pi's credentials (auth.json); it reads your files and reaches the network as you"
			: "confined (bubblewrap): a try's pi can write only its own worktree, its session file, a private temp folder and pi's credentials (auth.json); it reads your files and reaches the network as you";
	return `NOT confined (${process.platform === "linux" ? "bubblewrap (bwrap) is not installed or cannot run here" : "no confinement on this system"}): a try's pi and its tools can write anywhere you can, your working tree and files outside it included; they are only asked to work in the try's folder`;
}
