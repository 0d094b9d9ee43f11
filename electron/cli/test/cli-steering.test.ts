// One steering path (electron/services/steering, docs/services.md "Steering"): the app's requests
// (ArborServices) and the built `arbor` command steer a live pi through the same code, so they answer alike:
// the same `via`, the same refusal of what the pi says it cannot do, the same check of pi's fork answer.
// A fake pi endpoint stands in for answers a real pi never gives (a fork "to /etc/passwd", a pi without
// navigate); tests/live-pi and cli-live run the same requests against real pi 1.6.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { LiveCapability, LiveRequestBody } from "../../../shared/live";
import { ArborServices } from "../../services";
import { projectDirName } from "../../session";
import { type FakeAnswer, type FakePi, startFakePi } from "../../services/test/helpers/fake-pi";
import { arborAsync, buildCli, copyFixture, tempDir } from "./helpers";

const ALL: LiveCapability[] = ["navigate", "summarize", "fork", "label", "send", "abort", "stream", "switchSession"];

let fake: FakePi | null = null;
let services: ArborServices | null = null;

afterEach(async () => {
	services?.dispose();
	services = null;
	await fake?.close();
	fake = null;
});

beforeAll(() => buildCli(), 120_000);

/** A session file in its own folder, a HOME whose live folder the fake pi registers in, and the app's services on it. */
async function setup(capabilities: LiveCapability[], answer: (req: LiveRequestBody) => FakeAnswer) {
	const home = tempDir();
	const file = copyFixture("kimchi-dev__statsuline.v3.jsonl", fs.mkdtempSync(path.join(home, "sessions-")));
	const ids = fs
		.readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.slice(1)
		.map((l) => JSON.parse(l) as { id: string; type: string; message?: { role?: string } });
	fake = await startFakePi({ dir: path.join(home, ".arbor", "live"), sessionFile: file, capabilities, answer });
	services = new ArborServices({ settingsDir: path.join(home, ".arbor"), piAgentDir: path.join(home, ".pi", "agent"), watch: false });
	const summary = await services.openSession({ path: file });
	expect(summary.live?.pid).toBe(process.pid);
	const env = { HOME: home, PI_CODING_AGENT_DIR: path.join(home, ".pi", "agent") };
	const userMessage = ids.find((e) => e.type === "message" && e.message?.role === "user")!.id;
	return { home, file, env, sessionId: summary.sessionId, entryId: ids[5]!.id, userMessage, services };
}

function recent(home: string): string[] {
	const f = path.join(home, ".arbor", "settings.json");
	return fs.existsSync(f) ? ((JSON.parse(fs.readFileSync(f, "utf8")) as { recentFiles?: string[] }).recentFiles ?? []) : [];
}

