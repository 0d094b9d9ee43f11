// Claude Code's format on every Claude fixture of ../shared/fixtures/agents (the structure SOURCES.md states) and
// on hand-made records for the rules' boundaries. The files the real CLI writes: claude-real.test.ts.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { EntryFlag, EntryKind } from "../../../../../shared/skeleton";
import { claudeFormat } from "../format";
import { claudeForkOf, claudeSubagents, claudeTitle, readRecords } from "../folder";
import { generateClaude, readFile, readText } from "../../test/read-rows";

const FIX = path.resolve(import.meta.dirname, "../../../../../../shared/fixtures/agents");
const fx = (name: string): string => path.join(FIX, name);
const CLAUDE_FIXTURES = fs
	.readdirSync(FIX, { recursive: true })
	.map(String)
	.filter((f) => /claude.*\.jsonl$/.test(f));
const lines = (...recs: Record<string, unknown>[]): string => recs.map((r) => JSON.stringify(r)).join("\n");
const head = (file: string) => ({ path: file, head: fs.readFileSync(file).subarray(0, 65536) });

describe("every Claude fixture", () => {
	it("finds 8 files", () => expect(CLAUDE_FIXTURES.length).toBe(8));
	it.each(CLAUDE_FIXTURES)("%s: detected as Claude Code, every record read, every row mapped", (name) => {
		expect(claudeFormat.detect(head(fx(name)))).toBe(true);
		const f = readFile(claudeFormat, fx(name));
		const records = fs
			.readFileSync(fx(name), "utf8")
			.split("\n")
			.filter((l) => l.trim()).length;
		// One row per record, plus one per extra tool result in a record holding several.
		expect(f.rows.length).toBeGreaterThanOrEqual(records);
		for (const r of f.rows) expect(f.entry(r).type).toBeTypeOf("string");
	});
	it("no other fixture is detected as Claude Code", () => {
		const others = fs.readdirSync(FIX).filter((f) => f.endsWith(".jsonl") && !f.includes("claude"));
		expect(others.length).toBeGreaterThan(5);
		for (const o of others) expect(claudeFormat.detect(head(fx(o))), o).toBe(false);
		const piFile = fs.readdirSync(path.join(FIX, "../sessions")).find((f) => f.endsWith(".jsonl"))!;
		expect(claudeFormat.detect(head(path.join(FIX, "../sessions", piFile)))).toBe(false);
	});
});

describe("agent-history claude-forked-session (one in-file fork)", () => {
	const f = readFile(claudeFormat, fx("agent-history__claude-forked-session.jsonl"));
	it("has exactly one branch point, fa1-fork -> {fu2a-fork, fu2b-fork}, and one root", () => {
		expect([...f.branchPoints()]).toEqual([["fa1-fork", ["fu2a-fork", "fu2b-fork"]]]);
		expect(f.rows.filter((r) => r.parentId === null).map((r) => r.id)).toEqual(["fu1-fork"]);
	});
	it("resumes at the newest leaf fa5b-fork (the last record)", () => {
		const ix = { count: f.rows.length, idAt: (i: number) => f.rows[i]!.id, kindAt: (i: number) => f.rows[i]!.kind, resumableAt: () => true };
		expect(f.rows[claudeFormat.resumeRow(ix)]!.id).toBe("fa5b-fork");
	});
	it("maps users, answers and tool results onto pi's messages", () => {
		const kinds = f.rows.map((r) => r.kind);
		expect(kinds.filter((k) => k === EntryKind.user)).toHaveLength(4);
		expect(kinds.filter((k) => k === EntryKind.assistant)).toHaveLength(7);
		expect(kinds.filter((k) => k === EntryKind.toolResult)).toHaveLength(3);
		const call = f.rows.map((r) => f.entry(r)).find((e) => JSON.stringify(e).includes('"toolCall"'))!;
		expect(call).toMatchObject({ type: "message", message: { role: "assistant", api: "anthropic-messages" } });
	});
	it("titles the session with its first prompt", () => {
		expect(claudeTitle(readRecords(fx("agent-history__claude-forked-session.jsonl")))).toMatch(/\S/);
	});
});

