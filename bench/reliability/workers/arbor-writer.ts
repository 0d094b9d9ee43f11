// Concurrency worker, Arbor side: opens a session with Arbor's SessionManager and, on "go", appends
// messages with labels and branch summaries mixed in while pi's own SessionManager appends to the same
// file from another process. Also the "reload" side: describes the tree Arbor sees after reopening.
//
// IPC: parent sends { mode: "write", file, count, seed } then { go: true }, then (both writers done)
// { mode: "live" } for the live view; or { mode: "reload", file }.

import { type CatchUpTrace, SessionManager } from "../../../electron/session/index";
import { canonicalTree, describeError, isTypedError, rng } from "./common";

interface WriteJob {
	mode: "write";
	file: string;
	count: number;
	seed: string;
	tag: string;
	startAt?: number;
	intervalMs?: number;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Both writers append on the same clock (start time + k × interval) so their lines really interleave. */
function pace(j: WriteJob, k: number): void {
	const target = (j.startAt ?? 0) + k * (j.intervalMs ?? 0);
	const wait = target - Date.now();
	if (wait > 0) Atomics.wait(sleeper, 0, 0, wait);
}
interface ReloadJob {
	mode: "reload";
	file: string;
}

let sm: SessionManager | undefined;
let job: WriteJob | undefined;
/** What every catch-up and own append saw (offsets, sizes), kept for the report when the views differ. */
const traces: CatchUpTrace[] = [];
const probe = { trace: (t: CatchUpTrace) => void traces.push(t) };

/** The traces worth reading in a failure report: the last few, plus every reload, race and partial tail. */
function traceSummary(): { counts: Record<string, number>; reloadReasons: Record<string, number>; notable: string[]; last: string[] } {
	const fmt = (t: CatchUpTrace): string =>
		t.op === "append"
			? `append ${t.id} at ${t.offset} (size ${t.before} → ${t.after}${t.raced ? ", raced" : ""})`
			: `${t.op} ${t.result}${t.reason ? ` (${t.reason})` : ""}: read ${t.from}..${t.statSize} (known size ${t.knownSize}), indexed to ${t.to}${t.to < t.statSize ? " (partial last line waits)" : ""}, ${t.entries} entries`;
	const counts: Record<string, number> = { catchUps: 0, partialTails: 0, reloads: 0, appends: 0, racedAppends: 0 };
	const notable: string[] = [];
	const reloadReasons: Record<string, number> = {};
	for (const t of traces) {
		if (t.op !== "append" && t.result === "reloaded") reloadReasons[t.reason ?? "?"] = (reloadReasons[t.reason ?? "?"] ?? 0) + 1;
		if (t.op === "append") {
			counts.appends++;
			if (t.raced) counts.racedAppends++;
		} else {
			counts.catchUps++;
			if (t.to < t.statSize) counts.partialTails++;
			if (t.result === "reloaded") counts.reloads++;
		}
		const special = t.op === "append" ? t.raced : t.result === "reloaded" || t.to < t.statSize;
		if (special && notable.length < 12) notable.push(fmt(t));
	}
	return { counts, reloadReasons, notable, last: traces.slice(-6).map(fmt) };
}

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
					role: "assistant",
					content: [{ type: "text", text: `${j.tag} assistant ${k}` }],
					api: "openai-completions",
					provider: "reliability",
					model: "writer",
					usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
					stopReason: "stop",
					timestamp: Date.now(),
				});
				written.push(id);
				messages.push(id);
			}
		} catch (err) {
			if (isTypedError(err)) typedErrors++;
			errors.push(describeError(err));
		}
	}
	process.send?.({ done: true, written, errors: errors.slice(0, 20), errorCount: errors.length, typedErrors });
}

/**
 * The live view, once every writer has finished: one more catch-up (as the app's watcher does after the
 * other writer's last append), then the tree. Sampling it before pi's last line landed would compare a view
 * that is simply behind, not wrong.
 */
function live(): void {
	const s = sm!;
	s.catchUp();
	process.send?.({ done: true, liveTree: canonicalTree(s.getTree()), liveCount: s.getEntries().length, liveView: view(s), trace: traceSummary() });
}

/** What a view shows, entry by entry (file order): id, parent id, label; plus the leaf. Compared across views. */
function view(s: SessionManager): { ids: string[]; parents: (string | null)[]; labels: [string, string][]; leaf: string | null; resumeLeaf: string | null } {
	const k = s.getSkeleton();
	return {
		ids: k.ids,
		parents: Array.from(k.parent, (p) => (p < 0 ? null : k.ids[p])),
		labels: k.labels.map((l) => [k.ids[l.target] ?? String(l.target), l.label] as [string, string]),
		leaf: s.getLeafId(),
		resumeLeaf: s.getResumeLeafId(),
	};
}

function reload(j: ReloadJob): void {
	const t = SessionManager.open(j.file);
	const ctx = t.buildSessionContext();
	process.send?.({
		done: true,
		tree: canonicalTree(t.getTree()),
		count: t.getEntries().length,
		leaf: t.getLeafId(),
		contextMessages: ctx.messages.length,
		warnings: t.getWarningCount(),
		view: view(t),
	});
}

process.on("message", (m: WriteJob | ReloadJob | { mode: "live" } | { go: true; startAt: number; intervalMs: number }) => {
	try {
		if ("go" in m) write({ ...job!, ...(m as { startAt?: number; intervalMs?: number }) });
		else if (m.mode === "live") live();
		else if (m.mode === "write") {
			job = m;
			traces.length = 0;
			sm = SessionManager.open(m.file, { probe });
			process.send?.({ opened: true });
		} else reload(m);
	} catch (err) {
		process.send?.({ done: true, fatal: describeError(err) });
	}
});
process.send?.({ ready: true });
