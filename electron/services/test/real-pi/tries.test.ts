// Tries with the real pi 1.6 (Node 24) behind a `pi` command, a loopback model that calls pi's write tool, and a
// real git repository with uncommitted work: forks as pi makes them, worktrees that hold the user's work, the
// user's tree untouched until Keep, Keep all-or-nothing, Stop, and leftovers after a crash.

import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Pi16SessionManager } from "../../../session/test/helpers/pi16";
import type { TryEvent } from "../../../../shared/tries";
import { discardRun, keepTry, leftoverRuns, readRuns, startTries } from "../../tries";
import { pidAlive } from "../../../../shared-node/pid";
import { messageText, startTriesRig, type TriesRig, type TriesRigOptions } from "../helpers/tries-rig";

let rig: TriesRig;
let triesDir: string;
async function useRig(opts: TriesRigOptions = {}): Promise<void> {
	await rig?.close();
	rig = await startTriesRig(opts);
	triesDir = path.join(rig.root, "arbor-home", ".arbor", "tries");
}
beforeEach(async () => {
	await useRig();
});
afterEach(async () => {
	await rig.close();
});

const pi = (): { command: string; args: string[]; origin: string } => ({ command: rig.piPath, args: [], origin: "test" });
const worktrees = (): string[] =>
	execFileSync("git", ["worktree", "list", "--porcelain"], { cwd: rig.repo, encoding: "utf8" })
		.split("\n")
		.filter((l) => l.startsWith("worktree "))
		.map((l) => l.slice(9));
const USER_STATUS = " M notes.txt\n?? draft.txt\n";

