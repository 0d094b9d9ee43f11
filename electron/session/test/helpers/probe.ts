// Runs the session core in a child process with a hard timeout. A synchronous infinite loop (a cycle walk
// without a guard, a blocking read of a FIFO) would freeze the vitest worker itself, where no test timeout
// can fire; a child can be killed. The core is bundled once per test process with esbuild.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { REPO_ROOT, tempDir } from "./files";

let bundlePath: string | undefined;

export function coreBundle(): string {
	if (bundlePath) return bundlePath;
	const out = join(tempDir("arbor-core-bundle"), "core.mjs");
	buildSync({
		entryPoints: [join(REPO_ROOT, "electron/session/index.ts")],
		bundle: true,
		platform: "node",
		format: "esm",
		target: "node20",
		outfile: out,
		logLevel: "silent",
	});
	bundlePath = out;
	return out;
}

export type ProbeOutcome = "ok" | "error" | "timeout" | "crash";

export interface ProbeResult {
	outcome: ProbeOutcome;
	/** ok: what `ops` returned; error: the thrown error's name/code/file/line/message. */
	detail: unknown;
	stderr: string;
}

/**
 * Open `file` with Arbor's SessionManager in a child process and evaluate `ops` (a JS function body that
 * sees `sm` and `core` and returns something JSON-serialisable). Never hangs the caller.
 */
export function probe(file: string, ops: string, timeoutMs = 30_000): ProbeResult {
	const script = `
import * as core from ${JSON.stringify(coreBundle())};
let out;
try {
	const sm = core.SessionManager.open(process.env.ARBOR_PROBE_FILE);
	const detail = await (async (sm, core) => { ${ops} })(sm, core);
	out = { outcome: "ok", detail };
} catch (e) {
	out = { outcome: "error", detail: { name: e?.constructor?.name, code: e?.code, file: e?.file, line: e?.line, message: String(e?.message ?? e) } };
}
process.stdout.write(JSON.stringify(out));
`;
	const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
		env: { ...process.env, ARBOR_PROBE_FILE: file },
		timeout: timeoutMs,
		encoding: "utf8",
		maxBuffer: 64 * 1024 * 1024,
	});
	if (r.error && (r.error as NodeJS.ErrnoException).code === "ETIMEDOUT") return { outcome: "timeout", detail: null, stderr: r.stderr ?? "" };
	if (r.status !== 0 || !r.stdout) return { outcome: "crash", detail: { status: r.status, signal: r.signal }, stderr: r.stderr ?? "" };
	const parsed = JSON.parse(r.stdout) as { outcome: ProbeOutcome; detail: unknown };
	return { ...parsed, stderr: r.stderr ?? "" };
}

/**
 * Run pi's SessionManager (the devDependency, loaded by absolute path) in a child process on `file` and
 * evaluate `ops` with `sm` = pi's instance. Used to show where pi hangs (cycles) without freezing vitest.
 */
export function probePi(file: string, ops: string, timeoutMs = 10_000): ProbeResult {
	const piModule = join(REPO_ROOT, "node_modules/@mariozechner/pi-coding-agent/dist/core/session-manager.js");
	const script = `
import * as pi from ${JSON.stringify(piModule)};
let out;
try {
	const sm = pi.SessionManager.open(process.env.ARBOR_PROBE_FILE);
	const detail = await (async (sm) => { ${ops} })(sm);
	out = { outcome: "ok", detail };
} catch (e) {
	out = { outcome: "error", detail: { name: e?.constructor?.name, message: String(e?.message ?? e) } };
}
process.stdout.write(JSON.stringify(out));
`;
	const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
		env: { ...process.env, ARBOR_PROBE_FILE: file },
		timeout: timeoutMs,
		encoding: "utf8",
		maxBuffer: 64 * 1024 * 1024,
	});
	if (r.error && (r.error as NodeJS.ErrnoException).code === "ETIMEDOUT") return { outcome: "timeout", detail: null, stderr: r.stderr ?? "" };
	if (r.status !== 0 || !r.stdout) return { outcome: "crash", detail: { status: r.status, signal: r.signal }, stderr: r.stderr ?? "" };
	const parsed = JSON.parse(r.stdout) as { outcome: ProbeOutcome; detail: unknown };
	return { ...parsed, stderr: r.stderr ?? "" };
}

export interface KilledRun {
	/** True when the write budget ran out and the child killed itself (SIGKILL) part-way through a write. */
	killed: boolean;
	status: number | null;
	stderr: string;
}

