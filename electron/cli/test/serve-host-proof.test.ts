// A stale ~/.arbor/host.json (issue 39): its host was killed, its pid now belongs to a live process and its
// port to whatever listens there. A later `arbor serve FILE` (and so `/arbor`) sends that port a random nonce
// and nothing else: no secret byte, no session path. A listener that cannot prove it holds the secret (every
// way a fake can answer: silence, garbage, an echo, a door's answer, a proof relayed from another port) is a
// host that is gone: a new host starts, its URL (never the dead one) is printed and recorded. A real host
// proves itself and takes the file; a real `arbor serve` stopped by SIGHUP (as when its terminal closes)
// removes its record, as on SIGTERM and SIGINT.
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { hostProof, newNonce } from "../../hosts/browser/control";
import { runServe } from "../serve";
import { forgetHostRecord, HOST_RECORD, type HostRecord, newControlSecret, proveHost, readHostRecord } from "../shared-host";
import { type Answer, fakeListener, http200, nonceIn } from "./fake-host";
import { arborAsync, buildCli, fixtures, repo } from "./helpers";

function homeWithSession(): { home: string; arborDir: string; session: string } {
	const home = mkdtempSync(join(tmpdir(), "arbor-host-proof-"));
	const arborDir = join(home, ".arbor");
	mkdirSync(arborDir, { mode: 0o700 });
	const session = join(home, "private-project-name.jsonl");
	copyFileSync(join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), session);
	return { home, arborDir, session };
}

function writeRecord(arborDir: string, record: HostRecord): void {
	writeFileSync(join(arborDir, HOST_RECORD), JSON.stringify(record), { mode: 0o600 });
}

const saved = { HOME: process.env.HOME, PI: process.env.PI_CODING_AGENT_DIR };
const servers: Server[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
	process.env.HOME = saved.HOME;
	if (saved.PI === undefined) delete process.env.PI_CODING_AGENT_DIR;
	else process.env.PI_CODING_AGENT_DIR = saved.PI;
	vi.restoreAllMocks();
	for (const s of servers.splice(0)) s.close();
	for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

describe("a stale host record whose pid is alive and whose port someone else listens on", () => {
	const secret = newControlSecret();
	const fakes: [string, Answer][] = [
		["closes without an answer", () => null],
		["answers 200 with a made-up proof", () => http200({ proof: newNonce(), nonce: newNonce() })],
		["echoes the client's nonce as the proof", (r) => http200({ proof: nonceIn(r), nonce: nonceIn(r) })],
		["answers every request as a control door would", () => http200({ opened: ["/x"], failed: [], pages: 1, shown: false })],
		// A relay to a real host on another port holding the same secret gets that host's proof, bound to its port.
		["relays a real host's proof from another port", (r) => http200({ proof: hostProof(secret, 1, nonceIn(r)), nonce: newNonce() })],
	];

	for (const [how, answer] of fakes)
		it(`gets a nonce and nothing else when the listener ${how}; a new host starts and its URL is shown`, async () => {
			const { home, arborDir, session } = homeWithSession();
			process.env.HOME = home;
			process.env.PI_CODING_AGENT_DIR = join(home, ".pi", "agent");
			const fake = await fakeListener(answer);
			servers.push(fake.server);
			const dead: HostRecord = { pid: process.pid, port: fake.port, url: `http://127.0.0.1:${fake.port}/#token=DEAD-HOST-TOKEN`, secret };
			writeRecord(arborDir, dead);
			let out = "";
			let err = "";
			vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
			vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));

			const serving = runServe([session, "--no-open"]);
			try {
				await vi.waitFor(() => expect(out).toContain("Arbor is serving on"), { timeout: 20_000 });
				// What the listener got: one hello with a random nonce. No byte of the secret, no session path or name.
				const got = fake.received();
				const text = got.toString("latin1");
				for (const needle of [
					secret,
					Buffer.from(secret, "base64url").toString("hex"),
					Buffer.from(secret, "base64url").toString("base64"),
					session,
					"private-project-name",
				])
					expect(text).not.toContain(needle);
				// Not even a part of the secret: no 8-character piece of it appears.
				for (let i = 0; i + 8 <= secret.length; i++) expect(text).not.toContain(secret.slice(i, i + 8));
				expect(text).not.toMatch(/authorization/i);
				expect(fake.requests()).toBe(1);
				expect(text).toMatch(/^POST \/control\/hello HTTP\/1\.1\r\n/);
				expect(got.length).toBeLessThan(400);

				const fresh = readHostRecord(arborDir);
				expect(fresh).not.toBeNull();
				expect(fresh?.port).not.toBe(fake.port);
				expect(fresh?.secret).not.toBe(secret);
				// The user sees the new host's URL only, never the dead one's.
				expect(out).toContain(`Arbor is serving on ${fresh?.url}\n`);
				expect(out + err).not.toContain("DEAD-HOST-TOKEN");
				expect(err).toContain(`the host recorded in host.json (pid ${process.pid}) is gone; starting a new one`);
			} finally {
				process.emit("SIGTERM");
			}
			expect(await serving).toBe(0);
			expect(existsSync(join(arborDir, HOST_RECORD))).toBe(false);
		});
});

