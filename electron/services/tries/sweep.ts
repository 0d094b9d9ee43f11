// Ending every process a try started, including the ones that left its process group (`setsid … &`, a daemon):
// Linux's /proc is read for pi's descendants (the parent links, remembered with each process's start time so a
// reused pid is never hit) and for processes whose environment carries the try's marker (TRY_MARKER_VAR, set on
// pi and inherited by all it starts, even once reparented). Snapshots are taken and killed until none is left.
// A cgroup would be tighter, but creating one needs a delegation a desktop user rarely has; a confined try
// (confine.ts) also gets a PID namespace, which ends everything in it with its first process.

import * as fs from "node:fs";

/** The environment variable whose value marks a try's processes (a random id per try, in its run's record). */
export const TRY_MARKER_VAR = "ARBOR_TRY_ID";

interface Proc {
	pid: number;
	ppid: number;
	/** Start time in clock ticks since boot (/proc/PID/stat field 22): with the pid, one process for good. */
	start: string;
}

function readProc(pid: number): Proc | undefined {
	let stat: string;
	try {
		stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
	} catch {
		return undefined;
	}
	// The command name (field 2) is in parentheses and may hold spaces or ")": the fields after it follow the last ")".
	const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	if (f[0] === "Z" || f[0] === "X") return undefined; // dead already, waiting for its parent
	return { pid, ppid: Number(f[1]), start: f[19] ?? "" };
}

function carries(pid: number, needle: Buffer): boolean {
	try {
		const env = fs.readFileSync(`/proc/${pid}/environ`);
		return env.subarray(0, needle.length - 1).equals(needle.subarray(1)) || env.includes(needle);
	} catch {
		return false; // not ours to read, or gone
	}
}

function allProcs(): Proc[] {
	let names: string[];
	try {
		names = fs.readdirSync("/proc");
	} catch {
		return [];
	}
	return names.flatMap((n) => (/^\d+$/.test(n) && Number(n) !== process.pid ? (readProc(Number(n)) ?? []) : []));
}

/** A process tree as it is now: the processes below `roots` (known by pid and start time) and those carrying the marker. */
export function tryProcesses(marker: string | null, roots: Proc[] = []): Proc[] {
	const procs = allProcs();
	const needle = marker ? Buffer.from(`\0${TRY_MARKER_VAR}=${marker}\0`) : null;
	const found = new Map<number, Proc>();
	for (const p of procs) {
		if (roots.some((r) => r.pid === p.pid && r.start === p.start)) found.set(p.pid, p);
		else if (needle && carries(p.pid, needle)) found.set(p.pid, p);
	}
	// Everything below what was found, by parent links (a child that cleared its environment is still a child).
	for (let grew = true; grew;) {
		grew = false;
		for (const p of procs)
			if (!found.has(p.pid) && found.has(p.ppid)) {
				found.set(p.pid, p);
				grew = true;
			}
	}
	return [...found.values()];
}

/** pid's process and everything below it now (to remember before pi ends and its orphans lose their parent link). */
export function processTree(pid: number): Proc[] {
	const root = readProc(pid);
	return root ? tryProcesses(null, [root]) : [];
}

/**
 * Kill (SIGKILL) every process of a try: those carrying its marker, `known` ones still the same process, and
 * everything below them, snapshot after snapshot until none is left (a process forking meanwhile is caught by
 * the next one), at most `ms`. Returns the pids killed. Without /proc (not Linux) it finds nothing.
 */
export async function endTryProcesses(marker: string | null, known: Proc[] = [], ms = 5000): Promise<number[]> {
	const killed = new Set<number>();
	const until = Date.now() + ms;
	for (;;) {
		const now = tryProcesses(marker, known);
		if (now.length === 0 || Date.now() > until) break;
		for (const p of now) {
			try {
				process.kill(p.pid, "SIGKILL");
				killed.add(p.pid);
			} catch {
				/* gone meanwhile, or not ours */
			}
		}
		await new Promise((r) => setTimeout(r, 20));
	}
	return [...killed];
}
