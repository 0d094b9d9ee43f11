// Where the extension puts its socket (docs/live.md "Security"): ~/.arbor/live while the path fits the
// system's socket path limit, else the user's private runtime folder, never the shared temp folder; and the
// temp folders older extensions left there are removed safely.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LiveConnection } from "../../electron/services/live/connection";
import { registrationsFor } from "../../electron/services/live/registry";
import { sweepOldTempSocketFolders } from "../../shared-node/live-files";
import { LiveChannel } from "../channel";
import { IDLE_STATE, stateOnly } from "./helpers/state-only";

const client = { name: "arbor-test", version: "0" };
let tmp: string;
let servers: net.Server[] = [];
const state = IDLE_STATE;

beforeEach(() => {
	tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-place-"));
});
afterEach(() => {
	for (const s of servers) s.close();
	servers = [];
	fs.rmSync(tmp, { recursive: true, force: true });
});

describe.skipIf(process.platform === "win32")("the socket's place with a long HOME", () => {
	let saved: Record<string, string | undefined>;
	let channel: LiveChannel | null = null;
	const requests = stateOnly(state);
	const open = () =>
		LiveChannel.open(
			{ welcome: () => ({ agent: "pi", agentVersion: "1.6.0", extensionVersion: "1", capabilities: [], state }), requests },
			{ agent: "pi", agentVersion: "1.6.0", extensionVersion: "1" },
		);
	beforeEach(() => {
		saved = { HOME: process.env.HOME, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR };
	});
	afterEach(() => {
		channel?.close("over");
		channel = null;
		for (const [k, v] of Object.entries(saved)) {
			if (v === undefined) delete process.env[k];
			else process.env[k] = v;
		}
	});
	const tempSocketFolders = () => fs.readdirSync(os.tmpdir()).filter((n) => /^arbor-live-[A-Za-z0-9]{6}$/.test(n));

	it("keeps the socket in ~/.arbor/live while its path fits the system's limit (an 82-character HOME on Linux)", async () => {
		const room = (process.platform === "linux" ? 107 : 103) - "/.arbor/live/".length - `${process.pid}.sock`.length;
		const home = path.join(tmp, "h".repeat(room - tmp.length - 1));
		fs.mkdirSync(home, { recursive: true });
		process.env.HOME = home;
		delete process.env.XDG_RUNTIME_DIR;
		channel = await open();
		expect(channel.socket).toBe(path.join(home, ".arbor", "live", `${process.pid}.sock`));
		expect(Buffer.byteLength(channel.socket)).toBe(process.platform === "linux" ? 107 : 103);
	});

	it("puts no socket in the shared temp folder: the private runtime folder when ~/.arbor/live is too long, else no channel", async () => {
		const home = path.join(tmp, "h".repeat(100 - tmp.length));
		fs.mkdirSync(home, { recursive: true });
		process.env.HOME = home;
		delete process.env.XDG_RUNTIME_DIR;
		const before = tempSocketFolders();
		await expect(open()).rejects.toThrow(/longer than the system allows .* set XDG_RUNTIME_DIR/);
		expect(tempSocketFolders()).toEqual(before);

		const runtime = fs.mkdtempSync(path.join(os.tmpdir(), "rt-"));
		try {
			process.env.XDG_RUNTIME_DIR = runtime;
			channel = await open();
			channel.register(path.join(home, "s.jsonl"));
			expect(channel.socket).toBe(path.join(runtime, "arbor", `${process.pid}.sock`));
			expect(fs.statSync(path.join(runtime, "arbor")).mode & 0o777).toBe(0o700);
			const [reg] = registrationsFor(path.join(home, ".arbor", "live"), path.join(home, "s.jsonl"));
			const conn = await LiveConnection.connect(reg!, client);
			expect(await conn.request({ name: "state" })).toEqual(state);
			conn.close();
			expect(tempSocketFolders()).toEqual(before);
		} finally {
			channel?.close("over");
			channel = null;
			fs.rmSync(runtime, { recursive: true, force: true });
		}
	});

	it("removes an older extension's arbor-live-XXXXXX temp folder once its pi is gone, and nothing else", async () => {
		const scratch = path.join(tmp, "scratch-tmp");
		fs.mkdirSync(scratch);
		// A pi that listened there and died without cleaning up (its socket stays).
		const stale = path.join(scratch, "arbor-live-AbC123");
		fs.mkdirSync(stale, { mode: 0o700 });
		const dead = spawn(process.execPath, [
			"-e",
			`require("net").createServer().listen(${JSON.stringify(path.join(stale, "PID.sock"))}, () => process.kill(process.pid, "SIGKILL"))`,
		]);
		await new Promise((r) => dead.once("exit", r));
		fs.renameSync(path.join(stale, "PID.sock"), path.join(stale, `${dead.pid}.sock`));
		// Look-alikes that are not such folders: a file inside, a live pid, a name of another shape.
		const other = path.join(scratch, "arbor-live-Zz9999");
		fs.mkdirSync(other);
		fs.writeFileSync(path.join(other, "notes.txt"), "mine");
		const alive = path.join(scratch, "arbor-live-Alive1");
		fs.mkdirSync(alive);
		const server = net.createServer();
		servers.push(server);
		await new Promise<void>((r) => server.listen(path.join(alive, `${process.pid}.sock`), r));
		fs.mkdirSync(path.join(scratch, "arbor-live-toolongname"));
		expect(sweepOldTempSocketFolders(scratch)).toBe(1);
		expect(fs.readdirSync(scratch).sort()).toEqual(["arbor-live-Alive1", "arbor-live-Zz9999", "arbor-live-toolongname"]);
	});
});