describe("a live pi's fork answer", () => {
	it("is refused by the app and the CLI when it names a file that is not a fork of this session: nothing is opened or added to Recent", async () => {
		const answers: string[] = [];
		const t = await setup(ALL, () => ({ ok: true, result: { cancelled: false, sessionFile: answers.shift() ?? "/etc/passwd" } }));
		// A session file beside the original whose header names another parent; and a link there to /etc/passwd.
		const stranger = path.join(path.dirname(t.file), "stranger.jsonl");
		fs.writeFileSync(
			stranger,
			`${JSON.stringify({ type: "session", version: 3, id: "x", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/", parentSession: "/elsewhere.jsonl" })}\n`,
		);
		const link = path.join(path.dirname(t.file), "link.jsonl");
		fs.symlinkSync("/etc/passwd", link);

		for (const bad of ["/etc/passwd", stranger, link]) {
			answers.push(bad);
			await expect(t.services.branchToFile({ sessionId: t.sessionId, entryId: t.userMessage })).rejects.toMatchObject({
				code: "extension_error",
				message: expect.stringContaining(`forked to ${bad}`),
			});
		}
		expect(recent(t.home)).toEqual([t.file]);
		expect((await t.services.getInitialSessions({})).map((s) => s.path)).toEqual([t.file]);

		answers.push("/etc/passwd");
		const r = await arborAsync(["branch", t.file, t.entryId, "--json"], t.env);
		expect(r.status).toBe(5);
		expect(JSON.parse(r.stdout)).toEqual({ error: expect.stringContaining("forked to /etc/passwd") });
		expect(r.stderr).toMatch(/opened nothing/);
		expect(fake!.requests.filter((q) => q.name === "fork")).toHaveLength(4);
	}, 60_000);

	it("is opened when it is a fork of this session in its folder (header parentSession = the file)", async () => {
		const answers: string[] = [];
		const t = await setup(ALL, () => ({ ok: true, result: { cancelled: false, sessionFile: answers.shift() } }));
		const fork = path.join(path.dirname(t.file), "fork.jsonl");
		fs.writeFileSync(
			fork,
			`${JSON.stringify({ type: "session", version: 3, id: "f", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/", parentSession: t.file })}\n`,
		);
		answers.push(fork);
		const r = await t.services.branchToFile({ sessionId: t.sessionId, entryId: t.userMessage });
		expect(r).toMatchObject({ via: "pi", pid: process.pid, cancelled: false, path: fork, session: { path: fork } });
		answers.push(fork);
		const c = await arborAsync(["branch", t.file, t.entryId, "--json"], t.env);
		expect(c.status).toBe(0);
		expect(JSON.parse(c.stdout)).toEqual({ path: fork, via: "pi", pid: process.pid });
	}, 60_000);
});

