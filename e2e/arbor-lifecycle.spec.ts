// `/arbor`'s lifecycle with real pi 1.6 (Node 24, Arbor's extension) and a stand-in `xdg-open` (issue #27):
// one browser host per user, reused by a second pi's /arbor (its session arrives as a new tab in the open
// page, no second browser launch), the URL in pi's notice, and a host that stops by itself once no page and
// no live pi has used it (ARBOR_IDLE_MINUTES, short here). A new session with no file yet opens once pi has written it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { type LlmServer, startLlmServer } from "../electron/services/test/helpers/llm-server";
import { type PiRecord, type RealPi, startRealPi } from "../electron/services/test/helpers/real-pi";
import { shot } from "./helpers/app";
import { fixturesDir, repoRoot, tempCopy } from "./helpers/host";
import { browserAddress, fakeOpener } from "./helpers/opener";

const EXTENSION = join(repoRoot, "pi-extension", "index.ts");
/** 3 seconds: the host checks every 0.75 s. */
const IDLE_MINUTES = "0.05";

const pis: RealPi[] = [];
const hosts: number[] = [];
let llm: LlmServer | undefined;
test.afterEach(async () => {
	for (const pid of hosts.splice(0)) {
		try {
			process.kill(pid, "SIGTERM");
		} catch {}
	}
	for (const p of pis.splice(0)) await p.stop();
	await llm?.close();
	llm = undefined;
});

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** pi's notices (ctx.ui.notify reaches an RPC client as an extension_ui_request). */
async function notice(pi: RealPi, from: number): Promise<string> {
	const r = await pi.waitFor("extension_ui_request", (x: PiRecord) => x.method === "notify", { from, timeoutMs: 60_000 });
	return String(r.message);
}

test("two pis' /arbor share one host: the second session is a new tab, the URL is in pi's notice, the host stops once unused", async ({ page }) => {
	const opener = fakeOpener();
	llm = await startLlmServer({ kind: "stream", chunks: ["Loopback answer."] });
	const env = { PATH: opener.path, ARBOR_IDLE_MINUTES: IDLE_MINUTES };
	const a = await startRealPi({ server: llm, session: tempCopy(join(repoRoot, "build", "sample-session.jsonl")), rehome: true, args: ["-e", EXTENSION], env });
	pis.push(a);
	let from = a.records.length;
	await a.send({ type: "prompt", message: "/arbor" });
	const first = await notice(a, from);
	const url = /http:\/\/127\.0\.0\.1:\d+\/#token=[\w-]+/.exec(first)?.[0];
	expect(url, first).toBeTruthy();
	const { arg, callerPid: hostPid } = await opener.nth(1);
	hosts.push(hostPid);
	expect(arg).not.toContain(new URL(url!).hash.slice(1));
	await page.goto(browserAddress(arg));
	await expect(page.getByTestId("live-badge")).toContainText("pi 1.6.0", { timeout: 60_000 });
	expect(existsSync(join(a.home, ".arbor", "host.json"))).toBe(true);

	// A second pi of the same user: its /arbor reuses the host; its session opens as a tab in the page.
	const b = await startRealPi({
		server: llm,
		session: tempCopy(join(fixturesDir, "formic__pi-v3-branch-compaction.jsonl")),
		rehome: true,
		cwd: a.cwd,
		args: ["-e", EXTENSION],
		env: { ...env, HOME: a.home, PI_CODING_AGENT_DIR: a.agentDir },
	});
	pis.push(b);
	from = b.records.length;
	await b.send({ type: "prompt", message: "/arbor" });
	const second = await notice(b, from);
	expect(second).toContain(url);
	expect(second).toMatch(/new tab/);
	await expect(page.getByTestId("session-tab")).toHaveCount(2, { timeout: 30_000 });
	await expect(page.getByTestId("status-file")).toContainText("formic__pi-v3-branch-compaction.jsonl");
	await expect(page.getByTestId("live-badge")).toContainText("pi 1.6.0", { timeout: 30_000 });
	await shot(page, "arbor-second-tab");
	expect(opener.launches()).toHaveLength(1);

	// No page, but live pis: the host stays (checked over more than two idle periods).
	await page.close();
	await new Promise((r) => setTimeout(r, 7_000));
	expect(alive(hostPid)).toBe(true);
	// The pis quit: nothing uses the host any more, and it stops by itself, removing its record.
	await a.stop();
	await b.stop();
	await expect.poll(() => alive(hostPid), { timeout: 60_000 }).toBe(false);
	expect(existsSync(join(a.home, ".arbor", "host.json"))).toBe(false);
});

test("/arbor on a new session with no file yet: it says it will open, then opens the session once pi's first answer wrote it (issue 38)", async ({ page }) => {
	const opener = fakeOpener();
	llm = await startLlmServer({ kind: "stream", chunks: ["Loopback answer."] });
	const pi = await startRealPi({ server: llm, args: ["-e", EXTENSION], env: { PATH: opener.path, ARBOR_IDLE_MINUTES: IDLE_MINUTES } });
	pis.push(pi);
	let from = pi.records.length;
	await pi.send({ type: "prompt", message: "/arbor" });
	expect(await notice(pi, from)).toMatch(/^Arbor: this session has no file until pi's first answer; Arbor opens it as soon as pi writes it/);
	// A second /arbor while it waits: said again, still one open later.
	from = pi.records.length;
	await pi.send({ type: "prompt", message: "/arbor" });
	expect(await notice(pi, from)).toMatch(/opens it as soon as pi writes it/);
	expect(opener.launches()).toEqual([]);
	from = pi.records.length;
	await pi.send({ type: "prompt", message: "Hello there" });
	const opened = await notice(pi, from);
	expect(opened).toMatch(/^Arbor: .*\.jsonl is open at http:\/\/127\.0\.0\.1:\d+\//);
	const { arg, callerPid } = await opener.nth(1);
	hosts.push(callerPid);
	await page.goto(browserAddress(arg));
	await expect(page.getByTestId("live-badge")).toContainText("pi 1.6.0", { timeout: 60_000 });
	await expect(page.locator(".react-flow__node").filter({ hasText: "Hello there" }).first()).toBeVisible({ timeout: 30_000 });
	// A later turn opens nothing more.
	from = pi.records.length;
	await pi.send({ type: "prompt", message: "Once more" });
	await pi.waitFor("agent_end", () => true, { from, timeoutMs: 60_000 });
	expect(opener.launches()).toHaveLength(1);
	await shot(page, "arbor-first-open");
});
