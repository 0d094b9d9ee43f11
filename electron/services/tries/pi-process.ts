// One try's pi: the user's own pi in RPC mode (`pi --mode rpc --session FORK`), started in the try's folder in a
// process group of its own, confined where the system allows (confine.ts) and marked by the try's id in its
// environment, so Stop can end pi and whatever its tools started, even what left the group (sweep.ts). Records are read as pi's RPC docs
// ask: one JSON record per LF, split on LF only (Node's readline would also split on U+2028 inside strings).

import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import { liveRuntimeOf } from "../../../shared-node/live-files";
import { findProgram } from "../../../shared-node/programs";
import { registrationsFor } from "../live/registry";
import { type Confinement, type ConfinedPaths, confinedCommand } from "./confine";
import { endTryProcesses, processTree, TRY_MARKER_VAR } from "./sweep";

/** How to start pi: a program and the arguments before pi's own (e.g. a runtime and pi's CLI script). */
export interface PiCommand {
	command: string;
	args: string[];
	/** Where it came from, for messages: "the live pi's runtime" or "pi on PATH". */
	origin: string;
}

/** A pi command for people: where it came from, then the command line. */
export function piDescription(pi: PiCommand): string {
	return `${pi.origin}: ${[pi.command, ...pi.args].join(" ")}`;
}

export class NoPiError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "NoPiError";
	}
}

/** `pi` on an absolute PATH entry (the user's own install; shared-node/programs.ts); a clear error when there is none. */
export function piOnPath(env: NodeJS.ProcessEnv = process.env): PiCommand {
	const found = findProgram("pi", env);
	if (found) return { command: found, args: [], origin: "pi on PATH" };
	throw new NoPiError(
		"no pi to run the tries: install pi (npm i -g @earendil-works/pi-coding-agent) so that `pi` is on PATH, or open the session in a running pi",
	);
}

/**
 * What the live pi holding a session file says about how to start it again: its runtime and CLI (cliPath null:
 * the runtime is pi itself), or why Arbor will not run them. Undefined when no live pi holds the file.
 */
export type LivePiRuntime = (file: string) => ({ pid: number } & ({ execPath: string; cliPath: string | null } | { problem: string })) | undefined;

/** The runtimes of the live pis registered in `dir` (~/.arbor/live), under the channel's trust rules (liveRuntimeOf). */
export function livePiRuntime(dir: string): LivePiRuntime {
	return (file) => {
		let refused: { pid: number; problem: string } | undefined;
		// The newest pi holding the file first (the one Arbor steers); omp speaks another RPC.
		for (const reg of registrationsFor(dir, file)) {
			if (reg.agent !== "pi") continue;
			const r = liveRuntimeOf(dir, reg);
			if ("runtime" in r) return { pid: reg.pid, ...r.runtime };
			refused ??= { pid: reg.pid, problem: r.problem };
		}
		return refused;
	};
}

/**
 * The pi to run a session's tries with: the live pi's own runtime and CLI when one holds the file and registered
 * them (the same pi, version and extensions the user runs), else `pi` on PATH, else a clear error (docs/tries.md).
 */
export function piForSession(file: string, liveRuntime?: LivePiRuntime, env: NodeJS.ProcessEnv = process.env): PiCommand {
	const rt = liveRuntime?.(file);
	if (rt && "execPath" in rt && fs.existsSync(rt.execPath) && (rt.cliPath === null || fs.existsSync(rt.cliPath)))
		return { command: rt.execPath, args: rt.cliPath === null ? [] : [rt.cliPath], origin: `the live pi's runtime (pid ${rt.pid})` };
	const refused = rt && "problem" in rt ? `pi ${rt.pid} holds the session, but Arbor will not run its runtime: ${rt.problem}` : null;
	try {
		const onPath = piOnPath(env);
		return refused ? { ...onPath, origin: `${onPath.origin} (${refused})` } : onPath;
	} catch (err) {
		if (err instanceof NoPiError && refused) throw new NoPiError(`${err.message} (${refused})`);
		throw err;
	}
}

export type PiRecord = { type: string; [k: string]: unknown };

export interface PiProcessOptions {
	pi: PiCommand;
	sessionFile: string;
	cwd: string;
	/** provider/id, as pi's --model accepts it. */
	model?: string;
	thinking?: string;
	/** Only these tools (pi's --tools); all of pi's defaults when omitted. */
	tools?: string[];
	/** The try's marker (TRY_MARKER_VAR in pi's environment): Stop ends every process carrying it. */
	marker: string;
	/** Run pi confined (confine.ts), writable only where `paths` say; `tmp` is its TMPDIR. Unconfined when omitted. */
	confine?: { by: Confinement; paths: ConfinedPaths; tmp: string };
	onRecord(record: PiRecord): void;
	onExit(info: string): void;
}

