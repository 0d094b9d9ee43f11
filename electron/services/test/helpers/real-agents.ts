// Claude Code 2.1.337's and Codex 0.171.0's own CLIs as test rigs: installed by scripts/runtimes.mjs ("claude",
// "codex"), run headless with a throwaway HOME against a loopback model (agent-model-servers.ts), so the session
// files the formats are tested on are the ones the real agents write. `agentRuntime()` says why a CLI cannot run
// (no registry, no linux binary); the caller skips with that reason. Every process is awaited or killed.

import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const repoRoot = path.resolve(import.meta.dirname, "../../../..");

export type AgentCli = "claude" | "codex";

/** The installed CLI's path, installing it on first use; or the one-line reason it cannot be. */
export function agentRuntime(name: AgentCli): { bin: string } | { missing: string } {
	const p = spawnSync(process.execPath, [path.join(repoRoot, "scripts/runtimes.mjs"), name], { encoding: "utf8", timeout: 900_000 });
	if (p.status !== 0) return { missing: (p.stderr || p.stdout || `runtimes.mjs exit ${p.status}`).trim() };
	return { bin: (JSON.parse(p.stdout) as Record<AgentCli, string>)[name] };
}

export interface AgentHome {
	home: string;
	/** The project folder the CLI runs in. */
	cwd: string;
	remove(): void;
}

export function makeAgentHome(prefix = "arbor-agent-"): AgentHome {
	const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	const cwd = path.join(home, "proj");
	fs.mkdirSync(cwd, { recursive: true });
	return { home, cwd, remove: () => fs.rmSync(home, { recursive: true, force: true }) };
}

export interface RunResult {
	status: number | null;
	stdout: string;
	stderr: string;
}

/** Runs a CLI to its end without blocking this process's event loop (the model server lives in it). */
function run(bin: string, args: string[], cwd: string, env: Record<string, string>, timeoutMs: number): Promise<RunResult> {
	return new Promise((resolve) => {
		const child = spawn(bin, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
		child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
		const timer = setTimeout(() => {
			stderr += `\n[killed after ${timeoutMs} ms]`;
			try {
				process.kill(-child.pid!, "SIGKILL");
			} catch {}
		}, timeoutMs);
		child.on("close", (status) => {
			clearTimeout(timer);
			resolve({ status, stdout, stderr });
		});
	});
}

const baseEnv = (home: string): Record<string, string> => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: os.tmpdir(), LANG: "C.UTF-8" });

/** `claude ARGS` with HOME = the rig's home, the model at `baseUrl`, nothing sent anywhere else. */
export function runClaude(bin: string, h: AgentHome, baseUrl: string, args: string[], timeoutMs = 120_000): Promise<RunResult> {
	return run(
		bin,
		args,
		h.cwd,
		{
			...baseEnv(h.home),
			ANTHROPIC_BASE_URL: baseUrl,
			ANTHROPIC_API_KEY: "loopback-key",
			DISABLE_TELEMETRY: "1",
			DISABLE_AUTOUPDATER: "1",
			DISABLE_ERROR_REPORTING: "1",
			CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
			// The rig runs as root in CI containers; this is Claude Code's own switch for sandboxes.
			IS_SANDBOX: "1",
		},
		timeoutMs,
	);
}

/** Claude Code's project folder for `cwd`: every character that is not a letter or digit becomes "-". */
export function claudeProjectDir(h: AgentHome): string {
	return path.join(h.home, ".claude", "projects", fs.realpathSync(h.cwd).replace(/[^A-Za-z0-9]/g, "-"));
}

export const CODEX_KEY_VAR = "ARBOR_LOOPBACK_KEY";

/** `codex ARGS` with CODEX_HOME = the rig's ~/.codex, whose config.toml names the loopback model. */
export function runCodex(bin: string, h: AgentHome, baseUrl: string, args: string[], timeoutMs = 120_000): Promise<RunResult> {
	const codexHome = path.join(h.home, ".codex");
	fs.mkdirSync(codexHome, { recursive: true });
	fs.writeFileSync(
		path.join(codexHome, "config.toml"),
		[
			'model = "loopback-model"',
			'model_provider = "lab"',
			"",
			"[model_providers.lab]",
			'name = "Loopback"',
			`base_url = "${baseUrl}"`,
			'wire_api = "responses"',
			`env_key = "${CODEX_KEY_VAR}"`,
			"",
		].join("\n"),
	);
	return run(bin, args, h.cwd, { ...baseEnv(h.home), CODEX_HOME: codexHome, [CODEX_KEY_VAR]: "x", NO_COLOR: "1" }, timeoutMs);
}

/** Every file under `dir` (recursive), sorted; [] when it does not exist. */
export function filesUnder(dir: string): string[] {
	if (!fs.existsSync(dir)) return [];
	return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
		.filter((d) => d.isFile())
		.map((d) => path.join(d.parentPath, d.name))
		.sort();
}

/** The JSON records of a JSONL file. */
export function records(file: string): Record<string, unknown>[] {
	return fs
		.readFileSync(file, "utf8")
		.split("\n")
		.filter((l) => l.trim())
		.map((l) => JSON.parse(l) as Record<string, unknown>);
}
