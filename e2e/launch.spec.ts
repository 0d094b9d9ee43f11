// The launch as a user gets it, on every path that opens a browser: `arbor serve FILE`, the `npm start`
// fallback (no Electron binary) and `/arbor` typed in a real pi 1.6 (Node 24, Arbor's extension). A stand-in
// `xdg-open` records what it is handed; Chromium then loads exactly that, and the page must end on Arbor's
// graph (live when pi is), never on the host's 403 page. The argument never carries the token: every local
// user can read a command line.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { type LlmServer, startLlmServer } from "../electron/services/test/helpers/llm-server";
import { type RealPi, startRealPi } from "../electron/services/test/helpers/real-pi";
import { shot } from "./helpers/app";
import { fixturesDir, repoRoot, tempCopy } from "./helpers/host";
import { browserAddress, fakeOpener } from "./helpers/opener";

const EXTENSION = join(repoRoot, "pi-extension", "index.ts");
const SAMPLE = join(repoRoot, "build", "sample-session.jsonl");

const procs: ChildProcess[] = [];
const pids: number[] = [];
let pi: RealPi | undefined;
let llm: LlmServer | undefined;
test.afterEach(async () => {
	for (const p of procs.splice(0)) {
		if (p.exitCode !== null || p.signalCode !== null) continue;
		const gone = new Promise((ok) => p.once("exit", ok));
		p.kill("SIGTERM");
		await gone;
	}
	for (const pid of pids.splice(0)) {
		try {
			process.kill(pid, "SIGTERM");
		} catch {}
	}
	await pi?.stop();
	await llm?.close();
	pi = llm = undefined;
});

function run(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
	const p = spawn(process.execPath, args, { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
	procs.push(p);
	return p;
}

/** Load what the opener was handed, as the browser would, and wait for Arbor's graph (or fail on an error page). */
async function landsOnArbor(page: Page, arg: string): Promise<void> {
	const errors: string[] = [];
	page.on("pageerror", (e) => errors.push(e.message));
	await page.goto(browserAddress(arg));
	const graph = page.locator(".react-flow__node").first();
	const forbidden = page.getByText(/403|Forbidden/);
	await expect(graph.or(forbidden)).toBeVisible({ timeout: 60_000 });
	if ((await forbidden.count()) > 0) throw new Error(`the browser landed on an error page: ${await page.locator("body").innerText()}`);
	expect(page.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
	expect(errors).toEqual([]);
}

test("arbor serve FILE: the page the browser is opened on ends on Arbor's graph", async ({ page }) => {
	const opener = fakeOpener();
	const home = mkdtempSync(join(tmpdir(), "arbor-home-"));
	const file = tempCopy(SAMPLE);
	run([join(repoRoot, "bin", "arbor.cjs"), "serve", file, "--port", "0"], { HOME: home, PATH: opener.path });
	const { arg } = await opener.nth(1);
	expect(arg).not.toMatch(/token/);
	await landsOnArbor(page, arg);
	await shot(page, "launch-serve");
});

test("a second arbor serve FILE while the first serves, with no page open: the running host opens the browser on both sessions", async ({ page }) => {
	const opener = fakeOpener();
	const home = mkdtempSync(join(tmpdir(), "arbor-home-"));
	const [a, b] = [tempCopy(SAMPLE), tempCopy(join(fixturesDir, "formic__pi-v3-branch-compaction.jsonl"))];
	run([join(repoRoot, "bin", "arbor.cjs"), "serve", a, "--no-open"], { HOME: home, PATH: opener.path });
	await expect.poll(() => existsSync(join(home, ".arbor", "host.json")), { timeout: 30_000 }).toBe(true);
	const second = run([join(repoRoot, "bin", "arbor.cjs"), "serve", b], { HOME: home, PATH: opener.path });
	expect(await new Promise((ok) => second.once("exit", ok))).toBe(0);
	// The first host (not the second process, which has exited) started the opener.
	const { arg, callerPid } = await opener.nth(1);
	expect(callerPid).toBe(procs[0].pid);
	expect(arg).not.toMatch(/token/);
	await landsOnArbor(page, arg);
	await expect(page.getByTestId("session-tab")).toHaveCount(2);
});

test("npm start without Electron's binary: the browser fallback's page ends on Arbor's graph", async ({ page }) => {
	const opener = fakeOpener();
	const home = mkdtempSync(join(tmpdir(), "arbor-home-"));
	const noElectron = mkdtempSync(join(tmpdir(), "arbor-no-electron-"));
	const file = tempCopy(SAMPLE);
	run([join(repoRoot, "scripts", "start.mjs"), file], { HOME: home, PATH: opener.path, ELECTRON_OVERRIDE_DIST_PATH: noElectron, ARBOR_NO_BROWSER: "" });
	const { arg } = await opener.nth(1);
	expect(arg).not.toMatch(/token/);
	await landsOnArbor(page, arg);
});

test("/arbor in a real pi 1.6: the page the browser is opened on shows the session live", async ({ page }) => {
	const opener = fakeOpener();
	llm = await startLlmServer({ kind: "stream", chunks: ["Loopback answer."] });
	const file = tempCopy(SAMPLE);
	pi = await startRealPi({ server: llm, session: file, rehome: true, args: ["-e", EXTENSION], env: { PATH: opener.path } });
	await pi.send({ type: "prompt", message: "/arbor" });
	const { arg, callerPid } = await opener.nth(1);
	pids.push(callerPid);
	expect(arg).not.toMatch(/token/);
	await landsOnArbor(page, arg);
	await expect(page.getByTestId("live-badge")).toContainText("pi 1.6.0", { timeout: 30_000 });
	await shot(page, "launch-pi");
});
