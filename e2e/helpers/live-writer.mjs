// A second process writing to a session file open in Arbor, for e2e/live.spec.ts: pi's own SessionManager
// (@mariozechner/pi-coding-agent, unmodified) appends messages, labels and branch summaries in bursts, and
// raw appends add the awkward cases: an entry written before its parent, a re-used id, and a line written
// in two parts. Usage: node live-writer.mjs FILE COUNT
import { appendFileSync } from "node:fs";
import { SessionManager } from "@mariozechner/pi-coding-agent";

const [file, countArg] = process.argv.slice(2);
const count = Number(countArg ?? 100);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sm = SessionManager.open(file);
const messages = [];
const raw = (o) => appendFileSync(file, `${JSON.stringify(o)}\n`);
const stamp = () => new Date().toISOString();
for (let k = 0; k < count; k++) {
	if (k % 10 === 9) sm.appendLabelChange(messages[(k * 7) % messages.length], `live label ${k}`);
	else if (k % 25 === 24) sm.branchWithSummary(messages[(k * 3) % messages.length], `live summary ${k}`);
	else {
		const id =
			k % 2 === 0
				? sm.appendMessage({ role: "user", content: [{ type: "text", text: `live user ${k}` }], timestamp: Date.now() })
				: sm.appendMessage({
						role: "assistant",
						content: [{ type: "text", text: `live assistant ${k}` }],
						api: "openai-completions",
						provider: "e2e",
						model: "writer",
						usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
						stopReason: "stop",
						timestamp: Date.now(),
					});
		messages.push(id);
	}
	// Bursts with pauses: some catch-ups see several lines, some one.
	await sleep(k % 9 === 0 ? 40 : 1);
}
const leaf = sm.getLeafId();
// An entry whose parent is written after it (the reload links them; so must the live view).
raw({
	type: "message",
	id: "e2e-late",
	parentId: "e2e-parent",
	timestamp: stamp(),
	message: { role: "user", content: "written before its parent", timestamp: Date.now() },
});
await sleep(150);
raw({
	type: "message",
	id: "e2e-parent",
	parentId: leaf,
	timestamp: stamp(),
	message: { role: "user", content: "the parent, written late", timestamp: Date.now() },
});
await sleep(150);
// A re-used id (the later entry wins lookups and links).
raw({ type: "message", id: messages[3], parentId: leaf, timestamp: stamp(), message: { role: "user", content: "re-used id", timestamp: Date.now() } });
await sleep(150);
// One line in two writes, with a pause between them.
const split = JSON.stringify({
	type: "message",
	id: "e2e-split",
	parentId: "e2e-parent",
	timestamp: stamp(),
	message: { role: "user", content: "written in two parts", timestamp: Date.now() },
});
appendFileSync(file, split.slice(0, 50));
await sleep(300);
appendFileSync(file, `${split.slice(50)}\n`);
