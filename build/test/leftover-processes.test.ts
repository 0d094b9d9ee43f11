// npm test's last check (scripts/leftover-processes.mjs, issue 39): a process a test started that still runs at
// the end carries the run's marker and is reported by its command line, then killed. Run here as npm test runs it,
// as its own process, on processes leaked on purpose: a `sleep` left running, and one orphaned by its shell.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const checker = join(resolve(import.meta.dirname, "..", ".."), "scripts", "leftover-processes.mjs");
const started: number[] = [];

afterEach(() => {
	for (const pid of started.splice(0)) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// already gone (the checker killed it)
		}
	}
});

/** Running: it exists and is not a zombie waiting for its parent (or for PID 1) to collect it. */
const alive = (pid: number): boolean => {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
	} catch {
		return false;
	}
};

/** A process left running on purpose with `ARBOR_TEST_RUN=marker` (or none), as a forgetful test would. */
function leak(marker: string | null, seconds: string): ChildProcess {
	const env: NodeJS.ProcessEnv = { ...process.env };
	if (marker === null) delete env.ARBOR_TEST_RUN;
	else env.ARBOR_TEST_RUN = marker;
	const child = spawn("sleep", [seconds], { env, stdio: "ignore", detached: true });
	child.unref();
	started.push(child.pid as number);
	return child;
}

function check(marker: string) {
	const r = spawnSync(process.execPath, [checker, marker, "--grace", "300"], { encoding: "utf8" });
	return { status: r.status, stdout: r.stdout };
}

const newMarker = () => randomBytes(8).toString("hex");

describe("leftover processes", () => {
	it("reports a sleep a test left running, by its command line, and kills it", async () => {
		const marker = newMarker();
		const sleeper = leak(marker, "613");
		const gone = new Promise<NodeJS.Signals | null>((r) => sleeper.once("exit", (_code, signal) => r(signal)));
		const r = check(marker);
		expect(r.status).toBe(1);
		expect(r.stdout).toContain(`left running by a test (killed): pid ${sleeper.pid}: sleep 613\n`);
		expect(r.stdout).toContain("leftover processes: 1\n");
		expect(await gone).toBe("SIGKILL");
		// Checked again: nothing left.
		expect(check(marker)).toEqual({ status: 0, stdout: "leftover processes: 0\n" });
	});

	it("finds a process whose parent is gone (a shell that started it in the background and exited)", async () => {
		const marker = newMarker();
		const sh = spawnSync("sh", ["-c", "sleep 614 > /dev/null 2>&1 & echo $!"], { encoding: "utf8", env: { ...process.env, ARBOR_TEST_RUN: marker } });
		const orphan = Number(sh.stdout.trim());
		started.push(orphan);
		expect(alive(orphan)).toBe(true);
		const r = check(marker);
		expect(r.status).toBe(1);
		expect(r.stdout).toContain(`pid ${orphan}: sleep 614\n`);
		for (let i = 0; i < 50 && alive(orphan); i++) await new Promise((ok) => setTimeout(ok, 20));
		expect(alive(orphan)).toBe(false);
	});

	it("leaves alone processes of another run, with no marker, or whose marker only starts the same", () => {
		const marker = newMarker();
		const others = [leak(newMarker(), "615"), leak(null, "616"), leak(`${marker}0`, "617"), leak(marker.slice(0, -1), "618")];
		expect(check(marker)).toEqual({ status: 0, stdout: "leftover processes: 0\n" });
		for (const o of others) expect(alive(o.pid as number)).toBe(true);
	});

	it("waits for a process that is just ending instead of counting it", () => {
		const marker = newMarker();
		const ending = leak(marker, "0.1");
		const r = check(marker);
		expect(r).toEqual({ status: 0, stdout: "leftover processes: 0\n" });
		expect(alive(ending.pid as number)).toBe(false);
	});
});
