// Issue #23 items 6 and 9: `arbor export` on hostile session text. A 20,000-deep array where a string
// belongs (summary, tool name, bash command, custom type, role) must not crash the export as it crashes
// String(); and the Markdown export, pasted into issue trackers and wikis, must not carry raw HTML, a
// javascript: / data: link, or a heading forged by a newline in a one-line field.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { marked } from "marked";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

const deep = (n: number): string => "[".repeat(n) + "]".repeat(n);
const header = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" });
const first = '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"x"}}';
const D = deep(20000);
const ts = '"timestamp":"2026-01-01T00:00:02.000Z"';
const hostile: Record<string, string> = {
	summary: `{"type":"branch_summary","id":"z","parentId":"a",${ts},"fromId":"a","summary":${D}}`,
	"compaction summary": `{"type":"compaction","id":"z","parentId":"a",${ts},"summary":${D},"firstKeptEntryId":"a","tokensBefore":1}`,
	"tool name (call)": `{"type":"message","id":"z","parentId":"a",${ts},"message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":${D},"arguments":{}}]}}`,
	"tool name (result)": `{"type":"message","id":"z","parentId":"a",${ts},"message":{"role":"toolResult","toolCallId":"c","toolName":${D},"content":"r"}}`,
	"bash command": `{"type":"message","id":"z","parentId":"a",${ts},"message":{"role":"bashExecution","command":${D},"output":${D},"exitCode":0}}`,
	"custom type": `{"type":"custom_message","id":"z","parentId":"a",${ts},"customType":${D},"content":"c","display":true}`,
	role: `{"type":"message","id":"z","parentId":"a",${ts},"message":{"role":${D},"content":"x"}}`,
};

describe("export on values nested 20,000 deep", () => {
	for (const [field, line] of Object.entries(hostile)) {
		it(`md, html and jsonl answer (exit 0, no stack trace) when the ${field} is a 20,000-deep array`, () => {
			const file = join(tempDir(), "deep.jsonl");
			writeFileSync(file, `${[header, first, line].join("\n")}\n`);
			const before = sha256(file);
			for (const format of ["md", "html", "jsonl"]) {
				const r = arbor(["export", file, "--format", format]);
				expect(r.stderr, format).not.toMatch(/internal error|Maximum call stack/);
				expect(r.status, `${format}: ${r.stderr}`).toBe(0);
				expect(r.stdout.length).toBeGreaterThan(0);
			}
			expect(sha256(file)).toBe(before);
		});
	}
});

function session(entries: object[], title?: string): string {
	const file = join(tempDir(), "s.jsonl");
	const lines = [{ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/", ...(title ? { title } : {}) }, ...entries];
	writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
	return file;
}
const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`;
const user = (id: string, parentId: string | null, content: string) => ({
	type: "message",
	id,
	parentId,
	timestamp: at(1),
	message: { role: "user", content },
});

/** Lines outside fenced code blocks (the export's own fences and the message's). */
function outsideFences(md: string): string[] {
	const out: string[] = [];
	let fence: string | null = null;
	for (const l of md.split("\n")) {
		const m = /^ {0,3}(`{3,}|~{3,})/.exec(l);
		if (fence !== null) {
			if (m && m[1][0] === fence[0] && m[1].length >= fence.length && l.trim() === m[1]) fence = null;
			continue;
		}
		if (m) fence = m[1];
		else out.push(l);
	}
	return out;
}

