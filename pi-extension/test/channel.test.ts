// The live channel without a pi: the extension's socket and registration (pi-extension/channel.ts) against
// Arbor's client and registry (electron/services/live): private files, the secret, stale registrations.

import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LiveEvent } from "../../shared/live";
import { LiveConnection } from "../../electron/services/live/connection";
import { connectToHolder } from "../../electron/services/live/live-service";
import { readRegistrations, registrationsFor } from "../../electron/services/live/registry";
import { LiveChannel } from "../channel";
import { IDLE_STATE, stateOnly } from "./helpers/state-only";

let home: string;
let oldHome: string | undefined;
let channel: LiveChannel | null = null;
const client = { name: "test", version: "0" };
const state = IDLE_STATE;

beforeEach(() => {
	home = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-channel-"));
	oldHome = process.env.HOME;
	process.env.HOME = home;
});
afterEach(() => {
	channel?.close("test over");
	channel = null;
	process.env.HOME = oldHome;
	fs.rmSync(home, { recursive: true, force: true });
});

/** A pi that answers state and nothing else. */
const answers = stateOnly(state);

async function open(): Promise<LiveChannel> {
	channel = await LiveChannel.open(
		{
			welcome: () => ({ agent: "pi", agentVersion: "1.6.0", extensionVersion: "1", capabilities: ["navigate"], state }),
			requests: answers,
		},
		{ agent: "pi", agentVersion: "1.6.0", extensionVersion: "1" },
	);
	return channel;
}

const deadPid = (): number => spawnSync(process.execPath, ["-e", "0"]).pid!;

describe.skipIf(process.platform === "win32")("live channel", () => {
	it("keeps its folder, registration and socket private, and only a client with the secret gets in", async () => {
		const ch = await open();
		const file = path.join(home, "s.jsonl");
		ch.register(file);
		const dir = path.join(home, ".arbor", "live");
		expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
		expect(fs.statSync(path.join(dir, `${process.pid}.json`)).mode & 0o777).toBe(0o600);
		expect(fs.statSync(ch.socket).mode & 0o777).toBe(0o600);
		const [reg] = registrationsFor(dir, file);
		expect(reg).toMatchObject({ pid: process.pid, socket: ch.socket, sessionFile: file });

		await expect(LiveConnection.connect(reg!, client, "f".repeat(64))).rejects.toMatchObject({ code: "bad_secret" });
		const a = await LiveConnection.connect(reg!, client);
		const b = await LiveConnection.connect(reg!, client);
		expect(a.welcome.capabilities).toEqual(["navigate"]);
		expect(await a.request({ name: "state" })).toEqual(state);
		const heard: LiveEvent[][] = [[], []];
		a.onEvent((e) => heard[0]!.push(e));
		b.onEvent((e) => heard[1]!.push(e));
		ch.broadcast({ type: "state", state });
		ch.close("pi is exiting");
		const closed = await Promise.all([new Promise((r) => a.onClose(r)), new Promise((r) => b.onClose(r))]);
		expect(closed).toEqual(["pi is exiting", "pi is exiting"]);
		expect(heard).toEqual([
			[
				{ type: "state", state },
				{ type: "bye", reason: "pi is exiting" },
			],
			[
				{ type: "state", state },
				{ type: "bye", reason: "pi is exiting" },
			],
		]);
		expect(fs.existsSync(ch.socket)).toBe(false);
		expect(fs.existsSync(path.join(dir, `${process.pid}.json`))).toBe(false);
	});

	it("removes a registration whose pi is dead, and one whose socket refuses, and then finds no live pi", async () => {
		const dir = path.join(home, ".arbor", "live");
		fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
		const file = path.join(home, "s.jsonl");
		const reg = (pid: number) => ({
			protocol: 1,
			pid,
			agent: "pi",
			agentVersion: "1.6.0",
			extensionVersion: "1",
			sessionFile: file,
			socket: path.join(dir, `${pid}.sock`),
			secret: "ab",
			startedAt: 1,
		});
		const dead = deadPid();
		fs.writeFileSync(path.join(dir, `${dead}.json`), JSON.stringify(reg(dead)), { mode: 0o600 });
		fs.writeFileSync(path.join(dir, `${dead}.sock`), "");
		expect(readRegistrations(dir)).toEqual([]);
		expect(fs.readdirSync(dir)).toEqual([]);

		// Alive but not listening (a pid reused by another program, a pi stuck before it listened).
		const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
		try {
			fs.writeFileSync(path.join(dir, `${sleeper.pid}.json`), JSON.stringify(reg(sleeper.pid!)), { mode: 0o600 });
			expect(await connectToHolder(dir, file, client)).toBeNull();
			expect(fs.readdirSync(dir)).toEqual([]);
		} finally {
			sleeper.kill("SIGKILL");
		}
	});

	it("ignores a registration folder others can open", async () => {
		const dir = path.join(home, ".arbor", "live");
		const ch = await open();
		ch.register(path.join(home, "s.jsonl"));
		expect(readRegistrations(dir)).toHaveLength(1);
		fs.chmodSync(dir, 0o755);
		expect(readRegistrations(dir)).toEqual([]);
	});
});
