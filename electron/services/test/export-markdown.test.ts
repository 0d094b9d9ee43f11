// The Markdown and HTML exports' rules on session text, in-process (electron/services/markdown-safe.ts,
// export.ts; the CLI's hostile-text tests drive the same code through the built bundle): each rule on several
// cases and both sides of its boundary (fences, heading escapes, link schemes, entities, code spans).
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionManager } from "../../session";
import { escapeHtml, exportBranch, toHtml, toMarkdown, writeExport } from "../export";
import { markdownBody, markdownLine } from "../markdown-safe";

describe("markdownBody: fenced code stays as it is", () => {
	it("a ``` or ~~~ block keeps raw HTML, links and headings; text around it is made safe", () => {
		for (const f of ["```", "~~~", "````", "```js", "   ```"]) {
			const text = `<b>x</b>\n${f}\n<b>y</b> [a](javascript:z)\n# not a heading\n${f.trim().replace(/[a-z]+$/, "")}\n<b>z</b>`;
			expect(markdownBody(text), f).toBe(
				`&lt;b>x&lt;/b>\n${f}\n<b>y</b> [a](javascript:z)\n# not a heading\n${f.trim().replace(/[a-z]+$/, "")}\n&lt;b>z&lt;/b>`,
			);
		}
	});

	it("a fence indented four spaces is no fence: its lines are made safe", () => {
		expect(markdownBody("    ```\n<b>\n    ```")).toBe("    ```\n&lt;b>\n    ```");
		expect(markdownBody("``\n<b>\n``")).toBe("``\n&lt;b>\n``");
		expect(markdownBody("~~\n<b>")).toBe("~~\n&lt;b>");
	});

	it("only a fence of the same character, at least as long, alone on its line, closes the block", () => {
		// A ~~~ line inside ``` does not close it, nor a shorter run, nor a run followed by text.
		expect(markdownBody("```\n~~~\n<b>\n```")).toBe("```\n~~~\n<b>\n```");
		expect(markdownBody("~~~\n```\n<b>\n~~~")).toBe("~~~\n```\n<b>\n~~~");
		expect(markdownBody("````\n```\n<b>\n````")).toBe("````\n```\n<b>\n````");
		expect(markdownBody("```\n``` x\n<b>\n```\n<i>")).toBe("```\n``` x\n<b>\n```\n&lt;i>");
		// A longer run closes; so does one with trailing spaces.
		expect(markdownBody("```\n<b>\n`````\n<i>")).toBe("```\n<b>\n`````\n&lt;i>");
		expect(markdownBody("```\n<b>\n```  \n<i>")).toBe("```\n<b>\n```  \n&lt;i>");
		expect(markdownBody("~~~~\n<b>\n~~~\n<i>\n~~~~\n<u>")).toBe("~~~~\n<b>\n~~~\n<i>\n~~~~\n&lt;u>");
	});

	it("a ``` line whose info string holds a backtick is text, not a fence; a ~~~ one may hold backticks", () => {
		expect(markdownBody("``` a`b\n<b>")).toBe("``` a`b\n&lt;b>");
		expect(markdownBody("~~~ a`b\n<b>\n~~~")).toBe("~~~ a`b\n<b>\n~~~");
	});

	it("a block the text leaves open is closed with its own fence, so it cannot swallow the export's next heading", () => {
		expect(markdownBody("```\n<b>")).toBe("```\n<b>\n```");
		expect(markdownBody("~~~~\nx")).toBe("~~~~\nx\n~~~~");
		expect(markdownBody("```\nx\n```")).toBe("```\nx\n```");
		expect(
			toMarkdown("t", [
				{ heading: "User", text: "````\nopen" },
				{ heading: "Assistant", text: "a" },
			]),
		).toBe("# t\n\n## User\n\n````\nopen\n````\n\n## Assistant\n\na\n");
	});
});

