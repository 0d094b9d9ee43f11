// How live pis come and go around an open session (docs/live.md "Several pis, several windows"): a pi that
// starts later is picked up by watching the registration folder; of two pis on one file the newest is
// steered and the other named; two Arbor clients on one pi both hear it; a pi that exits (even mid-turn)
// leaves the session in file mode, and requests act on the file again without an error.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ArborEvent } from "../../../../shared/api";
import { ArborServices } from "../../arbor-services";
import { type RealPi, startRealPi } from "../helpers/real-pi";

const EXTENSION = path.resolve(import.meta.dirname, "../../../../pi-extension/index.ts");
const started: RealPi[] = [];
const services: ArborServices[] = [];

afterAll(async () => {
	for (const s of services) s.dispose();
	for (const p of started) await p.stop();
});

async function until<T>(what: string, f: () => T | undefined | null | false, timeoutMs = 30_000): Promise<T> {
	const end = Date.now() + timeoutMs;
	for (;;) {
		const v = f();
		if (v) return v;
		if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 25));
	}
}

type LiveStateEvent = Extract<ArborEvent, { type: "live_state" }>;

describe("live pis coming and going", () => {
	it("picks up a later pi, prefers the newest of two, serves two clients, and falls back to the file when pis exit", async () => {
		// ARBOR_APP stands for the desktop app: a script that records what /arbor asked it to open.
		const tools = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-app-"));
		const app = path.join(tools, "arbor-app.sh");
		const record = path.join(tools, "opened.txt");
		fs.writeFileSync(app, `#!/bin/sh\nprintf '%s' "$1" > '${record}'\n`, { mode: 0o755 });
		const a = await startRealPi({ args: ["-e", EXTENSION], answer: "Answer A.", env: { ARBOR_APP: app } });
		started.push(a);
		await a.prompt("hello");
		const file = await a.sessionFile();
		// /arbor opens the session's file in Arbor.
		await a.send({ type: "prompt", message: "/arbor" });
		expect(await until("/arbor opened the app", () => fs.existsSync(record) && fs.readFileSync(record, "utf8"))).toBe(file);
		fs.rmSync(tools, { recursive: true, force: true });
		const leaf = (await a.entries()).leafId!;
		const opts = { settingsDir: path.join(a.home, ".arbor"), piAgentDir: a.agentDir, pollMs: 50 };
		const one = new ArborServices(opts);
		const two = new ArborServices(opts);
		services.push(one, two);
		const ev1: ArborEvent[] = [];
		const ev2: ArborEvent[] = [];
		one.onEvent((e) => ev1.push(e));
		two.onEvent((e) => ev2.push(e));
		const s1 = await one.openSession({ path: file });
		const s2 = await two.openSession({ path: file });
		const pidA = s1.live!.pid;
		expect(s2.live?.pid).toBe(pidA);

		// A second pi on the same file (same HOME, so the same registration folder) starts later.
		const b = await startRealPi({ args: ["-e", EXTENSION], session: file, cwd: a.cwd, env: { HOME: a.home, PI_CODING_AGENT_DIR: a.agentDir } });
		started.push(b);
		const toB = await until("the newer pi steered", () =>
			ev1.find((e): e is LiveStateEvent => e.type === "live_state" && e.live !== null && e.live.pid !== pidA && e.live.otherPids.includes(pidA)),
		);
		const pidB = toB.live!.pid;
		await until("the second client follows too", () => ev2.some((e) => e.type === "live_state" && e.live?.pid === pidB));

		// Client one steers pi B; client two hears pi B's broadcast of the move.
		const parent = (await b.entries()).entries.find((e) => e.id === leaf)!.parentId!;
		const r = await one.navigate({ sessionId: s1.sessionId, targetId: parent });
		expect(r).toMatchObject({ via: "pi", pid: pidB });
		await until("client two sees pi B's leaf move", () => ev2.some((e) => e.type === "live_state" && e.live?.pid === pidB && e.live.leafId === r.newLeafId));

		// pi B dies mid-turn (killed: no goodbye): the pending send fails with a plain message, the session goes
		// back to pi A. (A pi that quits normally ends the turn as aborted and answers first.)
		b.server.setScenario({ kind: "hang" });
		const pending = one.send({ sessionId: s1.sessionId, text: "never answered", wait: "end" }).catch((e: unknown) => e);
		await until("pi B streaming", () => ev1.some((e) => e.type === "live_state" && e.live?.pid === pidB && e.live.status === "streaming"));
		process.kill(pidB, "SIGKILL");
		const err = (await pending) as { code?: string; message?: string };
		expect(err).toMatchObject({ code: "conflict", message: expect.stringMatching(/went away/) });
		await b.stop();
		const backToA = await until("back to pi A", () => ev1.find((e, i) => i > ev1.indexOf(toB) && e.type === "live_state" && e.live?.pid === pidA));
		expect((backToA as LiveStateEvent).live?.otherPids).toEqual([]);

		// pi A quits (SIGTERM: pi's own exit, its goodbye on the channel): file mode, with the reason; requests act
		// on the file, with no error event anywhere. (stop() in afterAll: it deletes the temp home and the file.)
		process.kill(pidA, "SIGTERM");
		const gone = await until(
			"file mode",
			() => ev1.find((e, i) => i > ev1.indexOf(backToA) && e.type === "live_state" && e.live === null && e.reason) as LiveStateEvent | undefined,
		);
		expect(gone.reason).toMatch(/Arbor acts on the file/);
		await until("client two in file mode", () => (ev2.filter((e) => e.type === "live_state").at(-1) as LiveStateEvent | undefined)?.live === null);
		expect(await two.getLiveState({ sessionId: s2.sessionId })).toBeNull();
		expect(await one.getLiveState({ sessionId: s1.sessionId })).toBeNull();
		const n = await one.navigate({ sessionId: s1.sessionId, targetId: leaf });
		expect(n).toMatchObject({ via: "file", cancelled: false });
		await expect(two.abort({ sessionId: s2.sessionId })).rejects.toMatchObject({ code: "no_live_agent" });
		expect([...ev1, ...ev2].filter((e) => e.type === "error")).toEqual([]);
	}, 240_000);
});
