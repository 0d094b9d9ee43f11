// The live channel's files on disk (docs/live.md "Security"), one copy for both ends: where a pi's socket
// goes, whether Arbor may connect to one, and the registrations in ~/.arbor/live (read, swept, written).
// A socket is never placed in a shared folder: ~/.arbor/live when its path fits the socket path limit, else
// the user's private runtime folder; nowhere else.

import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type LiveRegistration, readLiveRegistration } from "../shared/live";
import { pidAlive } from "./pid";
import { ownPrivateDir, privacyProblem } from "./private";

/** sun_path holds 108 bytes on Linux, 104 on macOS and the BSDs, the final NUL included. */
const SOCKET_PATH_MAX = process.platform === "linux" ? 107 : 103;
/** A registration that cannot be read is being written (temp + rename makes that rare) unless older than this. */
const UNREADABLE_GRACE_MS = 10_000;

export const fitsSocketPath = (p: string): boolean => Buffer.byteLength(p) <= SOCKET_PATH_MAX;

/**
 * The user's private runtime folder: $XDG_RUNTIME_DIR, else the temp folder when it is per-user (macOS),
 * each only when it is this user's own 0700 folder. Null when there is none (Linux's shared /tmp never is).
 */
export function runtimeDir(): string | null {
	for (const c of [process.env.XDG_RUNTIME_DIR, os.tmpdir()]) if (c && path.isAbsolute(c) && privacyProblem(c, "folder") === null) return c;
	return null;
}

function runtimeSocketDir(): string | null {
	const rt = runtimeDir();
	return rt ? path.join(rt, "arbor") : null;
}

/** The folders a socket of ours may be in: the only places a sweep removes a socket from. */
export function socketFolders(liveDir: string): string[] {
	return [liveDir, runtimeSocketDir()].filter((d): d is string => d !== null).map((d) => path.resolve(d));
}

/**
 * Where a pi's socket goes: `<liveDir>/<pid>.sock`, or `<runtime>/arbor/<pid>.sock` when a long HOME makes
 * the first too long. Throws (saying what to do) when neither fits: the channel then stays off.
 */
export function placeSocket(liveDir: string, pid: number, tag: string): string {
	if (process.platform === "win32") return `\\\\.\\pipe\\arbor-live-${pid}-${tag}`;
	const inLive = path.join(liveDir, `${pid}.sock`);
	if (fitsSocketPath(inLive)) return inLive;
	const rt = runtimeSocketDir();
	if (rt && fitsSocketPath(path.join(rt, `${pid}.sock`))) return path.join(ownPrivateDir(rt), `${pid}.sock`);
	throw new Error(
		`the socket path ${inLive} is longer than the system allows (${SOCKET_PATH_MAX} bytes) and there is no private runtime folder ` +
			"($XDG_RUNTIME_DIR, your own 0700 folder with a short path): set XDG_RUNTIME_DIR for pi to use Arbor's live channel",
	);
}

/**
 * Why Arbor must not connect to `socket`, or null: the socket and its folder must be this user's, the folder
 * 0700 and the socket 0600 (another user could otherwise pose as the user's pi and receive its secret).
 */
export function socketProblem(socket: string): string | null {
	if (process.platform === "win32") return null;
	const file = path.resolve(socket);
	const dir = path.dirname(file);
	const d = privacyProblem(dir, "folder");
	if (d) return `its folder ${dir} ${d}`;
	const s = privacyProblem(file, "socket");
	return s ? `${file} ${s}` : null;
}

const registrationFile = (dir: string, pid: number): string => path.join(dir, `${pid}.json`);

/** Write (or replace) a pi's registration: temp file 0600, then rename, so a reader never sees half of one. */
export function writeRegistration(dir: string, reg: LiveRegistration): void {
	const file = registrationFile(dir, reg.pid);
	const tmp = `${file}.${randomBytes(4).toString("hex")}.tmp`;
	fs.writeFileSync(tmp, JSON.stringify(reg), { mode: 0o600, flag: "wx" });
	fs.renameSync(tmp, file);
}

/**
 * Remove a registration and its socket. The socket only when its resolved path is `<pid>.sock` directly in one
 * of our socket folders: a registration naming `live/../../precious` removes nothing outside them.
 */
export function removeRegistration(dir: string, reg: LiveRegistration): void {
	try {
		fs.rmSync(registrationFile(dir, reg.pid), { force: true });
		const sock = path.resolve(dir, reg.socket);
		if (process.platform !== "win32" && path.basename(sock) === `${reg.pid}.sock` && socketFolders(dir).includes(path.dirname(sock)))
			fs.rmSync(sock, { force: true });
	} catch {}
}

/**
 * The registrations in `dir` whose pi is alive. On the way, those of dead pids (EPERM included: another
 * user's process) are removed with their sockets, and unreadable ones older than a few seconds too. Empty
 * when the folder is missing or not private (nothing in it can be trusted then).
 */
export function sweepRegistrations(dir: string): LiveRegistration[] {
	if (privacyProblem(dir, "folder") !== null) return [];
	let names: string[];
	try {
		names = fs.readdirSync(dir);
	} catch {
		return [];
	}
	const out: LiveRegistration[] = [];
	for (const name of names) {
		if (!/^\d+\.json$/.test(name)) continue;
		const file = path.join(dir, name);
		let reg: LiveRegistration | null = null;
		try {
			reg = readLiveRegistration(JSON.parse(fs.readFileSync(file, "utf8")));
		} catch {}
		if (!reg || `${reg.pid}.json` !== name) {
			try {
				if (Date.now() - fs.statSync(file).mtimeMs > UNREADABLE_GRACE_MS) fs.rmSync(file, { force: true });
			} catch {}
			continue;
		}
		if (!pidAlive(reg.pid)) {
			removeRegistration(dir, reg);
			continue;
		}
		out.push(reg);
	}
	return out;
}

