// The facts the Claude Code and Codex formats rely on (docs/formats-claude.md, docs/formats-codex.md), checked on
// files the real CLIs write: if a new CLI version writes differently, this says which fact moved.
// ARBOR_KEEP_AGENT_FILES=DIR copies the homes the CLIs wrote there (to look at them, or to compare the generator).

import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClaudeScenario, type CodexScenario, claudeScenario, codexScenario } from "./helpers/agent-scenarios";
import { agentRuntime, records } from "./helpers/real-agents";
import { claudeFormat } from "../../session/formats/claude/format";
import { claudeForkOf, claudeTitle } from "../../session/formats/claude/folder";
import { codexFormat } from "../../session/formats/codex/format";
import { codexForkPoint, findThreadFile } from "../../session/formats/codex/folder";
import { EntryFlag, EntryKind } from "../../../shared/skeleton";
import { generateClaude, readFile } from "../../session/formats/test/read-rows";

type Rec = Record<string, unknown>;
const keep = (name: string, home: string): void => {
	const dir = process.env.ARBOR_KEEP_AGENT_FILES;
	if (dir) fs.cpSync(home, path.join(dir, name), { recursive: true });
};
const msg = (r: Rec): Rec => (r.message ?? {}) as Rec;
const blocks = (r: Rec): Rec[] => (Array.isArray(msg(r).content) ? (msg(r).content as Rec[]) : []);

const claude = agentRuntime("claude");
const claudeWhy = "missing" in claude ? claude.missing : "";

