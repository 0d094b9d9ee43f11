import { describe, expect, it } from "vitest";
import { fitWords } from "../cards";

// A monospace measure: every character is 10 px wide.
const mono = (s: string) => s.length * 10;

describe("fitWords", () => {
	it("keeps text that fits", () => {
		expect(fitWords("short text", 2, 100, mono)).toBe("short text");
	});
	it("ends the last line on a whole word with an ellipsis", () => {
		// 10 chars a line: "Fixed. the" / "parser now" / "returns…" would be 3 lines; 2 allowed.
		const r = fitWords("Fixed. the parser now returns null", 2, 100, mono);
		expect(r).toBe("Fixed. the\nparser…");
		for (const l of r.split("\n")) expect(mono(l)).toBeLessThanOrEqual(100);
	});
	it("never cuts a word that fits on a line", () => {
		const r = fitWords("alpha beta gamma delta epsilon zeta", 2, 120, mono);
		const words = new Set("alpha beta gamma delta epsilon zeta".split(" "));
		for (const w of r.replace("…", "").split(/\s+/)) expect(words.has(w)).toBe(true);
		expect(r.endsWith("…")).toBe(true);
	});
	it("starts a new line at a newline and counts it", () => {
		expect(fitWords("one\ntwo\nthree", 2, 100, mono)).toBe("one\ntwo…");
		expect(fitWords("one\ntwo", 2, 100, mono)).toBe("one\ntwo");
	});
	it("breaks a word wider than a line by characters", () => {
		const r = fitWords("abcdefghijklmnopqrstuvwxyz", 2, 100, mono);
		expect(r.split("\n")[0]).toBe("abcdefghij");
		expect(r.endsWith("…")).toBe(true);
		for (const l of r.split("\n")) expect(mono(l)).toBeLessThanOrEqual(100);
	});
});