describe("markdownBody: no raw HTML and no entity tricks outside code", () => {
	it("& and < become entities; > and quotes stay", () => {
		expect(markdownBody("a & b < c > d \"e\" 'f'")).toBe("a &amp; b &lt; c > d \"e\" 'f'");
		expect(markdownBody("&lt;script&gt;")).toBe("&amp;lt;script&amp;gt;");
		expect(markdownBody("<<&&")).toBe("&lt;&lt;&amp;&amp;");
	});

	it("inline code spans keep their text, with one, two or three backticks; the text between spans is made safe", () => {
		expect(markdownBody("`<b>` and <i>")).toBe("`<b>` and &lt;i>");
		expect(markdownBody("``a ` <b>`` <i> `<u>`")).toBe("``a ` <b>`` &lt;i> `<u>`");
		expect(markdownBody("<a>```x<y```<z>")).toBe("&lt;a>```x<y```&lt;z>");
		// Unmatched runs are no span: everything is made safe.
		expect(markdownBody("`<b>")).toBe("`&lt;b>");
		expect(markdownBody("``<b>`")).toBe("``&lt;b>`");
	});

	it("controls are shown escaped, in text and in code alike; tabs and newlines stay", () => {
		expect(markdownBody("a\u001b]52;c;x\u0007b\tc")).toBe("a^[]52;c;x^Gb\tc");
		expect(markdownBody("```\n\u001b[2J\n```")).toBe("```\n^[[2J\n```");
		expect(markdownBody("a\r\nb")).toBe("a^M\nb");
	});
});

describe("markdownBody: links", () => {
	const unlinked = (target: string) => markdownBody(`[x](${target})`);

	it("javascript:, data:, vbscript:, file: and any other scheme lose the link syntax, in any case", () => {
		for (const t of ["javascript:alert(1", "JaVaScRiPt:alert(1", "data:text/html,x", "vbscript:x", "file:///etc/passwd", "ftp://x", "a+b.c-d:x"])
			expect(unlinked(t), t).toBe(`[x] (${t.replace(/</g, "&lt;")})`);
	});

	it("a scheme hidden by spaces, tabs, controls, backslashes or an entity for < is still seen", () => {
		expect(markdownBody("[x](java\tscript:y)")).toBe("[x] (java\tscript:y)");
		expect(markdownBody("[x]( javascript:y)")).toBe("[x] ( javascript:y)");
		expect(markdownBody("[x](java\\script:y)")).toBe("[x] (java\\script:y)");
		expect(markdownBody("[x](<javascript:y>)")).toBe("[x] (&lt;javascript:y>)");
		// A control is shown as ^A first: "java^Ascript:" is no scheme to any renderer, the link is harmless text.
		expect(markdownBody("[x](java\u0001script:y)")).toBe("[x](java^Ascript:y)");
	});

	it("http, https, mailto, relative paths, fragments and a colon later in the path keep their link", () => {
		for (const t of ["http://a.b/c", "HTTPS://a.b", "mailto:a@b.c", "./docs/a.md", "docs/a.md", "#part", "/abs/path", "a/b:c", "1ab:x"])
			expect(unlinked(t), t).toBe(`[x](${t})`);
	});

	it("a safe scheme counts only at the start of the target; a scheme name longer than 40 characters is none", () => {
		expect(markdownBody("[x](javascript:a//http://b)")).toBe("[x] (javascript:a//http://b)");
		expect(markdownBody("[x](data:mailto:a)")).toBe("[x] (data:mailto:a)");
		// CommonMark schemes are at most 32 characters: such a target is a relative link, kept.
		expect(markdownBody(`[x](${"a".repeat(41)}:y)`)).toBe(`[x](${"a".repeat(41)}:y)`);
		expect(markdownBody(`[x](${"a".repeat(39)}:y)`)).toBe(`[x] (${"a".repeat(39)}:y)`);
	});

	it("every link on a line is judged on its own", () => {
		expect(markdownBody("[a](https://x) [b](javascript:y) [c](#z)")).toBe("[a](https://x) [b] (javascript:y) [c](#z)");
	});

	it("reference definitions: an unsafe target loses its syntax, up to three spaces of indent; a safe one keeps it", () => {
		expect(markdownBody("[r]: javascript:x")).toBe("[r] : javascript:x");
		expect(markdownBody("[a ref]: javascript:x")).toBe("[a ref] : javascript:x");
		expect(markdownBody("[]: javascript:x")).toBe("[] : javascript:x");
		expect(markdownBody("   [r]: data:x")).toBe("   [r] : data:x");
		expect(markdownBody("[r]: https://x")).toBe("[r]: https://x");
		expect(markdownBody("[r]: ./a")).toBe("[r]: ./a");
		expect(markdownBody("a\n[r]:javascript:x")).toBe("a\n[r] :javascript:x");
		// Not at the start of a line: no definition, left as text.
		expect(markdownBody("x [r]: javascript:x")).toBe("x [r]: javascript:x");
	});

	it("inside a code span a link is left alone", () => {
		expect(markdownBody("`[x](javascript:y)`")).toBe("`[x](javascript:y)`");
	});
});

