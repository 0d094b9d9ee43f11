// `arbor compare`: the common ancestor and each side's facts on real generated files and fixtures, checked
// against an independent walk of the raw JSONL (parent links, usage sums, tool-call paths).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, copyFixture, generate, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

type Raw = Record<string, unknown> & { id: string; parentId: string | null; type: string; timestamp?: string };

function load(file: string): Raw[] {
	return readFileSync(file, "utf8")
		.split("\n")
		.filter((l) => l.trim())
		.slice(1)
		.map((l) => JSON.parse(l) as Raw);
}

function pathTo(byId: Map<string, Raw>, id: string): string[] {
	const out: string[] = [];
	for (let e = byId.get(id); e; e = e.parentId ? byId.get(e.parentId) : undefined) out.push(e.id);
	return out.reverse();
}

function leaves(entries: Raw[]): string[] {
	const parents = new Set(entries.map((e) => e.parentId));
	return entries.filter((e) => !parents.has(e.id) && e.type === "message").map((e) => e.id);
}

/** The expected side, computed the simple way from raw entries. */
function expectedSide(byId: Map<string, Raw>, ids: string[]) {
	let input = 0,
		output = 0,
		cacheRead = 0,
		cacheWrite = 0,
		total = 0,
		cost = 0,
		errors = 0;
	const read = new Set<string>(),
		edited = new Set<string>(),
		written = new Set<string>();
	// A call whose result on the side failed did not read or change its file.
	const failed = new Set(
		ids
			.map((id) => byId.get(id)!)
			.filter((e) => (e.message as any)?.role === "toolResult" && (e.message as any).isError === true)
			.map((e) => (e.message as any).toolCallId),
	);
	for (const id of ids) {
		const e = byId.get(id)!;
		const m = e.message as Record<string, any> | undefined;
		if (e.type === "message" && m?.role === "assistant") {
			const u = m.usage ?? {};
			input += u.input ?? 0;
			output += u.output ?? 0;
			cacheRead += u.cacheRead ?? 0;
			cacheWrite += u.cacheWrite ?? 0;
			total += u.totalTokens ?? 0;
			cost += u.cost?.total ?? 0;
			if (m.stopReason === "error") errors++;
			for (const c of m.content ?? []) {
				if (c.type !== "toolCall" || failed.has(c.id)) continue;
				if (c.name === "read") read.add(c.arguments.path);
				if (c.name === "edit") edited.add(c.arguments.path);
				if (c.name === "write") written.add(c.arguments.path);
			}
		}
		if (e.type === "message" && m?.role === "toolResult" && m.isError === true) errors++;
		if (e.type === "message" && m?.role === "bashExecution" && typeof m.exitCode === "number" && m.exitCode !== 0) errors++;
	}
	return {
		tokens: { input, output, cacheRead, cacheWrite, total },
		cost,
		errors,
		files: { read: [...read].sort(), edited: [...edited].sort(), written: [...written].sort() },
	};
}