describe("agent-history claude-session-with-compaction", () => {
	const f = readFile(claudeFormat, fx("agent-history__claude-session-with-compaction.jsonl"));
	it("hangs the boundary under its logicalParentUuid: one root, no branch", () => {
		expect(f.byId.get("compact-boundary-001")!.parentId).toBe("ca4-compact");
		expect(f.rows.filter((r) => r.parentId === null).map((r) => r.id)).toEqual(["cu1-compact"]);
		expect(f.branchPoints().size).toBe(0);
	});
	it("reads the summary record as a compaction with its text; the boundary is hidden", () => {
		const s = f.byId.get("summary-001")!;
		expect(s.kind).toBe(EntryKind.compaction);
		expect(f.entry(s)).toMatchObject({ type: "compaction", summary: expect.stringContaining("Previous conversation summary") });
		expect(f.byId.get("compact-boundary-001")!.kind).toBe(EntryKind.custom);
		expect(f.byId.get("cu5-compact")!.parentId).toBe("summary-001");
	});
});

describe("agent-sessions claude-small (record catalogue)", () => {
	const file = fx("agent-sessions__claude-small.jsonl");
	const f = readFile(claudeFormat, file);
	it("keeps the real branches (u1 -> a1 | a-nested-1; two replies a2 | a3) and chains the two tool results of a1", () => {
		expect(f.byId.get("u2")!.parentId).toBe("a1");
		expect(f.byId.get("u2b")!.parentId).toBe("u2");
		// The replies hung under the first result join the turn's last result.
		expect(f.byId.get("a2")!.parentId).toBe("u2b");
		expect(f.byId.get("a3")!.parentId).toBe("u2b");
		const bp = f.branchPoints();
		expect(bp.get("u1")).toEqual(["a1", "a-nested-1"]);
		expect(bp.get("u2b")).toEqual(["a2", "a3"]);
	});
	it("links the boundary with no parent field to its logical parent, and the compact summary under a3", () => {
		expect(f.byId.get("s4")!.parentId).toBe("s3");
		expect(f.byId.get("s3")!.parentId).toBeUndefined();
		expect(f.byId.get("u3")).toMatchObject({ parentId: "a3", kind: EntryKind.compaction });
	});
	it("reads bookkeeping as hidden custom rows under the latest conversation record, unknown types as unknown", () => {
		const title = f.rows.find((r) => r.raw.type === "custom-title")!;
		expect(title.kind).toBe(EntryKind.custom);
		expect(f.entry(title)).toMatchObject({ type: "custom", customType: "claude:custom-title" });
		expect(title.parentId).toBe(f.rows[f.rows.indexOf(title) - 1]!.parentId ?? f.rows[f.rows.indexOf(title) - 1]!.id);
		const att = f.byId.get("att-nested-3")!;
		expect(f.entry(att)).toMatchObject({ type: "custom", customType: "claude:attachment:edited_text_file" });
		const progress = f.byId.get("p-stage0-001")!;
		expect(progress.kind).toBe(EntryKind.custom);
	});
	it("leaves the 45 self-parented duplicate placeholders self-parented (the core cuts them), never chained into each other", () => {
		const trimmed = f.rows.filter((r) => r.id === "[trimmed for fixture]");
		expect(trimmed.length).toBe(45);
		for (const r of trimmed) expect(r.parentId === "[trimmed for fixture]" || r.parentId === null || r.parentId === undefined).toBe(true);
	});
	it("titles it with the custom title (custom-title > ai-title > summary > first prompt)", () => {
		const recs = readRecords(file);
		expect(claudeTitle(recs)).toBe("Stage0 small fixture");
		expect(claudeTitle(recs.filter((r) => r.type !== "custom-title"))).toBe("Stage0 AI title");
		expect(claudeTitle(recs.filter((r) => r.type !== "custom-title" && r.type !== "ai-title"))).toBe("Claude Code: Context usage summary");
		// The first prompt of the main chain ("Hello" is on a sidechain here).
		expect(claudeTitle(recs.filter((r) => !["custom-title", "ai-title", "summary"].includes(r.type as string)))).toBe("[trimmed for fixture]");
	});
	it("the first prompt skips commands, injected text and sidechains, and keeps its first line", () => {
		const u = (content: string, extra: Record<string, unknown> = {}) => ({
			type: "user",
			uuid: content,
			parentUuid: null,
			message: { role: "user", content },
			...extra,
		});
		expect(
			claudeTitle([u("side", { isSidechain: true }), u("<command-name>/model</command-name>"), u("meta", { isMeta: true }), u("Fix the bug\nin parser")]),
		).toBe("Fix the bug");
		expect(claudeTitle([u("<x>")])).toBeUndefined();
	});
});

