// "Connect pi" (Settings): the pi extension of this copy of Arbor, the exact `pi install` command that loads it
// into pi, and running that command for the user when pi is on an absolute PATH entry (shared-node/programs.ts).
// pi loads a local package from where it lies without copying it (pi 1.6 docs/packages.md), so the folder given is
// the one this Arbor ships: in the packaged app, outside its asar archive (build/electron-builder.yml
// extraResources); in a checkout or an npm install, its `pi-extension` folder. Nothing here takes a path from a
// request: the host decides the folder.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import * as path from "node:path";
import type { PiConnection, PiConnectResult } from "../../shared/api";
import { findProgram } from "../../shared-node/programs";

/** How long `pi install` of a local folder may take (it writes pi's settings; no download). */
const INSTALL_TIMEOUT_MS = 120_000;

/** `arg` quoted for the user's shell when it needs it (POSIX single quotes; Windows double quotes). */
export function shellQuote(arg: string, platform: NodeJS.Platform = process.platform): string {
	if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
	if (platform === "win32") return `"${arg.replace(/"/g, '""')}"`;
	return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The extension folder when it holds the extension (its package.json and index.ts), else null. */
export function extensionFolder(dir: string | null | undefined): string | null {
	if (!dir) return null;
	return existsSync(path.join(dir, "index.ts")) && existsSync(path.join(dir, "package.json")) ? path.resolve(dir) : null;
}

export function piConnection(dir: string | null | undefined, platform: NodeJS.Platform = process.platform): PiConnection {
	const extension = extensionFolder(dir);
	return { extension, command: extension ? `pi install ${shellQuote(extension, platform)}` : null };
}

/** Runs `pi install FOLDER`; a missing pi, a failing one or a timeout is an answer (ok: false), not a throw. */
export function connectPi(dir: string | null | undefined, env: NodeJS.ProcessEnv = process.env): Promise<PiConnectResult> {
	const { extension, command } = piConnection(dir);
	if (!extension || !command) return Promise.resolve({ ok: false, message: "This copy of Arbor does not ship the pi extension." });
	// pi on an absolute PATH entry only: an empty or relative entry would run a `pi` in Arbor's working folder.
	const pi = findProgram("pi", env);
	if (!pi) return Promise.resolve({ ok: false, message: `pi is not on Arbor's PATH. Run this in a terminal where pi works: ${command}` });
	const win = process.platform === "win32";
	return new Promise((resolve) => {
		let output = "";
		// Plain text: pi colours its output on a terminal only, but NO_COLOR makes sure; escapes left are removed.
		// Windows runs pi.cmd through cmd.exe (shell), which splits on spaces: the path and folder are quoted there.
		const child = spawn(win ? shellQuote(pi, "win32") : pi, ["install", win ? shellQuote(extension, "win32") : extension], {
			env: { ...env, NO_COLOR: "1" },
			stdio: ["ignore", "pipe", "pipe"],
			shell: win,
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), INSTALL_TIMEOUT_MS);
		const keep = (d: Buffer): void => {
			output = (output + d.toString("utf8")).slice(-4000);
		};
		child.stdout.on("data", keep);
		child.stderr.on("data", keep);
		child.once("error", (err: NodeJS.ErrnoException) => {
			clearTimeout(timer);
			resolve({
				ok: false,
				message:
					err.code === "ENOENT"
						? `pi is not on Arbor's PATH. Run this in a terminal where pi works: ${command}`
						: `Could not run pi (${err.message}). Run this in a terminal: ${command}`,
			});
		});
		child.once("close", (code, signal) => {
			clearTimeout(timer);
			const said = output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "").trim();
			if (code === 0) resolve({ ok: true, message: `pi loads Arbor's extension from ${extension}. Restart pi (or type /reload) to use /arbor.` });
			else resolve({ ok: false, message: `pi install failed (${signal ?? `exit code ${code}`})${said ? `: ${said}` : ""}. The command: ${command}` });
		});
	});
}
