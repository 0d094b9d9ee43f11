// The front door, end to end with real components only: the packed tarball (`npm pack`) published to a local
// npm registry (verdaccio on 127.0.0.1), then, in a fresh HOME, the real pi 1.6.0 CLI on Node 24 installs it
// (`pi install npm:pi-arbor`), starts with the extension loaded (it registers under ~/.arbor/live), runs `/arbor`
// (an RPC prompt, as typed), and the page the browser opener is handed (a stand-in `xdg-open` on PATH that records
// its argument) shows the session, live, in Chromium. `pi remove npm:pi-arbor` then leaves nothing running.
// pi's own TUI lists the extension with no "[Extension issues]"; the same install answers `arbor --help` from an
// empty folder, and `npx pi-arbor serve FILE` works from any folder.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { expect, test } from "@playwright/test";
import { PI_CLI, type RealPi, rehomeSession, startRealPi } from "../electron/services/test/helpers/real-pi";
import { shot } from "./helpers/app";
import { repoRoot, tempCopy } from "./helpers/host";
import { browserAddress, fakeOpener } from "./helpers/opener";
import { type LocalRegistry, runtimePaths, startRegistry } from "./helpers/registry";

// npm's cache of the user running the suite (content-addressed tarballs): taken before HOME is replaced, so the
// dependencies the registry proxies are downloaded once per machine, not once per run.
const npmCache = process.env.npm_config_cache ?? path.join(os.homedir(), ".npm");

let registry: LocalRegistry | undefined;
let pi: RealPi | undefined;
let home: string | undefined;
const started: ChildProcess[] = [];
test.afterEach(async () => {
	for (const c of started.splice(0)) {
		try {
			if (c.exitCode === null && c.signalCode === null) process.kill(-c.pid!, "SIGKILL");
		} catch {}
	}
	await pi?.stop();
	await registry?.stop();
	if (home) killArborsUnder(home);
	if (home) fs.rmSync(home, { recursive: true, force: true });
	pi = registry = home = undefined;
});

/** Pids of running processes whose command line mentions `dir` (the temp HOME: every Arbor it installed). */
function processesUnder(dir: string): number[] {
	const pids: number[] = [];
	for (const name of fs.readdirSync("/proc")) {
		if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
		try {
			if (fs.readFileSync(`/proc/${name}/cmdline`, "utf8").includes(dir)) pids.push(Number(name));
		} catch {}
	}
	return pids;
}

function killArborsUnder(dir: string): void {
	for (const pid of processesUnder(dir)) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {}
	}
}

/** npx keeps what it installed under the npm cache's _npx folder, one folder per package list. */
function forgetNpxCopies(): void {
	const npxDir = path.join(npmCache, "_npx");
	if (!fs.existsSync(npxDir)) return;
	for (const d of fs.readdirSync(npxDir)) {
		if (fs.existsSync(path.join(npxDir, d, "node_modules", "pi-arbor"))) fs.rmSync(path.join(npxDir, d), { recursive: true, force: true });
	}
}

/** What pi's TUI shows at start, ANSI stripped: it runs on a pseudo-terminal (util-linux `script`) until its last
 * startup notice (this HOME has no model: "No models available"), then is stopped. */
async function tuiStartup(command: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
	const line = `stty cols 160 rows 50; exec ${command.map((a) => `'${a}'`).join(" ")}`;
	const tui = spawn("script", ["-qfc", line, "/dev/null"], { cwd, env: { ...env, TERM: "xterm-256color", PI_OFFLINE: "1" }, detached: true });
	started.push(tui);
	let raw = "";
	const text = (): string => raw.replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)?/g, "").replace(/\x1b\[[0-9;?>]*[a-zA-Z~]/g, "");
	try {
		await new Promise<void>((resolve, reject) => {
			tui.stdout!.on("data", (c: Buffer) => {
				raw += c.toString();
				if (text().includes("No models available")) resolve();
			});
			tui.once("exit", (code) => reject(new Error(`pi's TUI exited (${code}):\n${text().slice(-3000)}`)));
		});
		return text();
	} finally {
		process.kill(-tui.pid!, "SIGKILL");
	}
}

