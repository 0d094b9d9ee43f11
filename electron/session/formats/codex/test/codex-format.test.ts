// Codex's format on every Codex fixture of ../shared/fixtures/agents (the structure SOURCES.md states) and on
// hand-made rollouts for the rules' boundaries. The files the real CLI writes: services/test/real-agent-files.test.ts.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as zlib from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { EntryFlag, EntryKind } from "../../../../../shared/skeleton";
import { claudeFormat } from "../../claude/format";
import { readFile, readText, type ReadFile } from "../../test/read-rows";
import { codexFormat } from "../format";
import { CodexFileError, codexForkPoint, codexThreadNames, findThreadFile, readRollout, threadIdOf } from "../folder";

const FIX = path.resolve(import.meta.dirname, "../../../../../../shared/fixtures/agents");
const fx = (name: string): string => path.join(FIX, name);
const CODEX_FIXTURES = fs.readdirSync(FIX).filter((f) => /codex.*\.jsonl$/.test(f));
const head = (file: string) => ({ path: file, head: fs.readFileSync(file).subarray(0, 65536) });
const lines = (...recs: Record<string, unknown>[]): string => recs.map((r) => JSON.stringify(r)).join("\n");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-codex-format-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Item rows (the chain) and bookkeeping rows, with the chain rule checked: each item follows the previous one. */
function checkChain(f: ReadFile): void {
	let tail: string | null = null;
	for (const r of f.rows) {
		const item = !r.id.startsWith("~");
		expect(r.parentId ?? null, `line ${r.lineNo}`).toBe(tail);
		if (item) tail = r.id;
	}
}
const visible = (f: ReadFile) => f.rows.filter((r) => [EntryKind.user, EntryKind.assistant].includes(r.kind as 0 | 1) && !(r.flags & EntryFlag.toolOnly));

describe("every Codex fixture", () => {
	it("finds 10 files", () => expect(CODEX_FIXTURES.length).toBe(10));
	it.each(CODEX_FIXTURES)("%s: detected as Codex (not Claude), one linear chain, every row mapped", (name) => {
		expect(codexFormat.detect(head(fx(name)))).toBe(true);
		expect(claudeFormat.detect(head(fx(name)))).toBe(false);
		const f = readFile(codexFormat, fx(name));
		checkChain(f);
		expect(f.branchPoints().size).toBe(0);
		for (const r of f.rows) expect(f.entry(r).type).toBeTypeOf("string");
		// The header gives no row; every other line one.
		const n = fs
			.readFileSync(fx(name), "utf8")
			.split("\n")
			.filter((l) => l.trim()).length;
		expect(f.rows.length).toBe(n - 1);
	});
	it("no Claude or pi fixture is detected as Codex", () => {
		for (const o of fs.readdirSync(FIX).filter((f) => f.endsWith(".jsonl") && !f.includes("codex"))) expect(codexFormat.detect(head(fx(o))), o).toBe(false);
		const pi = fs.readdirSync(path.join(FIX, "../sessions")).find((f) => f.endsWith(".jsonl"))!;
		expect(codexFormat.detect(head(path.join(FIX, "../sessions", pi)))).toBe(false);
	});
});

