// Concurrency worker, Arbor side: opens a session with Arbor's SessionManager and, on "go", appends
// messages with labels and branch summaries mixed in while pi's own SessionManager appends to the same
// file from another process. Also the "reload" side: describes the tree Arbor sees after reopening.
//
// IPC: parent sends { mode: "write", file, count, seed } then { go: true }; or { mode: "reload", file }.

import { SessionManager } from "../../../electron/session/index";
import { canonicalTree, describeError, isTypedError, rng } from "./common";

interface WriteJob { mode: "write"; file: string; count: number; seed: string; tag: string; startAt?: number; intervalMs?: number }

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Both writers append on the same clock (start time + k × interval) so their lines really interleave. */
function pace(j: WriteJob, k: number): void {
	const target = (j.startAt ?? 0) + k * (j.intervalMs ?? 0);
	const wait = target - Date.now();
	if (wait > 0) Atomics.wait(sleeper, 0, 0, wait);
}
interface ReloadJob { mode: "reload"; file: string }

let sm: SessionManager | undefined;
let job: WriteJob | undefined;

function write(j: WriteJob): void {
	const r = rng(j.seed);
	const written: string[] = [];
	const errors: string[] = [];
	let typedErrors = 0;
	const messages: string[] = [];
	const s = sm!;
	for (let k = 0; k < j.count; k++) {
		pace(j, k);
		try {
			if (k % 10 === 9) {
				const ids = s.getSkeleton().ids;
				written.push(s.appendLabelChange(r.pick(ids), `${j.tag} label ${k}`));
			} else if (k % 25 === 24 && messages.length > 3) {
				written.push(s.branchWithSummary(r.pick(messages), `${j.tag} summary ${k}`));
			} else if (k % 2 === 0) {
				const id = s.appendMessage({ role: "user", content: [{ type: "text", text: `${j.tag} user ${k}` }], timestamp: Date.now() });
				written.push(id);
				messages.push(id);
			} else {
				const id = s.appendMessage({
					role: "assistant", content: [{ type: "text", text: `${j.tag} assistant ${k}` }], api: "openai-completions",
					provider: "reliability", model: "writer", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
					stopReason: "stop", timestamp: Date.now(),
				});
				written.push(id);
				messages.push(id);
			}
		} catch (err) {
			if (isTypedError(err)) typedErrors++;
			errors.push(describeError(err));
		}
	}
	s.catchUp();
	const live = canonicalTree(s.getTree());
	process.send?.({ done: true, written, errors: errors.slice(0, 20), errorCount: errors.length, typedErrors, liveTree: live, liveCount: s.getEntries().length });
}

function reload(j: ReloadJob): void {
	const t = SessionManager.open(j.file);
	const ctx = t.buildSessionContext();
	process.send?.({ done: true, tree: canonicalTree(t.getTree()), count: t.getEntries().length, leaf: t.getLeafId(), contextMessages: ctx.messages.length, warnings: t.getWarningCount() });
}

process.on("message", (m: WriteJob | ReloadJob | { go: true; startAt: number; intervalMs: number }) => {
	try {
		if ("go" in m) write({ ...job!, ...(m as { startAt?: number; intervalMs?: number }) });
		else if (m.mode === "write") {
			job = m;
			sm = SessionManager.open(m.file);
			process.send?.({ opened: true });
		} else reload(m);
	} catch (err) {
		process.send?.({ done: true, fatal: describeError(err) });
	}
});
process.send?.({ ready: true });