/** Run a command to its end; throws with its output when it fails. */
function must(cmd: string, args: string[], opts: { cwd?: string; env: NodeJS.ProcessEnv; timeout?: number }): string {
	const r = spawnSync(cmd, args, { cwd: opts.cwd ?? repoRoot, env: opts.env, encoding: "utf8", timeout: opts.timeout ?? 300_000 });
	if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status ?? r.signal}):\n${r.stderr}\n${r.stdout}`.slice(-4000));
	return r.stdout;
}

test("npm pack -> local registry -> pi install npm:pi-arbor -> /arbor opens the live session in Chromium -> pi remove leaves nothing running", async ({
	page,
}) => {
	test.setTimeout(420_000);
	const t0 = Date.now();
	const mark = (what: string): void => console.log(`[install] ${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
	const { node24 } = runtimePaths("node24");
	home = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-install-"));
	const work = path.join(home, "work");
	fs.mkdirSync(work, { recursive: true });
	const opener = fakeOpener();
	const env: NodeJS.ProcessEnv = {
		PATH: `${path.dirname(node24)}:${opener.path}`,
		HOME: home,
		TMPDIR: os.tmpdir(),
		npm_config_cache: npmCache,
		npm_config_update_notifier: "false",
		npm_config_fund: "false",
		npm_config_audit: "false",
		PI_SKIP_VERSION_CHECK: "1",
		PI_TELEMETRY: "0",
	};

	// 1. The tarball: what `npm pack` ships (dist/ is the suite's build; pack's own build ran it too).
	const packDir = path.join(home, "pack");
	fs.mkdirSync(packDir);
	const packed = JSON.parse(
		must("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", packDir], { env: { ...process.env, npm_config_cache: npmCache } }),
	) as {
		name: string;
		filename: string;
		files: { path: string }[];
	}[];
	const tarball = path.join(packDir, packed[0]!.filename);
	const files = packed[0]!.files.map((f) => f.path);
	const manifest = JSON.parse(must("tar", ["-xzOf", tarball, "package/package.json"], { env })) as {
		name: string;
		keywords: string[];
		pi: { extensions: string[] };
		engines: { node: string };
		private?: boolean;
		dependencies?: Record<string, string>;
	};
	expect(manifest.name).toBe("pi-arbor");
	expect(manifest.private).toBeUndefined();
	expect(manifest.keywords).toContain("pi-package");
	// pi warns at start about the packages it supplies to extensions when a package lists them as dependencies.
	const hostProvided = ["@earendil-works/pi-ai", "@earendil-works/pi-agent-core", "@earendil-works/pi-coding-agent", "@earendil-works/pi-tui", "typebox"];
	expect(Object.keys(manifest.dependencies ?? {}).filter((d) => hostProvided.includes(d))).toEqual([]);
	expect(manifest.pi.extensions.length).toBeGreaterThan(0);
	for (const ext of manifest.pi.extensions) expect(files).toContain(path.posix.normalize(ext));
	const [major, minor] = /^>=\s*(\d+)\.(\d+)/.exec(manifest.engines.node)!.slice(1).map(Number);
	expect(major! > 22 || (major === 22 && minor! >= 19)).toBe(true);
	expect(files.filter((f) => /(^|\/)(test|e2e|bench)\/|\.test\.|\.spec\.|\.map$/.test(f))).toEqual([]);
	for (const f of ["bin/arbor.cjs", "dist/cli.cjs", "dist/renderer/index.html", "build/sample-session.jsonl", "README.md", "LICENSE"])
		expect(files).toContain(f);

	mark("packed");
	// 2. Published to the local registry; the temp HOME's .npmrc points npm (and so pi) at it.
	registry = await startRegistry();
	fs.writeFileSync(path.join(home, ".npmrc"), registry.npmrc);
	must("npm", ["publish", tarball], { env, cwd: work });

	mark("published");
	// 3. pi installs it from there.
	must(node24, [PI_CLI, "install", "npm:pi-arbor"], { env, cwd: work });
	const installed = path.join(home, ".pi", "agent", "npm", "node_modules", "pi-arbor");
	expect(fs.existsSync(path.join(installed, "pi-extension", "index.ts"))).toBe(true);
	const settings = JSON.parse(fs.readFileSync(path.join(home, ".pi", "agent", "settings.json"), "utf8")) as { packages?: unknown[] };
	expect(JSON.stringify(settings.packages)).toContain("npm:pi-arbor");

	mark("pi install");
	// pi's own TUI (on a terminal: `script` gives it one) lists the package's extension and reports no
	// "[Extension issues]" (pi warns there, e.g., about its own packages listed as dependencies).
	const tui = await tuiStartup([node24, PI_CLI, "--offline"], env, work);
	expect(tui).toMatch(/\[Extensions\]\s+pi-arbor:pi-extension/);
	expect(tui).not.toContain("Extension issues");
	mark("pi's TUI");

	// The installed command runs from an empty folder.
	const empty = fs.mkdtempSync(path.join(home, "empty-"));
	const help = must(path.join(home, ".pi", "agent", "npm", "node_modules", ".bin", "arbor"), ["--help"], { env, cwd: empty });
	expect(help).toContain("Usage: arbor");

	// `npx pi-arbor serve FILE` from any folder: npx installs it (after forgetting an earlier run's copy, which
	// npx would reuse: the version is the same) and the browser host it starts serves Arbor.
	forgetNpxCopies();
	const sample = tempCopy(path.join(repoRoot, "build", "sample-session.jsonl"), empty);
	const npx = spawn("npx", ["--yes", "pi-arbor", "serve", sample, "--no-open", "--port", "0"], {
		cwd: empty,
		env,
		stdio: ["ignore", "pipe", "pipe"],
		detached: true,
	});
	started.push(npx);
	let npxOut = "";
	const served = await new Promise<string>((resolve, reject) => {
		const onData = (c: Buffer): void => {
			npxOut += c.toString();
			const m = /http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+/.exec(npxOut);
			if (m) resolve(m[0]);
		};
		npx.stdout!.on("data", onData);
		npx.stderr!.on("data", onData);
		npx.once("exit", (code) => reject(new Error(`npx pi-arbor serve exited (${code}):\n${npxOut.slice(-3000)}`)));
	});
	await page.goto(served);
	await expect(page.locator(".react-flow__node").first()).toBeVisible({ timeout: 30_000 });
	process.kill(-npx.pid!, "SIGTERM");
	forgetNpxCopies();

	mark("npx serve");
	// 4. pi starts with the extension loaded: it registers under the temp HOME's ~/.arbor/live.
	const session = tempCopy(path.join(repoRoot, "build", "sample-session.jsonl"), work);
	rehomeSession(session, work);
	// The browser host /arbor starts stops once no page and no live pi used it for ARBOR_IDLE_MINUTES (short here).
	pi = await startRealPi({ home, cwd: work, session, env: { PATH: env.PATH!, npm_config_cache: npmCache, ARBOR_IDLE_MINUTES: "0.05" } });
	const liveDir = path.join(home, ".arbor", "live");
	const registrations = (): string[] => (fs.existsSync(liveDir) ? fs.readdirSync(liveDir).filter((f) => f.endsWith(".json")) : []);
	await expect.poll(registrations, { timeout: 30_000 }).toHaveLength(1);

	mark("pi registered");
	// 5. `/arbor`, as typed: the opener is handed a page, and that page is Arbor on this session, live.
	await pi.send({ type: "prompt", message: "/arbor" });
	const handed = await opener.nth(1);
	const arbors = processesUnder(installed);
	expect(arbors.length).toBeGreaterThan(0);
	await page.goto(browserAddress(handed.arg));
	await expect(page.getByTestId("live-badge")).toBeVisible({ timeout: 30_000 });
	await expect(page.getByTestId("live-badge")).toContainText("pi 1.6.0");
	await shot(page, "install-arbor-live");
	await page.close();

	mark("page live");
	// 6. pi quits and the package is removed: no Arbor process of this install is left, no registration.
	await pi.stop();
	pi = undefined;
	must(node24, [PI_CLI, "remove", "npm:pi-arbor"], { env, cwd: work });
	expect(fs.existsSync(installed)).toBe(false);
	expect(registrations()).toEqual([]);
	mark("removed");
	await expect.poll(() => processesUnder(installed), { timeout: 120_000 }).toEqual([]);
	mark("nothing running");
});
