// `/arbor` with a stale ~/.arbor/host.json (issue 39): the record's pid is alive (this process) and a fake listens
// on its port, answering as a control door would. The real /arbor (openInArbor: it starts this install's `arbor
// serve --exit-when-idle FILE`) must send that port no byte of the secret and not the session's path, and the
// notice pi shows must carry the new host's URL, never the dead one's. The host it starts is stopped at the end.
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fakeListener, http200 } from "../../electron/cli/test/fake-host";
import { buildCli, fixtures } from "../../electron/cli/test/helpers";
import { openInArbor } from "../open-arbor";

/** The record `arbor serve` keeps (electron/cli/shared-host.ts), read as the file it is. */
const recordIn = (arborDir: string): { pid: number; port: number; url: string } | null => {
	try {
		return JSON.parse(readFileSync(join(arborDir, "host.json"), "utf8")) as { pid: number; port: number; url: string };
	} catch {
		return null;
	}
};

const saved = { HOME: process.env.HOME, PATH: process.env.PATH, APP: process.env.ARBOR_APP, PI: process.env.PI_CODING_AGENT_DIR };
const cleanups: (() => void)[] = [];
afterEach(() => {
	for (const c of cleanups.splice(0)) c();
	for (const [k, v] of [
		["HOME", saved.HOME],
		["PATH", saved.PATH],
		["ARBOR_APP", saved.APP],
		["PI_CODING_AGENT_DIR", saved.PI],
	] as const)
		if (v === undefined) delete process.env[k];
		else process.env[k] = v;
});

describe.skipIf(process.platform === "win32")("/arbor and a stale host record", () => {
	it("sends the recorded port only a nonce and shows the new host's URL", async () => {
		buildCli();
		const home = mkdtempSync(join(tmpdir(), "arbor-stale-arbor-"));
		const arborDir = join(home, ".arbor");
		mkdirSync(arborDir, { mode: 0o700 });
		const session = join(home, "private-project-name.jsonl");
		copyFileSync(join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), session);
		const fake = await fakeListener(() => http200({ opened: [session], failed: [], pages: 1, shown: false }));
		cleanups.push(() => fake.server.close());
		const secret = randomBytes(32).toString("base64url");
		const deadUrl = `http://127.0.0.1:${fake.port}/#token=DEAD-HOST-TOKEN`;
		writeFileSync(join(arborDir, "host.json"), JSON.stringify({ pid: process.pid, port: fake.port, url: deadUrl, secret }), { mode: 0o600 });
		process.env.HOME = home;
		process.env.PI_CODING_AGENT_DIR = join(home, ".pi", "agent");
		delete process.env.ARBOR_APP;
		// No browser opener on PATH: the host prints its URL and opens nothing.
		process.env.PATH = join(home, "no-bin");

		const notice = await openInArbor(session);
		const fresh = recordIn(arborDir);
		if (fresh) cleanups.push(() => process.kill(fresh.pid, "SIGTERM"));
		expect(fresh?.port).not.toBe(fake.port);
		expect(notice).toEqual({ text: expect.stringContaining(`is open at ${fresh?.url}\n`), level: "info" });
		expect(notice.text).not.toContain("DEAD-HOST-TOKEN");

		const text = fake.received().toString("latin1");
		expect(fake.requests()).toBe(1);
		expect(text).toMatch(/^POST \/control\/hello HTTP\/1\.1\r\n/);
		for (let i = 0; i + 8 <= secret.length; i++) expect(text).not.toContain(secret.slice(i, i + 8));
		expect(text).not.toContain("private-project-name");
	}, 90_000);
});