describe.skipIf(claudeWhy)(`real Claude Code 2.1.337${claudeWhy ? ` (skipped: ${claudeWhy})` : ""}`, { timeout: 240_000 }, () => {
	let s: ClaudeScenario;
	let main: Rec[];
	beforeAll(async () => {
		s = await claudeScenario((claude as { bin: string }).bin);
		keep("claude", s.home.home);
		main = records(s.main);
	}, 240_000);
	afterAll(() => s?.close());

	const byUuid = (uuid: unknown): Rec => main.find((r) => r.uuid === uuid)!;

	it("writes conversation records with uuid/parentUuid and bookkeeping records without", () => {
		const withUuid = main.filter((r) => typeof r.uuid === "string");
		expect(new Set(withUuid.map((r) => r.type))).toEqual(new Set(["user", "assistant", "attachment", "system"]));
		const without = new Set(main.filter((r) => r.uuid === undefined).map((r) => r.type));
		for (const t of ["queue-operation", "last-prompt", "api-request", "cost-state"]) expect(without).toContain(t);
		// Every parent named is in the file (the compact boundary is the one null-parent record after the first).
		const uuids = new Set(withUuid.map((r) => r.uuid));
		for (const r of withUuid) if (r.parentUuid !== null) expect(uuids.has(r.parentUuid)).toBe(true);
		expect(withUuid.filter((r) => r.parentUuid === null).map((r) => r.subtype ?? r.type)).toEqual(["user", "compact_boundary"]);
	});

	it("splits one answer with two tool calls into one record per block, and parents each result on its own call", () => {
		const parts = main.filter((r) => r.type === "assistant" && blocks(r).some((b) => b.type === "tool_use"));
		expect(parts).toHaveLength(2);
		expect(msg(parts[0]!).id).toBe(msg(parts[1]!).id);
		expect(parts[1]!.parentUuid).toBe(parts[0]!.uuid);
		const results = main.filter((r) => r.type === "user" && blocks(r).some((b) => b.type === "tool_result"));
		// Results arrive in either order (the tools run in parallel); each hangs under the record holding its call.
		const callRecord = (r: Rec): unknown => parts.find((p) => blocks(p)[0]!.id === blocks(r)[0]!.tool_use_id)!.uuid;
		expect(results).toHaveLength(2);
		for (const r of results) expect(r.parentUuid).toBe(callRecord(r));
		// So the first call has two children (the second call and its result): a split, not a branch.
		expect(main.filter((r) => r.parentUuid === parts[0]!.uuid)).toHaveLength(2);
		// The next answer hangs under the result written last; the same usage is repeated on each record of the answer.
		const next = main.find((r) => r.parentUuid === results[1]!.uuid)!;
		expect(main.find((r) => r.parentUuid === results[0]!.uuid)).toBeUndefined();
		expect(next.type).toBe("assistant");
		const sameMessage = main.filter((r) => r.type === "assistant" && msg(r).id === msg(parts[0]!).id);
		expect(sameMessage.length).toBeGreaterThanOrEqual(3);
		expect(new Set(sameMessage.map((r) => JSON.stringify(msg(r).usage))).size).toBe(1);
	});

	it("--resume-session-at appends a user record under that assistant: a branch inside the file", () => {
		const children = main.filter((r) => r.parentUuid === s.branchAt && r.type === "user");
		expect(children.map((r) => msg(r).content)).toEqual(["branch prompt"]);
		expect(main.filter((r) => r.parentUuid === s.branchAt).length).toBe(2);
	});

	it("--resume continues from the last record of the file, which last-prompt's leafUuid names", () => {
		const boundary = main.find((r) => r.subtype === "compact_boundary")!;
		const before = main.slice(0, main.indexOf(boundary)).filter((r) => typeof r.uuid === "string");
		expect(boundary.logicalParentUuid).toBe(before[before.length - 1]!.uuid);
		const lastPrompts = main.filter((r) => r.type === "last-prompt");
		const lastBeforeBoundary = lastPrompts.filter((r) => main.indexOf(r) < main.indexOf(boundary)).pop()!;
		expect(lastBeforeBoundary.leafUuid).toBe(boundary.logicalParentUuid);
	});

	it("/compact writes a boundary (null parent, logicalParentUuid) and an isCompactSummary user under it", () => {
		const boundary = main.find((r) => r.subtype === "compact_boundary")!;
		expect(boundary.parentUuid).toBeNull();
		expect(byUuid(boundary.logicalParentUuid)).toBeDefined();
		const summary = main.find((r) => r.isCompactSummary === true)!;
		expect(summary.parentUuid).toBe(boundary.uuid);
		expect(String(msg(summary).content)).toContain("Loopback summary.");
		const after = main.find((r) => r.type === "user" && msg(r).content === "after compact")!;
		expect(main.indexOf(after)).toBeGreaterThan(main.indexOf(summary));
	});

	it("--fork-session writes a new file replaying the path with the same uuids, then the new turn", () => {
		const fork = records(s.fork);
		const forkUuids = fork.filter((r) => typeof r.uuid === "string").map((r) => r.uuid as string);
		const mainUuids = new Set(main.map((r) => r.uuid));
		const shared = forkUuids.filter((u) => mainUuids.has(u));
		expect(shared.length).toBeGreaterThan(3);
		// The shared records come first, the new ones after.
		expect(forkUuids.slice(0, shared.length)).toEqual(shared);
		expect(fork.some((r) => r.type === "user" && msg(r).content === "fork prompt" && !mainUuids.has(r.uuid))).toBe(true);
		expect(fork.every((r) => r.forkedFrom === undefined)).toBe(true);
		expect(new Set(fork.filter((r) => r.sessionId).map((r) => r.sessionId))).toEqual(new Set([path.basename(s.fork, ".jsonl")]));
	});
	describe("read as Claude Code's format", () => {
		it("branches only where --resume-session-at branched: the parallel tool call, progress and bookkeeping do not", () => {
			const f = readFile(claudeFormat, s.main);
			const bp = [...f.branchPoints()];
			expect(bp.map(([p]) => p)).toEqual([s.branchAt]);
			const texts = bp[0]![1].map((id) => msg(f.byId.get(id)!.raw).content);
			expect(texts).toEqual(["please use tools to read a.txt and b.txt", "branch prompt"]);
			// Every record was read; every row maps.
			expect(f.rows.length).toBe(main.length);
			for (const r of f.rows) expect(f.entry(r).type).toBeTypeOf("string");
		});
		it("links the compaction across the cut and shows the tokens before it on the summary", () => {
			const f = readFile(claudeFormat, s.main);
			const boundary = main.find((r) => r.subtype === "compact_boundary")!;
			expect(f.byId.get(boundary.uuid as string)!.parentId).toBe(boundary.logicalParentUuid);
			const summary = f.rows.find((r) => r.raw.isCompactSummary === true)!;
			expect(summary.kind).toBe(EntryKind.compaction);
			expect(summary.tokens).toBe((boundary.compactMetadata as Rec).preTokens);
			expect(f.entry(summary)).toMatchObject({ type: "compaction", summary: expect.stringContaining("Loopback summary.") });
		});
		it("counts each answer's usage once, though Claude repeats it on each of its records", () => {
			const f = readFile(claudeFormat, s.main);
			const answers = new Set(main.filter((r) => r.type === "assistant").map((r) => msg(r).id));
			expect(f.rows.filter((r) => r.kind === EntryKind.assistant && r.tokens > 0)).toHaveLength(answers.size);
		});
		it("resumes where claude --resume did: the last conversation record of the file", () => {
			const f = readFile(claudeFormat, s.main);
			const ix = { count: f.rows.length, idAt: (i: number) => f.rows[i]!.id, kindAt: (i: number) => f.rows[i]!.kind, resumableAt: () => true };
			const withUuid = main.filter((r) => typeof r.uuid === "string");
			expect(f.rows[claudeFormat.resumeRow(ix)]!.id).toBe(withUuid[withUuid.length - 1]!.uuid);
		});
		it("finds the --fork-session copy's parent and fork point; the copy reads as one chain", () => {
			const fork = records(s.fork);
			const mainUuids = new Set(main.map((r) => r.uuid));
			const shared = fork.filter((r) => typeof r.uuid === "string" && mainUuids.has(r.uuid));
			expect(claudeForkOf(s.fork)).toEqual({ sessionId: s.sessionId, file: s.main, entryId: shared[shared.length - 1]!.uuid });
			expect(claudeForkOf(s.main)).toBeUndefined();
			expect(readFile(claudeFormat, s.fork).branchPoints().size).toBe(0);
		});
		it("bench/gen-claude-session.mjs writes only record kinds the CLI writes, with keys the CLI uses", () => {
			const kindOf = (r: Rec): string =>
				`${String(r.type)}:${String(r.subtype ?? (r.attachment as Rec | undefined)?.type ?? "")}:${isResult(r)}:${blocks(r)[0]?.type ?? ""}`;
			const isResult = (r: Rec): boolean => r.type === "user" && blocks(r).some((b) => b.type === "tool_result");
			const real = new Map<string, Set<string>>();
			for (const r of [...main, ...records(s.fork)]) real.set(kindOf(r), new Set([...(real.get(kindOf(r)) ?? []), ...Object.keys(r)]));
			const gen = generateClaude(3000, 3).map((l) => JSON.parse(l) as Rec);
			const kinds = new Set(gen.map(kindOf));
			expect(kinds.size).toBeGreaterThan(12);
			for (const r of gen) {
				const keys = real.get(kindOf(r));
				expect(keys, kindOf(r)).toBeDefined();
				for (const k of Object.keys(r)) expect(keys!.has(k), `${kindOf(r)} .${k}`).toBe(true);
			}
		});
		it("is detected from its first bytes and titled by its first prompt", () => {
			for (const file of [s.main, s.fork]) expect(claudeFormat.detect({ path: file, head: fs.readFileSync(file).subarray(0, 65536) })).toBe(true);
			expect(claudeTitle(main)).toBe("hello first");
		});
	});
});