describe("records without tree fields (agentsview)", () => {
	it.each(["agentsview__claude-valid-session.jsonl", "agentsview__claude-tool-call-pending.jsonl", "agentsview__claude-queued-system-messages.jsonl"])(
		"%s: one chain in file order with ids from the lines",
		(name) => {
			const f = readFile(claudeFormat, fx(name));
			f.rows.forEach((r, i) => {
				expect(r.id).toBe(`~claude:line:${i + 1}`);
				expect(r.parentId ?? null).toBe(i === 0 ? null : `~claude:line:${i}`);
			});
		},
	);
	it("counts an answer's tokens (input, output and both caches)", () => {
		const f = readFile(claudeFormat, fx("agentsview__claude-valid-session.jsonl"));
		const a = f.rows.find((r) => r.kind === EntryKind.assistant)!;
		const u = (a.raw.message as { usage: Record<string, number> }).usage;
		expect(a.tokens).toBe((u.input_tokens ?? 0) + (u.output_tokens ?? 0) + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0));
		expect(a.tokens).toBeGreaterThan(0);
	});
});

describe("subagents (agent-sessions claude-subagent-parent)", () => {
	const parent = fx("agent-sessions__claude-subagent-parent.jsonl");
	it("finds the transcript under <session>/subagents with its agent type", () => {
		const subs = claudeSubagents(parent);
		expect(subs).toEqual([
			{
				file: fx("agent-sessions__claude-subagent-parent/subagents/agent-a0ad4f44468bdf20d.jsonl"),
				agentId: "a0ad4f44468bdf20d",
				agentType: "general-purpose",
			},
		]);
		expect(claudeFormat.isSessionFile(subs[0]!.file)).toBe(false);
		expect(claudeFormat.isSessionFile(parent)).toBe(true);
	});
	it("reads the parent as 3 linear rows and the transcript as 4 from its own root", () => {
		const p = readFile(claudeFormat, parent);
		expect(p.rows.map((r) => [r.id, r.parentId])).toEqual([
			["psys1", null],
			["pu1", "psys1"],
			["pa1", "pu1"],
		]);
		const s = readFile(claudeFormat, claudeSubagents(parent)[0]!.file);
		expect(s.rows.map((r) => r.parentId ?? null)).toEqual([null, "cu1", "ca1", "cu2"]);
	});
	it("finds an older transcript beside the session that names it, and the Task call from the parent's result", () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-claude-sub-"));
		try {
			const main = path.join(dir, "s1.jsonl");
			fs.writeFileSync(
				main,
				lines(
					{ type: "user", uuid: "u", parentUuid: null, sessionId: "s1", message: { role: "user", content: "go" } },
					{
						type: "assistant",
						uuid: "a",
						parentUuid: "u",
						sessionId: "s1",
						message: { id: "m", role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Task", input: {} }] },
					},
					{
						type: "user",
						uuid: "r",
						parentUuid: "a",
						sessionId: "s1",
						toolUseResult: { agentId: "x1" },
						message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "done" }] },
					},
				),
			);
			fs.writeFileSync(
				path.join(dir, "agent-x1.jsonl"),
				lines({ type: "user", uuid: "c", parentUuid: null, isSidechain: true, sessionId: "s1", message: { role: "user", content: "sub" } }),
			);
			fs.writeFileSync(
				path.join(dir, "agent-x2.jsonl"),
				lines({ type: "user", uuid: "d", parentUuid: null, isSidechain: true, sessionId: "other", message: { role: "user", content: "sub" } }),
			);
			expect(claudeSubagents(main)).toEqual([{ file: path.join(dir, "agent-x1.jsonl"), agentId: "x1", toolCallId: "toolu_1" }]);
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe("rules on hand-made records", () => {
	const base = { sessionId: "s", timestamp: "2026-01-01T00:00:00.000Z" };
	const user = (uuid: string, parentUuid: string | null, content: unknown = "hi") => ({
		...base,
		type: "user",
		uuid,
		parentUuid,
		message: { role: "user", content },
	});
	const answer = (uuid: string, parentUuid: string, id: string, block: Record<string, unknown>) => ({
		...base,
		type: "assistant",
		uuid,
		parentUuid,
		message: { id, role: "assistant", content: [block], stop_reason: "tool_use", usage: { input_tokens: 10, output_tokens: 5 } },
	});
	const call = (id: string) => ({ type: "tool_use", id, name: "Read", input: {} });
	const result = (uuid: string, parentUuid: string, ...ids: string[]) =>
		user(
			uuid,
			parentUuid,
			ids.map((id) => ({ type: "tool_result", tool_use_id: id, content: "ok" })),
		);

	it("one answer split in records with results under each call reads as one chain; its usage counts once", () => {
		const f = readText(
			claudeFormat,
			lines(
				user("u", null),
				answer("a1", "u", "m", call("t1")),
				answer("a2", "a1", "m", call("t2")),
				result("r2", "a2", "t2"),
				result("r1", "a1", "t1"),
				answer("n", "r1", "m2", { type: "text", text: "done" }),
			),
		);
		expect(f.rows.map((r) => [r.id, r.parentId])).toEqual([
			["u", null],
			["a1", "u"],
			["a2", "a1"],
			["r2", "a2"],
			["r1", "r2"],
			["n", "r1"],
		]);
		expect(f.branchPoints().size).toBe(0);
		expect(f.rows.map((r) => r.tokens)).toEqual([0, 15, 0, 0, 0, 15]);
	});
	it("a prompt under a record of the turn stays a branch (a rewind), and so does a second answer to the same prompt", () => {
		const f = readText(
			claudeFormat,
			lines(user("u", null), answer("a1", "u", "m", call("t1")), answer("a2", "a1", "m", call("t2")), result("r1", "a1", "t1"), user("b", "a1", "rewound")),
		);
		expect(f.byId.get("r1")!.parentId).toBe("a2");
		expect(f.byId.get("b")!.parentId).toBe("a1");
		const g = readText(
			claudeFormat,
			lines(user("u", null), answer("x", "u", "m1", { type: "text", text: "1" }), answer("y", "u", "m2", { type: "text", text: "2" })),
		);
		expect([...g.branchPoints()]).toEqual([["u", ["x", "y"]]]);
	});
	it("a record with several results gives one chained row per result", () => {
		const f = readText(claudeFormat, lines(user("u", null), answer("a", "u", "m", call("t1")), result("r", "a", "t1", "t2")));
		expect(f.rows.slice(2).map((r) => [r.id, r.parentId, r.kind])).toEqual([
			["r", "a", EntryKind.toolResult],
			["r#1", "r", EntryKind.toolResult],
		]);
		expect(f.entry(f.rows[3]!)).toMatchObject({ message: { role: "toolResult", toolCallId: "t2" } });
	});
	it("unknown record types read as unknown rows (with uuid) or hidden ones (without), never failing", () => {
		const f = readText(
			claudeFormat,
			lines(user("u", null), { ...base, type: "hologram", uuid: "h", parentUuid: "u", beam: 1 }, { type: "weather", sunny: true }, "not json" as never),
		);
		expect(f.rows.map((r) => [r.kind, r.parentId])).toEqual([
			[EntryKind.user, null],
			[EntryKind.unknown, "u"],
			[EntryKind.custom, "h"],
		]);
		expect(f.entry(f.rows[1]!)).toMatchObject({ type: "hologram", id: "h", parentId: "u", beam: 1 });
	});
	it("marks API errors, thinking and injected (isMeta) text", () => {
		const f = readText(
			claudeFormat,
			lines(
				user("u", null),
				{ ...answer("e", "u", "m", { type: "text", text: "API Error: 500" }), isApiErrorMessage: true },
				{ ...answer("t", "e", "m2", { type: "thinking", thinking: "hmm", signature: "s" }) },
				{ ...user("meta", "t", "<local-command-caveat>x</local-command-caveat>"), isMeta: true },
			),
		);
		expect(f.rows[1]!.flags & EntryFlag.error).toBeTruthy();
		expect(f.rows[2]!.flags & EntryFlag.hasThinking).toBeTruthy();
		expect(f.rows[3]!.kind).toBe(EntryKind.custom);
		expect(f.entry(f.rows[3]!)).toMatchObject({ type: "custom", customType: "claude:meta", data: { content: [{ type: "text" }] } });
	});
	it("detects from the first record; a pi header or a Codex line is not Claude's", () => {
		const probe = (text: string) => ({ path: "/x/s.jsonl", head: Buffer.from(text) });
		expect(claudeFormat.detect(probe(lines({ type: "queue-operation", operation: "enqueue" })))).toBe(true);
		expect(claudeFormat.detect(probe(lines(user("u", null))))).toBe(true);
		expect(claudeFormat.detect(probe(lines({ type: "session", version: 3, id: "x" })))).toBe(false);
		expect(claudeFormat.detect(probe(lines({ timestamp: "t", type: "session_meta", payload: {} })))).toBe(false);
		expect(claudeFormat.detect(probe(lines({ type: "user", payload: {} })))).toBe(false);
		expect(claudeFormat.detect(probe(""))).toBe(false);
	});
	it("lineage: forkedFrom on the first record", () => {
		expect(claudeFormat.lineage({ type: "user", forkedFrom: { sessionId: "p", messageUuid: "m" } })).toEqual({ sessionId: "p", entryId: "m" });
		expect(claudeFormat.lineage({ type: "user" })).toBeUndefined();
		expect(claudeFormat.lineage(undefined)).toBeUndefined();
	});
	it("a --fork-session copy names its parent by the copied answers' requestSessionId; the fork point is the last shared record", () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-claude-fork-"));
		try {
			const a = answer("a", "u", "m", { type: "text", text: "x" });
			fs.writeFileSync(path.join(dir, "p.jsonl"), lines(user("u", null), a, user("v", "a", "more")));
			const child = path.join(dir, "c.jsonl");
			fs.writeFileSync(
				child,
				lines({ ...user("u", null), sessionId: "c" }, { ...a, sessionId: "c", requestSessionId: "p" }, { ...user("w", "a", "forked"), sessionId: "c" }),
			);
			expect(claudeForkOf(child)).toEqual({ sessionId: "p", file: path.join(dir, "p.jsonl"), entryId: "a" });
			expect(claudeForkOf(path.join(dir, "p.jsonl"))).toBeUndefined();
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe("a generated large session (bench/gen-claude-session.mjs)", () => {
	it("reads with branches only where a turn was resumed at an earlier answer, every answer's tool results in one chain", () => {
		const lines = generateClaude(6000, 7);
		expect(lines).toHaveLength(6000);
		expect(generateClaude(6000, 7)).toEqual(lines);
		const f = readText(claudeFormat, lines.join("\n"));
		const bp = f.branchPoints();
		expect(bp.size).toBeGreaterThan(0);
		for (const [p, kids] of bp) {
			expect(f.byId.get(p)!.kind, p).toBe(EntryKind.assistant);
			// All but one child of a branch point are prompts typed after a resume; none is a tool result.
			for (const k of kids) expect(f.byId.get(k)!.kind).not.toBe(EntryKind.toolResult);
		}
		// The raw file does branch at every parallel call: the reader's rule is what removes those.
		const raw = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
		const rawKids = new Map<unknown, number>();
		for (const r of raw) if (typeof r.uuid === "string" && r.type !== "attachment") rawKids.set(r.parentUuid, (rawKids.get(r.parentUuid) ?? 0) + 1);
		expect([...rawKids.values()].filter((n) => n > 1).length).toBeGreaterThan(bp.size);
	});
});