describe("fixtures, one by one", () => {
	it("codex-small (catalogue): 6 compactions in the chain, 6 more session_meta lines and all events hidden, no visible duplicate", () => {
		const f = readFile(codexFormat, fx("agent-sessions__codex-small.jsonl"));
		expect(f.rows.filter((r) => r.kind === EntryKind.compaction)).toHaveLength(6);
		expect(f.rows.filter((r) => r.raw.type === "session_meta").every((r) => r.kind === EntryKind.custom)).toBe(true);
		expect(f.rows.filter((r) => r.raw.type === "session_meta")).toHaveLength(6);
		for (const r of f.rows.filter((x) => x.raw.type === "event_msg" && (x.raw.payload as { type: string }).type !== "token_count"))
			expect(r.kind).toBe(EntryKind.custom);
		const replaced = f.rows.find(
			(r) => r.kind === EntryKind.compaction && Array.isArray((r.raw.payload as { replacement_history?: unknown }).replacement_history),
		)!;
		expect(f.entry(replaced)).toMatchObject({ type: "compaction", details: { replacementHistory: expect.any(Array) } });
		const tc = f.rows.find((r) => (r.raw.payload as { type?: string }).type === "custom_tool_call")!;
		expect(f.entry(tc)).toMatchObject({ message: { role: "assistant", content: [{ type: "toolCall" }] } });
	});
	it("blockquotes: the answer written as an event and as an item is shown once", () => {
		const f = readFile(codexFormat, fx("agentsview__codex-blockquotes-session.jsonl"));
		expect(visible(f).map((r) => r.kind)).toEqual([EntryKind.user, EntryKind.assistant]);
		expect(f.rows.find((r) => r.raw.type === "event_msg")!.kind).toBe(EntryKind.custom);
	});
	it("standard session: items without a payload type are messages by their role", () => {
		const f = readFile(codexFormat, fx("agentsview__codex-standard-session.jsonl"));
		expect(f.rows.map((r) => [r.id, r.kind])).toEqual([
			["l:2", EntryKind.user],
			["l:3", EntryKind.assistant],
		]);
	});
	it("tool call arguments: a JSON string, an object, or none", () => {
		const args = (name: string) => {
			const f = readFile(codexFormat, fx(name));
			const e = f.entry(f.rows.find((r) => (r.raw.payload as { type?: string }).type === "function_call")!) as {
				message: { content: { arguments: unknown }[] };
			};
			return e.message.content[0]!.arguments;
		};
		expect(args("agentsview__codex-fc-args-1.jsonl")).toMatchObject({ cmd: expect.any(String), workdir: expect.any(String) });
		expect(args("agentsview__codex-fc-stdin.jsonl")).toMatchObject({ chars: expect.anything(), session_id: expect.anything() });
		expect(args("agentsview__codex-function-calls.jsonl")).toEqual({});
		const f = readFile(codexFormat, fx("agentsview__codex-function-calls.jsonl"));
		expect(f.rows.filter((r) => r.flags & EntryFlag.hasToolCalls)).toHaveLength(2);
	});
	it("compaction fixture: the compacted record is a compaction in the chain, the next prompt under it", () => {
		const f = readFile(codexFormat, fx("agent-history__codex-session-with-compaction.jsonl"));
		const c = f.rows.find((r) => r.kind === EntryKind.compaction)!;
		expect(f.entry(c)).toMatchObject({ type: "compaction", summary: expect.stringContaining("Progress + Plan Status") });
		expect(f.rows[f.rows.indexOf(c) + 1]!.parentId).toBe(c.id);
		expect(f.rows.find((r) => r.kind === EntryKind.usage)!.tokens).toBeGreaterThan(0);
	});
	it("legacy 0.50-0.52: finished turns carry the answer or the usage; raw stream items are hidden", () => {
		const legacy = readFile(codexFormat, fx("agent-sessions__codex-050-legacy.jsonl"));
		expect(legacy.rows.map((r) => r.kind)).toEqual([EntryKind.assistant, EntryKind.usage, EntryKind.assistant, EntryKind.custom]);
		expect(legacy.rows[1]!.tokens).toBe(1420 + 910);
		const usage = readFile(codexFormat, fx("agent-sessions__codex-051-usage.jsonl"));
		expect(usage.rows.map((r) => r.tokens)).toEqual([expect.any(Number), expect.any(Number)]);
		expect(usage.rows.every((r) => r.kind === EntryKind.usage && r.tokens > 0)).toBe(true);
		const raw = readFile(codexFormat, fx("agent-sessions__codex-052-raw.jsonl"));
		expect(raw.rows.map((r) => r.kind)).toEqual([EntryKind.custom, EntryKind.custom, EntryKind.usage, EntryKind.custom, EntryKind.usage]);
		expect(raw.rows[2]!.tokens).toBe(980 + 640);
	});
});

