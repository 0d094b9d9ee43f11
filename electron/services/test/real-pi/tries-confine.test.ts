// What a try's pi can touch and how long its processes live, with the real pi 1.6 and a loopback model that calls
// pi's write and bash tools (issue 39): confined by bubblewrap, a try writes only its worktree (absolute paths into
// the user's tree, outside it, the original session and pi's agent folder all fail); a `setsid` daemon a tool
// starts ends with Stop, with the try's end and with Discard; a cap stops an answer that streams forever; and one
// Arbor runs at most a set number of tries at once, the rest queued.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ArborEvent } from "../../../../shared/api";
import type { TriesRunInfo } from "../../../../shared/tries";
import { detectConfinement, discardRun, leftoverRuns, readRuns, startTries, TriesRequests, TRY_MARKER_VAR, TrySlots } from "../../tries";
import { spawn } from "node:child_process";
import { messageText, startTriesRig, type TriesRig } from "../helpers/tries-rig";

let rig: TriesRig;
let triesDir: string;
beforeEach(async () => {
	rig = await startTriesRig();
	triesDir = path.join(rig.root, "arbor-home", ".arbor", "tries");
});
afterEach(async () => {
	await rig.close();
});

type Msg = { role: string; content?: unknown; tool_call_id?: string };
const messagesOf = (body: unknown): Msg[] => ((body as { messages?: Msg[] }).messages ?? []) as Msg[];
const call = (name: string, args: Record<string, unknown>, k: number) => ({ toolCalls: [{ id: `call_${name}_${k}`, name, arguments: args }] });
const pi = () => ({ command: rig.piPath, args: [], origin: "test" });
const USER_STATUS = " M notes.txt\n?? draft.txt\n";
/** Each test starts one to four real pi processes: on a loaded machine that takes minutes, not seconds. */
const SLOW = 240_000;