/** The runtime a registration names (shared/live.ts): how to start that pi again. */
export type LiveRuntime = NonNullable<LiveRegistration["runtime"]>;

/**
 * Why `p` may not be run as a registration's runtime or CLI, or null: an absolute real path of a regular file that
 * only the user or root could have written (ownerProblem).
 */
function runnableProblem(p: string, executable: boolean): string | null {
	if (!path.isAbsolute(p)) return "is not an absolute path";
	let st: fs.Stats;
	try {
		st = fs.lstatSync(p);
	} catch (err) {
		return `is missing (${(err as NodeJS.ErrnoException).code ?? "unreadable"})`;
	}
	if (!st.isFile()) return st.isSymbolicLink() ? "is a link, not the file itself" : "is not a regular file";
	if (fs.realpathSync(p) !== path.normalize(p)) return "is not its own real path";
	if (executable && process.platform !== "win32") {
		try {
			fs.accessSync(p, fs.constants.X_OK);
		} catch {
			return "is not executable";
		}
	}
	return ownerProblem(path.normalize(p));
}

/**
 * Why `p` may not be run because someone other than the user (or root) could have put it there, or null: the file
 * and every folder above it, up to /, must belong to the user or root and be writable by neither group nor others.
 * A sticky folder (/tmp) counts as writable by others: anyone could have created the file or folder in it. `p` is
 * its own real path (checked before), so no link in it leads elsewhere.
 */
function ownerProblem(p: string): string | null {
	const uid = typeof process.getuid === "function" ? process.getuid() : null;
	if (process.platform === "win32" || uid === null) return null;
	for (let at = p, first = true; ; first = false) {
		const st = fs.lstatSync(at);
		const what = first ? "" : ` (its folder ${at})`;
		if (st.uid !== uid && st.uid !== 0) return `belongs to another user${what}: uid ${st.uid}`;
		if ((st.mode & 0o022) !== 0) return `can be changed by other users${what}: mode ${(st.mode & 0o7777).toString(8).padStart(4, "0")}`;
		const up = path.dirname(at);
		if (up === at) return null;
		at = up;
	}
}

/**
 * The runtime `reg` names, when Arbor may run it, or why not (docs/security.md "Live pi channel"). These are
 * paths Arbor will execute, so they count only from a registration that passes every check the channel makes
 * before it trusts a pi: a private registrations folder, the registration file itself this user's own 0600
 * regular file, a pi that is alive, its socket this user's own in a private folder; and each path must be an
 * absolute real path of an existing regular file, the runtime executable, that it and every folder above it are
 * the user's or root's and open to no one else's writes (issue 39: a runtime in a world-writable folder was run).
 */
export function liveRuntimeOf(dir: string, reg: LiveRegistration): { runtime: LiveRuntime } | { problem: string } {
	const rt = reg.runtime;
	if (!rt) return { problem: "its registration names no runtime (an Arbor extension older than this Arbor, or a pi not started from its CLI)" };
	const folder = privacyProblem(dir, "folder");
	if (folder) return { problem: `the folder ${dir} ${folder}` };
	const file = registrationFile(dir, reg.pid);
	const own = privacyProblem(file, "file");
	if (own) return { problem: `its registration ${file} ${own}` };
	if (!pidAlive(reg.pid)) return { problem: "it is gone" };
	const sock = socketProblem(reg.socket);
	if (sock) return { problem: `its socket is not private to you (${sock})` };
	const exec = runnableProblem(rt.execPath, true);
	if (exec) return { problem: `its runtime ${rt.execPath} ${exec}` };
	const cli = rt.cliPath === null ? null : runnableProblem(rt.cliPath, false);
	if (cli) return { problem: `its CLI ${rt.cliPath} ${cli}` };
	return { runtime: { execPath: rt.execPath, cliPath: rt.cliPath } };
}

/**
 * Older extensions put the socket in `arbor-live-XXXXXX/<pid>.sock` in the shared temp folder when HOME was
 * long, and never removed the folder. Such a folder is removed once its pi is gone, and only when it is this
 * user's own real folder holding nothing but sockets of dead pids. Returns how many were removed.
 */
export function sweepOldTempSocketFolders(tmp = os.tmpdir()): number {
	if (process.platform === "win32" || typeof process.getuid !== "function") return 0;
	let removed = 0;
	let names: string[];
	try {
		names = fs.readdirSync(tmp);
	} catch {
		return 0;
	}
	for (const name of names) {
		if (!/^arbor-live-[A-Za-z0-9]{6}$/.test(name)) continue;
		const dir = path.join(tmp, name);
		try {
			const st = fs.lstatSync(dir);
			if (!st.isDirectory() || st.uid !== process.getuid()) continue;
			const inside = fs.readdirSync(dir);
			const dead = inside.every((f) => {
				const m = /^(\d+)\.sock$/.exec(f);
				return m !== null && fs.lstatSync(path.join(dir, f)).isSocket() && !pidAlive(Number(m[1]));
			});
			if (!dead) continue;
			for (const f of inside) fs.rmSync(path.join(dir, f));
			fs.rmdirSync(dir);
			removed++;
		} catch {}
	}
	return removed;
}
