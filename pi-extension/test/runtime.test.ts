// How a pi's registration says how to start that pi again (docs/live.md), and when Arbor runs it (docs/security.md
// "Live pi channel"): the extension records its runtime and pi's CLI only when the process provably runs pi's own
// CLI; Arbor runs them only from a registration that passes the channel's ownership checks, and only paths that
// are real, absolute, existing regular files. Real files and folders in a temp HOME; a real channel in this process.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { livePiRuntime, piForSession } from "../../electron/services/tries";
import { arborLiveDir } from "../../shared-node/paths";
import { LiveChannel } from "../channel";
import { piRuntime } from "../runtime";
import { IDLE_STATE, stateOnly } from "./helpers/state-only";

const PI_PACKAGE = path.resolve(import.meta.dirname, "../../node_modules/@earendil-works/pi-coding-agent");
const PI_CLI = fs.realpathSync(path.join(PI_PACKAGE, "dist/bundle/cli.js"));
const NODE = fs.realpathSync(process.execPath);

let tmp: string;
beforeEach(() => {
	tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "arbor-runtime-")));
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function file(rel: string, text = "", mode = 0o644): string {
	const p = path.join(tmp, rel);
	fs.mkdirSync(path.dirname(p), { recursive: true });
	fs.writeFileSync(p, text, { mode });
	return p;
}

describe("the runtime a pi's extension registers (piRuntime)", () => {
	it("is the runtime and pi 1.6's own CLI script, also when pi was started through a bin link", () => {
		expect(piRuntime({ execPath: process.execPath, argv1: PI_CLI, compiled: false })).toEqual({ execPath: NODE, cliPath: PI_CLI });
		const link = path.join(tmp, "bin", "pi");
		fs.mkdirSync(path.dirname(link));
		fs.symlinkSync(PI_CLI, link);
		expect(piRuntime({ execPath: process.execPath, argv1: link, compiled: false })).toEqual({ execPath: NODE, cliPath: PI_CLI });
	});

	it("is nothing when the script is not pi's CLI: another program, another file of pi's package, no script", () => {
		const vitest = fs.realpathSync(path.resolve(import.meta.dirname, "../../node_modules/vitest/vitest.mjs"));
		expect(piRuntime({ execPath: process.execPath, argv1: vitest, compiled: false })).toBeUndefined();
		expect(piRuntime({ execPath: process.execPath, argv1: path.join(PI_PACKAGE, "dist/bundle/rpc-entry.js"), compiled: false })).toBeUndefined();
		expect(piRuntime({ execPath: process.execPath, argv1: undefined, compiled: false })).toBeUndefined();
		expect(piRuntime({ execPath: process.execPath, argv1: path.join(tmp, "gone.js"), compiled: false })).toBeUndefined();
	});

	it("finds pi's package above a nested package.json that only sets the module type", () => {
		file("pkg/package.json", JSON.stringify({ name: "@earendil-works/pi-coding-agent", bin: { pi: "dist/cli.js" } }));
		file("pkg/dist/package.json", JSON.stringify({ type: "module" }));
		const cli = file("pkg/dist/cli.js");
		expect(piRuntime({ execPath: process.execPath, argv1: cli, compiled: false })).toEqual({ execPath: NODE, cliPath: cli });
		file("other/package.json", JSON.stringify({ name: "not-pi", bin: { pi: "cli.js" } }));
		expect(piRuntime({ execPath: process.execPath, argv1: file("other/cli.js"), compiled: false })).toBeUndefined();
	});

	it("is the executable alone for a compiled pi (its package.json ships next to it), nothing for another compiled program", () => {
		const exe = file("pi-bin/pi", "", 0o755);
		expect(piRuntime({ execPath: exe, argv1: "/$bunfs/root/pi", compiled: true })).toBeUndefined();
		file("pi-bin/package.json", JSON.stringify({ name: "@earendil-works/pi-coding-agent" }));
		expect(piRuntime({ execPath: exe, argv1: "/$bunfs/root/pi", compiled: true })).toEqual({ execPath: exe, cliPath: null });
	});
});