async function until(what: string, ok: () => boolean, ms = 120_000): Promise<void> {
	const end = Date.now() + ms;
	while (!ok()) {
		if (Date.now() > end) throw new Error(`waited in vain for ${what}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

/** Processes whose command line has `word` as one of its arguments (Linux /proc). */
function processesWith(word: string): number[] {
	return fs.readdirSync("/proc").flatMap((n) => {
		if (!/^\d+$/.test(n)) return [];
		try {
			const stat = fs.readFileSync(`/proc/${n}/stat`, "utf8");
			if (/^[ZX]$/.test(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3))) return [];
			return fs.readFileSync(`/proc/${n}/cmdline`, "utf8").split("\0").includes(word) ? [Number(n)] : [];
		} catch {
			return [];
		}
	});
}

describe("what a try's pi can touch (real pi 1.6)", () => {
	/** The model writes, one tool call at a time, where a try must not and then where it may; the tool results it got. */
	async function escapeAttempts(confined: boolean) {
		const outside = path.join(rig.root, "outside");
		fs.mkdirSync(outside);
		const originalBytes = fs.readFileSync(rig.session);
		const steps = [
			call("write", { path: path.join(rig.repo, "escaped.txt"), content: "into the user's tree\n" }, 0),
			call("write", { path: path.join(outside, "outside.txt"), content: "outside every tree\n" }, 1),
			call("bash", { command: `echo by-bash > '${path.join(rig.repo, "bash-escaped.txt")}'; echo inside > inside-bash.txt` }, 2),
			call("write", { path: rig.session, content: "the original session, clobbered\n" }, 3),
			call("write", { path: path.join(rig.agentDir, "extensions", "planted.ts"), content: "export default () => {}\n" }, 4),
			call("write", { path: "inside.txt", content: "in the try's worktree\n" }, 5),
		];
		rig.server.setScenario({
			kind: "respond",
			answer: (body) => steps[messagesOf(body).filter((m) => m.role === "tool").length] ?? { text: "Done." },
		});
		const run = await startTries({
			source: rig.session,
			entryId: "a2",
			tries: [{ prompt: "Write where you can" }],
			pi: pi(),
			piAgentDir: rig.agentDir,
			triesDir,
			confinement: confined ? detectConfinement() : null,
		});
		const [s] = await run.done;
		const last = rig.server.requests.filter((r) => r.path.endsWith("/chat/completions")).at(-1)!;
		const results = messagesOf(last.body)
			.filter((m) => m.role === "tool")
			.map((m) => messageText(m));
		return { run, s: s!, outside, originalBytes, results };
	}

	it(
		"confined: writes to the user's tree, outside it, the original session and pi's agent folder fail; the worktree write lands",
		async () => {
			expect(detectConfinement()).toMatchObject({ kind: "bwrap" }); // CI installs bubblewrap (.ci/run)
			const { run, s, outside, originalBytes, results } = await escapeAttempts(true);
			expect(run.confined).toBe(true);
			expect(run.confinement).toMatch(/^confined \(bubblewrap\): a try's pi can write only its own worktree/);
			expect(s.status).toBe("done");
			expect(results).toHaveLength(6);
			for (const r of [results[0], results[1], results[2], results[3]]) expect(r).toMatch(/read-only file system/i);
			expect(rig.status()).toBe(USER_STATUS);
			expect(fs.readdirSync(outside)).toEqual([]);
			expect(fs.readFileSync(rig.session).equals(originalBytes)).toBe(true);
			expect(fs.existsSync(path.join(rig.agentDir, "extensions"))).toBe(false);
			expect(fs.readFileSync(path.join(s.worktree!, "inside.txt"), "utf8")).toBe("in the try's worktree\n");
			expect(fs.readFileSync(path.join(s.worktree!, "inside-bash.txt"), "utf8")).toBe("inside\n");
			expect(s.files!.map((f) => f.path).sort()).toEqual(["inside-bash.txt", "inside.txt"]);
			// pi wrote its session (the fork) through the confinement: the turn's answer is in it.
			expect(fs.readFileSync(s.sessionFile, "utf8")).toContain("Done.");
		},
		SLOW,
	);

	it(
		"not confined (no bwrap): the same writes land where they point, and the run says it is not confined",
		async () => {
			const { run, s, outside, results } = await escapeAttempts(false);
			expect(run.confined).toBe(false);
			expect(run.confinement).toMatch(/^NOT confined .*can write anywhere you can/);
			expect(s.status).toBe("done");
			expect(results.filter((r) => /read-only file system/i.test(r))).toEqual([]);
			expect(fs.existsSync(path.join(rig.repo, "escaped.txt"))).toBe(true);
			expect(fs.existsSync(path.join(rig.repo, "bash-escaped.txt"))).toBe(true);
			expect(fs.readdirSync(outside)).toEqual(["outside.txt"]);
			expect(fs.existsSync(path.join(rig.agentDir, "extensions", "planted.ts"))).toBe(true);
		},
		SLOW,
	);
});

describe("a try's processes end with it (real pi 1.6)", () => {
	for (const confined of [false, true])
		it(
			`${confined ? "confined" : "not confined"}: a setsid daemon a tool starts ends when the try ends, on Stop, and a leftover's on Discard`,
			async () => {
				const secs = [String(5000 + Math.floor(Math.random() * 4000)), String(9000 + Math.floor(Math.random() * 900))];
				// Try 1 starts a daemon then ends its turn; try 2 starts one and then its model hangs until Stop.
				rig.server.setScenario({
					kind: "respond",
					answer: (body) => {
						const ms = messagesOf(body);
						const k = ms.some((m) => messageText(m).includes("then hang")) ? 1 : 0;
						if (!ms.some((m) => m.role === "tool")) return call("bash", { command: `setsid sh -c 'sleep ${secs[k]}' > /dev/null 2>&1 < /dev/null &` }, k);
						return k === 1 ? { hang: true } : { text: "Started." };
					},
				});
				const run = await startTries({
					source: rig.session,
					entryId: "a2",
					tries: [{ prompt: "Start a daemon then stop" }, { prompt: "Start a daemon then hang" }],
					pi: pi(),
					piAgentDir: rig.agentDir,
					triesDir,
					confinement: confined ? detectConfinement() : null,
				});
				if (confined) expect(run.confined).toBe(true);
				// Try 2's daemon runs (its tool ran) before its model hangs.
				await until("try 2's daemon", () => processesWith(secs[1]!).length > 0);
				await until("try 1's end", () => run.states[0]!.status === "done");
				expect(processesWith(secs[0]!)).toEqual([]);
				expect(run.states[1]!.status).toBe("running");
				expect(processesWith(secs[1]!)).not.toEqual([]);
				await run.stop(1);
				const states = await run.done;
				expect(states.map((x) => x.status)).toEqual(["done", "stopped"]);
				expect(processesWith(secs[1]!)).toEqual([]);

				// A leftover run (its Arbor gone): Discard ends every process carrying one of its tries' markers, and
				// leaves a process carrying another marker alone.
				const rec = readRuns(triesDir)[0]!;
				const word = `arbor-leftover-${secs[0]}`;
				const daemon = (marker: string) =>
					spawn("sh", ["-c", "sleep 1000; :", word], { detached: true, stdio: "ignore", env: { ...process.env, [TRY_MARKER_VAR]: marker } });
				const marked = daemon(rec.tries[1]!.marker!);
				const other = daemon(`${rec.tries[1]!.marker!}0`);
				try {
					await until("the two daemons", () => processesWith(word).length === 2);
					const file = path.join(triesDir, `${rec.runId}.json`);
					fs.writeFileSync(file, JSON.stringify({ ...rec, ownerPid: 2 ** 22 + 12345 }));
					await discardRun(triesDir, leftoverRuns(triesDir)[0]!);
					expect(processesWith(word)).toEqual([other.pid]);
				} finally {
					// Each is a process group of its own (detached): its sleep goes with it.
					for (const p of [marked, other])
						try {
							process.kill(-p.pid!, "SIGKILL");
						} catch {
							/* gone already */
						}
				}
			},
			SLOW,
		);
});