describe("tries (real pi 1.6, git worktrees)", () => {
	it("runs each try as a pi fork at the entry, in its own worktree holding the user's uncommitted work", async () => {
		const events: TryEvent[] = [];
		const run = await startTries({
			source: rig.session,
			entryId: "a2",
			tries: [{ prompt: "Write your file" }, { prompt: "Write your file" }],
			pi: pi(),
			piAgentDir: rig.agentDir,
			triesDir,
			onEvent: (e) => events.push(e),
		});
		const states = await run.done;
		expect(states.map((s) => [s.status, s.message])).toEqual([
			["done", null],
			["done", null],
		]);
		const written = new Set<string>();
		for (const s of states) {
			// pi 1.6 opens the fork: parentSession is the original, the context is root -> a2 then the try's turn.
			const sm = Pi16SessionManager.open(s.sessionFile);
			expect(sm.getHeader()).toMatchObject({ parentSession: rig.session, cwd: s.cwd });
			const ids = sm.getBranch().map((e: { id: string }) => e.id);
			expect(ids.slice(0, 4)).toEqual(["u1", "a1", "u2", "a2"]);
			expect(ids).not.toContain("u3");
			const texts = sm.buildSessionContext().messages.map((m) => JSON.stringify(m));
			expect(texts.at(-1)).toContain("I wrote the file.");
			expect(path.dirname(s.sessionFile)).toBe(path.dirname(rig.session));
			// Its worktree: the user's uncommitted edit and untracked file, plus the one file this try wrote.
			const wt = s.worktree!;
			expect(fs.readFileSync(path.join(wt, "notes.txt"), "utf8")).toBe("line one\nmy uncommitted line\n");
			expect(fs.readFileSync(path.join(wt, "draft.txt"), "utf8")).toBe("an untracked draft\n");
			const mine = fs.readdirSync(wt).filter((f) => /^try-\d\.txt$/.test(f));
			expect(mine).toHaveLength(1);
			written.add(mine[0]!);
			expect(s.files).toEqual([{ path: mine[0], status: "added", added: 1, removed: 0 }]);
			expect(s.tokens.total).toBeGreaterThan(0);
		}
		expect([...written].sort()).toEqual(["try-1.txt", "try-2.txt"]);
		// The model received, per try, the context up to a2 plus the prompt, and nothing of branch B.
		const firsts = rig.firstRequests();
		expect(firsts).toHaveLength(2);
		for (const r of firsts) {
			const msgs = (r.body as { messages: { role: string; content?: unknown }[] }).messages.filter((m) => m.role !== "system");
			expect(msgs.map(messageText)).toEqual([
				"Set up the notes project",
				"The notes project is set up.",
				"Plan branch A: keep notes short",
				"Branch A answer: short notes.",
				"Write your file",
			]);
		}
		// The user's tree is untouched; the run is recorded with both worktrees.
		expect(rig.status()).toBe(USER_STATUS);
		expect(fs.existsSync(path.join(rig.repo, "try-1.txt"))).toBe(false);
		expect(readRuns(triesDir)).toHaveLength(1);
		expect(fs.statSync(triesDir).mode & 0o777).toBe(0o700);
		expect(fs.statSync(path.join(triesDir, `${run.runId}.json`)).mode & 0o777).toBe(0o600);
		const running = new Set(events.flatMap((e) => (e.type === "try_state" && e.state.status === "running" ? [e.state.index] : [])));
		expect([...running].sort()).toEqual([0, 1]);
		expect(events.at(-1)).toEqual({ type: "run_done", runId: run.runId });

		// Keep the first try: its file joins the user's own changes; every worktree goes; the forks stay.
		const keptState = states[0]!;
		const keptName = keptState.files![0]!.path;
		const otherName = states[1]!.files![0]!.path;
		const outcome = await keepTry(triesDir, keptState.sessionFile);
		expect(outcome).toMatchObject({ applied: [keptName], conflicts: [] });
		expect(fs.readFileSync(path.join(rig.repo, keptName), "utf8")).toMatch(/^written by try \d\n$/);
		expect(fs.existsSync(path.join(rig.repo, otherName))).toBe(false);
		expect(rig.status()).toBe(` M notes.txt\n?? draft.txt\n?? ${keptName}\n`);
		expect(worktrees()).toEqual([rig.repo]);
		for (const s of states) expect(fs.existsSync(s.worktree!)).toBe(false);
		for (const s of states) expect(fs.existsSync(s.sessionFile)).toBe(true);
		expect(Pi16SessionManager.open(keptState.sessionFile).getHeader()?.cwd).toBe(rig.repo);
		expect(readRuns(triesDir)).toEqual([]);
		expect(execFileSync("git", ["for-each-ref", "refs/arbor"], { cwd: rig.repo, encoding: "utf8" })).toBe("");
	});

	it("Keep applies nothing when a file the try changed was changed differently in the user's tree, and names it", async () => {
		const run = await startTries({ source: rig.session, entryId: "a2", tries: [{ prompt: "Write your file" }], pi: pi(), piAgentDir: rig.agentDir, triesDir });
		const [s] = await run.done;
		expect(s!.status).toBe("done");
		fs.writeFileSync(path.join(rig.repo, "try-1.txt"), "the user's own try-1\n");
		fs.appendFileSync(path.join(rig.repo, "notes.txt"), "and a later line\n");
		const before = rig.status();
		const outcome = await keepTry(triesDir, s!.sessionFile);
		expect(outcome).toMatchObject({ applied: [], conflicts: ["try-1.txt"], removed: [] });
		expect(fs.readFileSync(path.join(rig.repo, "try-1.txt"), "utf8")).toBe("the user's own try-1\n");
		expect(rig.status()).toBe(before);
		expect(fs.existsSync(s!.worktree!)).toBe(true);
		expect(readRuns(triesDir)).toHaveLength(1);
	});

	it("Stop all mid-turn ends every pi and its group, and leaves the user's tree and the forks whole", async () => {
		rig.server.setScenario({ kind: "hang" });
		const run = await startTries({
			source: rig.session,
			entryId: "a2",
			tries: [{ prompt: "Hang" }, { prompt: "Hang" }],
			pi: pi(),
			piAgentDir: rig.agentDir,
			triesDir,
		});
		const requested = new Promise<void>((resolve) => {
			const t = setInterval(() => {
				if (rig.server.requests.length >= 2) {
					clearInterval(t);
					resolve();
				}
			}, 20);
		});
		await requested;
		const pids = run.record.tries.map((t) => t.pid!);
		expect(pids.every((p) => pidAlive(p))).toBe(true);
		await run.stopAll();
		const states = await run.done;
		expect(states.map((s) => s.status)).toEqual(["stopped", "stopped"]);
		expect(pids.some((p) => pidAlive(p))).toBe(false);
		expect(rig.status()).toBe(USER_STATUS);
		for (const s of states) {
			const sm = Pi16SessionManager.open(s.sessionFile);
			expect(sm.getHeader()?.parentSession).toBe(rig.session);
		}
		expect(readRuns(triesDir)[0]!.tries.map((t) => t.pid)).toEqual([null, null]);
	});

	it("a run whose Arbor died is listed as a leftover and discarding it removes its worktrees, not its sessions", async () => {
		const run = await startTries({ source: rig.session, entryId: "a2", tries: [{ prompt: "Write your file" }], pi: pi(), piAgentDir: rig.agentDir, triesDir });
		await run.done;
		// As if the Arbor that ran it had been killed: its record names a process that no longer exists.
		const file = path.join(triesDir, `${run.runId}.json`);
		const rec = JSON.parse(fs.readFileSync(file, "utf8")) as { ownerPid: number };
		rec.ownerPid = 2 ** 22 + 12345;
		fs.writeFileSync(file, JSON.stringify(rec));
		const left = leftoverRuns(triesDir);
		expect(left.map((r) => r.runId)).toEqual([run.runId]);
		await discardRun(triesDir, left[0]!);
		expect(worktrees()).toEqual([rig.repo]);
		expect(fs.existsSync(run.states[0]!.sessionFile)).toBe(true);
		expect(leftoverRuns(triesDir)).toEqual([]);
		expect(rig.status()).toBe(USER_STATUS);
	});

	it("Keep merges a try's edit with the user's later edit of the same file, and leaves what the user staged as it was", async () => {
		await useRig({ write: () => ({ path: "notes.txt", content: "line one\nmy uncommitted line\na line from the try\n" }) });
		const run = await startTries({
			source: rig.session,
			entryId: "a2",
			tries: [{ prompt: "Add a line" }, { prompt: "Add a line" }],
			pi: pi(),
			piAgentDir: rig.agentDir,
			triesDir,
		});
		const states = await run.done;
		expect(states.map((s) => s.files)).toEqual([
			[{ path: "notes.txt", status: "modified", added: 1, removed: 0 }],
			[{ path: "notes.txt", status: "modified", added: 1, removed: 0 }],
		]);
		// Meanwhile the user edits the top of the same file and stages their draft.
		fs.writeFileSync(path.join(rig.repo, "notes.txt"), "a line on top\nline one\nmy uncommitted line\n");
		execFileSync("git", ["add", "draft.txt"], { cwd: rig.repo });
		const staged = (): string => execFileSync("git", ["diff", "--cached", "--name-status"], { cwd: rig.repo, encoding: "utf8" });
		expect(staged()).toBe("A\tdraft.txt\n");
		const outcome = await keepTry(triesDir, states[1]!.sessionFile);
		expect(outcome).toMatchObject({ applied: ["notes.txt"], conflicts: [] });
		expect(fs.readFileSync(path.join(rig.repo, "notes.txt"), "utf8")).toBe("a line on top\nline one\nmy uncommitted line\na line from the try\n");
		expect(staged()).toBe("A\tdraft.txt\n");
		expect(rig.status()).toBe("A  draft.txt\n M notes.txt\n");
		expect(worktrees()).toEqual([rig.repo]);
	});

	it("outside git the tries run read-only in the session's folder, with only pi's read tools offered to the model", async () => {
		await useRig({ noGit: true });
		const run = await startTries({
			source: rig.session,
			entryId: "a2",
			tries: [{ prompt: "Look around" }, { prompt: "Look around" }],
			pi: pi(),
			piAgentDir: rig.agentDir,
			triesDir,
		});
		expect(run.readOnly).toBe(true);
		const states = await run.done;
		for (const s of states) {
			expect(s.worktree).toBeNull();
			expect(s.cwd).toBe(rig.repo);
			expect(s.files).toBeNull();
		}
		for (const r of rig.firstRequests()) {
			const tools = ((r.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name).sort();
			expect(tools).toEqual(["find", "grep", "ls", "read"]);
		}
		// The model asked for pi's write tool, which this try does not have: nothing was written.
		expect(fs.readdirSync(rig.repo).sort()).toEqual(["draft.txt", "notes.txt"]);
	});

	it("a try over its token cap is stopped and reported as capped", async () => {
		const run = await startTries({
			source: rig.session,
			entryId: "a2",
			tries: [{ prompt: "Go", capTokens: 5 }, { prompt: "Go" }],
			pi: pi(),
			piAgentDir: rig.agentDir,
			triesDir,
		});
		const states = await run.done;
		expect(states[0]).toMatchObject({ status: "capped", message: "over its cap (5 tokens)" });
		expect(states[0]!.tokens.total).toBeGreaterThan(5);
		expect(states[1]!.status).toBe("done");
	});

	it("a start that fails half-way leaves no worktree, fork, snapshot ref or record behind", async () => {
		const before = fs.readdirSync(path.dirname(rig.session)).sort();
		// The second try fails to set up once the first one's worktree and fork exist.
		const specs = [{ prompt: "x" }, { prompt: "y" }];
		Object.defineProperty(specs, 1, {
			get() {
				if (fs.readdirSync(path.dirname(rig.session)).length === before.length + 1 && worktrees().length === 2) throw new Error("set-up failed");
				throw new Error("the first try was not set up first");
			},
		});
		await expect(startTries({ source: rig.session, entryId: "a2", tries: specs, pi: pi(), piAgentDir: rig.agentDir, triesDir })).rejects.toThrow(
			"set-up failed",
		);
		expect(worktrees()).toEqual([rig.repo]);
		expect(fs.readdirSync(path.dirname(rig.session)).sort()).toEqual(before);
		expect(readRuns(triesDir)).toEqual([]);
		expect(fs.readdirSync(triesDir)).toEqual([]);
		expect(execFileSync("git", ["for-each-ref", "refs/arbor"], { cwd: rig.repo, encoding: "utf8" })).toBe("");
		expect(rig.status()).toBe(USER_STATUS);
	});

	it("a session in a subfolder of the repository runs each try in the same subfolder of its worktree", async () => {
		await useRig({ subfolder: "pkg/app" });
		const run = await startTries({
			source: rig.session,
			entryId: "a2",
			tries: [{ prompt: "Write" }, { prompt: "Write" }],
			pi: pi(),
			piAgentDir: rig.agentDir,
			triesDir,
		});
		const states = await run.done;
		for (const s of states) {
			expect(s.cwd).toBe(path.join(s.worktree!, "pkg/app"));
			expect(s.files!.map((f) => f.path)).toEqual([expect.stringMatching(/^pkg\/app\/try-\d\.txt$/)]);
		}
		const kept = states[0]!;
		await keepTry(triesDir, kept.sessionFile);
		expect(fs.existsSync(path.join(rig.repo, kept.files![0]!.path))).toBe(true);
		expect(Pi16SessionManager.open(kept.sessionFile).getHeader()?.cwd).toBe(path.join(rig.repo, "pkg/app"));
		expect(rig.status()).toBe(`${USER_STATUS}?? ${kept.files![0]!.path}\n`);
	});

	it("discarding a leftover run ends the try's pi that outlived its Arbor, and only a process that is that pi", async () => {
		const run = await startTries({ source: rig.session, entryId: "a2", tries: [{ prompt: "Write" }], pi: pi(), piAgentDir: rig.agentDir, triesDir });
		await run.done;
		const file = path.join(triesDir, `${run.runId}.json`);
		const rec = JSON.parse(fs.readFileSync(file, "utf8")) as { ownerPid: number; tries: { pid: number | null; sessionFile: string }[] };
		// A process whose command line names the try's session (as its pi's does), and one that does not.
		const orphan = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", rec.tries[0]!.sessionFile], { detached: true, stdio: "ignore" });
		const stranger = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" });
		try {
			rec.ownerPid = 2 ** 22 + 12345;
			rec.tries[0]!.pid = orphan.pid!;
			fs.writeFileSync(file, JSON.stringify(rec));
			await discardRun(triesDir, leftoverRuns(triesDir)[0]!);
			expect(pidAlive(orphan.pid!)).toBe(false);
			expect(worktrees()).toEqual([rig.repo]);

			// A record naming a process that is not its pi (a reused pid) leaves that process alone and says so.
			const run2 = await startTries({ source: rig.session, entryId: "a2", tries: [{ prompt: "Write" }], pi: pi(), piAgentDir: rig.agentDir, triesDir });
			await run2.done;
			const file2 = path.join(triesDir, `${run2.runId}.json`);
			const rec2 = JSON.parse(fs.readFileSync(file2, "utf8")) as typeof rec;
			rec2.ownerPid = 2 ** 22 + 12345;
			rec2.tries[0]!.pid = stranger.pid!;
			fs.writeFileSync(file2, JSON.stringify(rec2));
			await expect(discardRun(triesDir, leftoverRuns(triesDir)[0]!)).rejects.toThrow(/still runs/);
			expect(pidAlive(stranger.pid!)).toBe(true);
		} finally {
			orphan.kill("SIGKILL");
			stranger.kill("SIGKILL");
		}
	});
});
