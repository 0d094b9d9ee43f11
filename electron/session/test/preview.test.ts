// Row text and search text as pi's tree selector builds them (PEERS.md (d)), plus Arbor's "full" scope.
import { describe, expect, it } from "vitest";
import type { SessionEntry, ToolCallBlock } from "../../../shared/entries";
import { formatToolCall, fullText, MatchRank, matchRank, previewText, queryTokens, rankedOrder, searchableText } from "../../../shared/preview";
import { SessionManager } from "../index";
import { writeSession } from "./helpers";
import { matchesQuery } from "./helpers/match";

const T = "2026-01-01T00:00:00.000Z";
const base = { id: "x", parentId: null, timestamp: T };
const msg = (message: Record<string, unknown>) => ({ type: "message", ...base, message }) as unknown as SessionEntry;
const ent = (type: string, extra: Record<string, unknown>) => ({ type, ...base, ...extra }) as unknown as SessionEntry;
const none = () => undefined;

describe("previewText (pi's row text)", () => {
	it("messages", () => {
		const long = "y".repeat(300);
		expect(previewText(msg({ role: "user", content: "hello\nworld\t!" }), none)).toBe("user: hello world !");
		expect(previewText(msg({ role: "user", content: [{ type: "text", text: long }] }), none)).toBe(`user: ${"y".repeat(200)}`);
		expect(previewText(msg({ role: "assistant", content: [{ type: "text", text: "answer" }] }), none)).toBe("assistant: answer");
		expect(previewText(msg({ role: "assistant", content: [], stopReason: "aborted" }), none)).toBe("assistant: (aborted)");
		expect(previewText(msg({ role: "assistant", content: [], errorMessage: `bad\n${"e".repeat(100)}` }), none)).toBe(
			`assistant: ${`bad ${"e".repeat(100)}`.slice(0, 80)}`,
		);
		expect(previewText(msg({ role: "assistant", content: [{ type: "toolCall", id: "1", name: "x", arguments: {} }] }), none)).toBe("assistant: (no content)");
		expect(previewText(msg({ role: "bashExecution", command: "ls -la\n" }), none)).toBe("[bash]: ls -la");
		expect(previewText(msg({ role: "developer", content: "x" }), none)).toBe("[developer]");
	});

	it("tool results show their tool call, with $HOME shortened to ~", () => {
		const calls: Record<string, ToolCallBlock> = {
			r: { type: "toolCall", id: "r", name: "read", arguments: { path: "/home/me/src/a.ts", offset: 1, limit: 40 } },
			r2: { type: "toolCall", id: "r2", name: "read", arguments: { path: "/etc/x", offset: 10 } },
			w: { type: "toolCall", id: "w", name: "write", arguments: { file_path: "/home/me/b.ts" } },
			e: { type: "toolCall", id: "e", name: "edit", arguments: { path: "c.ts" } },
			b: { type: "toolCall", id: "b", name: "bash", arguments: { command: `npm test\n${"z".repeat(60)}` } },
			g: { type: "toolCall", id: "g", name: "grep", arguments: { pattern: "foo", path: "/home/me/src" } },
			f: { type: "toolCall", id: "f", name: "find", arguments: { pattern: "*.ts" } },
			l: { type: "toolCall", id: "l", name: "ls", arguments: {} },
			o: { type: "toolCall", id: "o", name: "web_search", arguments: { query: "a very long query that goes past forty characters" } },
		};
		const row = (id: string) => previewText(msg({ role: "toolResult", toolCallId: id, toolName: "t", content: [] }), (x) => calls[x], { homeDir: "/home/me" });
		expect(row("r")).toBe("[read: ~/src/a.ts:1-40]");
		expect(row("r2")).toBe("[read: /etc/x:10]");
		expect(row("w")).toBe("[write: ~/b.ts]");
		expect(row("e")).toBe("[edit: c.ts]");
		expect(row("b")).toBe(`[bash: ${`npm test ${"z".repeat(60)}`.slice(0, 50)}...]`);
		expect(row("g")).toBe("[grep: /foo/ in ~/src]");
		expect(row("f")).toBe("[find: *.ts in .]");
		expect(row("l")).toBe("[ls: .]");
		expect(row("o")).toBe(`[web_search: ${JSON.stringify(calls.o.arguments).slice(0, 40)}...]`);
		expect(row("missing")).toBe("[t]");
		expect(formatToolCall("edit", { path: "/home/me" }, { homeDir: "/home/me" })).toBe("[edit: ~]");
	});

	it("other entry types", () => {
		expect(
			previewText(
				ent("custom_message", {
					customType: "note",
					content: [
						{ type: "text", text: "a" },
						{ type: "text", text: "b" },
					],
				}),
				none,
			),
		).toBe("[note]: ab");
		expect(previewText(ent("compaction", { summary: "s", tokensBefore: 12_600 }), none)).toBe("[compaction: 13k tokens]");
		// No token count in the file: no "[compaction: NaNk tokens]".
		expect(previewText(ent("compaction", { summary: "s" }), none)).toBe("[compaction]");
		expect(previewText(ent("compaction", { summary: "s", tokensBefore: "x" }), none)).toBe("[compaction]");
		expect(previewText(ent("branch_summary", { summary: "went\nback", fromId: "a" }), none)).toBe("[branch summary]: went back");
		expect(previewText(ent("model_change", { provider: "p", modelId: "m1" }), none)).toBe("[model: m1]");
		expect(previewText(ent("thinking_level_change", { thinkingLevel: "high" }), none)).toBe("[thinking: high]");
		expect(previewText(ent("custom", { customType: "state" }), none)).toBe("[custom: state]");
		expect(previewText(ent("label", { targetId: "a", label: "L" }), none)).toBe("[label: L]");
		expect(previewText(ent("label", { targetId: "a" }), none)).toBe("[label: (cleared)]");
		expect(previewText(ent("session_info", { name: "My title" }), none)).toBe("[title: My title]");
		expect(previewText(ent("session_info", {}), none)).toBe("[title: empty]");
		expect(previewText(ent("future", {}), none)).toBe("");
	});
});

