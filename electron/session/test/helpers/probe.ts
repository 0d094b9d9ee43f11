// Runs the session core in a child process with a hard timeout. A synchronous infinite loop (a cycle walk
// without a guard, a blocking read of a FIFO) would freeze the vitest worker itself, where no test timeout
// can fire; a child can be killed. The core is bundled once per test process with esbuild.
import { spawnSync } from "node:child_process";
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
