// `arbor context --json` is byte-for-byte what pi's own SessionManager.buildSessionContext() gives
// (JSON.stringify of {messages, thinkingLevel, model}), for the file's leaf and for other leaves; the text
// form lists the same messages. pi reads a separate temp copy (it may rewrite legacy files on open).
import { copyFileSync } from "node:fs";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, copyFixture, generate, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

function piContext(file: string, leafId?: string): string {
	const copy = `${file}.pi-copy.jsonl`;
	copyFileSync(file, copy);
	const sm = PiSessionManager.open(copy);
	// pi's method takes no leaf: move its leaf there first (in memory only, nothing is written).
	if (leafId !== undefined) sm.branch(leafId);
	return JSON.stringify(sm.buildSessionContext());
}

const dir = tempDir();
const readable: Array<[string, string]> = [
	["formic__pi-v3-branch-compaction.jsonl", copyFixture("formic__pi-v3-branch-compaction.jsonl", dir)],
	["kimchi-dev__statsuline.v3.jsonl", copyFixture("kimchi-dev__statsuline.v3.jsonl", dir)],
	["kuato__pi-session-orphan-no-eol.jsonl", copyFixture("kuato__pi-session-orphan-no-eol.jsonl", dir)],
	["formic__pi-v2-hook-message.jsonl", copyFixture("formic__pi-v2-hook-message.jsonl", dir)],
	["pi-mono__large-session.v1.jsonl", copyFixture("pi-mono__large-session.v1.jsonl", dir)],
	["generated with compactions and branch summaries", generate(dir, "gen.jsonl", ["--n", "1500", "--seed", "ctx", "--branch-every", "10", "--compaction-every", "120", "--custom-messages", "0.3"])],
];

describe.each(readable)("arbor context %s", (_name, file) => {
	it("--json equals pi's buildSessionContext for the file's leaf, and reading leaves the file unchanged", () => {
		const before = sha256(file);
		const r = arbor(["context", file, "--json"]);
		expect(r.status).toBe(0);
		expect(r.stdout === `${piContext(file)}\n`).toBe(true);
		expect(sha256(file)).toBe(before);
	});
});

describe("context --leaf", () => {
	it("equals pi's context for every leaf of a branchy file", () => {
		const file = readable[0][1];
		const ids = (JSON.parse(arbor(["tree", file, "--filter", "all", "--json"]).stdout) as { roots: { id: string; children: unknown[] }[] });
		const all: string[] = [];
		const stack: { id: string; children: unknown[] }[] = [...ids.roots];
		while (stack.length) {
			const n = stack.pop() as { id: string; children: { id: string; children: unknown[] }[] };
			all.push(n.id);
			stack.push(...n.children);
		}
		expect(all.length).toBeGreaterThan(10);
		for (const id of all) {
			const r = arbor(["context", file, "--leaf", id, "--json"]);
			expect(r.status, id).toBe(0);
			expect(r.stdout, id).toBe(`${piContext(file, id)}\n`);
		}
	});
	it("equals pi's context for sampled leaves of a generated file", () => {
		const file = readable[5][1];
		const tree = JSON.parse(arbor(["tree", file, "--filter", "user-only", "--json"]).stdout) as { roots: { id: string; children: unknown[] }[] };
		const ids: string[] = [];
		const stack: { id: string; children: unknown[] }[] = [...tree.roots];
		while (stack.length && ids.length < 15) {
			const n = stack.pop() as { id: string; children: { id: string; children: unknown[] }[] };
			ids.push(n.id);
			stack.push(...n.children);
		}
		for (const id of ids) expect(arbor(["context", file, "--leaf", id, "--json"]).stdout === `${piContext(file, id)}\n`, id).toBe(true);
	});
});

describe("context text form", () => {
	it("prints a header line and one numbered block per message", () => {
		const file = readable[2][1];
		const r = arbor(["context", file]);
		expect(r.status).toBe(0);
		const ctx = JSON.parse(piContext(file)) as { messages: { role: string }[]; thinkingLevel: string };
		expect(r.stdout.split("\n")[0]).toMatch(new RegExp(`^leaf: \\S+  thinking: ${ctx.thinkingLevel}  model: .+  messages: ${ctx.messages.length}$`));
		const titles = r.stdout.split("\n").filter((l) => /^\[\d+\] /.test(l)).map((l) => l.replace(/^\[\d+\] (\S+).*$/, "$1"));
		expect(titles).toEqual(ctx.messages.map((m) => m.role));
		expect(r.stderr).toContain("kuato__pi-session-orphan-no-eol.jsonl:3"); // the orphan warning names file and line
	});
});