const codex = agentRuntime("codex");
const codexWhy = "missing" in codex ? codex.missing : "";

describe.skipIf(codexWhy)(`real Codex 0.171.0${codexWhy ? ` (skipped: ${codexWhy})` : ""}`, { timeout: 240_000 }, () => {
	let s: CodexScenario;
	let main: Rec[];
	beforeAll(async () => {
		s = await codexScenario((codex as { bin: string }).bin);
		keep("codex", s.home.home);
		main = records(s.main);
	}, 240_000);
	afterAll(() => s?.close());
	const payload = (r: Rec): Rec => (r.payload ?? {}) as Rec;

	it("writes {timestamp, ordinal, type, payload} lines headed by session_meta, ordinals counting up from 0", () => {
		expect(main[0]!.type).toBe("session_meta");
		expect(payload(main[0]!).id).toBe(s.threadId);
		expect(payload(main[0]!).cli_version).toBe("0.171.0");
		expect(main.map((r) => r.ordinal)).toEqual(main.map((_, i) => i));
		// response_item lines add a `metadata` object (history_sequence, …); nothing else is at the top.
		for (const r of main)
			expect(
				Object.keys(r)
					.filter((k) => k !== "metadata" || r.type !== "response_item")
					.sort(),
			).toEqual(["ordinal", "payload", "timestamp", "type"]);
	});

	it("resume appends to the same rollout; each turn re-injects context as developer/user items", () => {
		const users = main.filter((r) => r.type === "response_item" && payload(r).role === "user");
		const texts = users.map((r) => ((payload(r).content as Rec[])[0]!.text as string).slice(0, 21));
		expect(texts.filter((t) => !t.startsWith("<"))).toEqual(["hello first", "please use tools now", "third"]);
		expect(texts.filter((t) => t.startsWith("<environment_context>")).length).toBe(3);
	});

	it("two tool calls from one answer are consecutive function_call items, their outputs follow", () => {
		const items = main.filter((r) => r.type === "response_item").map((r) => payload(r));
		const calls = items.filter((p) => p.type === "function_call");
		expect(calls.map((p) => p.call_id)).toEqual(["call_a1", "call_b1"]);
		expect(typeof calls[0]!.arguments).toBe("string");
		const first = items.indexOf(calls[0]!);
		expect(items[first + 1]!.type).toBe("function_call");
		const outputs = items.filter((p) => p.type === "function_call_output");
		expect(outputs.map((p) => p.call_id).sort()).toEqual(["call_a1", "call_b1"]);
		expect(items.indexOf(outputs[0]!)).toBeGreaterThan(first + 1);
	});

	it("fork writes a new rollout naming the parent and the ordinal it forks at, without the parent's items", () => {
		const fork = records(s.fork);
		const meta = payload(fork[0]!);
		expect(meta.id).toBe(s.forkId);
		expect(meta.forked_from_id).toBe(s.threadId);
		expect(meta.forked_from_ordinal_exclusive).toBe(main.length);
		expect(fork[0]!.ordinal).toBe(main.length);
		const users = fork.filter((r) => r.type === "response_item" && payload(r).role === "user");
		expect(users.map((r) => (payload(r).content as Rec[])[0]!.text)).toEqual(["fork prompt"]);
	});
	describe("read as Codex's format", () => {
		it("one chain without branches: the three prompts visible, injected context hidden, two calls and their outputs in order", () => {
			const f = readFile(codexFormat, s.main);
			expect(f.branchPoints().size).toBe(0);
			expect(f.rows.length).toBe(main.length - 1);
			const users = f.rows.filter((r) => r.kind === EntryKind.user).map((r) => (payload(r.raw).content as Rec[])[0]!.text as string);
			expect(users).toEqual(["hello first", "please use tools now", "third"]);
			// Injected context: a developer item and an <environment_context> user item per turn, hidden.
			const injected = f.rows.filter((r) => r.kind === EntryKind.custom && r.raw.type === "response_item");
			expect(injected.length).toBe(6);
			const calls = f.rows.filter((r) => r.flags & EntryFlag.hasToolCalls);
			expect(calls.map((r) => f.entry(r))).toMatchObject([
				{ message: { content: [{ type: "toolCall", id: "call_a1", name: "exec_command", arguments: { cmd: "cat a.txt" } }] } },
				{ message: { content: [{ type: "toolCall", id: "call_b1", arguments: { cmd: "echo hi" } }] } },
			]);
			expect(calls[1]!.parentId).toBe(calls[0]!.id);
			// Token counts hang off the chain as usage rows, and carry the last request's tokens.
			expect(f.rows.filter((r) => r.kind === EntryKind.usage && r.tokens > 0).length).toBeGreaterThanOrEqual(3);
		});
		it("resumes at the last item; the fork joins the parent where codex exec fork cut it", () => {
			const f = readFile(codexFormat, s.main);
			const ix = { count: f.rows.length, idAt: (i: number) => f.rows[i]!.id, kindAt: (i: number) => f.rows[i]!.kind, resumableAt: () => true };
			const items = main.filter((r) => r.type === "response_item");
			expect(f.rows[codexFormat.resumeRow(ix)]!.id).toBe(`o:${items[items.length - 1]!.ordinal}`);
			const fork = records(s.fork);
			const lineage = codexFormat.lineage(fork[0]);
			expect(lineage).toEqual({ sessionId: s.threadId });
			expect(findThreadFile(path.join(s.home.home, ".codex", "sessions"), lineage!.sessionId!)).toBe(s.main);
			expect(codexForkPoint(s.main, payload(fork[0]!).forked_from_ordinal_exclusive as number)).toBe(`o:${items[items.length - 1]!.ordinal}`);
			const g = readFile(codexFormat, s.fork);
			expect(g.rows.filter((r) => r.kind === EntryKind.user).length).toBe(1);
			for (const file of [s.main, s.fork]) expect(codexFormat.detect({ path: file, head: fs.readFileSync(file).subarray(0, 65536) })).toBe(true);
		});
	});
});