describe("search text", () => {
	it("pi scope: label, role and the first 200 characters; tool arguments are not searchable", () => {
		const e = msg({
			role: "assistant",
			content: [
				{ type: "text", text: `${"a".repeat(195)}needle-far` },
				{ type: "toolCall", id: "1", name: "read", arguments: { path: "secret.ts" } },
			],
		});
		const text = searchableText(e, "MyLabel");
		expect(text.startsWith("MyLabel assistant ")).toBe(true);
		expect(text).not.toContain("needle-far");
		expect(text).not.toContain("secret.ts");
		expect(searchableText(ent("branch_summary", { summary: "sum" }))).toBe("branch summary sum");
		expect(searchableText(ent("compaction", { summary: "hidden" }))).toBe("compaction");
		expect(searchableText(msg({ role: "bashExecution", command: "make all", output: "" }))).toBe("bashExecution make all");
	});

	it("full scope: thinking, tool names and arguments, tool output, summaries", () => {
		const e = msg({
			role: "assistant",
			content: [
				{ type: "thinking", thinking: "ponder" },
				{ type: "toolCall", id: "1", name: "read", arguments: { path: "secret.ts" } },
			],
		});
		const text = fullText(e);
		for (const s of ["ponder", "read", "secret.ts"]) expect(text).toContain(s);
		expect(fullText(ent("compaction", { summary: "hidden detail", details: { readFiles: ["x.ts"] } }))).toContain("x.ts");
	});

	it("queries: lower-cased whitespace tokens, all must be substrings in any order", () => {
		expect(queryTokens("  Foo   BAR ")).toEqual(["foo", "bar"]);
		expect(matchesQuery("the bar and FOO", queryTokens("foo bar"))).toBe(true);
		expect(matchesQuery("the bar", queryTokens("foo bar"))).toBe(false);
	});

	it("a quoted phrase is one token matched as the exact phrase; unquoted words keep pi's rule", () => {
		expect(queryTokens('fix "Null Check" now')).toEqual(["fix", "null check", "now"]);
		expect(queryTokens('"unclosed phrase')).toEqual(["unclosed phrase"]);
		expect(queryTokens('""  a')).toEqual(["a"]);
		expect(matchesQuery("add a null check here", queryTokens('"null check"'))).toBe(true);
		expect(matchesQuery("check for null here", queryTokens('"null check"'))).toBe(false);
		expect(matchesQuery("check for null here", queryTokens("null check"))).toBe(true);
		expect(matchesQuery("anything", [])).toBe(true);
	});
});

