// One home for the text of message content (shared/content-text.ts). Each caller used to carry its own copy
// with its own joiner and its own idea of a non-string `text`; the copies are kept here verbatim as oracles
// and every caller's options must give exactly their output on a corpus of odd and hostile contents.
import { describe, expect, it } from "vitest";
import { contentText } from "../content-text";
import { asRecord, errorText, isObjectLike, isRecord, safeString } from "../guards";

type Loose = Record<string, unknown>;
const rec = (v: unknown): Loose | undefined => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Loose) : undefined);
const str = (v: unknown) => (typeof v === "string" ? v : "");

// ---- the former copies (oracles), as they were before the one home ----
const oracles = {
	/** shared/preview.ts extractContent (pi's tree row text, 200 characters). */
	piRow(content: unknown): string {
		if (typeof content === "string") return content.slice(0, 200);
		if (Array.isArray(content)) {
			let result = "";
			for (const c of content) {
				const b = rec(c);
				if (b && b.type === "text") {
					result += safeString(b.text);
					if (result.length >= 200) return result.slice(0, 200);
				}
			}
			return result;
		}
		return "";
	},
	/** shared/preview.ts allText and shared/card-facts.ts contentText. */
	allText(content: unknown): string {
		if (typeof content === "string") return content;
		if (!Array.isArray(content)) return "";
		return content
			.map((c) => rec(c))
			.filter((b): b is Loose => b !== undefined && b.type === "text")
			.map((b) => safeString(b.text))
			.join("");
	},
	/** electron/services/summarizer.ts textOf and shared/compare.ts contentText. */
	lines(content: unknown): string {
		const blocks =
			typeof content === "string" ? [{ type: "text", text: content } as Loose] : Array.isArray(content) ? content.filter((b) => rec(b) !== undefined) : [];
		return blocks
			.filter((b) => b.type === "text" && typeof b.text === "string")
			.map((b) => b.text as string)
			.join("\n");
	},
	/** renderer/panels/entry-text.ts textOfBlocks and EntryFacts editedText. */
	paragraphs(content: unknown): string {
		const blocks: Loose[] =
			typeof content === "string"
				? [{ type: "text", text: content }]
				: Array.isArray(content)
					? content.filter((b) => rec(b) && typeof (b as Loose).type === "string")
					: [];
		return blocks
			.map((b) => (b.type === "text" ? str(b.text) : ""))
			.filter((t) => t !== "")
			.join("\n\n");
	},
	/** electron/session/library.ts userText (first user message of the session list). */
	firstMessage(content: unknown): string {
		if (typeof content === "string") return content;
		if (!Array.isArray(content)) return "";
		let out = "";
		for (const b of content) {
			if (typeof b === "object" && b !== null && (b as Loose).type === "text" && typeof (b as Loose).text === "string") {
				out += `${out ? " " : ""}${(b as Loose).text as string}`;
				if (out.length > 300 * 4) break;
			}
		}
		return out;
	},
	/** electron/session/classify.ts hasTextContent (pi's "has text" test). */
	hasText(content: unknown): boolean {
		if (typeof content === "string") return content.trim().length > 0;
		if (Array.isArray(content)) {
			for (const c of content)
				if (rec(c) && (c as Loose).type === "text" && typeof (c as Loose).text === "string" && ((c as Loose).text as string).trim().length > 0) return true;
		}
		return false;
	},
	/** shared/system-message.ts systemContentText (String() on a hostile value overflowed; see below). */
	system(content: unknown): string {
		if (typeof content === "string") return content;
		if (!Array.isArray(content)) return "";
		return content
			.filter((b) => rec(b)?.type === "text")
			.map((b) => String((b as Loose).text))
			.join("\n");
	},
};

// ---- what each caller now passes ----
const callers = {
	piRow: (c: unknown) => contentText(c, "", { nonString: "coerce", stopAfter: 200 }).slice(0, 200),
	allText: (c: unknown) => contentText(c, "", { nonString: "coerce" }),
	lines: (c: unknown) => contentText(c, "\n"),
	paragraphs: (c: unknown) => contentText(c, "\n\n", { dropEmpty: true }),
	firstMessage: (c: unknown) => contentText(c, " ", { joinAfterText: true, stopAfter: 300 * 4 }),
	hasText: (c: unknown) => contentText(c, "").trim().length > 0,
	system: (c: unknown) => contentText(c, "\n", { nonString: "coerce" }),
};