describe("rules on hand-made rollouts", () => {
	let ord = 0;
	const line = (type: string, payload: Record<string, unknown>) => ({ timestamp: "2026-01-01T00:00:00.000Z", ordinal: ord++, type, payload });
	const meta = (extra: Record<string, unknown> = {}) => line("session_meta", { id: "t1", cwd: "/p", cli_version: "0.171.0", ...extra });
	const user = (text: string) => line("response_item", { type: "message", role: "user", content: [{ type: "input_text", text }] });
	const answer = (text: string) => line("response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text }] });
	const started = () => line("event_msg", { type: "task_started" });
	const env = () =>
		line("response_item", { type: "message", role: "user", content: [{ type: "input_text", text: "<environment_context>\n</environment_context>" }] });

	it("a rollback leaves the rolled-back turns as an abandoned branch and resumes from where they started", () => {
		ord = 0;
		const f = readText(
			codexFormat,
			lines(
				meta(),
				started(),
				env(),
				user("one"),
				answer("1"),
				started(),
				env(),
				user("two"),
				answer("2"),
				started(),
				user("three"),
				answer("3"),
				line("event_msg", { type: "thread_rolled_back", num_turns: 2 }),
				started(),
				user("four"),
				answer("4"),
			),
		);
		const id = (text: string) => f.rows.find((r) => JSON.stringify(r.raw).includes(`"${text}"`))!.id;
		// Turn two started after answer 1 (its injected context included): "four" hangs there.
		expect(f.byId.get(id("four"))!.parentId).toBe(id("1"));
		expect([...f.branchPoints()]).toEqual([[id("1"), [id("two"), id("four")]]]);
		const rollback = f.rows.find((r) => r.raw.type === "event_msg" && (r.raw.payload as { type: string }).type === "thread_rolled_back")!;
		expect(rollback.parentId).toBe(id("1"));
		const ix = (n: number) => ({ count: n, idAt: (i: number) => f.rows[i]!.id, kindAt: (i: number) => f.rows[i]!.kind, resumableAt: () => true });
		// Right after the rollback the thread resumes from the rollback's point; after the next turn, from its answer.
		expect(f.rows[codexFormat.resumeRow(ix(f.rows.indexOf(rollback) + 1))]!.id).toBe(rollback.id);
		expect(f.rows[codexFormat.resumeRow(ix(f.rows.length))]!.id).toBe(id("4"));
	});
	it("a repeated ordinal falls back to the line's id: no duplicate id, no item its own parent", () => {
		ord = 0;
		const head = [meta(), user("one"), answer("1")];
		const f = readText(codexFormat, lines(...head, { ...user("again"), ordinal: 1 }));
		expect(f.rows.map((r) => [r.id, r.parentId])).toEqual([
			["o:1", null],
			["o:2", "o:1"],
			["l:4", "o:2"],
		]);
	});
	it("a rollback of more turns than there are goes back to the start; zero turns changes nothing", () => {
		ord = 0;
		const f = readText(codexFormat, lines(meta(), user("one"), answer("1"), line("event_msg", { type: "thread_rolled_back", num_turns: 5 }), user("again")));
		expect(f.rows.find((r) => JSON.stringify(r.raw).includes('"again"'))!.parentId).toBeNull();
		ord = 0;
		const g = readText(codexFormat, lines(meta(), user("one"), answer("1"), line("event_msg", { type: "thread_rolled_back", num_turns: 0 }), user("again")));
		expect(g.rows.find((r) => JSON.stringify(r.raw).includes('"again"'))!.parentId).toBe("o:2");
	});
	it("injected context (environment, skills, AGENTS.md, developer items) is hidden; the user's prompt is not", () => {
		ord = 0;
		const dev = line("response_item", { type: "message", role: "developer", content: [{ type: "input_text", text: "<permissions instructions>x" }] });
		const agents = line("response_item", { type: "message", role: "user", content: [{ type: "input_text", text: "# AGENTS.md instructions for /p" }] });
		const f = readText(codexFormat, lines(meta(), dev, env(), agents, user("<b>bold</b> is fine"), user("real")));
		expect(f.rows.map((r) => r.kind)).toEqual([EntryKind.custom, EntryKind.custom, EntryKind.custom, EntryKind.user, EntryKind.user]);
		expect(f.rows.slice(0, 3).map((r) => (f.entry(r) as { customType: string }).customType)).toEqual(["codex:developer", "codex:user", "codex:user"]);
	});
	it("lineage: a fork names its parent thread, a subagent thread the thread that spawned it", () => {
		const first = (p: Record<string, unknown>) => ({ timestamp: "t", type: "session_meta", payload: p });
		expect(codexFormat.lineage(first({ id: "c", forked_from_id: "p", forked_from_ordinal_exclusive: 9 }))).toEqual({ sessionId: "p" });
		expect(codexFormat.lineage(first({ id: "c", source: { subagent: { thread_spawn: { parent_thread_id: "q", depth: 1 } } } }))).toEqual({ sessionId: "q" });
		expect(codexFormat.lineage(first({ id: "c", source: "cli" }))).toBeUndefined();
		expect(codexFormat.lineage({ type: "response_item", payload: {} })).toBeUndefined();
	});
	it("the fork point is the parent's chain tail before the fork's ordinal", () => {
		ord = 0;
		const parent = path.join(tmp, "rollout-2026-01-01T00-00-00-0199aaaa-0000-7000-8000-000000000001.jsonl");
		fs.writeFileSync(parent, lines(meta(), user("one"), answer("1"), line("event_msg", { type: "token_count", info: null }), user("two"), answer("2")));
		expect(codexForkPoint(parent, 4)).toBe("o:2");
		expect(codexForkPoint(parent, 2)).toBe("o:1");
		expect(codexForkPoint(parent, 1)).toBeNull();
		expect(codexForkPoint(parent, 99)).toBe("o:5");
		expect(threadIdOf(parent)).toBe("0199aaaa-0000-7000-8000-000000000001");
		expect(findThreadFile(tmp, "0199aaaa-0000-7000-8000-000000000001")).toBe(parent);
		expect(findThreadFile(tmp, "0199aaaa-0000-7000-8000-000000000002")).toBeUndefined();
	});
	it("reads a .jsonl.zst rollout, and says clearly when zstd is missing or the bytes are not zstd", () => {
		ord = 0;
		const text = lines(meta(), user("zipped"), answer("z"));
		const file = path.join(tmp, "rollout-2026-01-01T00-00-00-0199aaaa-0000-7000-8000-00000000000a.jsonl.zst");
		fs.writeFileSync(file, zlib.zstdCompressSync(Buffer.from(text)));
		expect(readRollout(file)).toBe(text);
		expect(codexFormat.detect({ path: file, head: fs.readFileSync(file).subarray(0, 100) })).toBe(true);
		expect(readText(codexFormat, readRollout(file)).rows.map((r) => r.kind)).toEqual([EntryKind.user, EntryKind.assistant]);
		expect(() => readRollout(file, null)).toThrow(CodexFileError);
		expect(() => readRollout(file, null)).toThrow(/needs a Node with zstd/);
		const bad = path.join(tmp, "rollout-bad.jsonl.zst");
		fs.writeFileSync(bad, "not zstd");
		expect(() => readRollout(bad)).toThrow(/not a valid zstd stream/);
	});
	it("thread names from session_index.jsonl: the last line per id wins, bad lines skipped", () => {
		const home = path.join(tmp, "codex-home");
		fs.mkdirSync(home, { recursive: true });
		expect(codexThreadNames(home).size).toBe(0);
		fs.writeFileSync(
			path.join(home, "session_index.jsonl"),
			[
				JSON.stringify({ id: "a", thread_name: "first" }),
				"{torn",
				JSON.stringify({ id: "b", thread_name: "bee" }),
				JSON.stringify({ id: "a", thread_name: "renamed" }),
			].join("\n"),
		);
		expect([...codexThreadNames(home)]).toEqual([
			["a", "renamed"],
			["b", "bee"],
		]);
	});
	it("is a session file by its name; its folders are $CODEX_HOME's or ~/.codex's", () => {
		expect(codexFormat.isSessionFile("/h/.codex/sessions/2026/01/01/rollout-2026-01-01T00-00-00-x.jsonl")).toBe(true);
		expect(codexFormat.isSessionFile("/h/.codex/sessions/2026/01/01/rollout-x.jsonl.zst")).toBe(true);
		expect(codexFormat.isSessionFile("/h/.codex/session_index.jsonl")).toBe(false);
		expect(codexFormat.sessionRoots({}, "/h")).toEqual(["/h/.codex/sessions", "/h/.codex/archived_sessions"]);
		expect(codexFormat.sessionRoots({ CODEX_HOME: "/c" }, "/h")).toEqual(["/c/sessions", "/c/archived_sessions"]);
	});
});