describe("arbor compare", () => {
	it("matches an independent walk on a generated branching session, JSON shape exactly", () => {
		const dir = tempDir();
		const file = generate(dir, "s.jsonl", ["--n", "3000", "--seed", "12", "--branch-every", "60"]);
		const before = sha256(file);
		const entries = load(file);
		const byId = new Map(entries.map((e) => [e.id, e]));
		const ls = leaves(entries);
		expect(ls.length).toBeGreaterThan(3);
		let checked = 0;
		for (const [idA, idB] of [
			[ls[0], ls[1]],
			[ls[1], ls[ls.length - 1]],
			[ls[2], ls[3]],
		]) {
			const r = arbor(["compare", file, idA, idB, "--json"]);
			expect(r.status, r.stderr).toBe(0);
			const got = JSON.parse(r.stdout);
			expect(Object.keys(got)).toEqual(["commonAncestorId", "a", "b"]);
			const pa = pathTo(byId, idA),
				pb = pathTo(byId, idB);
			let k = 0;
			while (k < pa.length && k < pb.length && pa[k] === pb[k]) k++;
			expect(got.commonAncestorId).toBe(k > 0 ? pa[k - 1] : null);
			for (const [side, p, leaf] of [
				[got.a, pa, idA],
				[got.b, pb, idB],
			] as const) {
				expect(Object.keys(side)).toEqual(["leafId", "entries", "tokens", "cost", "files", "errors", "durationMs"]);
				expect(side.leafId).toBe(leaf);
				expect(side.entries).toEqual(p.slice(k));
				const exp = expectedSide(byId, p.slice(k));
				expect(side.tokens).toEqual(exp.tokens);
				expect(side.cost).toBeCloseTo(exp.cost, 9);
				expect(side.files).toEqual(exp.files);
				expect(side.errors).toBe(exp.errors);
				const t0 = Date.parse(byId.get(pa[k - 1])!.timestamp!);
				expect(side.durationMs).toBe(Date.parse(byId.get(leaf)!.timestamp!) - t0);
				checked++;
			}
		}
		expect(checked).toBe(6);
		expect(sha256(file)).toBe(before);
	});

	it("two files (two forks of one session): the same sides as the two entries compared within the original", () => {
		const dir = tempDir();
		const file = generate(dir, "s.jsonl", ["--n", "3000", "--seed", "12", "--branch-every", "60"]);
		const ls = leaves(load(file));
		const fork = (id: string): string => {
			const r = arbor(["branch", file, id, "--dir", join(dir, "forks"), "--no-live", "--json"]);
			expect(r.status, r.stderr).toBe(0);
			return JSON.parse(r.stdout).path;
		};
		const [fa, fb] = [fork(ls[1]!), fork(ls[ls.length - 1]!)];
		const before = [sha256(file), sha256(fa), sha256(fb)];
		const within = JSON.parse(arbor(["compare", file, ls[1]!, ls[ls.length - 1]!, "--json"]).stdout);
		// Each side named by its entry: exactly the sides compared within the original.
		const named = arbor(["compare", fa, fb, "--leaf-a", ls[1]!, "--leaf-b", ls[ls.length - 1]!, "--json"]);
		expect(named.status, named.stderr).toBe(0);
		const got = JSON.parse(named.stdout);
		expect(got.commonAncestorId).toBe(within.commonAncestorId);
		// A fork does not copy the path's label entries (it writes its own after the entry it was made at): each
		// side's entries are its own file's path after the common ancestor.
		for (const [k, f] of [
			["a", fa],
			["b", fb],
		] as const) {
			const { entries: _e, durationMs: _d, ...facts } = within[k];
			expect(got[k]).toMatchObject(facts);
			const own = pathTo(new Map(load(f).map((e) => [e.id, e])), got[k].leafId);
			expect(got[k].entries).toEqual(own.slice(own.indexOf(got.commonAncestorId) + 1));
		}
		// Each file's own leaf: a fork carries the path's labels over as new entries after the entry it was made at.
		const r = arbor(["compare", fa, fb, "--json"]);
		expect(r.status, r.stderr).toBe(0);
		const across = JSON.parse(r.stdout);
		expect(Object.keys(across)).toEqual(["commonAncestorId", "a", "b"]);
		expect(across.commonAncestorId).toBe(within.commonAncestorId);
		for (const k of ["a", "b"] as const) {
			expect(across[k].entries.slice(0, got[k].entries.length)).toEqual(got[k].entries);
			expect(across[k].tokens).toEqual(within[k].tokens);
			expect(across[k].files).toEqual(within[k].files);
		}
		// --leaf-a picks an earlier entry of A's path; the human output names both files.
		const mid = within.a.entries[0];
		const human = arbor(["compare", fa, fb, "--leaf-a", mid]);
		expect(human.status, human.stderr).toBe(0);
		expect(human.stdout).toContain(`A: ${fa}`);
		expect(human.stdout).toMatch(new RegExp(`A: leaf ${mid}, 1 entries`));
		expect([sha256(file), sha256(fa), sha256(fb)]).toEqual(before);
		// A second argument that is no file: both forms are named, exit 1.
		const bad = arbor(["compare", fa, "nope"]);
		expect(bad.status).toBe(1);
		expect(bad.stderr).toContain("arbor compare FILE ID_A ID_B");
		expect(arbor(["compare", fa, fb, "--leaf-b", "nope"]).stderr).toContain('no entry "nope"');
	});

	it("an entry and its descendant: the ancestor is the entry itself and its side is empty", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const got = JSON.parse(arbor(["compare", file, "user-active", "unknown-active", "--json"]).stdout);
		expect(got.commonAncestorId).toBe("user-active");
		expect(got.a).toMatchObject({ leafId: "user-active", entries: [], cost: 0, errors: 0, durationMs: null });
		expect(got.b.entries).toEqual(["assistant-active", "tool-active", "title-active", "label-active", "custom-active", "unknown-active"]);
	});

	it("the fixture's abandoned branch against the active one: files from tool calls, human output", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const r = arbor(["compare", file, "inactive-tool", "tool-active"]);
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout).toContain("common ancestor: thinking-root");
		expect(r.stdout).toMatch(/A: leaf inactive-tool, 4 entries/);
		expect(r.stdout).toContain("prompts (A | B):");
		expect(r.stdout).toContain("This abandoned branch must not become active chat.");
	});

	it("pi 1.x usage entries count into cost, failed edits are not 'edited', aborts and errors are counted", () => {
		const dir = tempDir();
		const file = join(dir, "u.jsonl");
		const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
		const usage = (c: number) => ({ input: 10, output: 5, cacheRead: 100, cacheWrite: 1, totalTokens: 116, cost: { total: c } });
		const lines = [
			{ type: "session", version: 3, id: "s1", timestamp: t(0), cwd: "/p" },
			{ type: "message", id: "u0", parentId: null, timestamp: t(1), message: { role: "user", content: "go" } },
			{
				type: "message",
				id: "a1",
				parentId: "u0",
				timestamp: t(2),
				message: {
					role: "assistant",
					content: [
						{ type: "toolCall", id: "c1", name: "edit", arguments: { path: "a.ts", edits: [] } },
						{ type: "toolCall", id: "c2", name: "write", arguments: { path: "b.ts", content: "x" } },
					],
					stopReason: "toolUse",
					usage: usage(0.5),
				},
			},
			{
				type: "message",
				id: "r1",
				parentId: "a1",
				timestamp: t(3),
				message: { role: "toolResult", toolCallId: "c1", toolName: "edit", content: [], isError: true },
			},
			{ type: "message", id: "r2", parentId: "r1", timestamp: t(4), message: { role: "toolResult", toolCallId: "c2", toolName: "write", content: [] } },
			{ type: "usage", id: "w1", parentId: "r2", timestamp: t(5), kind: "cache_warm", provider: "anthropic", model: "m", usage: usage(0.25) },
			{ type: "message", id: "a2", parentId: "w1", timestamp: t(9), message: { role: "assistant", content: [], stopReason: "aborted", usage: usage(0) } },
			{
				type: "message",
				id: "b1",
				parentId: "u0",
				timestamp: t(20),
				message: { role: "assistant", content: [{ type: "text", text: "other" }], stopReason: "stop", usage: usage(1) },
			},
		];
		writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
		const got = JSON.parse(arbor(["compare", file, "a2", "b1", "--json"]).stdout);
		expect(got.commonAncestorId).toBe("u0");
		expect(got.a.cost).toBeCloseTo(0.75, 12);
		expect(got.a.tokens).toEqual({ input: 30, output: 15, cacheRead: 300, cacheWrite: 3, total: 348 });
		expect(got.a.files).toEqual({ read: [], edited: [], written: ["b.ts"] });
		expect(got.a.errors).toBe(1);
		expect(got.a.durationMs).toBe(8000);
		expect(got.b).toMatchObject({ cost: 1, durationMs: 19000, entries: ["b1"] });
		const human = arbor(["compare", file, "a2", "b1"]).stdout;
		expect(human).toContain("aborted 1");
		expect(human).toContain("{+other+}");
	});

	it("unknown ids and missing arguments are usage errors (exit 1)", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const r = arbor(["compare", file, "user-active", "nope"]);
		expect(r.status).toBe(1);
		expect(r.stderr).toContain('no entry "nope"');
		expect(arbor(["compare", file, "user-active"]).status).toBe(1);
	});
});