/**
 * Run `ops` (a JS function body that sees `sm`, Arbor's SessionManager on `file`, and `core`) in a child
 * process whose writes stop after `budget` bytes: the write in progress is cut there and the process kills
 * itself with SIGKILL. A kill -9 at a chosen byte of whatever the operation writes (temp files, backups,
 * appends), deterministic where a timed kill is a lottery. copyFileSync is routed through writeSync so a
 * copy can be cut too.
 */
export function runKilledAfter(file: string, budget: number, ops: string, timeoutMs = 60_000): KilledRun {
	const script = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
let budget = Number(process.env.ARBOR_KILL_BUDGET);
const write = fs.writeSync;
fs.writeSync = (fd, buf, off = 0, len = buf.length - off, pos = null) => {
	if (typeof buf === "string") buf = Buffer.from(buf), off = 0, len = buf.length;
	if (len <= budget) { budget -= len; return write(fd, buf, off, len, pos); }
	if (budget > 0) write(fd, buf, off, budget, pos);
	process.kill(process.pid, "SIGKILL");
};
fs.copyFileSync = (src, dst, mode = 0) => {
	const data = fs.readFileSync(src);
	const fd = fs.openSync(dst, mode & fs.constants.COPYFILE_EXCL ? "wx" : "w");
	try { fs.writeSync(fd, data, 0, data.length); } finally { fs.closeSync(fd); }
};
syncBuiltinESMExports();
const core = await import(${JSON.stringify(coreBundle())});
const sm = core.SessionManager.open(process.env.ARBOR_PROBE_FILE);
await (async (sm, core) => { ${ops} })(sm, core);
`;
	const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
		env: { ...process.env, ARBOR_PROBE_FILE: file, ARBOR_KILL_BUDGET: String(budget) },
		timeout: timeoutMs,
		encoding: "utf8",
	});
	return { killed: r.signal === "SIGKILL", status: r.status, stderr: r.stderr ?? "" };
}

export interface PausedRun {
	/** Resolves once the child has written `budget` bytes of its write to the session file and stopped. */
	paused: Promise<void>;
	/** Lets the child finish; resolves with its exit status. */
	release(): Promise<number | null>;
}

/**
 * Run `ops` (sees `sm`, Arbor's SessionManager on `file`, and `core`) in a child whose first write to the
 * session file stops after `budget` bytes and waits, like a writer in the middle of a large write(), until
 * release() is called; then the rest is written. Writes to other files (markers, temp files) are not held.
 * mode "kill": the child kills itself (SIGKILL) right after those `budget` bytes instead (`paused` resolves
 * once it is dead).
 */
export function runPausedAfter(file: string, budget: number, ops: string, mode: "pause" | "kill" = "pause"): PausedRun {
	const dir = tempDir("arbor-paused");
	const ready = join(dir, "ready");
	const go = join(dir, "go");
	const script = `
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
const ino = fs.statSync(process.env.ARBOR_PROBE_FILE).ino;
let held = false;
const write = fs.writeSync;
fs.writeSync = (fd, buf, off = 0, len = buf.length - off, pos = null) => {
	if (typeof buf === "string") buf = Buffer.from(buf), off = 0, len = buf.length;
	if (held || fs.fstatSync(fd).ino !== ino || len <= ${budget}) return write(fd, buf, off, len, pos);
	held = true;
	const n = ${budget} > 0 ? write(fd, buf, off, ${budget}, pos) : 0;
	if (${JSON.stringify(mode)} === "kill") process.kill(process.pid, "SIGKILL");
	fs.writeFileSync(${JSON.stringify(ready)}, "");
	while (!fs.existsSync(${JSON.stringify(go)})) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
	return n;
};
syncBuiltinESMExports();
const core = await import(${JSON.stringify(coreBundle())});
const sm = core.SessionManager.open(process.env.ARBOR_PROBE_FILE);
await (async (sm, core) => { ${ops} })(sm, core);
`;
	const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
		env: { ...process.env, ARBOR_PROBE_FILE: file },
		stdio: ["ignore", "ignore", "pipe"],
	});
	let stderr = "";
	child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
	const exited = new Promise<number | null>((ok) => child.on("exit", (code) => ok(code)));
	const paused = (async () => {
		for (let i = 0; i < 6000; i++) {
			if (existsSync(ready) || (mode === "kill" && child.signalCode === "SIGKILL")) return;
			if (child.exitCode !== null) throw new Error(`child exited before pausing: ${stderr}`);
			await new Promise((r) => setTimeout(r, 10));
		}
		child.kill("SIGKILL");
		throw new Error("child never paused");
	})();
	return {
		paused,
		async release() {
			writeFileSync(go, "");
			return exited;
		},
	};
}
