// oh-my-pi 18.3.4's own CLI as a test oracle: its Bun bundle (`dist/cli.js`, the rig scripts/runtimes.mjs builds
// as "ompCli") under Bun in RPC mode (`--mode rpc --no-ui`), with a throwaway HOME whose ~/.omp/agent/models.yml
// names the loopback model (llm-server.ts). Like real-pi.ts for pi; `available()` says why it cannot run where
// the rig cannot be installed (it needs linux-x64). Every process started here is killed by `stop()`.

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { LlmServer } from "./llm-server";

const repoRoot = path.resolve(import.meta.dirname, "../../../..");
export const OMP_PROVIDER = "arbor-loopback";
export const OMP_MODEL = "loopback-model";

/** Bun and omp's CLI, installed on first use; or the one-line reason they cannot be. */
export function ompRuntime(): { bun: string; cli: string } | { missing: string } {
	const p = spawnSync(process.execPath, [path.join(repoRoot, "scripts/runtimes.mjs"), "bun", "ompCli"], { encoding: "utf8", timeout: 900_000 });
	if (p.status !== 0) return { missing: (p.stderr || p.stdout).trim() };
	const r = JSON.parse(p.stdout) as { bun: string; ompCli: string };
	return { bun: r.bun, cli: r.ompCli };
}

export type OmpRecord = { type: string; [k: string]: unknown };
export interface OmpResponse extends OmpRecord {
	success: boolean;
	data?: unknown;
	error?: string;
}
export type OmpEntry = { type: string; id: string; parentId: string | null; [k: string]: unknown };

export interface RealOmp {
	readonly home: string;
	readonly records: OmpRecord[];
	stderr(): string;
	send(command: Record<string, unknown> & { type: string }, opts?: { timeoutMs?: number }): Promise<OmpResponse>;
	/** Send a prompt and wait for its `prompt_result` (omp's end of the request, turn included). */
	prompt(message: string, opts?: { timeoutMs?: number }): Promise<OmpRecord>;
	entries(): Promise<{ entries: OmpEntry[]; leafId: string | null }>;
	sessionFile(): Promise<string>;
	stop(): Promise<void>;
}

export async function startRealOmp(
	runtime: { bun: string; cli: string },
	server: LlmServer,
	opts: { args?: string[]; env?: Record<string, string> } = {},
): Promise<RealOmp> {
	const home = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-real-omp-"));
	const agentDir = path.join(home, ".omp", "agent");
	const cwd = path.join(home, "work");
	fs.mkdirSync(agentDir, { recursive: true });
	fs.mkdirSync(cwd, { recursive: true });
	fs.writeFileSync(
		path.join(agentDir, "models.yml"),
		[
			"providers:",
			`  ${OMP_PROVIDER}:`,
			`    baseUrl: ${server.baseUrl}`,
			"    api: openai-completions",
			"    apiKey: loopback-key",
			"    models:",
			`      - id: ${OMP_MODEL}`,
			"        name: Loopback",
			"        contextWindow: 4000000",
			"        maxTokens: 4096",
			"",
		].join("\n"),
	);
	const child: ChildProcess = spawn(runtime.bun, [runtime.cli, "--mode", "rpc", "--no-ui", "--model", `${OMP_PROVIDER}/${OMP_MODEL}`, ...(opts.args ?? [])], {
		cwd,
		detached: true,
		stdio: ["pipe", "pipe", "pipe"],
		env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: os.tmpdir(), ...opts.env },
	});
	const records: OmpRecord[] = [];
	let stderr = "";
	let exitInfo: string | undefined;
	const waiters = new Set<() => void>();
	const wake = (): void => {
		for (const w of [...waiters]) w();
	};
	let buf = "";
	child.stdout!.setEncoding("utf8");
	child.stdout!.on("data", (c: string) => {
		buf += c;
		let nl: number;
		while ((nl = buf.indexOf("\n")) >= 0) {
			const line = buf.slice(0, nl).replace(/\r$/, "");
			buf = buf.slice(nl + 1);
			if (!line.trim()) continue;
			try {
				records.push(JSON.parse(line) as OmpRecord);
			} catch {
				stderr += `[non-JSON stdout] ${line}\n`;
			}
		}
		wake();
	});
	child.stderr!.setEncoding("utf8");
	child.stderr!.on("data", (c: string) => (stderr += c));
	const exited = new Promise<void>((resolve) =>
		child.on("exit", (code, signal) => {
			exitInfo = `omp exited (code ${code}, signal ${signal})`;
			wake();
			resolve();
		}),
	);
	const killGroup = (): void => {
		try {
			if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
		} catch {}
	};

	function waitRecord(match: (r: OmpRecord) => boolean, from: number, timeoutMs: number, what: string): Promise<OmpRecord> {
		return new Promise((resolve, reject) => {
			let scanned = from;
			const check = (): void => {
				for (; scanned < records.length; scanned++) {
					if (match(records[scanned]!)) {
						done();
						resolve(records[scanned]!);
						return;
					}
				}
				if (exitInfo) {
					done();
					reject(new Error(`waiting for ${what}: ${exitInfo}; stderr:\n${stderr.slice(-3000)}`));
				}
			};
			const timer = setTimeout(() => {
				done();
				reject(new Error(`waiting for ${what}: nothing within ${timeoutMs} ms; stderr:\n${stderr.slice(-3000)}`));
			}, timeoutMs);
			const done = (): void => {
				clearTimeout(timer);
				waiters.delete(check);
			};
			waiters.add(check);
			check();
		});
	}

	let seq = 0;
	const send: RealOmp["send"] = async (command, o = {}) => {
		const id = `arbor-${++seq}`;
		const from = records.length;
		child.stdin!.write(`${JSON.stringify({ ...command, id })}\n`);
		const r = (await waitRecord((x) => x.type === "response" && x.id === id, from, o.timeoutMs ?? 30_000, `response to ${command.type}`)) as OmpResponse;
		if (!r.success) throw new Error(`omp rejected ${command.type}: ${r.error}`);
		return r;
	};
	try {
		await send({ type: "get_state" }, { timeoutMs: 90_000 });
	} catch (e) {
		killGroup();
		throw e;
	}
	return {
		home,
		records,
		stderr: () => stderr,
		send,
		async prompt(message, o = {}) {
			const from = records.length;
			const r = await send({ type: "prompt", message });
			return waitRecord((x) => x.type === "prompt_result" && x.id === r.id, from, o.timeoutMs ?? 60_000, `prompt_result of ${message}`);
		},
		async entries() {
			return (await send({ type: "get_entries" })).data as { entries: OmpEntry[]; leafId: string | null };
		},
		async sessionFile() {
			return ((await send({ type: "get_state" })).data as { sessionFile: string }).sessionFile;
		},
		async stop() {
			if (exitInfo === undefined) {
				child.stdin!.end();
				const timer = setTimeout(killGroup, 5_000);
				await exited;
				clearTimeout(timer);
			}
			killGroup();
			fs.rmSync(home, { recursive: true, force: true });
		},
	};
}
