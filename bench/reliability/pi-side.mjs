// Concurrency worker, pi side: pi's own SessionManager (@mariozechner/pi-coding-agent, unmodified) appends
// to the same file as Arbor from this separate process, exactly as the pi CLI would (blind appends, its own
// in-memory leaf). Also the "reload" side: the tree pi sees after reopening. Same IPC as
// workers/arbor-writer.ts.
import { createHash } from "node:crypto";
import { SessionManager } from "@mariozechner/pi-coding-agent";

function canonicalTree(roots) {
	const h = createHash("sha256");
	let nodes = 0;
	const stack = [...roots].reverse();
	h.update(`roots:${roots.map((n) => String(n.entry.id)).join(",")}\n`);
	while (stack.length) {
		const n = stack.pop();
		nodes++;
		h.update(`${String(n.entry.id)}|${String(n.entry.parentId)}|${n.label === undefined ? "" : String(n.label)}|${n.children.map((c) => String(c.entry.id)).join(",")}\n`);
		for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
	}
	return { hash: h.digest("hex"), nodes };
}

function rng(seed) {
	let s = 2166136261;
	for (let i = 0; i < seed.length; i++) s = Math.imul(s ^ seed.charCodeAt(i), 16777619);
	s = s >>> 0 || 1;
	const rnd = () => {
		s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
		return s / 4294967296;
	};
	return { pick: (a) => a[Math.floor(rnd() * a.length)] };
}

let sm, job;

function write(j) {
	const r = rng(j.seed);
	const written = [];
	const errors = [];
	const messages = [];
	for (let k = 0; k < j.count; k++) {
		try {
			if (k % 10 === 9 && messages.length) written.push(sm.appendLabelChange(r.pick(messages), `${j.tag} label ${k}`));
			else if (k % 25 === 24 && messages.length > 3) written.push(sm.branchWithSummary(r.pick(messages), `${j.tag} summary ${k}`));
			else if (k % 2 === 0) {
				const id = sm.appendMessage({ role: "user", content: [{ type: "text", text: `${j.tag} user ${k}` }], timestamp: Date.now() });
				written.push(id);
				messages.push(id);
			} else {
				const id = sm.appendMessage({
					role: "assistant", content: [{ type: "text", text: `${j.tag} assistant ${k}` }], api: "openai-completions", provider: "reliability", model: "writer",
					usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
					stopReason: "stop", timestamp: Date.now(),
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

process.on("message", (m) => {
	try {
		if (m.go) write(job);
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
