// `arbor context --json` is byte-for-byte what pi's own SessionManager.buildSessionContext() gives
// (JSON.stringify of {messages, thinkingLevel, model}), for the file's leaf and for other leaves; the text
// form lists the same messages. pi reads a separate temp copy (it may rewrite legacy files on open).
import { copyFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { beforeAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../session";
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
	[
		"generated with compactions and branch summaries",
		generate(dir, "gen.jsonl", ["--n", "1500", "--seed", "ctx", "--branch-every", "10", "--compaction-every", "120", "--custom-messages", "0.3"]),
	],
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
		const ids = JSON.parse(arbor(["tree", file, "--filter", "all", "--json"]).stdout) as { roots: { id: string; children: unknown[] }[] };
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
		const titles = r.stdout
			.split("\n")
			.filter((l) => /^\[\d+\] /.test(l))
			.map((l) => l.replace(/^\[\d+\] (\S+).*$/, "$1"));
		expect(titles).toEqual(ctx.messages.map((m) => m.role));
		expect(r.stderr).toContain("kuato__pi-session-orphan-no-eol.jsonl:3"); // the orphan warning names file and line
	});
});

describe("context on a large file (over 16 MiB: indexed by the byte skimmer, one UTF-8 check per chunk)", () => {
	it("prints what a full open prints: pi's context at any leaf, and the same warnings on stderr", () => {
		const big = generate(dir, "big.jsonl", ["--n", "6000", "--seed", "ctx-big", "--branch-every", "12"]);
		// Damage in the middle: junk, a torn line, bad UTF-8 inside an entry, an orphan, a raw tab between tokens.
		const lines = readFileSync(big, "utf8").split("\n");
		const torn = lines[3000].slice(0, 50);
		const badUtf8 = Buffer.from(lines[3002]);
		const at = badUtf8.indexOf('"timestamp"');
		const orphan = JSON.stringify({ type: "custom", customType: "x", data: 1, id: "orphan01", parentId: "nowhere", timestamp: "2026-01-01T00:00:00.000Z" });
		const parts = [
			lines.slice(0, 3001).join("\n"),
			"not json at all",
			torn,
			lines[3001],
			Buffer.concat([badUtf8.subarray(0, at), Buffer.from([0xff, 0xfe, 0x20]), badUtf8.subarray(at)]),
			orphan,
			lines[3003].replace("{", "{\t"),
			lines.slice(3004).join("\n"),
		];
		writeFileSync(big, Buffer.concat(parts.flatMap((p, k) => [k > 0 ? Buffer.from("\n") : Buffer.alloc(0), Buffer.isBuffer(p) ? p : Buffer.from(p)])));
		expect(statSync(big).size).toBeGreaterThan(16 * 1024 * 1024);
		const full = SessionManager.open(big);
		const warnings = full.getWarnings();
		expect(warnings.length).toBeGreaterThan(2);
		// Lines 3002-3007 hold the damage; only the one with the bad bytes is reported as not UTF-8.
		expect(warnings.filter((w) => w.kind === "invalid_utf8").map((w) => w.line)).toEqual([3005]);
		expect(warnings.find((w) => w.kind === "orphan")?.line).toBe(3006);
		const expectedErr =
			warnings
				.slice(0, 5)
				.map((w) => `arbor: ${big}:${w.line}: ${w.message}\n`)
				.join("") + (full.getWarningCount() > 5 ? `arbor: ${big}: ${full.getWarningCount() - 5} more warning(s); \`arbor info\` lists them\n` : "");
		const r = arbor(["context", big, "--json"]);
		expect(r.status, r.stderr).toBe(0);
		expect(r.stderr).toBe(expectedErr);
		expect(r.stdout === `${JSON.stringify(full.buildSessionContext())}\n`).toBe(true);
		expect(r.stdout === `${piContext(big)}\n`).toBe(true);
		const leaves = [full.idAt(10), full.idAt(2999), full.idAt(3004), full.idAt(full.getEntryCount() - 50)];
		for (const id of leaves) expect(arbor(["context", big, "--leaf", id, "--json"]).stdout === `${piContext(big, id)}\n`, id).toBe(true);
	});
});
