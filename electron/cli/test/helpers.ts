// Runs the real built `arbor` command (bin/arbor.cjs -> dist/cli.cjs) on temp copies of fixtures.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const repo = resolve(import.meta.dirname, "..", "..", "..");
export const fixtures = resolve(repo, "..", "shared", "fixtures", "sessions");
export const genSession = resolve(repo, "..", "shared", "tools", "gen-session.mjs");

let built = false;
export function buildCli(): void {
	if (built) return;
	execFileSync(process.execPath, [join(repo, "build", "build-main.mjs")], { cwd: repo, stdio: "pipe" });
	built = true;
}

export interface RunResult {
	status: number | null;
	stdout: string;
	stderr: string;
}

export function arbor(args: string[], env: Record<string, string> = {}, cwd?: string): RunResult {
	const r = spawnSync(process.execPath, [join(repo, "bin", "arbor.cjs"), ...args], {
		encoding: "utf8",
		maxBuffer: 1 << 30,
		env: { ...process.env, ...env },
		...(cwd ? { cwd } : {}),
	});
	return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The command without blocking this process (a loopback model or a fake pi it talks to runs in it). */
export function arborAsync(args: string[], env: Record<string, string> = {}): Promise<RunResult> {
	return arborInEnv(args, { ...process.env, ...env });
}

/** The same with exactly `env` (nothing of this process's: e.g. a PATH whose only `pi` is the test's). */
export function arborInEnv(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, [join(repo, "bin", "arbor.cjs"), ...args], { env: { ...env, ...testRunEnv() } });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
		child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
		child.on("close", (status) => resolve({ status, stdout, stderr }));
	});
}

/** npm test's marker for processes left running (scripts/leftover-processes.mjs), for an environment built from scratch. */
export function testRunEnv(): Record<string, string> {
	return process.env.ARBOR_TEST_RUN ? { ARBOR_TEST_RUN: process.env.ARBOR_TEST_RUN } : {};
}

const groupAlive = (pgid: number): boolean => {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch {
		return false;
	}
};

/**
 * Ends every process of the group `pgid` (a child spawned with `detached: true` leads one): SIGTERM, then SIGKILL
 * after 5 s, and returns once the group is empty (false if it never empties). Killing the leader alone leaves what
 * it started running (issue 39: an `arbor serve` outlived its test by 24 minutes).
 */
export async function endProcessGroup(pgid: number): Promise<boolean> {
	const gone = async (): Promise<boolean> => {
		for (let i = 0; i < 50 && groupAlive(pgid); i++) await new Promise((r) => setTimeout(r, 100));
		return !groupAlive(pgid);
	};
	if (!groupAlive(pgid)) return true;
	process.kill(-pgid, "SIGTERM");
	if (await gone()) return true;
	if (groupAlive(pgid)) process.kill(-pgid, "SIGKILL");
	return gone();
}

export function tempDir(): string {
	return mkdtempSync(join(tmpdir(), "arbor-cli-"));
}

export function copyFixture(name: string, dir: string = tempDir()): string {
	const out = join(dir, name);
	copyFileSync(join(fixtures, name), out);
	return out;
}

export function sha256(file: string): string {
	return createHash("sha256").update(readFileSync(file)).digest("hex");
}

export function generate(dir: string, name: string, args: string[]): string {
	const out = join(dir, name);
	execFileSync(process.execPath, [genSession, ...args, "--out", out]);
	return out;
}

/** Check every node of `arbor tree --json` output without recursion; returns the node count. */
export function checkTreeJson(tree: unknown): number {
	if (typeof tree !== "object" || tree === null) throw new Error("tree JSON is not an object");
	const t = tree as { leafId: unknown; shownLeafId: unknown; roots: unknown };
	if (Object.keys(t).join() !== "leafId,shownLeafId,roots") throw new Error(`top-level keys ${Object.keys(t).join()}`);
	if (t.leafId !== null && typeof t.leafId !== "string") throw new Error("leafId must be string or null");
	if (t.shownLeafId !== null && typeof t.shownLeafId !== "string") throw new Error("shownLeafId must be string or null");
	if (!Array.isArray(t.roots)) throw new Error("roots must be an array");
	const stack: unknown[] = [...t.roots];
	let count = 0;
	while (stack.length) {
		const n = stack.pop() as Record<string, unknown>;
		count++;
		const keys = Object.keys(n);
		const allowed = ["id", "type", "role", "label", "children"];
		if (keys.some((k) => !allowed.includes(k))) throw new Error(`unexpected key in ${keys.join()}`);
		if (typeof n.id !== "string" || typeof n.type !== "string") throw new Error("id/type must be strings");
		if ("role" in n && n.type !== "message") throw new Error(`role on a ${String(n.type)} entry`);
		if ("label" in n && (typeof n.label !== "string" || n.label === "")) throw new Error("label must be a non-empty string");
		if (!Array.isArray(n.children)) throw new Error("children must be an array");
		stack.push(...(n.children as unknown[]));
	}
	return count;
}
