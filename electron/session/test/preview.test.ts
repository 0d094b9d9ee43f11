// Row text and search text as pi's tree selector builds them (PEERS.md (d)), plus Arbor's "full" scope.
import { describe, expect, it } from "vitest";
import type { SessionEntry, ToolCallBlock } from "../../../shared/entries";
import { formatToolCall, fullText, previewText, queryTokens, searchableText } from "../../../shared/preview";
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