export interface PiProcess {
	readonly pid: number | undefined;
	send(command: Record<string, unknown> & { type: string }): Promise<PiRecord>;
	/**
	 * Ask pi to stop its turn, then end it (stdin closed; its process group killed if it lingers) and every
	 * process it started, also those that left its group (sweep.ts).
	 */
	stop(graceMs?: number): Promise<void>;
	readonly exited: Promise<void>;
}

export function startPi(o: PiProcessOptions): PiProcess {
	const args = [...o.pi.args, "--mode", "rpc", "--session", o.sessionFile];
	if (o.model) args.push("--model", o.model);
	if (o.thinking) args.push("--thinking", o.thinking);
	if (o.tools) args.push("--tools", o.tools.join(","));
	const env: NodeJS.ProcessEnv = { ...process.env, [TRY_MARKER_VAR]: o.marker };
	if (o.confine) Object.assign(env, { TMPDIR: o.confine.tmp, TMP: o.confine.tmp, TEMP: o.confine.tmp });
	const cmd = o.confine ? confinedCommand(o.confine.by, o.pi.command, args, o.confine.paths) : { command: o.pi.command, args };
	const child: ChildProcess = spawn(cmd.command, cmd.args, { cwd: o.cwd, detached: true, stdio: ["pipe", "pipe", "pipe"], env });
	let exitInfo: string | undefined;
	let stderr = "";
	const pending = new Map<string, (r: PiRecord) => void>();
	let seq = 0;
	let buf = "";
	child.stdout!.setEncoding("utf8");
	child.stdout!.on("data", (chunk: string) => {
		buf += chunk;
		let nl: number;
		while ((nl = buf.indexOf("\n")) >= 0) {
			const line = buf.slice(0, nl).replace(/\r$/, "");
			buf = buf.slice(nl + 1);
			if (!line.trim()) continue;
			let rec: PiRecord;
			try {
				rec = JSON.parse(line) as PiRecord;
			} catch {
				continue; // not protocol: pi keeps stdout for records, so this is noise from a wrapper
			}
			if (rec.type === "response" && typeof rec.id === "string" && pending.has(rec.id)) {
				pending.get(rec.id)!(rec);
				pending.delete(rec.id);
			}
			o.onRecord(rec);
		}
	});
	child.stderr!.setEncoding("utf8");
	child.stderr!.on("data", (c: string) => {
		stderr = (stderr + c).slice(-4000);
	});
	child.stdin!.on("error", () => undefined); // pi gone: its exit is reported below
	const exited = new Promise<void>((resolve) => {
		const finish = (info: string): void => {
			if (exitInfo !== undefined) return;
			exitInfo = info;
			for (const [id, r] of pending) r({ type: "response", id, success: false, error: info });
			pending.clear();
			o.onExit(info);
			resolve();
		};
		child.on("exit", (code, signal) =>
			finish(`pi exited (code ${code}, signal ${signal})${stderr.trim() ? `: ${stderr.trim().split("\n").slice(-3).join(" / ")}` : ""}`),
		);
		child.on("error", (e) => finish(`pi could not start (${o.pi.origin}: ${o.pi.command}): ${e.message}`));
	});
	const killGroup = (): void => {
		if (child.pid === undefined) return;
		try {
			process.kill(-child.pid, "SIGKILL");
		} catch {
			/* already gone */
		}
	};
	return {
		get pid() {
			return child.pid;
		},
		exited,
		send(command) {
			if (exitInfo !== undefined) return Promise.resolve({ type: "response", success: false, error: exitInfo });
			const id = `arbor-try-${++seq}`;
			return new Promise((resolve) => {
				pending.set(id, resolve);
				child.stdin!.write(`${JSON.stringify({ ...command, id })}\n`);
			});
		},
		async stop(graceMs = 3000) {
			// pi's children now, while their parent links still lead to pi (its orphans lose them when it ends).
			const tree = child.pid !== undefined && exitInfo === undefined ? processTree(child.pid) : [];
			if (exitInfo === undefined) {
				child.stdin!.write(`${JSON.stringify({ type: "abort", id: "arbor-try-stop" })}\n`);
				child.stdin!.end();
				const timer = setTimeout(killGroup, graceMs);
				await exited;
				clearTimeout(timer);
			}
			// Whatever pi's tools started goes with its group, which can outlive pi itself, and so does whatever
			// left the group (setsid) but still carries the try's marker or descends from pi.
			killGroup();
			await endTryProcesses(o.marker, tree);
		},
	};
}
