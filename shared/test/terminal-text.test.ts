import { describe, expect, it } from "vitest";
import { terminalJson, terminalLine, terminalText } from "../terminal-text";

describe("terminal-text escaper", () => {
	it("shows C0 and DEL in caret notation and C1 as <U+XXXX>, as less and cat -v do", () => {
		expect(terminalLine("a\x1b]52;c;eA==\x07b\rc\x7f\u009b1m\u0085")).toBe("a^[]52;c;eA==^Gb^Mc^?<U+009B>1m<U+0085>");
		expect(terminalLine("\x00\x1f")).toBe("^@^_");
	});

	it("a single line shows a newline as ^J; multi-line text keeps newlines and tabs", () => {
		expect(terminalLine("one\ntwo\tx")).toBe("one^Jtwo\tx");
		expect(terminalText("one\ntwo\tx\r\x1b[2J")).toBe("one\ntwo\tx^M^[[2J");
	});

	it("leaves printable text alone (non-ASCII, emoji, U+00A0 and up)", () => {
		const s = "naïve – 日本語 😀 \u00a0 \u2028";
		expect(terminalLine(s)).toBe(s);
	});

	it("JSON keeps its value: DEL and C1 become \\u escapes, C0 is already escaped by JSON.stringify", () => {
		const v = { s: "\x1b[31m\u009b\x7f\u0085", k: ["\u009d"] };
		const text = terminalJson(JSON.stringify(v));
		expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
		expect(JSON.parse(text)).toEqual(v);
	});
});