const t = (text: unknown): Loose => ({ type: "text", text });
const long = (ch: string, n: number) => ch.repeat(n);
const corpus: unknown[] = [
	"",
	"plain",
	"  ",
	long("s", 250),
	undefined,
	null,
	42,
	{ type: "text", text: "not an array" },
	[],
	[t("a")],
	[t("a"), t("b")],
	[t(""), t("a"), t(""), t("b")],
	[t(""), t("")],
	[t("  "), t("\t")],
	[t("a"), { type: "image", data: "x" }, t("b")],
	[{ type: "thinking", thinking: "hm" }, { type: "toolCall", name: "read", arguments: {} }, t("x")],
	[null, 1, "loose string", ["array"], t("kept")],
	[t(5), t(undefined), { type: "text" }, t(null), t({ o: 1 }), t(["x", "y"]), t(true)],
	[t(long("a", 150)), t(long("b", 150)), t("c")],
	[t(long("a", 200)), t("after exactly 200")],
	[t(long("a", 199)), t(""), t("zz")],
	[t(long("w", 700)), t(long("x", 700)), t("tail")],
	[t(long("w", 1200)), t("one more")],
	[...Array.from({ length: 1000 }, () => t("")), t("late")],
	[{ type: "TEXT", text: "case" }, { type: "text ", text: "space" }, t("real")],
];

describe("contentText: one function, the joiner a parameter, each caller's exact output", () => {
	for (const name of Object.keys(callers) as (keyof typeof callers)[]) {
		it(`${name}: same output as the copy it replaced, on every sample`, () => {
			corpus.forEach((c, i) => {
				expect(callers[name](c), `sample ${i}`).toEqual(oracles[name](c));
			});
		});
	}

	it("a hostile 20,000-deep array in a text slot does not overflow the stack", () => {
		let deep: unknown = [];
		for (let i = 0; i < 20_000; i++) deep = [deep];
		expect(() => String(deep)).toThrow();
		const content = [t("before"), t(deep), t("after")];
		expect(contentText(content, "|", { nonString: "coerce" })).toBe("before|[unreadable value]|after");
		expect(contentText(content, "|")).toBe("before|after");
		// system-message's copy called String() and threw here; the one home answers.
		expect(callers.system(content)).toBe("before\n[unreadable value]\nafter");
		// content itself nested deep is not text, and reading it does not recurse
		expect(contentText(deep, "")).toBe("");
	});

	it("reads only top-level blocks: nested content arrays are not text", () => {
		expect(contentText([[t("inner")], t("outer")], " ")).toBe("outer");
		expect(contentText([{ type: "text", text: "a", content: [t("b")] }], " ")).toBe("a");
	});
});

describe("guards: record tests, safe String(), error text", () => {
	it("isRecord / asRecord accept plain objects only; isObjectLike also arrays", () => {
		for (const v of [{}, { a: 1 }, Object.create(null)]) {
			expect(isRecord(v)).toBe(true);
			expect(asRecord(v)).toBe(v);
		}
		for (const v of [null, undefined, [], [1], "s", 1, true]) {
			expect(isRecord(v)).toBe(false);
			expect(asRecord(v)).toBeUndefined();
		}
		expect(isObjectLike([])).toBe(true);
		expect(isObjectLike({})).toBe(true);
		expect(isObjectLike(null)).toBe(false);
		expect(isObjectLike("x")).toBe(false);
	});

	it("errorText: an Error's message, anything else as String() prints it, never throwing", () => {
		expect(errorText(new Error("boom"))).toBe("boom");
		expect(errorText(new TypeError("bad type"))).toBe("bad type");
		expect(errorText("plain")).toBe("plain");
		expect(errorText(42)).toBe("42");
		expect(errorText(undefined)).toBe("undefined");
		expect(errorText({ code: "EX" })).toBe("[object Object]");
		expect(errorText(Object.create(null))).toBe("[unreadable value]");
	});
});