describe.skipIf(process.platform === "win32")("the runtime Arbor runs from a registration (livePiRuntime, liveRuntimeOf)", () => {
	let home: string | undefined;
	let channel: LiveChannel | null = null;
	let session: string;
	let onPath: string;
	const env = () => ({ PATH: path.dirname(onPath) });
	beforeEach(() => {
		home = process.env.HOME;
		process.env.HOME = tmp;
		session = file("s.jsonl", "{}\n");
		onPath = file("bin/pi", "#!/bin/sh\n", 0o755);
	});
	afterEach(() => {
		channel?.close("over");
		channel = null;
		process.env.HOME = home;
	});
	const open = async (runtime?: { execPath: string; cliPath: string | null }): Promise<LiveChannel> => {
		channel = await LiveChannel.open(
			{ welcome: () => ({ agent: "pi", agentVersion: "1.6.0", extensionVersion: "1", capabilities: [], state: IDLE_STATE }), requests: stateOnly() },
			{ agent: "pi", agentVersion: "1.6.0", extensionVersion: "1", ...(runtime ? { runtime } : {}) },
		);
		channel.register(session);
		return channel;
	};
	const registration = () => path.join(arborLiveDir(), `${process.pid}.json`);

	it("runs the runtime and CLI a live pi holding the file registered", async () => {
		await open({ execPath: NODE, cliPath: PI_CLI });
		expect(livePiRuntime(arborLiveDir())(session)).toEqual({ pid: process.pid, execPath: NODE, cliPath: PI_CLI });
		expect(piForSession(session, livePiRuntime(arborLiveDir()), env())).toEqual({
			command: NODE,
			args: [PI_CLI],
			origin: `the live pi's runtime (pid ${process.pid})`,
		});
		// Another file: no live pi holds it.
		expect(livePiRuntime(arborLiveDir())(path.join(tmp, "other.jsonl"))).toBeUndefined();
	});

	it("falls back to pi on PATH, saying why, for an older registration without a runtime", async () => {
		await open();
		const pi = piForSession(session, livePiRuntime(arborLiveDir()), env());
		expect(pi.command).toBe(onPath);
		expect(pi.origin).toMatch(
			new RegExp(`^pi on PATH \\(pi ${process.pid} holds the session, but Arbor will not run its runtime: its registration names no runtime`),
		);
		expect(() => piForSession(session, livePiRuntime(arborLiveDir()), { PATH: path.join(tmp, "none") })).toThrow(
			/no pi to run the tries: .* \(pi \d+ holds the session, but Arbor will not run its runtime: its registration names no runtime/,
		);
	});

	it("refuses paths that are relative, links, missing, folders or not executable", async () => {
		const link = path.join(tmp, "node-link");
		fs.symlinkSync(NODE, link);
		const notExec = file("plain-node", "", 0o644);
		file("real-dir/cli.js");
		fs.symlinkSync(path.join(tmp, "real-dir"), path.join(tmp, "dir-link"));
		const cases: [{ execPath: string; cliPath: string | null }, RegExp][] = [
			[{ execPath: "node", cliPath: PI_CLI }, /its runtime node is not an absolute path/],
			[{ execPath: link, cliPath: PI_CLI }, /is a link, not the file itself/],
			[{ execPath: path.join(tmp, "gone"), cliPath: PI_CLI }, /is missing \(ENOENT\)/],
			[{ execPath: tmp, cliPath: PI_CLI }, /is not a regular file/],
			[{ execPath: notExec, cliPath: PI_CLI }, /is not executable/],
			[{ execPath: NODE, cliPath: path.join(tmp, "dir-link", "cli.js") }, /its CLI .*dir-link.* is not its own real path/],
		];
		for (const [runtime, why] of cases) {
			channel?.close("next");
			await open(runtime);
			const r = livePiRuntime(arborLiveDir())(session);
			expect(r && "problem" in r ? r.problem : r, JSON.stringify(runtime)).toMatch(why);
			expect(piForSession(session, livePiRuntime(arborLiveDir()), env()).command).toBe(onPath);
		}
	});

	it("runs a runtime only when it and every folder above it are the user's or root's and closed to other users' writes", async () => {
		// A base folder whose own ancestors are trusted (the checkout's, not the shared /tmp): .tmp in the repo.
		const scratch = path.resolve(import.meta.dirname, "../../.tmp");
		fs.mkdirSync(scratch, { recursive: true, mode: 0o755 });
		const base = fs.realpathSync(fs.mkdtempSync(path.join(scratch, "runtime-trust-")));
		try {
			fs.chmodSync(base, 0o755);
			const grand = path.join(base, "grand");
			const parent = path.join(grand, "parent");
			fs.mkdirSync(parent, { recursive: true, mode: 0o755 });
			const exe = path.join(parent, "node");
			fs.copyFileSync(NODE, exe);
			fs.chmodSync(exe, 0o755);
			const cli = path.join(parent, "cli.js");
			fs.writeFileSync(cli, "", { mode: 0o644 });
			const verdict = async (): Promise<unknown> => {
				channel?.close("next");
				await open({ execPath: exe, cliPath: cli });
				const r = livePiRuntime(arborLiveDir())(session);
				return r && "problem" in r ? r.problem : r;
			};
			const refused = async (why: RegExp, change: () => void, undo: () => void): Promise<void> => {
				change();
				expect(await verdict(), String(why)).toMatch(why);
				// Refused means the tries fall back to pi on PATH.
				expect(piForSession(session, livePiRuntime(arborLiveDir()), env()).command).toBe(onPath);
				undo();
				expect(await verdict()).toEqual({ pid: process.pid, execPath: exe, cliPath: cli });
			};
			// All fine: the user's (root's, here) own files in closed folders.
			expect(await verdict()).toEqual({ pid: process.pid, execPath: exe, cliPath: cli });
			const mode = (p: string, m: number) => () => fs.chmodSync(p, m);
			const runtime = (at: string) => new RegExp(`its runtime ${exe} can be changed by other users${at}: mode `);
			await refused(/its runtime .*node can be changed by other users: mode 0777/, mode(exe, 0o777), mode(exe, 0o755));
			await refused(/its runtime .*node can be changed by other users: mode 0775/, mode(exe, 0o775), mode(exe, 0o755));
			await refused(/its runtime .*node can be changed by other users: mode 0757/, mode(exe, 0o757), mode(exe, 0o755));
			await refused(runtime(` \\(its folder ${parent}\\)`), mode(parent, 0o777), mode(parent, 0o755));
			await refused(runtime(` \\(its folder ${grand}\\)`), mode(grand, 0o777), mode(grand, 0o755));
			await refused(runtime(` \\(its folder ${grand}\\)`), mode(grand, 0o770), mode(grand, 0o755));
			// A sticky folder writable by all (as /tmp) counts as writable: anyone may have made what is in it.
			await refused(/its folder .*grand\): mode 1777/, mode(grand, 0o1777), mode(grand, 0o755));
			// pi's CLI script is held to the same rule.
			await refused(/its CLI .*cli\.js can be changed by other users: mode 0666/, mode(cli, 0o666), mode(cli, 0o644));
			// Only read and execute bits for others are fine.
			fs.chmodSync(exe, 0o711);
			expect(await verdict()).toEqual({ pid: process.pid, execPath: exe, cliPath: cli });
			fs.chmodSync(exe, 0o755);
			// Anything under a shared temp folder (sticky, world-writable: Linux's /tmp) is refused, naming it.
			if ((fs.statSync(os.tmpdir()).mode & 0o1002) === 0o1002) {
				const inTmp = file("tmp-node", "", 0o755);
				channel?.close("next");
				await open({ execPath: inTmp, cliPath: null });
				const r = livePiRuntime(arborLiveDir())(session);
				expect(r && "problem" in r && r.problem).toMatch(new RegExp(`\\(its folder ${os.tmpdir()}\\): mode 1777`));
			}
			// Another user's file or folder (root can make one: chown to nobody).
			if (process.getuid?.() === 0) {
				const owner = (p: string, uid: number) => () => fs.chownSync(p, uid, uid);
				await refused(/its runtime .*node belongs to another user: uid 65534/, owner(exe, 65534), owner(exe, 0));
				await refused(/its CLI .*cli\.js belongs to another user: uid 65534/, owner(cli, 65534), owner(cli, 0));
				await refused(new RegExp(`belongs to another user \\(its folder ${parent}\\): uid 65534`), owner(parent, 65534), owner(parent, 0));
				await refused(new RegExp(`belongs to another user \\(its folder ${grand}\\): uid 65534`), owner(grand, 65534), owner(grand, 0));
			}
		} finally {
			fs.rmSync(base, { recursive: true, force: true });
		}
	});

	it("refuses a registration file or socket that is not the user's private one", async () => {
		await open({ execPath: NODE, cliPath: PI_CLI });
		fs.chmodSync(registration(), 0o644);
		expect(livePiRuntime(arborLiveDir())(session)).toMatchObject({
			problem: expect.stringMatching(/its registration .* is open to other users \(mode 0644\)/),
		});
		fs.chmodSync(registration(), 0o600);
		fs.chmodSync(channel!.socket, 0o666);
		expect(livePiRuntime(arborLiveDir())(session)).toMatchObject({ problem: expect.stringMatching(/its socket is not private to you/) });
		fs.chmodSync(channel!.socket, 0o600);
		// A registration that is a link to a file elsewhere does not count either.
		const elsewhere = path.join(tmp, "elsewhere.json");
		fs.renameSync(registration(), elsewhere);
		fs.symlinkSync(elsewhere, registration());
		expect(livePiRuntime(arborLiveDir())(session)).toMatchObject({ problem: expect.stringMatching(/is a link, not a file/) });
	});
});