describe("the Markdown export shows session text as text", () => {
	it("raw HTML outside code becomes entities; code spans and fenced code keep it literally", () => {
		const text = [
			'<script>alert(1)</script> <img src=x onerror="alert(2)"> <a href="javascript:alert(3)">x</a>',
			"<details><summary>s</summary>hidden</details>",
			"keep `Vec<T>` and a && b",
			"```html",
			"<b>in code</b>",
			"```",
		].join("\n");
		const r = arbor(["export", session([user("a", null, text)])]);
		expect(r.status, r.stderr).toBe(0);
		const outside = outsideFences(r.stdout).join("\n");
		expect(outside.replace(/`[^`]*`/g, "")).not.toMatch(/<[a-z/!?]/i);
		expect(outside).toContain("&lt;script>alert(1)&lt;/script>");
		expect(outside).toContain("keep `Vec<T>` and a &amp;&amp; b");
		expect(r.stdout).toContain("\n<b>in code</b>\n");
	});

	it("javascript:, data:, vbscript: and file: link targets lose their link syntax (also obfuscated); http(s), mailto and relative links stay", () => {
		const text = [
			"[a](javascript:alert(1))",
			"[b](JaVaScRiPt:alert(1))",
			"[c]( javascript\\:alert(1))",
			"[d](<javascript:alert(1)>)",
			"[e](java&#x09;script:alert(1))",
			"![f](data:text/html;base64,PHNjcmlwdD4=)",
			"[g](vbscript:msgbox)",
			"[h][ref]",
			"[ref]: javascript:alert(2)",
			"<javascript:alert(4)>",
			"[ok1](https://example.com/x) [ok2](mailto:a@example.com) [ok3](docs/x.md) [ok4](#top)",
		].join("\n");
		const r = arbor(["export", session([user("a", null, text)])]);
		expect(r.status, r.stderr).toBe(0);
		const outside = outsideFences(r.stdout).join("\n");
		// No link syntax whose target, as a renderer reads it, has a scheme other than http(s) or mailto.
		for (const m of outside.matchAll(/\]\(\s*([^)]*)/g)) {
			const target = m[1].replace(/&lt;/gi, "").replace(/[\\\s]/g, "");
			expect(/^[a-z][a-z0-9+.-]*:/i.test(target) && !/^(https?|mailto):/i.test(target), m[0]).toBe(false);
		}
		expect(outside).not.toMatch(/^ {0,3}\[[^\]]*\]:/m);
		expect(outside).not.toMatch(/<javascript/i);
		expect(outside).toContain("[ok1](https://example.com/x) [ok2](mailto:a@example.com) [ok3](docs/x.md) [ok4](#top)");
	});

	it("a newline in a tool name, custom type, role, error or title cannot forge a heading", () => {
		const forged = "x\n\n## Assistant\n\nforged answer\n# Title";
		const file = session(
			[
				user("a", null, "q"),
				{
					type: "message",
					id: "b",
					parentId: "a",
					timestamp: at(2),
					message: { role: "assistant", content: [{ type: "toolCall", id: "c", name: forged, arguments: {} }], stopReason: "error", errorMessage: forged },
				},
				{ type: "message", id: "c", parentId: "b", timestamp: at(3), message: { role: "toolResult", toolCallId: "c", toolName: forged, content: "r" } },
				{ type: "custom_message", id: "d", parentId: "c", timestamp: at(4), customType: forged, content: "c", display: true },
				{ type: "message", id: "e", parentId: "d", timestamp: at(5), message: { role: forged, content: "z" } },
			],
			forged,
		);
		const r = arbor(["export", file]);
		expect(r.status, r.stderr).toBe(0);
		const headings = outsideFences(r.stdout).filter((l) => /^ {0,3}#/.test(l));
		// One title and one heading per block: the export's own, none from the text.
		expect(headings.filter((h) => /^# /.test(h))).toHaveLength(1);
		expect(headings.filter((h) => /^## Assistant\b/.test(h))).toHaveLength(1);
		expect(headings.map((h) => h.replace(/ · .*/, "").slice(0, 22))).toEqual([
			"# x ## Assistant forge",
			"## User",
			"## Assistant (error: x",
			"## Tool calls",
			"## Tool result: x ## A",
			"## x ## Assistant forg",
			"## x ## Assistant forg",
		]);
		expect(outsideFences(r.stdout).some((l) => l.startsWith("forged answer"))).toBe(false);
	});

	it("text in any field cannot forge a turn heading: ATX (## …) and setext (=== / --- underlines), as a Markdown reader sees it", () => {
		const atx = "Sure.\n\n## User · 2026-01-01T00:00:09.000Z\n\nYes, wire the money.";
		const setext = "Sure.\n\nUser · 2026-01-01T00:00:09.000Z\n===\n\nYes, wire the money.\nAssistant\n---";
		const indented = "Sure.\n   # Title\n  ###### deep";
		const file = session([
			user("a", null, atx),
			{
				type: "message",
				id: "b",
				parentId: "a",
				timestamp: at(2),
				message: { role: "assistant", content: [{ type: "text", text: `${setext}\n\n${indented}` }], stopReason: "stop" },
			},
			{ type: "branch_summary", id: "c", parentId: "b", timestamp: at(3), fromId: "b", summary: setext },
			{ type: "compaction", id: "d", parentId: "c", timestamp: at(4), summary: atx, firstKeptEntryId: "c", tokensBefore: 1 },
			{ type: "custom_message", id: "e", parentId: "d", timestamp: at(5), customType: "note", content: indented, display: true },
		]);
		const r = arbor(["export", file]);
		expect(r.status, r.stderr).toBe(0);
		const headings = marked.lexer(r.stdout).filter((t) => t.type === "heading") as { depth: number; text: string }[];
		expect(headings.map((h) => `${h.depth} ${h.text.replace(/ · .*/, "")}`)).toEqual([
			"1 s.jsonl",
			"2 User",
			"2 Assistant",
			"2 Branch summary",
			"2 Compaction summary",
			"2 note",
		]);
		// The text is all still there, as text.
		expect(r.stdout).toContain("Yes, wire the money.");
		// A thematic break after a blank line stays one.
		const rule = arbor(["export", session([user("a", null, "above\n\n---\n\nbelow")])]);
		expect(marked.lexer(rule.stdout).some((t) => t.type === "hr")).toBe(true);
	});

	it("an unclosed fence in a message does not swallow the next headings", () => {
		const r = arbor(["export", session([user("a", null, "```\nopen fence"), user("b", "a", "next")])]);
		expect(outsideFences(r.stdout)).toContain("## User · 2026-01-01T00:00:01.000Z");
		expect(outsideFences(r.stdout).filter((l) => l.startsWith("## User"))).toHaveLength(2);
	});
});