describe("where pi 1.6 puts a fork", () => {
	it("a fork in pi's sessions folder for the working folder, or in its configured sessionDir, is opened too", async () => {
		const answers: string[] = [];
		const t = await setup(ALL, () => ({ ok: true, result: { cancelled: false, sessionFile: answers.shift() } }));
		const header = `${JSON.stringify({ type: "session", version: 3, id: "f", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/", parentSession: t.file })}\n`;
		// The fake pi runs in the session's folder: pi's own folder for that cwd is <agentDir>/sessions/--<cwd>--.
		const byCwd = path.join(t.env.PI_CODING_AGENT_DIR, "sessions", projectDirName(path.dirname(t.file)));
		const configured = path.join(t.home, "configured-sessions");
		fs.mkdirSync(path.join(t.env.PI_CODING_AGENT_DIR), { recursive: true });
		fs.writeFileSync(path.join(t.env.PI_CODING_AGENT_DIR, "settings.json"), JSON.stringify({ sessionDir: configured }));
		for (const dir of [byCwd, configured]) {
			fs.mkdirSync(dir, { recursive: true });
			const fork = path.join(dir, "fork.jsonl");
			fs.writeFileSync(fork, header);
			answers.push(fork);
			expect(await t.services.branchToFile({ sessionId: t.sessionId, entryId: t.userMessage })).toMatchObject({ via: "pi", path: fork });
		}
		// Any other folder of the agent's is not one pi forks into.
		const elsewhere = path.join(t.env.PI_CODING_AGENT_DIR, "sessions", "--elsewhere--");
		fs.mkdirSync(elsewhere, { recursive: true });
		fs.writeFileSync(path.join(elsewhere, "fork.jsonl"), header);
		answers.push(path.join(elsewhere, "fork.jsonl"));
		await expect(t.services.branchToFile({ sessionId: t.sessionId, entryId: t.userMessage })).rejects.toMatchObject({
			code: "extension_error",
			message: expect.stringMatching(/outside pi's session folders/),
		});
	}, 60_000);
});

describe("the app and the CLI steer through the same code", () => {
	it("a pi that does not announce navigate: both refuse with the same message and send it nothing", async () => {
		const t = await setup(
			ALL.filter((c) => c !== "navigate"),
			() => ({ ok: true, result: {} }),
		);
		const err = (await t.services.navigate({ sessionId: t.sessionId, targetId: t.entryId }).catch((e: unknown) => e)) as { code: string; message: string };
		expect(err).toMatchObject({ code: "unsupported", message: expect.stringMatching(/cannot move in the session tree/) });
		const r = await arborAsync(["navigate", t.file, t.entryId], t.env);
		expect(r.status).toBe(5);
		expect(r.stderr.trim()).toBe(`arbor navigate: ${err.message}`);
		expect(fake!.requests).toEqual([]);
	}, 60_000);

	it("label: via pi with its pid from both when the pi labels, via the file from both when it cannot", async () => {
		const t = await setup(ALL, () => ({ ok: true, result: { ok: true } }));
		expect(await t.services.setLabel({ sessionId: t.sessionId, entryId: t.entryId, label: "one" })).toEqual({ via: "pi", pid: process.pid });
		const c = await arborAsync(["label", t.file, t.entryId, "two", "--json"], t.env);
		expect(JSON.parse(c.stdout)).toEqual({ entryId: t.entryId, label: "two", via: "pi", pid: process.pid });
		expect(fake!.requests).toEqual([
			{ name: "label", entryId: t.entryId, label: "one" },
			{ name: "label", entryId: t.entryId, label: "two" },
		]);
		services!.dispose();
		await fake!.close();

		const u = await setup(
			ALL.filter((x) => x !== "label"),
			() => ({ ok: true, result: { ok: true } }),
		);
		const before = fs.readFileSync(u.file, "utf8").split("\n").length;
		expect(await u.services.setLabel({ sessionId: u.sessionId, entryId: u.entryId, label: "three" })).toEqual({ via: "file" });
		const d = await arborAsync(["label", u.file, u.entryId, "four", "--json"], u.env);
		expect(JSON.parse(d.stdout)).toEqual({ entryId: u.entryId, label: "four", via: "file" });
		const lines = fs.readFileSync(u.file, "utf8").trim().split("\n");
		expect(lines.length).toBe(before + 1);
		expect(lines.slice(-2).map((l) => (JSON.parse(l) as { label?: string }).label)).toEqual(["three", "four"]);
		expect(fake!.requests).toEqual([]);
	}, 60_000);

	it("a refusal from pi reaches the app and the CLI as the same error (busy: exit 5)", async () => {
		const t = await setup(ALL, () => ({ ok: false, error: { code: "busy", message: "pi is busy: it runs a turn" } }));
		await expect(t.services.navigate({ sessionId: t.sessionId, targetId: t.entryId })).rejects.toMatchObject({
			code: "busy",
			message: "pi is busy: it runs a turn",
		});
		for (const args of [
			["navigate", t.file, t.entryId],
			["branch", t.file, t.entryId],
			["label", t.file, t.entryId, "x"],
			["send", t.file, "hello"],
		]) {
			const r = await arborAsync(args, t.env);
			expect(r.status, args[0]).toBe(5);
			expect(r.stderr.trim(), args[0]).toBe(`arbor ${args[0]}: pi is busy: it runs a turn`);
		}
		expect(fake!.requests.map((q) => q.name)).toEqual(["navigate", "navigate", "fork", "label", "send"]);
	}, 60_000);
});

describe("without a live service", () => {
	it("navigate, branch and label still say via file", async () => {
		const file = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		const home = tempDir();
		services = new ArborServices({ settingsDir: path.join(home, ".arbor"), piAgentDir: path.join(home, "agent"), watch: false, liveDir: null });
		const { sessionId } = await services.openSession({ path: file });
		const entries = fs
			.readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.slice(1)
			.map((l) => JSON.parse(l) as { id: string; type: string; message?: { role?: string } });
		expect(await services.navigate({ sessionId, targetId: entries[5]!.id })).toMatchObject({ via: "file", cancelled: false });
		expect(await services.setLabel({ sessionId, entryId: entries[5]!.id, label: "x" })).toEqual({ via: "file" });
		const user = entries.find((e) => e.type === "message" && e.message?.role === "user" && e !== entries[0])!;
		expect(await services.branchToFile({ sessionId, entryId: user.id })).toMatchObject({ via: "file" });
		await expect(services.switchSession({ sessionId, path: file })).rejects.toMatchObject({
			code: "no_live_agent",
			message: expect.stringMatching(/no running pi to switch/),
		});
	}, 30_000);
});
