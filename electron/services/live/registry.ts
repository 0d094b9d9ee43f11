// Which live pi holds which file: the registration files in ~/.arbor/live (docs/live.md). A registration
// whose pid is gone, or whose socket refuses, is stale and removed (with its socket) by whoever finds it.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LIVE_DIR_NAME, type LiveRegistration, readLiveRegistration } from "../../../shared/live";

export function defaultLiveDir(home = os.homedir()): string {
	return path.join(home, ".arbor", LIVE_DIR_NAME);
}

export function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return (err as NodeJS.ErrnoException).code === "EPERM";
	}
}

/** The same file, however named (symlinks, relative paths): real paths when they exist. */
export function sameFile(a: string, b: string): boolean {
	const real = (p: string): string => {
		try {
			return fs.realpathSync(p);
		} catch {
			return path.resolve(p);
		}
	};
	return real(a) === real(b);
}

/** A folder the live channel may trust: ours and closed to others (POSIX). */
function trustedDir(dir: string): boolean {
	try {
		const st = fs.statSync(dir);
		if (!st.isDirectory()) return false;
		if (process.platform === "win32") return true;
		return (typeof process.getuid !== "function" || st.uid === process.getuid()) && (st.mode & 0o077) === 0;
	} catch {
		return false;
	}
}

/** Remove a stale registration and its socket (only a socket inside the live folder). */
export function removeRegistration(dir: string, reg: LiveRegistration): void {
	try {
		fs.rmSync(path.join(dir, `${reg.pid}.json`), { force: true });
		if (process.platform !== "win32" && path.dirname(reg.socket) === dir) fs.rmSync(reg.socket, { force: true });
	} catch {}
}

/** Every live registration, stale ones (dead pid) removed on the way. Empty when the folder is missing or not private. */
export function readRegistrations(dir: string): LiveRegistration[] {
	if (!trustedDir(dir)) return [];
	const out: LiveRegistration[] = [];
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return [];
	}
	for (const name of names) {
		if (!/^\d+\.json$/.test(name)) continue;
		let reg: LiveRegistration | null = null;
		try {
			reg = readLiveRegistration(JSON.parse(fs.readFileSync(path.join(dir, name), "utf8")));
		} catch {
			continue; // half-written: the next look reads it
		}
		if (!reg || `${reg.pid}.json` !== name) continue;
		if (!pidAlive(reg.pid)) {
			removeRegistration(dir, reg);
			continue;
		}
		out.push(reg);
	}
	return out;
}

/** The pis holding `file`, the one Arbor steers first: the newest (most recently started) wins. */
export function registrationsFor(dir: string, file: string): LiveRegistration[] {
	return readRegistrations(dir)
		.filter((r) => r.sessionFile !== null && sameFile(r.sessionFile, file))
		.sort((a, b) => b.startedAt - a.startedAt || b.pid - a.pid);
}