describe("forgetting a record", () => {
	const record = (port: number): HostRecord => ({ pid: process.pid, port, url: `http://127.0.0.1:${port}/#token=t`, secret: newControlSecret() });

	it("removes it only while it is the same record and the user's own file", () => {
		const { arborDir } = homeWithSession();
		const file = join(arborDir, HOST_RECORD);
		const old = record(1);
		writeRecord(arborDir, old);
		forgetHostRecord(arborDir, old);
		expect(existsSync(file)).toBe(false);
		// A newer host replaced it since it was read: the newer one stays, byte for byte.
		const newer = record(2);
		writeRecord(arborDir, newer);
		const bytes = readFileSync(file, "utf8");
		forgetHostRecord(arborDir, old);
		expect(readFileSync(file, "utf8")).toBe(bytes);
		// The same record, but open to others (not the file Arbor writes): kept, and not trusted either.
		writeRecord(arborDir, old);
		chmodSync(file, 0o644);
		expect(readHostRecord(arborDir)).toBeNull();
		forgetHostRecord(arborDir, old);
		expect(existsSync(file)).toBe(true);
		// Nothing recorded: nothing happens.
		forgetHostRecord(join(arborDir, "missing"), old);
	});
});

describe.skipIf(process.platform === "win32")("a real arbor serve", () => {
	it("proves itself to the challenge, takes a later serve's file, and removes its record on SIGHUP", async () => {
		buildCli();
		const { home, arborDir, session } = homeWithSession();
		const env = { HOME: home, PI_CODING_AGENT_DIR: join(home, ".pi", "agent"), ARBOR_NO_BROWSER: "1" };
		const child = spawn(process.execPath, [join(repo, "bin", "arbor.cjs"), "serve", session, "--no-open"], {
			env: { ...process.env, ...env },
			stdio: "ignore",
		});
		children.push(child);
		const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok) => child.on("exit", (code, signal) => ok({ code, signal })));
		await vi.waitFor(() => expect(readHostRecord(arborDir)?.pid).toBe(child.pid), { timeout: 30_000 });
		const record = readHostRecord(arborDir) as HostRecord;
		expect(await proveHost(record)).toMatch(/^[A-Za-z0-9_-]{43}$/);
		// The same port with another secret (a record that is not this host's) fails the proof.
		expect(await proveHost({ ...record, secret: newControlSecret() })).toBeNull();

		const second = await arborAsync(["serve", session, "--no-open"], env);
		expect(second.status, second.stderr).toBe(0);
		expect(second.stdout).toContain(`Arbor is serving on ${record.url}\n(already running for you, pid ${child.pid}`);

		child.kill("SIGHUP");
		expect(await exited).toEqual({ code: 0, signal: null });
		expect(existsSync(join(arborDir, HOST_RECORD))).toBe(false);
	}, 90_000);
});
