// Crash-safety worker: opens a session and repeats one writing operation as fast as it can until the
// parent kills it with SIGKILL at a random moment. Before each branch-to-file it records the branch
// point in a log (synchronously, so the record survives the kill) for the parent's completeness check.
//
// IPC: { op: "append" | "label" | "branch" | "upgrade", file, seed, log } -> { opened } then loops.
// For "upgrade" (one operation per file) it answers { upgraded, ms } when done.

import { closeSync, openSync, writeSync } from "node:fs";
import { EntryKind } from "../../../shared/skeleton";
import { SessionManager } from "../../../electron/session/index";
import { rng } from "./common";

interface Job {
	op: "append" | "label" | "branch" | "upgrade" | "reopen" | "read";
	file: string;
	seed: string;
	log: string;
}

function loop(job: Job): void {
	const r = rng(job.seed);
	const logFd = openSync(job.log, "a");
	const sm = SessionManager.open(job.file);
	if (job.op === "read") {
		sm.getTree();
		process.send?.({ opened: true });
		return;
	}
	// "reopen": what the user's next start of Arbor does after the crash: open (which only reads), then its
	// next write (a label), which cuts a torn append off with the proof in Arbor's marker.
	if (job.op === "reopen") {
		const leaf = sm.getLeafId();
		if (leaf) sm.appendLabelChange(leaf, "next write after the crash");
		process.send?.({ opened: true });
		return;
	}
	const sk = sm.getSkeleton();
	const ids = sk.ids;
	// Branch points are never label entries: a branched file drops labels, so the intent could not be matched.
	const branchable = ids.filter((_, i) => sk.kind[i] !== EntryKind.label);
	process.send?.({ opened: true });
	if (job.op === "upgrade") {
		const t0 = performance.now();
		sm.upgradeLegacy();
		process.send?.({ upgraded: true, ms: performance.now() - t0 });
		return;
	}
	for (let k = 0; ; k++) {
		if (job.op === "append") {
			// Sizes up to ~256 KB widen the window in which a kill lands inside a write.
			const size = Math.round(100 * Math.pow(2560, r.rnd()));
			sm.appendMessage({ role: "user", content: [{ type: "text", text: `crash ${k} ${"x".repeat(size)}` }], timestamp: Date.now() });
		} else if (job.op === "label") {
			sm.appendLabelChange(r.pick(ids), `crash label ${k} ${"y".repeat(r.int(0, 2000))}`);
		} else {
			const from = r.pick(branchable);
			writeSync(logFd, `${from}\n`);
			const s = SessionManager.open(job.file);
			s.createBranchedSession(from);
			s.close();
		}
	}
	closeSync(logFd);
}

process.on("message", (job: Job) => {
	try {
		loop(job);
	} catch (err) {
		process.send?.({ failed: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
	}
});
process.send?.({ ready: true });