describe("caps (real pi 1.6)", () => {
	it(
		"a cap stops an answer that streams forever, by tokens or by USD at the model's price; a try under its cap ends done",
		async () => {
			rig.server.setScenario({
				kind: "respond",
				answer: (body) => (messagesOf(body).some((m) => m.role === "tool") ? { text: "Wrote it." } : call("write", { path: "f.txt", content: "x\n" }, 0)),
			});
			const finite = await startTries({
				source: rig.session,
				entryId: "a2",
				tries: [{ prompt: "Write", capTokens: 1_000_000, capUsd: 1 }],
				pi: pi(),
				piAgentDir: rig.agentDir,
				triesDir,
			});
			const [under] = await finite.done;
			expect(under).toMatchObject({ status: "done", message: null });

			rig.server.setScenario({ kind: "endless", chunk: "more words ", delayMs: 2 });
			const requestsBefore = rig.server.requests.length;
			const run = await startTries({
				source: rig.session,
				entryId: "a2",
				tries: [
					{ prompt: "Go on forever", capTokens: 400 },
					{ prompt: "Go on forever", capUsd: 0.004 },
				],
				pi: pi(),
				piAgentDir: rig.agentDir,
				triesDir,
				// $10 per million output tokens: $0.004 is 400 tokens.
				priceOf: (provider, model) => (provider === "arbor-loopback" && model === "loopback-model" ? { input: 0, output: 10 } : undefined),
			});
			const states = await run.done;
			expect(states[0]).toMatchObject({ status: "capped", message: "over its cap (400 tokens)" });
			expect(states[0]!.tokens.total).toBeGreaterThan(400);
			expect(states[1]).toMatchObject({ status: "capped", message: "over its cap ($0.004)" });
			expect(states[1]!.cost).toBeGreaterThan(0.004);
			// Each try sent one request, and pi gave it up when the try was capped.
			const streamed = rig.server.requests.slice(requestsBefore).filter((r) => r.path.endsWith("/chat/completions"));
			expect(streamed).toHaveLength(2);
			await until("both requests given up", () => streamed.every((r) => r.aborted), 30_000);
		},
		SLOW,
	);
});

describe("how many tries run at once (real pi 1.6, the Tries API)", () => {
	it(
		"with 2 slots, 4 requested tries: 2 run and 2 wait queued; a queued one starts as a running one ends; Stop of a queued one removes it",
		async () => {
			rig.server.setScenario({ kind: "hang" });
			const events: ArborEvent[] = [];
			const tries = new TriesRequests({
				triesDir,
				piAgentDir: rig.agentDir,
				env: {},
				emit: (e) => events.push(e),
				pi: pi,
				slots: new TrySlots(2),
				confinement: null,
			});
			const statuses = (): string[][] => tries.list().runs.map((r: TriesRunInfo) => r.tries.map((t) => t.status));
			const a = await tries.start(rig.session, "a2", [{ prompt: "A1" }, { prompt: "A2" }]);
			const b = await tries.start(rig.session, "a2", [{ prompt: "B1" }, { prompt: "B2" }]);
			expect(b.tries.map((t) => t.status)).toEqual(["queued", "queued"]);
			await until("A's tries asking the model", () => rig.firstRequests().length === 2);
			expect(statuses()).toEqual([
				["running", "running"],
				["queued", "queued"],
			]);
			// A queued try taken off the queue never runs.
			await tries.stop(b.runId, 1);
			await until("B2 stopped", () => statuses()[1]![1] === "stopped");
			const b2 = tries.list().runs[1]!.tries[1]!;
			expect(b2.message).toBe("stopped before it started (it was queued)");
			// A running try ends: the first queued one starts.
			await tries.stop(a.runId, 0);
			await until("B1 asking the model", () => rig.firstRequests().length === 3);
			expect(statuses()).toEqual([
				["stopped", "running"],
				["running", "stopped"],
			]);
			expect(rig.firstRequests().map((r) => messageText(messagesOf(r.body).at(-1)!))).toEqual(expect.arrayContaining(["A1", "A2", "B1"]));
			expect(rig.firstRequests().some((r) => messageText(messagesOf(r.body).at(-1)!) === "B2")).toBe(false);
			await tries.dispose();
			await until("every try ended", () => statuses().every((r) => r.every((s) => s === "stopped")));
			const queuedEvents = events.filter((e) => e.type === "tries" && e.event.type === "try_state" && e.event.state.status === "queued");
			expect(queuedEvents.length).toBeGreaterThanOrEqual(2);
		},
		SLOW,
	);
});
