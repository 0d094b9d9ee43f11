// Starts a real browser host (`arbor serve`) in its own process for a spec: HOME points at a temp dir so
// the user's ~/.arbor and ~/.pi are never touched, and the URL with its launch token (in the fragment) is read from stdout.
import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";

export const repoRoot = resolve(import.meta.dirname, "..", "..");
export const fixturesDir = resolve(repoRoot, "..", "shared", "fixtures", "sessions");
export const genSession = resolve(repoRoot, "..", "shared", "tools", "gen-session.mjs");
export const screenshotDir = join(repoRoot, "e2e", "screenshots");

/** Settings for the specs about the tree of cards (pills, card text, semantic zoom): the default view is rows. */
export const TREE_VIEW = { settings: { layoutDirection: "TB" } } as const;

export interface Host {
	url: string;
	token: string;
	home: string;
	proc: ChildProcess;
	stop(): Promise<void>;
}

/** A temp working dir with a copy of a fixture (or any file); returns the copy's path. */
export function tempCopy(src: string, dir = mkdtempSync(join(tmpdir(), "arbor-e2e-"))): string {
	const dest = join(dir, basename(src));
	copyFileSync(src, dest);
	return dest;
}

export async function startHost(args: string[], opts: { settings?: object; env?: NodeJS.ProcessEnv } = {}): Promise<Host> {
	const home = mkdtempSync(join(tmpdir(), "arbor-home-"));
	if (opts.settings) {
		mkdirSync(join(home, ".arbor"), { recursive: true });
		writeFileSync(join(home, ".arbor", "settings.json"), JSON.stringify(opts.settings));
	}
	const proc = spawn(process.execPath, [join(repoRoot, "bin", "arbor.cjs"), "serve", ...args, "--port", "0", "--no-open"], {
		cwd: repoRoot,
		env: { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, ".pi", "agent"), ...opts.env },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let out = "";
	const url = await new Promise<string>((ok, fail) => {
		const timer = setTimeout(() => fail(new Error(`arbor serve printed no URL within 30 s:\n${out}`)), 30_000);
		const onData = (d: Buffer) => {
			out += d.toString();
			const m = /http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+/.exec(out);
			if (m) {
				clearTimeout(timer);
				ok(m[0]);
			}
		};
		proc.stdout?.on("data", onData);
		proc.stderr?.on("data", onData);
		proc.on("exit", (code) => fail(new Error(`arbor serve exited with ${code}:\n${out}`)));
	});
	const token = new URLSearchParams(new URL(url).hash.slice(1)).get("token") ?? "";
	return {
		url,
		token,
		home,
		proc,
		stop: () =>
			new Promise<void>((ok) => {
				// A host killed by a signal has no exit code, only its signal: it is gone all the same.
				if (proc.exitCode !== null || proc.signalCode !== null) return ok();
				proc.once("exit", () => ok());
				proc.kill("SIGTERM");
			}),
	};
}
