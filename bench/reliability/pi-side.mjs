// Concurrency worker, pi side: pi's own SessionManager (@mariozechner/pi-coding-agent, unmodified) appends
// to the same file as Arbor from this separate process, exactly as the pi CLI would (blind appends, its own
// in-memory leaf). Also the "reload" side: the tree pi sees after reopening. Same IPC as
// workers/arbor-writer.ts.
import { createHash, randomUUID } from "node:crypto";
import { appendFileSync, closeSync, fstatSync, openSync, readSync } from "node:fs";
import { SessionManager } from "@mariozechner/pi-coding-agent";

function canonicalTree(roots) {
	const h = createHash("sha256");
	let nodes = 0;
	const stack = [...roots].reverse();
	h.update(`roots:${roots.map((n) => String(n.entry.id)).join(",")}\n`);
	while (stack.length) {
		const n = stack.pop();
		nodes++;
		h.update(
			`${String(n.entry.id)}|${String(n.entry.parentId)}|${n.label === undefined ? "" : String(n.label)}|${n.children.map((c) => String(c.entry.id)).join(",")}\n`,
		);
		for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
	}
	return { hash: h.digest("hex"), nodes };
}

function rng(seed) {
	let s = 2166136261;
	for (let i = 0; i < seed.length; i++) s = Math.imul(s ^ seed.charCodeAt(i), 16777619);
	s = s >>> 0 || 1;
	const rnd = () => {
		s ^= s << 13;
		s >>>= 0;
		s ^= s >>> 17;
		s ^= s << 5;
		s >>>= 0;
		return s / 4294967296;
	};
	return { pick: (a) => a[Math.floor(rnd() * a.length)] };
}

let sm, job;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Same clock as Arbor's writer (start time + k × interval) so the two writers' lines interleave. */
function pace(j, k) {
	const wait = (j.startAt ?? 0) + k * (j.intervalMs ?? 0) - Date.now();
	if (wait > 0) Atomics.wait(sleeper, 0, 0, wait);
}

function write(j) {
	const r = rng(j.seed);
	const written = [];
	const errors = [];
	const messages = [];
	for (let k = 0; k < j.count; k++) {
		pace(j, k);
		try {
			if (k % 10 === 9 && messages.length) written.push(sm.appendLabelChange(r.pick(messages), `${j.tag} label ${k}`));
			else if (k % 25 === 24 && messages.length > 3) written.push(sm.branchWithSummary(r.pick(messages), `${j.tag} summary ${k}`));
			else if (k % 2 === 0) {
				const id = sm.appendMessage({ role: "user", content: [{ type: "text", text: `${j.tag} user ${k}` }], timestamp: Date.now() });
				written.push(id);
				messages.push(id);
			} else {
				const id = sm.appendMessage({
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
			errors.push(String(err?.message ?? err));
		}
	}
	process.send({ done: true, written, errors: errors.slice(0, 20), errorCount: errors.length, typedErrors: 0 });
}

function reload(j) {
	const t = SessionManager.open(j.file);
	const ctx = t.buildSessionContext();
	process.send({ done: true, tree: canonicalTree(t.getTree()), count: t.getEntries().length, leaf: t.getLeafId(), contextMessages: ctx.messages.length });
}

/** pi's own numbers for the load figure: open time and peak RSS, or the error pi hits. */
function measureOpen(j) {
	const t0 = performance.now();
	try {
		const s = SessionManager.open(j.file);
		const openMs = performance.now() - t0;
		const entries = s.getEntries().length;
		s.getTree();
		process.send({ done: true, openMs, treeMs: performance.now() - t0 - openMs, entries, rss: process.resourceUsage().maxRSS * 1024 });
	} catch (err) {
		process.send({ done: true, error: String(err?.message ?? err).slice(0, 200), ms: performance.now() - t0, rss: process.resourceUsage().maxRSS * 1024 });
	}
}

async function measureList() {
	const runs = [];
	let n = 0;
	{
		const t0 = performance.now();
		n = (await SessionManager.listAll()).length;
		runs.push(performance.now() - t0);
	}
	process.send({ done: true, files: n, ms: runs });
}

function lastLineId(file) {
	const fd = openSync(file, "r");
	try {
		const size = fstatSync(fd).size;
		const len = Math.min(size, 4 * 1024 * 1024);
		const buf = Buffer.alloc(len);
		readSync(fd, buf, 0, len, size - len);
		const lines = buf.toString("utf8").trimEnd().split("\n");
		return JSON.parse(lines[lines.length - 1]).id ?? null;
	} finally {
		closeSync(fd);
	}
}

/**
 * Appends while Arbor has the file open: through pi's real SessionManager when pi can open the file,
 * else exactly the bytes pi's _persist writes (JSON + "\n" via appendFileSync under the last line).
 */
let live;

/** Opens first (pi needs seconds on a big file), then waits for { go } so appends overlap the measurement. */
function prepareLive(j) {
	live = { j, sm: j.real ? SessionManager.open(j.file) : undefined };
	process.send({ prepared: true });
}

async function appendLive() {
	const { j, sm } = live;
	const written = [];
	let parent = sm ? null : lastLineId(j.file);
	const end = Date.now() + j.ms;
	let k = 0;
	while (Date.now() < end) {
		const text = `live append ${k++}`;
		let id;
		const message =
			k % 2
				? { role: "user", content: [{ type: "text", text }], timestamp: Date.now() }
				: {
						role: "assistant",
						content: [{ type: "text", text }],
						api: "openai-completions",
						provider: "reliability",
						model: "writer",
						usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
						stopReason: "stop",
						timestamp: Date.now(),
					};
		if (sm) id = sm.appendMessage(message);
		else {
			id = randomUUID().slice(0, 8);
			appendFileSync(j.file, `${JSON.stringify({ type: "message", id, parentId: parent, timestamp: new Date().toISOString(), message })}\n`);
			parent = id;
		}
		written.push([id, Date.now()]);
		await new Promise((ok) => setTimeout(ok, 1000 / j.rate));
	}
	process.send({ done: true, written, via: sm ? "pi SessionManager" : "pi-identical raw appends (pi cannot open the file)" });
}

/** Crash-safety comparison: pi appending big messages until it is killed. */
function appendForever(j) {
	const s = SessionManager.open(j.file);
	process.send({ opened: true });
	let x = 1;
	for (let k = 0; ; k++) {
		x = (x * 1103515245 + 12345) % 2147483648;
		const size = Math.round(100 * Math.pow(2560, x / 2147483648));
		s.appendMessage({ role: "user", content: [{ type: "text", text: `crash ${k} ${"x".repeat(size)}` }], timestamp: Date.now() });
	}
}

process.on("message", (m) => {
	try {
		if (m.op === "pi-append") return appendForever(m);
		if (m.mode === "measureOpen") return measureOpen(m);
		if (m.mode === "list") return void measureList().catch((err) => process.send({ done: true, fatal: String(err?.stack ?? err) }));
		if (m.mode === "appendLive") return prepareLive(m);
		if (m.goLive) return void appendLive().catch((err) => process.send({ done: true, fatal: String(err?.stack ?? err) }));
		if (m.go) write({ ...job, startAt: m.startAt, intervalMs: m.intervalMs });
		else if (m.mode === "write") {
			job = m;
			sm = SessionManager.open(m.file);
			process.send({ opened: true });
		} else reload(m);
	} catch (err) {
		process.send({ done: true, fatal: String(err?.stack ?? err) });
	}
});
process.send({ ready: true });
