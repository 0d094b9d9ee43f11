// Where the extension puts its socket (docs/live.md "Security"): ~/.arbor/live while the path fits the
// system's socket path limit, else the user's private runtime folder, never the shared temp folder; and the
// temp folders older extensions left there are removed safely.

import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LiveConnection } from "../../electron/services/live/connection";
import { registrationsFor } from "../../electron/services/live/registry";
import type { LiveRegistration } from "../../shared/live";
import {
	fitsSocketPath,
	removeRegistration,
	socketFolders,
	socketProblem,
	sweepOldTempSocketFolders,
	sweepRegistrations,
	writeRegistration,
} from "../../shared-node/live-files";
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

// The registration files both ends read and write (shared-node/live-files.ts), on real folders and sockets.
describe.skipIf(process.platform === "win32")("registrations and sockets on disk", () => {
	const dead = (): number => {
		const r = spawnSync(process.execPath, ["-e", ""]);
		return r.pid as number;
	};
	const reg = (pid: number, socket = `${pid}.sock`): LiveRegistration => ({
		protocol: 1,
		pid,
		agent: "pi",
		agentVersion: "1.6.0",
		extensionVersion: "1",
		sessionFile: null,
		socket,
		secret: "s",
		startedAt: 1,
	});
	let live: string;
	beforeEach(() => {
		live = path.join(tmp, "live");
		fs.mkdirSync(live, { mode: 0o700 });
		fs.chmodSync(live, 0o700);
	});
	const old = (file: string) => fs.utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

	it("fitsSocketPath: the system's limit in bytes, on both sides", () => {
		const max = process.platform === "linux" ? 107 : 103;
		expect(fitsSocketPath("/".repeat(max))).toBe(true);
		expect(fitsSocketPath("/".repeat(max + 1))).toBe(false);
		// Bytes, not characters: a 2-byte character counts twice.
		expect(fitsSocketPath(`/${"é".repeat((max - 1) / 2)}`)).toBe(max % 2 === 1);
		expect(fitsSocketPath(`/${"é".repeat(max)}`)).toBe(false);
	});

	it("writeRegistration: a 0600 file named by the pid, replaced whole, no temp file left", () => {
		writeRegistration(live, reg(process.pid));
		writeRegistration(live, { ...reg(process.pid), secret: "t" });
		expect(fs.readdirSync(live)).toEqual([`${process.pid}.json`]);
		expect(fs.statSync(path.join(live, `${process.pid}.json`)).mode & 0o777).toBe(0o600);
		expect(JSON.parse(fs.readFileSync(path.join(live, `${process.pid}.json`), "utf8"))).toEqual({ ...reg(process.pid), secret: "t" });
	});

	it("sweepRegistrations: keeps live pis, removes dead ones with their sockets; other files are left alone", () => {
		const gone = dead();
		writeRegistration(live, reg(process.pid));
		writeRegistration(live, reg(gone));
		fs.writeFileSync(path.join(live, `${gone}.sock`), "");
		fs.writeFileSync(path.join(live, "notes.txt"), "x");
		fs.writeFileSync(path.join(live, "12a.json"), "{}");
		fs.writeFileSync(path.join(live, `${gone}.json.bak`), "{}");
		for (const f of ["notes.txt", "12a.json", `${gone}.json.bak`]) old(path.join(live, f));
		expect(sweepRegistrations(live)).toEqual([reg(process.pid)]);
		expect(fs.readdirSync(live).sort()).toEqual([`${process.pid}.json`, `${gone}.json.bak`, "12a.json", "notes.txt"].sort());
	});

	it("sweepRegistrations: an unreadable registration is removed once older than the grace time, not before", () => {
		const a = path.join(live, "111.json");
		const b = path.join(live, "222.json");
		fs.writeFileSync(a, "{half");
		fs.writeFileSync(b, "{half");
		old(a);
		expect(sweepRegistrations(live)).toEqual([]);
		expect(fs.existsSync(a)).toBe(false);
		expect(fs.existsSync(b)).toBe(true);
	});

	it("sweepRegistrations: a registration under another pid's name is not trusted, and removed once old", () => {
		const file = path.join(live, "999.json");
		fs.writeFileSync(file, JSON.stringify(reg(process.pid)));
		expect(sweepRegistrations(live)).toEqual([]);
		expect(fs.existsSync(file)).toBe(true);
		old(file);
		expect(sweepRegistrations(live)).toEqual([]);
		expect(fs.existsSync(file)).toBe(false);
	});

	it("sweepRegistrations: nothing from a folder that is missing, open to others or a link", () => {
		writeRegistration(live, reg(process.pid));
		expect(sweepRegistrations(path.join(tmp, "missing"))).toEqual([]);
		fs.symlinkSync(live, path.join(tmp, "link"));
		expect(sweepRegistrations(path.join(tmp, "link"))).toEqual([]);
		fs.chmodSync(live, 0o750);
		expect(sweepRegistrations(live)).toEqual([]);
		fs.chmodSync(live, 0o700);
		expect(sweepRegistrations(live)).toEqual([reg(process.pid)]);
	});

	it("removeRegistration: removes the socket only when it is <pid>.sock directly in a socket folder", () => {
		const gone = dead();
		const outside = path.join(tmp, `${gone}.sock`);
		const wrongName = path.join(live, "other.sock");
		const nested = path.join(live, "sub", `${gone}.sock`);
		fs.mkdirSync(path.join(live, "sub"));
		for (const f of [outside, wrongName, nested, path.join(live, `${gone}.sock`)]) fs.writeFileSync(f, "");
		for (const socket of [outside, "../" + `${gone}.sock`, wrongName, nested]) {
			writeRegistration(live, reg(gone, socket));
			removeRegistration(live, reg(gone, socket));
			expect(fs.existsSync(path.join(live, `${gone}.json`)), socket).toBe(false);
		}
		for (const f of [outside, wrongName, nested]) expect(fs.existsSync(f), f).toBe(true);
		expect(fs.existsSync(path.join(live, `${gone}.sock`))).toBe(true);
		writeRegistration(live, reg(gone, `${gone}.sock`));
		removeRegistration(live, reg(gone, `${gone}.sock`));
		expect(fs.existsSync(path.join(live, `${gone}.sock`))).toBe(false);
		// Nothing there to remove: no throw.
		expect(() => removeRegistration(live, reg(gone))).not.toThrow();
	});

	it("socketProblem: none for this user's socket in a 0700 folder; the folder's or the socket's problem otherwise", async () => {
		const sock = path.join(live, "1.sock");
		const server = net.createServer();
		servers.push(server);
		await new Promise<void>((r) => server.listen(sock, () => r()));
		fs.chmodSync(sock, 0o600);
		expect(socketProblem(sock)).toBeNull();
		fs.chmodSync(sock, 0o666);
		expect(socketProblem(sock)).toBe(`${sock} is open to other users (mode 0666)`);
		fs.chmodSync(sock, 0o600);
		fs.writeFileSync(path.join(live, "plain"), "");
		expect(socketProblem(path.join(live, "plain"))).toBe(`${path.join(live, "plain")} is not a socket`);
		expect(socketProblem(path.join(live, "none.sock"))).toBe(`${path.join(live, "none.sock")} is missing (ENOENT)`);
		fs.chmodSync(live, 0o755);
		expect(socketProblem(sock)).toBe(`its folder ${live} is open to other users (mode 0755)`);
		fs.chmodSync(live, 0o700);
	});

	it("socketFolders: the live folder, resolved, and the private runtime folder's arbor/ when there is one", () => {
		const saved = process.env.XDG_RUNTIME_DIR;
		try {
			process.env.XDG_RUNTIME_DIR = live;
			expect(socketFolders(`${live}/../live`)).toEqual([live, path.join(live, "arbor")]);
			process.env.XDG_RUNTIME_DIR = "relative/run";
			expect(socketFolders(live).slice(0, 1)).toEqual([live]);
			expect(socketFolders(live)).not.toContain(path.resolve("relative/run/arbor"));
			fs.chmodSync(tmp, 0o755);
			process.env.XDG_RUNTIME_DIR = tmp;
			expect(socketFolders(live)).not.toContain(path.join(tmp, "arbor"));
		} finally {
			if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
			else process.env.XDG_RUNTIME_DIR = saved;
		}
	});
});
