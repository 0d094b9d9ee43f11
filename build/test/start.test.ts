// `npm start` runs `npm run build && node scripts/start.mjs`: these tests run the second half (the build
// is npm test's own step). Without an Electron binary it must say why in one line and serve the same app
// through the browser host (arbor serve) on the sample; with one, it starts the desktop app as before.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { endProcessGroup, testRunEnv } from "../../electron/cli/test/helpers";

const repoRoot = resolve(import.meta.dirname, "..", "..");
const fixtures = resolve(repoRoot, "..", "shared", "fixtures", "sessions");
const children: ChildProcess[] = [];

// start.mjs runs `arbor serve` as its child: killing start.mjs alone (SIGKILL cannot be passed on) left the server
// running for the rest of the suite (issue 39). Each start.mjs leads its own process group (detached), and the
// whole group is ended after each test, however the test ended.
afterEach(async () => {
	for (const c of children.splice(0)) expect(await endProcessGroup(c.pid as number), `start.mjs's process group ${c.pid} still has processes`).toBe(true);
});

function start(args: string[], env: Record<string, string>) {
	const home = mkdtempSync(join(tmpdir(), "arbor-start-home-"));
	const child = spawn(process.execPath, [join(repoRoot, "scripts", "start.mjs"), ...args], {
		cwd: repoRoot,
		env: {
			PATH: process.env.PATH ?? "",
			HOME: home,
			XDG_CONFIG_HOME: join(home, ".config"),
			PI_CODING_AGENT_DIR: join(home, ".pi", "agent"),
			ARBOR_NO_BROWSER: "1",
			...testRunEnv(),
			...env,
		},
		stdio: ["ignore", "pipe", "pipe"],
		detached: true,
	});
	children.push(child);
	let stdout = "";
	let stderr = "";
	child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
	child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
	const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
	const waitFor = (re: RegExp): Promise<RegExpMatchArray> =>
		new Promise((ok, fail) => {
			const check = (): void => {
				const m = stdout.match(re);
				if (m) {
					child.stdout?.off("data", check);
					ok(m);
				}
			};
			child.stdout?.on("data", check);
			check();
			void exited.then((code) => fail(new Error(`start.mjs exited (${code}) before printing ${re}:\n${stdout}\n${stderr}`)));
		});
	return { child, home, exited, waitFor, out: () => stdout, err: () => stderr };
}

describe("npm start without an Electron binary", () => {
	it("says why in one line, then serves Arbor through the browser host on the sample (URL printed)", async () => {
		const noBinary = mkdtempSync(join(tmpdir(), "arbor-no-electron-"));
		const s = start([], { ELECTRON_OVERRIDE_DIST_PATH: noBinary });
		const [, url] = await s.waitFor(/Arbor is serving on (http:\/\/127\.0\.0\.1:\d+\/\S*)/);
		const lines = s.err().split("\n").filter(Boolean);
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatch(/^Arbor: .*Electron binary.*; opening Arbor in your browser instead/);
		expect(s.err()).not.toMatch(/\n\s+at /); // no stack trace
		const page = await fetch(url);
		expect(page.status).toBe(200);
		expect(page.headers.get("content-type")).toMatch(/text\/html/);
		// The sample it serves is the dev app's one copy, not the repo's file.
		expect(existsSync(join(s.home, ".config", "Arbor Dev", "sample", "sample-session.jsonl"))).toBe(true);
		s.child.kill("SIGTERM");
		expect(await s.exited).toBe(0);
	});

	it("serves the file given after `npm start --` instead of the sample", async () => {
		const dir = mkdtempSync(join(tmpdir(), "arbor-start-"));
		const file = join(dir, "mine.jsonl");
		copyFileSync(join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), file);
		const s = start([file], { ELECTRON_OVERRIDE_DIST_PATH: mkdtempSync(join(tmpdir(), "arbor-no-electron-")) });
		await s.waitFor(/Arbor is serving on http/);
		expect(existsSync(join(s.home, ".config", "Arbor Dev", "sample"))).toBe(false);
		const settings = JSON.parse(readFileSync(join(s.home, ".arbor", "settings.json"), "utf8")) as { recentFiles: string[] };
		expect(settings.recentFiles).toEqual([file]);
	});
});

describe("npm start with an Electron binary", () => {
	it("starts the desktop app: the binary gets dist/main.cjs and the user's files", async () => {
		const dist = mkdtempSync(join(tmpdir(), "arbor-electron-dist-"));
		const record = join(dist, "argv.txt");
		mkdirSync(dist, { recursive: true });
		writeFileSync(join(dist, "electron"), `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}'\nexit 3\n`);
		chmodSync(join(dist, "electron"), 0o755);
		const s = start(["some.jsonl"], { ELECTRON_OVERRIDE_DIST_PATH: dist });
		expect(await s.exited).toBe(3); // the app's exit code is npm start's
		expect(readFileSync(record, "utf8").split("\n").filter(Boolean)).toEqual([join(repoRoot, "dist", "main.cjs"), "some.jsonl"]);
		expect(s.err()).toBe("");
	});
});