describe("markdownBody: no heading of the message's own", () => {
	it("an ATX heading of one to six #, up to three spaces in, is escaped", () => {
		for (const [line, out] of [
			["# a", "\\# a"],
			["###### a", "\\###### a"],
			["#", "\\#"],
			["##\tb", "\\##\tb"],
			["   # a", "   \\# a"],
		])
			expect(markdownBody(line), line).toBe(out);
	});

	it("seven #, no space after the #, or four spaces in, is no heading and stays", () => {
		for (const line of ["####### a", "#a", "#hashtag", "    # a", "a # b"]) expect(markdownBody(line), line).toBe(line);
	});

	it("a === or --- underline right below text is escaped; after a blank line, at the start or after code it stays", () => {
		expect(markdownBody("Title\n===")).toBe("Title\n\\===");
		expect(markdownBody("Title\n---")).toBe("Title\n\\---");
		expect(markdownBody("Title\n   =  ")).toBe("Title\n   \\=  ");
		expect(markdownBody("Title\n-")).toBe("Title\n\\-");
		expect(markdownBody("Title\n\n---")).toBe("Title\n\n---");
		expect(markdownBody("Title\n   \n===")).toBe("Title\n   \n===");
		expect(markdownBody("---\nx")).toBe("---\nx");
		expect(markdownBody("===")).toBe("===");
		expect(markdownBody("```\ncode\n```\n---")).toBe("```\ncode\n```\n---");
	});

	it("a line that is not only the underline character is no underline", () => {
		for (const text of ["Title\n=== x", "Title\n-=-", "Title\n    ===", "Title\n- item"]) expect(markdownBody(text), text).toBe(text);
	});

	it("an escaped underline still counts as text for the line below it", () => {
		expect(markdownBody("a\n---\n===")).toBe("a\n\\---\n\\===");
	});
});

describe("markdownLine: a heading or title stays one line of plain text", () => {
	it("newlines, CR and tabs collapse into single spaces, ends trimmed", () => {
		expect(markdownLine("a\nb\r\nc\td  e")).toBe("a b c d e");
		expect(markdownLine("  \n a \n ")).toBe("a");
		expect(markdownLine("")).toBe("");
	});

	it("a leading run of # is escaped once, others stay", () => {
		expect(markdownLine("## x")).toBe("\\## x");
		expect(markdownLine("\n# x")).toBe("\\# x");
		expect(markdownLine("x # y")).toBe("x # y");
	});

	it("link, emphasis and code characters are escaped; HTML becomes entities; controls are shown", () => {
		expect(markdownLine("[a](javascript:b) *c* _d_ `e`")).toBe("\\[a\\] (javascript:b) \\*c\\* \\_d\\_ \\`e\\`");
		expect(markdownLine("[a](https://b)")).toBe("\\[a\\](https://b)");
		expect(markdownLine("<img src=x onerror=y> & z")).toBe("&lt;img src=x onerror=y> &amp; z");
		expect(markdownLine("a\u001bb\u007f")).toBe("a^\\[b^?");
	});
});