describe("SessionManager previews and search", () => {
	it("getPreviews finds the tool call on the path; search returns ascending indices and sees labels", () => {
		const f = writeSession([
			{ type: "message", id: "u", parentId: null, timestamp: T, message: { role: "user", content: "Please read it" } },
			{
				type: "message",
				id: "a",
				parentId: "u",
				timestamp: T,
				message: {
					role: "assistant",
					content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "/home/me/x.ts", limit: 5 } }],
					stopReason: "toolUse",
				},
			},
			{
				type: "message",
				id: "t",
				parentId: "a",
				timestamp: T,
				message: { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "body" }] },
			},
			{ type: "label", id: "l", parentId: "t", timestamp: T, targetId: "t", label: "Important" },
		]);
		const sm = SessionManager.open(f);
		expect(sm.getPreviews([0, 2, 3], { homeDir: "/home/me" })).toEqual(["user: Please read it", "[read: ~/x.ts:1-5]", "[label: Important]"]);
		expect(sm.search("important", "pi")).toEqual([2, 3]);
		expect(sm.search("x.ts", "pi")).toEqual([]);
		expect(sm.search("x.ts", "full")).toEqual([1]);
		expect(sm.search("", "pi")).toEqual([0, 1, 2, 3]);
	});
});

describe("pi 1.6 rows and search texts", () => {
	it("context_edit is a settings row naming its target; system rows; usage rows are empty (never shown)", () => {
		expect(previewText(ent("context_edit", { targetId: "abc", replacement: null }), none)).toBe("[context omit: abc]");
		expect(previewText(ent("context_edit", { targetId: "abc", replacement: { content: "x" } }), none)).toBe("[context replace: abc]");
		expect(searchableText(ent("context_edit", { targetId: "abc", replacement: null }))).toBe("context edit omit abc");
		expect(searchableText(ent("context_edit", { targetId: "abc", replacement: { content: "x" } }), "lbl")).toBe("lbl context edit replace abc");
		expect(previewText(msg({ role: "system", content: "You are", sections: { a: "x" } }), none)).toBe("[system]");
		expect(searchableText(msg({ role: "system", content: "You are a coding agent" }))).toBe("system You are a coding agent");
		expect(previewText(ent("usage", { kind: "cache_warm", usage: { totalTokens: 5 } }), none)).toBe("");
	});

	it("read ranges and home paths as pi 1.6 formats them", () => {
		const read = (args: Record<string, unknown>) => formatToolCall("read", args, { homeDir: "/home/me" });
		expect(read({ path: "/home/me/a.ts", offset: null, limit: null })).toBe("[read: ~/a.ts]");
		expect(read({ path: "/home/me/a.ts", offset: "3", limit: "10" })).toBe("[read: ~/a.ts:3-12]");
		expect(read({ path: "/home/me/a.ts", offset: 3 })).toBe("[read: ~/a.ts:3]");
		expect(read({ path: "/home/me/a.ts", limit: 5 })).toBe("[read: ~/a.ts:1-5]");
		expect(read({ path: "/home/me/a.ts", offset: "x", limit: 5 })).toBe("[read: ~/a.ts]");
		// 0.73 shortened any prefix; 1.6 only paths inside the home directory.
		expect(read({ path: "/home/meow/a.ts" })).toBe("[read: /home/meow/a.ts]");
		expect(read({ path: "/home/me" })).toBe("[read: ~]");
		expect(read({ path: "rel/a.ts" })).toBe("[read: rel/a.ts]");
	});
});

