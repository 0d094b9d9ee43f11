// Bidi controls and invisible characters made visible (shared/visible-text.ts, issue 39 item 4): every code point
// of the set, the ones just outside each range (untouched), the sequences kept (emoji ZWJ, flag tags), and the
// terminal forms (shared/terminal-text.ts).
import { describe, expect, it } from "vitest";
import { terminalJson, terminalLine, terminalText } from "../terminal-text";
import { hiddenCharName, isHiddenChar, visibleParts, visibleText } from "../visible-text";

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, k) => from + k);
const hex = (c: number): string => c.toString(16).toUpperCase().padStart(4, "0");

/** Every code point the brief lists, plus the default-ignorables Arbor adds (see the module's head). */
const HIDDEN = [
	0x00ad,
	0x034f,
	0x061c,
	0x115f,
	0x1160,
	0x17b4,
	0x17b5,
	0x180e,
	...range(0x200b, 0x200f),
	...range(0x202a, 0x202e),
	...range(0x2060, 0x206f),
	0x3164,
	0xfeff,
	0xffa0,
	...range(0xfff9, 0xfffb),
	...range(0x1d173, 0x1d17a),
	...range(0xe0000, 0xe007f),
];
/** Just outside each range, and the visible spaces and line breaks: untouched. */
const KEPT = [
	0x00ac, 0x00ae, 0x00a0, 0x034e, 0x0350, 0x061b, 0x061d, 0x115e, 0x1161, 0x17b3, 0x17b6, 0x180d, 0x180f, 0x200a, 0x2010, 0x2028, 0x2029, 0x2029, 0x202f,
	0x205f, 0x2070, 0x3163, 0x3165, 0xfefe, 0xff00, 0xff9f, 0xffa1, 0xfff8, 0xfffc, 0x1d172, 0x1d17b, 0xdffff, 0xe0080, 0xfe0f, 0xfe00, 0xe0100,
];

describe("visibleText: every hidden code point becomes a placeholder, its neighbours stay", () => {
	it("each hidden code point, alone and between letters", () => {
		for (const c of HIDDEN) {
			const ch = String.fromCodePoint(c);
			expect(isHiddenChar(c), hex(c)).toBe(true);
			expect(visibleText(`a${ch}b`), hex(c)).toBe(`a⟨U+${hex(c)}⟩b`);
			expect(visibleParts(`a${ch}b`), hex(c)).toEqual(["a", { code: c }, "b"]);
			expect(terminalLine(`a${ch}b`), hex(c)).toBe(`a<U+${hex(c)}>b`);
		}
	});

	it("the code points just outside each range, visible spaces, line separators and variation selectors are untouched", () => {
		for (const c of KEPT) {
			const s = `a${String.fromCodePoint(c)}b`;
			expect(isHiddenChar(c), hex(c)).toBe(false);
			expect(visibleText(s), hex(c)).toBe(s);
			expect(visibleParts(s), hex(c)).toEqual([s]);
		}
	});

	it('"\\u202Eevil" no longer reads as "live"; a run of controls shows each one', () => {
		expect(visibleText("\u202Eevil")).toBe("⟨U+202E⟩evil");
		expect(visibleText("x\u2066\u202Bab\u202C\u2069y")).toBe("x⟨U+2066⟩⟨U+202B⟩ab⟨U+202C⟩⟨U+2069⟩y");
		expect(visibleParts("\u202E\u202Eevil")).toEqual([{ code: 0x202e }, { code: 0x202e }, "evil"]);
	});

	it("tag characters hiding a sentence are each shown, with the letter they hide in the name", () => {
		const hidden = Array.from("hi", (ch) => String.fromCodePoint(0xe0000 + ch.charCodeAt(0))).join("");
		expect(visibleText(`ok${hidden}`)).toBe("ok⟨U+E0068⟩⟨U+E0069⟩");
		expect(hiddenCharName(0xe0068)).toBe('U+E0068 tag character (hidden "h")');
		expect(hiddenCharName(0x202e)).toBe("U+202E right-to-left override");
		expect(hiddenCharName(0x206b)).toBe("U+206B invisible format character");
	});

	it("an emoji ZWJ sequence and a flag's tag sequence are kept; a ZWJ or tags elsewhere are shown", () => {
		for (const s of ["👩‍💻", "👨‍👩‍👧", "🏳️‍🌈", "👍🏽‍❤️", "🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}"]) expect(visibleText(s), s).toBe(s);
		expect(visibleText("a\u200Db")).toBe("a⟨U+200D⟩b");
		expect(visibleText("👩\u200D")).toBe("👩⟨U+200D⟩");
		// More than 7 tags after the black flag is not a flag: a hidden text.
		const long = `🏴${"\u{E0061}".repeat(8)}\u{E007F}`;
		expect(visibleText(long)).toBe(`🏴${"⟨U+E0061⟩".repeat(8)}⟨U+E007F⟩`);
		// Upper-case tag letters are no flag either.
		expect(visibleText("🏴\u{E0047}\u{E0042}\u{E007F}")).toBe("🏴⟨U+E0047⟩⟨U+E0042⟩⟨U+E007F⟩");
	});

	it("plain text comes back as the same string", () => {
		const s = "naïve – 日本語 😀 \u00a0 עברית العربية";
		expect(visibleText(s)).toBe(s);
		expect(visibleParts(s)).toEqual([s]);
		expect(visibleParts("")).toEqual([""]);
	});
});

describe("terminal forms", () => {
	it("multi-line text keeps newlines and tabs, shows controls and hidden characters", () => {
		expect(terminalText("a\u202Eb\nc\td\u200B\x1b")).toBe("a<U+202E>b\nc\td<U+200B>^[");
	});

	it("JSON escapes every hidden character (tags as surrogate pairs) and keeps its value", () => {
		const v = { s: "\u202Eevil\u200B\u{E0041}\uFEFF", ok: "👩‍💻" };
		const text = terminalJson(JSON.stringify(v));
		expect(text).toContain("\\u202e");
		expect(text).toContain("\\udb40\\udc41");
		for (const c of HIDDEN) expect(terminalJson(JSON.stringify(String.fromCodePoint(c)))).not.toContain(String.fromCodePoint(c));
		expect(JSON.parse(text)).toEqual(v);
	});
});