describe("toMarkdown", () => {
	it("title, headings with their time, text blocks and code blocks in order", () => {
		const md = toMarkdown("My *title*", [
			{ heading: "User", text: "hi <b>", meta: "2026-01-01T00:00:00.000Z" },
			{ heading: "Tool calls", text: "read <a>", code: true },
			{ heading: "Assistant", text: "" },
		]);
		expect(md).toBe("# My \\*title\\*\n\n## User · 2026-01-01T00:00:00.000Z\n\nhi &lt;b>\n\n## Tool calls\n\n```\nread <a>\n```\n\n## Assistant\n");
	});

	it("a code block's fence is longer than any backtick run in it, and at least three", () => {
		const fenceOf = (text: string) => toMarkdown("t", [{ heading: "h", text, code: true }]).split("\n")[4];
		expect(fenceOf("x")).toBe("```");
		expect(fenceOf("``")).toBe("```");
		expect(fenceOf("```")).toBe("````");
		expect(fenceOf("a ```` b ``` c")).toBe("`````");
	});

	it("a heading or time forged by session text stays inside its own heading", () => {
		const md = toMarkdown("t\n# Forged", [{ heading: "\n## User", text: "y", meta: "m\n# z" }]);
		expect(md.split("\n").filter((l) => l.startsWith("#"))).toEqual(["# t # Forged", "## \\## User · m # z"]);
	});

	it("an empty export is its title alone", () => {
		expect(toMarkdown("t", [])).toBe("# t\n");
	});
});

describe("toHtml and escapeHtml", () => {
	it("escapes the five characters, and only them", () => {
		expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
		expect(escapeHtml("plain text ü")).toBe("plain text ü");
	});

	it("each block is a section classed by its heading, with escaped heading, time and text; no script can get in", () => {
		const html = toHtml("<t>", [
			{ heading: "User", text: "<script>x</script>", meta: "<m>" },
			{ heading: "Assistant (error: e)", text: "a" },
			{ heading: "Tool result: <r>", text: "r", code: true },
		]);
		expect(html).toContain("<title>&lt;t&gt;</title>");
		expect(html).toContain("<h1>&lt;t&gt;</h1>");
		expect(html).toContain(
			'<section class="user"><h2>User <span class="meta">&lt;m&gt;</span></h2><div class="text">&lt;script&gt;x&lt;/script&gt;</div></section>',
		);
		expect(html).toContain('<section class="assistant"><h2>Assistant (error: e)</h2><div class="text">a</div></section>');
		expect(html).toContain('<section class="tool"><h2>Tool result: &lt;r&gt;</h2><pre>r</pre></section>');
		expect(html).toContain("default-src 'none'");
		expect(html).not.toMatch(/<script/i);
	});
});