describe("preview and search rules on both sides of each bound", () => {
	it("a bash call's command: 50 characters shown whole, 51 cut with ...; a tool's JSON: 40 whole, 41 cut", () => {
		expect(formatToolCall("bash", { command: "c".repeat(50) })).toBe(`[bash: ${"c".repeat(50)}]`);
		expect(formatToolCall("bash", { command: "c".repeat(51) })).toBe(`[bash: ${"c".repeat(50)}...]`);
		expect(formatToolCall("bash", { command: "  a\tb\nc  " })).toBe("[bash: a b c]");
		expect(formatToolCall("bash", {})).toBe("[bash: ]");
		const args40 = { q: "x".repeat(32) };
		expect(JSON.stringify(args40)).toHaveLength(40);
		expect(formatToolCall("t", args40)).toBe(`[t: ${JSON.stringify(args40)}]`);
		const args41 = { q: "x".repeat(33) };
		expect(formatToolCall("t", args41)).toBe(`[t: ${JSON.stringify(args41).slice(0, 40)}...]`);
		// Deep arguments do not crash the row.
		let deep: unknown = [];
		for (let i = 0; i < 20000; i++) deep = [deep];
		expect(formatToolCall("t", { deep } as Record<string, unknown>)).toBe(`[t: {"deep":${"[".repeat(32)}...]`);
	});

	it("read, write and edit take path or file_path; grep, find and ls default to .", () => {
		expect(formatToolCall("read", { file_path: "/a" })).toBe("[read: /a]");
		expect(formatToolCall("write", { path: "/p", file_path: "/fp" })).toBe("[write: /p]");
		expect(formatToolCall("edit", {})).toBe("[edit: ]");
		expect(formatToolCall("grep", { pattern: "p" })).toBe("[grep: /p/ in .]");
		expect(formatToolCall("find", { pattern: "p", path: "/d" })).toBe("[find: p in /d]");
		expect(formatToolCall("ls", { path: "/d" })).toBe("[ls: /d]");
	});

	it("home shortening: inside the home only, with . and .. resolved; a relative home shortens nothing", () => {
		const read = (p: string, homeDir: string) => formatToolCall("read", { path: p }, { homeDir });
		expect(read("/home/me/./a/../b.ts", "/home/me")).toBe("[read: ~/b.ts]");
		expect(read("/home/me/b.ts", "/home/me/")).toBe("[read: ~/b.ts]");
		expect(read("/home/me/b.ts", "/home//me")).toBe("[read: ~/b.ts]");
		expect(read("/home/me/", "/home/me")).toBe("[read: ~]");
		expect(read("/home/me/../other/b.ts", "/home/me")).toBe("[read: /home/me/../other/b.ts]");
		expect(read("/home/me/b.ts", "home/me")).toBe("[read: /home/me/b.ts]");
		expect(read("/home/me/b.ts", "")).toBe("[read: /home/me/b.ts]");
		expect(read("/b.ts", "/")).toBe("[read: ~/b.ts]");
	});

	it("read ranges: an offset alone, a limit alone, zero and bad values", () => {
		const range = (offset: unknown, limit: unknown) => formatToolCall("read", { path: "/a", offset, limit });
		expect(range(5, 1)).toBe("[read: /a:5-5]");
		expect(range(1, 0)).toBe("[read: /a:1]");
		expect(range(0, 1)).toBe("[read: /a:0]");
		expect(range(" ", 2)).toBe("[read: /a]");
		expect(range(2, "")).toBe("[read: /a]");
		expect(range(Infinity, 2)).toBe("[read: /a]");
		expect(range(2, Number.NaN)).toBe("[read: /a]");
		expect(range(undefined, "4")).toBe("[read: /a:1-4]");
	});

	it("compaction tokens round to the nearest thousand; a non-finite count says nothing", () => {
		const row = (tokensBefore: unknown) => previewText(ent("compaction", { summary: "s", tokensBefore }), none);
		expect(row(499)).toBe("[compaction: 0k tokens]");
		expect(row(500)).toBe("[compaction: 1k tokens]");
		expect(row(1499)).toBe("[compaction: 1k tokens]");
		expect(row(Infinity)).toBe("[compaction]");
		expect(row(Number.NaN)).toBe("[compaction]");
	});

	it("rows of other roles and types", () => {
		const calls = (id: string) => (id === "c" ? ({ type: "toolCall", id: "c", name: "ls", arguments: { path: "/x" } } as ToolCallBlock) : undefined);
		expect(previewText(msg({ role: "toolResult", toolCallId: "", toolName: "n" }), calls)).toBe("[n]");
		expect(previewText(msg({ role: "toolResult", toolCallId: 5 }), calls)).toBe("[tool]");
		expect(previewText(msg({ role: "toolResult", toolCallId: "c" }), calls)).toBe("[ls: /x]");
		expect(previewText({ type: "message", ...base, message: "x" } as unknown as SessionEntry, none)).toBe("[message]");
		expect(previewText(msg({ role: "bashExecution" }), none)).toBe("[bash]: ");
		expect(previewText(msg({}), none)).toBe("[]");
		expect(previewText(ent("custom_message", { customType: "n", content: "a\nb" }), none)).toBe("[n]: a b");
		expect(previewText(ent("model_change", { model: "old-field" }), none)).toBe("[model: old-field]");
		expect(previewText(ent("model_change", {}), none)).toBe("[model: ]");
		expect(previewText(ent("label", { label: "" }), none)).toBe("[label: (cleared)]");
		expect(previewText(ent("session_info", { name: "" }), none)).toBe("[title: empty]");
	});

	it("pi's search text for each type", () => {
		expect(searchableText(ent("custom_message", { customType: "n", content: [{ type: "text", text: "t" }] }))).toBe("n t");
		expect(searchableText(ent("custom_message", { customType: "n", content: "s" }))).toBe("n s");
		expect(searchableText(ent("session_info", { name: "T" }))).toBe("title T");
		expect(searchableText(ent("session_info", {}))).toBe("title");
		expect(searchableText(ent("model_change", { modelId: "m" }))).toBe("model m");
		expect(searchableText(ent("thinking_level_change", { thinkingLevel: "hi" }))).toBe("thinking hi");
		expect(searchableText(ent("custom", { customType: "c" }))).toBe("custom c");
		expect(searchableText(ent("label", {}))).toBe("label ");
		expect(searchableText(ent("label", { label: "L" }))).toBe("label L");
		expect(searchableText(msg({ role: "user", content: "" }))).toBe("user");
		expect(searchableText(msg({ role: "bashExecution", command: "" }))).toBe("bashExecution");
		expect(searchableText({ type: "message", ...base, message: null } as unknown as SessionEntry, "L")).toBe("L");
		expect(searchableText(ent("unknown", {}))).toBe("");
	});

	it("the full search text of each type; long strings in JSON capped at 20,000 characters", () => {
		expect(fullText(msg({ role: "toolResult", toolName: "read", content: "out", output: "o", errorMessage: "e", fullOutputPath: "/f" }))).toBe(
			"message toolResult out read o e /f",
		);
		expect(fullText(msg({ role: "fileMention", files: [{ path: "/m" }] }))).toBe('message fileMention [{"path":"/m"}]');
		expect(fullText(msg({ role: "assistant", content: [{ type: "image", data: "AAAA" }, { type: "other", v: 1 }, "x", null] }))).toBe(
			'message assistant {"type":"other","v":1}',
		);
		expect(fullText(ent("custom_message", { customType: "n", content: [{ type: "text", text: "t" }] }), "L")).toBe("L custom_message n t");
		expect(fullText(ent("branch_summary", { summary: "s", details: { a: 1 } }))).toBe('branch_summary branch summary s {"a":1}');
		expect(fullText(ent("compaction", { summary: "s" }))).toBe("compaction compaction s ");
		expect(fullText(ent("model_change", { provider: "p", modelId: "m" }))).toBe("model_change model p m ");
		expect(fullText(ent("thinking_level_change", { thinkingLevel: "hi" }))).toBe("thinking_level_change thinking hi");
		expect(fullText(ent("custom", { customType: "c", data: { d: 1 } }))).toBe('custom custom c {"d":1}');
		expect(fullText(ent("label", { label: "L" }))).toBe("label label L");
		expect(fullText(ent("session_info", { name: "T" }))).toBe("session_info title T");
		expect(fullText(ent("future", { v: 1 }))).toBe(`future ${JSON.stringify({ type: "future", ...base, v: 1 })}`);
		expect(fullText(ent("custom", { customType: "c", data: { a: "a".repeat(20_000) } }))).toBe(`custom custom c {"a":"${"a".repeat(20_000)}"}`);
		expect(fullText(ent("custom", { customType: "c", data: { b: "b".repeat(20_001) } }))).toBe(`custom custom c {"b":"${"b".repeat(20_000)}"}`);
		const total = fullText(ent("custom", { customType: "c", data: ["x".repeat(20_000), "y".repeat(20_000), "z"] }));
		expect(total).toBe(`custom custom c ${JSON.stringify(["x".repeat(20_000), "y".repeat(20_000), "z"]).slice(0, 40_000)}`);
		let deep: unknown = [];
		for (let i = 0; i < 20000; i++) deep = [deep];
		expect(fullText(ent("custom", { customType: "c", data: deep }))).toBe("custom custom c ");
	});

	it("match rank: the whole query as a phrase at word edges, then every token as a word, then scattered", () => {
		expect(matchRank(["fix", "the", "parser"], "to fix the parser.")).toBe(MatchRank.phrase);
		expect(matchRank(["fix", "the", "parser"], "to fix  the\nparser")).toBe(MatchRank.phrase);
		expect(matchRank(["fix", "the", "parser"], "the parser, fix it")).toBe(MatchRank.words);
		expect(matchRank(["fix", "parser"], "prefix parsers")).toBe(MatchRank.scattered);
		expect(matchRank(["fix"], "fix")).toBe(MatchRank.phrase);
		expect(matchRank(["fix"], "fixes")).toBe(MatchRank.scattered);
		expect(matchRank(["fix"], "_fix")).toBe(MatchRank.scattered);
		expect(matchRank(["fix"], "9fix")).toBe(MatchRank.scattered);
		expect(matchRank(["fix"], "éfix")).toBe(MatchRank.scattered);
		expect(matchRank(["fix"], "-fix-")).toBe(MatchRank.phrase);
		// A later whole-word occurrence after one inside a word still counts.
		expect(matchRank(["fix"], "prefix fix")).toBe(MatchRank.phrase);
		expect(matchRank(["a", "b"], "a\tb")).toBe(MatchRank.phrase);
		expect(matchRank(["a", "b"], "b xa a")).toBe(MatchRank.words);
	});

	it("ranked order: best rank first, file order within a rank; the input is left as it was", () => {
		const ranks: Record<number, number> = { 4: 2, 1: 0, 7: 1, 2: 0, 9: 2 };
		const matches = [1, 2, 4, 7, 9];
		expect(rankedOrder(matches, (i) => ranks[i])).toEqual([1, 2, 7, 4, 9]);
		expect(matches).toEqual([1, 2, 4, 7, 9]);
		expect(rankedOrder([9, 4, 2], (i) => ranks[i])).toEqual([2, 4, 9]);
	});

	it("query tokens: words around quoted phrases, any whitespace between words", () => {
		expect(queryTokens('a "b c" d')).toEqual(["a", "b c", "d"]);
		expect(queryTokens('a"b"c')).toEqual(["a", "b", "c"]);
		expect(queryTokens('x "  y  "\tz\n')).toEqual(["x", "y", "z"]);
		expect(queryTokens("")).toEqual([]);
		expect(queryTokens("A\tB\nC")).toEqual(["a", "b", "c"]);
	});
});
