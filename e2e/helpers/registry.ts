// A local npm registry on 127.0.0.1 for the install-path test: verdaccio (pinned in scripts/runtimes.mjs) on
// Node 24. pi-arbor lives only here (published by the test, deleted after); every other package is proxied from
// the registry npm itself uses. One user, created through the registry's own
// login endpoint, holds the token `npm publish` sends.

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { expect } from "@playwright/test";
import { repoRoot } from "./host";

export interface LocalRegistry {
	/** http://127.0.0.1:PORT/ */
	readonly url: string;
	/** Lines for an .npmrc that makes npm use this registry and publish to it. */
	readonly npmrc: string;
	/** verdaccio's output so far (diagnostics). */
	log(): string;
	stop(): Promise<void>;
}

/** Paths of runtimes from scripts/runtimes.mjs, run as a process (it installs what is missing). */
export function runtimePaths<K extends string>(...names: K[]): Record<K, string> {
	const p = spawnSync(process.execPath, [path.join(repoRoot, "scripts", "runtimes.mjs"), ...names], { encoding: "utf8", timeout: 900_000 });
	if (p.status !== 0) throw new Error(`runtimes ${names.join(", ")} unavailable: ${(p.stderr || p.stdout).trim()}`);
	return JSON.parse(p.stdout) as Record<K, string>;
}

/** An exclusive lock (mkdir is atomic); one left by a run that died is taken over after 15 minutes. */
async function lock(dir: string): Promise<() => void> {
	fs.mkdirSync(path.dirname(dir), { recursive: true });
	const take = (): boolean => {
		try {
			fs.mkdirSync(dir);
			return true;
		} catch {
			try {
				if (Date.now() - fs.statSync(dir).mtimeMs > 15 * 60_000) fs.rmSync(dir, { recursive: true, force: true });
			} catch {}
			return false;
		}
	};
	await expect.poll(take, { timeout: 15 * 60_000, message: `another run holds ${dir}` }).toBe(true);
	return () => fs.rmSync(dir, { recursive: true, force: true });
}

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const s = net.createServer();
		s.once("error", reject);
		s.listen(0, "127.0.0.1", () => {
			const port = (s.address() as net.AddressInfo).port;
			s.close(() => resolve(port));
		});
	});
}

export async function startRegistry(): Promise<LocalRegistry> {
	const { node24, verdaccio } = runtimePaths("node24", "verdaccio");
	const uplink = spawnSync("npm", ["config", "get", "registry"], { encoding: "utf8" }).stdout.trim() || "https://registry.npmjs.org/";
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-registry-"));
	// The proxied packages' metadata and tarballs persist in the runtimes cache (a day before verdaccio asks
	// upstream again), so only the first run on a machine downloads them; pi-arbor itself never persists.
	// One registry at a time uses that storage.
	const storage = path.join(verdaccio, "..", "..", "..", "..", "verdaccio-storage");
	const release = await lock(`${storage}.lock`);
	fs.rmSync(path.join(storage, "pi-arbor"), { recursive: true, force: true });
	const port = await freePort();
	const url = `http://127.0.0.1:${port}/`;
	fs.writeFileSync(
		path.join(dir, "config.yaml"),
		[
			`storage: ${storage}`,
			"auth:",
			"  htpasswd:",
			`    file: ${path.join(dir, "htpasswd")}`,
			"    max_users: 10",
			"uplinks:",
			"  upstream:",
			`    url: ${uplink}`,
			"    timeout: 60s",
			"    maxage: 1d",
			"packages:",
			"  'pi-arbor':",
			"    access: $all",
			"    publish: $authenticated",
			"    unpublish: $authenticated",
			"  '**':",
			"    access: $all",
			"    proxy: upstream",
			"log: { type: stdout, format: json, level: warn }",
			"",
		].join("\n"),
	);
	const child: ChildProcess = spawn(node24, [verdaccio, "--config", path.join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`], {
		cwd: dir,
		detached: true,
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	let exited: string | undefined;
	child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
	child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
	child.once("exit", (code) => (exited = `verdaccio exited (code ${code}): ${out.slice(-2000)}`));
	const stop = async (): Promise<void> => {
		if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
			const exited = new Promise((r) => child.once("exit", r));
			process.kill(-child.pid!, "SIGTERM");
			await exited;
		}
		fs.rmSync(path.join(storage, "pi-arbor"), { recursive: true, force: true });
		fs.rmSync(dir, { recursive: true, force: true });
		release();
	};
	try {
		// Ready once its ping answers (it logs its address before it listens).
		await expect
			.poll(
				async () => {
					if (exited) throw new Error(exited);
					return (await fetch(new URL("-/ping", url)).catch(() => null))?.ok ?? false;
				},
				{ timeout: 60_000, message: "verdaccio never answered its ping" },
			)
			.toBe(true);
		// The registry's login endpoint creates the user and answers with its token.
		const res = await fetch(new URL("-/user/org.couchdb.user:arbor-test", url), {
			method: "PUT",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ name: "arbor-test", password: "arbor-test-password", email: "arbor-test@example.invalid" }),
		});
		const body = (await res.json()) as { token?: string };
		if (!res.ok || !body.token) throw new Error(`verdaccio refused the test user: ${res.status} ${JSON.stringify(body)}`);
		const npmrc = `registry=${url}\n//127.0.0.1:${port}/:_authToken=${body.token}\n`;
		return { url, npmrc, log: () => out, stop };
	} catch (e) {
		await stop();
		throw e;
	}
}