describe("exportBranch and writeExport on a real session file", () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), "arbor-export-md-"));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	const ts = (n: number) => `"timestamp":"2026-01-01T00:00:0${n}.000Z"`;
	const lines = [
		JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" }),
		`{"type":"message","id":"a","parentId":null,${ts(1)},"message":{"role":"user","content":"# forged\\n<b>hi</b>"}}`,
		`{"type":"message","id":"b","parentId":"a",${ts(2)},"message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"toolCall","id":"c","name":"read","arguments":{"path":"/x"}},{"type":"toolCall","id":"d","name":"bash","arguments":{"command":"ls"}},{"type":"toolCall","id":"e","name":"noop","arguments":{}}],"stopReason":"toolUse"}}`,
		`{"type":"message","id":"c","parentId":"b",${ts(3)},"message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"file"}],"isError":true}}`,
		`{"type":"message","id":"d","parentId":"c",${ts(4)},"message":{"role":"bashExecution","command":"false","output":"out","exitCode":1}}`,
		`{"type":"message","id":"e","parentId":"d",${ts(5)},"message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"boom"}}`,
		`{"type":"compaction","id":"f","parentId":"e",${ts(6)},"summary":"sum","firstKeptEntryId":"a","tokensBefore":1}`,
		`{"type":"custom_message","id":"g","parentId":"f",${ts(7)},"customType":"note","content":"shown","display":true}`,
		`{"type":"custom_message","id":"h","parentId":"g",${ts(8)},"customType":"hidden","content":"not shown","display":false}`,
		`{"type":"message","id":"i","parentId":"h",${ts(9)},"message":{"role":"bashExecution","command":"true","output":"","exitCode":0}}`,
		`{"type":"branch_summary","id":"j","parentId":"a",${ts(9)},"fromId":"a","summary":"other branch"}`,
	];

	it("Markdown: every kind of entry on the path as its block, in order; the other branch is not in it", () => {
		const file = join(dir, "s.jsonl");
		writeFileSync(file, `${lines.join("\n")}\n`);
		const md = exportBranch(SessionManager.open(file), "md", "i").toString("utf8");
		expect(md.split("\n").filter((l) => l.startsWith("## "))).toEqual([
			"## User · 2026-01-01T00:00:01.000Z",
			"## Assistant · 2026-01-01T00:00:02.000Z",
			"## Tool calls",
			"## Tool result: read (error)",
			"## Bash (exit 1)",
			"## Assistant (error: boom) · 2026-01-01T00:00:05.000Z",
			"## Compaction summary · 2026-01-01T00:00:06.000Z",
			"## note",
			"## Bash",
		]);
		expect(md).toContain("\\# forged\n&lt;b>hi&lt;/b>");
		expect(md).toContain("```\nread /x\nbash ls\nnoop\n```");
		expect(md).toContain("```\n$ false\nout\n```");
		expect(md).not.toContain("not shown");
		expect(md).not.toContain("other branch");
		const branch = exportBranch(SessionManager.open(file), "md", "j").toString("utf8");
		expect(branch.split("\n").filter((l) => l.startsWith("## "))).toEqual([
			"## User · 2026-01-01T00:00:01.000Z",
			"## Branch summary · 2026-01-01T00:00:09.000Z",
		]);
	});

	it("an unknown leaf is not_found; JSONL of an empty session is bad_request; the source file is never changed", () => {
		const file = join(dir, "s.jsonl");
		writeFileSync(file, `${lines.join("\n")}\n`);
		const before = readFileSync(file);
		expect(() => exportBranch(SessionManager.open(file), "md", "zz")).toThrow(expect.objectContaining({ code: "not_found" }));
		const html = exportBranch(SessionManager.open(file), "html", "i").toString("utf8");
		expect(html).toContain("<h2>Bash</h2>");
		expect(readFileSync(file).equals(before)).toBe(true);
		const empty = join(dir, "empty.jsonl");
		writeFileSync(empty, `${lines[0]}\n`);
		expect(() => exportBranch(SessionManager.open(empty), "jsonl")).toThrow(expect.objectContaining({ code: "bad_request" }));
		expect(exportBranch(SessionManager.open(empty), "md").toString("utf8")).toMatch(/^# [^\n]+\n$/);
	});

	it("the blocks each role and field gives: tool-only and empty turns, stops, tool results, bash, other roles, custom messages", () => {
		const rows = [
			lines[0],
			`{"type":"session_info","id":"t","parentId":null,${ts(1)},"name":"My <title>"}`,
			`{"type":"message","id":"a","parentId":"t",${ts(1)},"message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"edit","arguments":{"file_path":"/fp"}},{"type":"toolCall","id":"c2","name":"odd","arguments":{"path":5}},{"type":"toolCall","id":"c3","name":"none","arguments":"x"}]}}`,
			`{"type":"message","id":"b","parentId":"a",${ts(2)},"message":{"role":"assistant","content":"   "}}`,
			`{"type":"message","id":"c","parentId":"b",${ts(3)},"message":{"role":"assistant","content":[],"stopReason":"aborted"}}`,
			`{"type":"message","id":"d","parentId":"c",${ts(4)},"message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":5}}`,
			`{"type":"message","id":"e","parentId":"d",${ts(5)},"message":{"role":"toolResult","toolCallId":"c1","toolName":"edit","content":"done","isError":false}}`,
			`{"type":"message","id":"f","parentId":"e",${ts(6)},"message":{"role":"toolResult","toolCallId":"c2","content":"x","isError":"true"}}`,
			`{"type":"message","id":"g","parentId":"f",${ts(7)},"message":{"role":"bashExecution","command":"x","output":"y","exitCode":"1"}}`,
			`{"type":"message","id":"h","parentId":"g",${ts(8)},"message":{"role":"system","content":"sys"}}`,
			`{"type":"message","id":"i","parentId":"h",${ts(9)},"message":{"content":"no role"}}`,
			`{"type":"message","id":"j","parentId":"i",${ts(9)},"message":{"role":"system","content":" "}}`,
			`{"type":"custom_message","id":"k","parentId":"j",${ts(9)},"content":[{"type":"text","text":"untyped"}]}`,
			`{"type":"model_change","id":"l","parentId":"k",${ts(9)},"provider":"p","modelId":"m"}`,
			`{"type":"compaction","id":"m","parentId":"l",${ts(9)},"firstKeptEntryId":"a","tokensBefore":1}`,
			`{"type":"message","id":"n","parentId":"m",${ts(9)},"message":"not an object"}`,
		];
		const file = join(dir, "roles.jsonl");
		writeFileSync(file, `${rows.join("\n")}\n`);
		const md = exportBranch(SessionManager.open(file), "md").toString("utf8");
		expect(md.split("\n").filter((l) => l.startsWith("#"))).toEqual([
			"# My &lt;title>",
			"## Tool calls",
			"## Assistant (aborted) · 2026-01-01T00:00:03.000Z",
			"## Assistant (error) · 2026-01-01T00:00:04.000Z",
			"## Tool result: edit",
			"## Tool result:",
			"## Bash",
			"## system",
			"## message",
			"## custom message",
			"## Compaction summary · 2026-01-01T00:00:09.000Z",
		]);
		expect(md).toContain("```\nedit /fp\nodd\nnone\n```");
		expect(md).toContain("## system\n\nsys\n");
		expect(md).toContain("## message\n\nno role\n");
		const html = exportBranch(SessionManager.open(file), "html").toString("utf8");
		expect(html).toContain("<title>My &lt;title&gt;</title>");
	});

	it("JSONL: the chosen branch as a session file of its own, the other branch left out, no temp folder left", () => {
		const file = join(dir, "s.jsonl");
		writeFileSync(file, `${lines.join("\n")}\n`);
		const tmpBefore = readdirSync(tmpdir()).filter((n) => n.startsWith("arbor-export-")).length;
		const out = exportBranch(SessionManager.open(file), "jsonl", "j").toString("utf8").trim().split("\n");
		expect(JSON.parse(out[0]).type).toBe("session");
		expect(out.slice(1).map((l) => JSON.parse(l).id)).toEqual(["a", "j"]);
		expect(readdirSync(tmpdir()).filter((n) => n.startsWith("arbor-export-")).length).toBe(tmpBefore);
	});

	it("writeExport makes a new file no more readable than its source, and never replaces one", () => {
		const source = join(dir, "s.jsonl");
		writeFileSync(source, "x\n");
		chmodSync(source, 0o600);
		const out = writeExport(join(dir, "sub", "out.md"), Buffer.from("# t\n"), source);
		expect(readFileSync(out, "utf8")).toBe("# t\n");
		expect(statSync(out).mode & 0o777).toBe(0o600);
		expect(() => writeExport(out, Buffer.from("other"), source)).toThrow(expect.objectContaining({ code: "conflict" }));
		expect(readFileSync(out, "utf8")).toBe("# t\n");
	});
});
