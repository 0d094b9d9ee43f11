// What the search index finds (electron/services/search-text.ts, search-terms.ts): every field of an entry
// that was ever searchable is still found by its own word, fields that never were stay out, and the
// build's char-code tokeniser yields exactly the words the reference rule (lower-case, split on
// SEPARATORS, words of at most 64 characters) yields, on real session files and on awkward text.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SearchIndex } from "../search-index";
import { TermTable } from "../search-terms";
import { entryText } from "../search-text";

const dirs: string[] = [];
afterEach(() => {
	for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
	const d = mkdtempSync(join(tmpdir(), "arbor-search-text-"));
	dirs.push(d);
	return d;
}

/**
 * The rule the first index used, kept here as the reference. "__proto__" was never found (assigned to the
 * plain dictionary object it set its prototype, so it was never written): the build skips it.
 */
function referenceTerms(text: string): string[] {
	const seen = new Set<string>();
	for (const t of text.toLowerCase().split(/[^a-z0-9_\u00c0-\uffff]+/)) if (t && t.length <= 64 && t !== "__proto__") seen.add(t);
	return [...seen].sort();
}

function tableTerms(texts: string[]): string[] {
	const table = new TermTable();
	for (const t of texts) table.addText(t.toLowerCase());
	table.endBlock(1, 0);
	const out: string[] = [];
	for (const ids of table.pending.values()) for (const id of ids) out.push(table.words[id]);
	return out.sort();
}

const ts = "2026-12-01T00:00:01.000Z";
/** One entry per searchable field, each holding its own word; the unsearchable fields hold other words. */
const entries: { line: Record<string, unknown>; word: string; kind: string }[] = [
	{
		word: "fldusrstring",
		kind: "user",
		line: { type: "message", id: "e1", parentId: null, timestamp: ts, message: { role: "user", content: "say fldusrstring", timestamp: 1 } },
	},
	{
		word: "fldusrblock",
		kind: "user",
		line: {
			type: "message",
			id: "e2",
			parentId: "e1",
			timestamp: ts,
			message: {
				role: "user",
				content: [
					{ type: "text", text: "fldusrblock here" },
					{ type: "image", data: "fldimagedata", mimeType: "image/png" },
				],
				timestamp: 1,
			},
		},
	},
	{
		word: "fldasstext",
		kind: "assistant",
		line: {
			type: "message",
			id: "e3",
			parentId: "e2",
			timestamp: ts,
			message: {
				role: "assistant",
				content: [
					{ type: "thinking", thinking: "fldthinking deep", thinkingSignature: "fldsignature" },
					{ type: "text", text: "fldasstext out" },
					{ type: "toolCall", id: "fldcallid", name: "fldtoolname", arguments: { path: "src/fldargvalue.ts", fldargkey: [1, { deep: "fldargnested" }] } },
				],
				api: "x",
				provider: "fldprovider",
				model: "fldmodel",
				usage: { input: 1, output: 2, fldusage: 3 },
				stopReason: "toolUse",
				timestamp: 1,
			},
		},
	},
	{
		word: "fldtoolresult",
		kind: "toolResult",
		line: {
			type: "message",
			id: "e4",
			parentId: "e3",
			timestamp: ts,
			message: {
				role: "toolResult",
				toolCallId: "fldcallid",
				toolName: "fldtoolresultname",
				content: [{ type: "text", text: "fldtoolresult lines" }],
				details: { diff: "fldresultdetails" },
				isError: false,
				timestamp: 1,
			},
		},
	},
	{
		word: "fldbashcmd",
		kind: "bashExecution",
		line: {
			type: "message",
			id: "e5",
			parentId: "e4",
			timestamp: ts,
			message: { role: "bashExecution", command: "fldbashcmd -x", output: "fldbashout", exitCode: 0, cancelled: false, truncated: false, timestamp: 1 },
		},
	},
	{
		word: "fldmsgsummary",
		kind: "branchSummary",
		line: {
			type: "message",
			id: "e6",
			parentId: "e5",
			timestamp: ts,
			message: { role: "branchSummary", summary: "fldmsgsummary text", fromId: "e1", timestamp: 1 },
		},
	},
	{
		word: "flderrormsg",
		kind: "assistant",
		line: {
			type: "message",
			id: "e7",
			parentId: "e6",
			timestamp: ts,
			message: {
				role: "assistant",
				content: [],
				errorMessage: "flderrormsg failed",
				api: "x",
				provider: "p",
				model: "m",
				usage: {},
				stopReason: "error",
				timestamp: 1,
			},
		},
	},
	{
		word: "fldcustomstr",
		kind: "custom_message",
		line: { type: "custom_message", id: "e8", parentId: "e7", timestamp: ts, customType: "fldcustomtype", content: "fldcustomstr body", display: true },
	},
	{
		word: "fldcustomblk",
		kind: "custom_message",
		line: {
			type: "custom_message",
			id: "e9",
			parentId: "e8",
			timestamp: ts,
			customType: "x",
			content: [{ type: "text", text: "fldcustomblk body" }],
			display: false,
			details: { fldcustomdetails: 1 },
		},
	},
	{
		word: "fldcompaction",
		kind: "compaction",
		line: { type: "compaction", id: "e10", parentId: "e9", timestamp: ts, summary: "fldcompaction summary", firstKeptEntryId: "e1", tokensBefore: 5 },
	},
	{
		word: "fldbranchsum",
		kind: "branch_summary",
		line: { type: "branch_summary", id: "e11", parentId: "e10", timestamp: ts, fromId: "e1", summary: "fldbranchsum summary" },
	},
	{ word: "fldsessname", kind: "session_info", line: { type: "session_info", id: "e12", parentId: "e11", timestamp: ts, name: "fldsessname title" } },
	{ word: "fldlabel", kind: "label", line: { type: "label", id: "e13", parentId: "e12", timestamp: ts, targetId: "e1", label: "fldlabel mark" } },
	{
		word: "fldcustomentry",
		kind: "custom",
		line: { type: "custom", id: "e14", parentId: "e13", timestamp: ts, customType: "fldcustomentry", data: { fldcustomdata: 1 } },
	},
];
/** Words of fields also found (in the entry named). */
const alsoFound: [string, string][] = [
	["fldthinking", "e3"],
	["fldtoolname", "e3"],
	["fldargvalue", "e3"],
	["fldargkey", "e3"],
	["fldargnested", "e3"],
	["fldbashout", "e5"],
];
/** Words of fields that were never searchable. */
const neverFound = [
	"fldimagedata",
	"fldsignature",
	"fldcallid",
	"fldprovider",
	"fldmodel",
	"fldusage",
	"fldtoolresultname",
	"fldresultdetails",
	"fldcustomtype",
	"fldcustomdetails",
	"fldcustomentry",
	"fldcustomdata",
];

describe("searchable fields", () => {
	it("finds every field the index has always covered by its own word, and none of the others", () => {
		const root = tmp();
		const file = join(root, "fields.jsonl");
		const header = { type: "session", version: 3, id: "sfields", timestamp: ts, cwd: "/w" };
		writeFileSync(file, `${[header, ...entries.map((e) => e.line)].map((l) => JSON.stringify(l)).join("\n")}\n`);
		const index = new SearchIndex({ indexDir: tmp() });
		index.update([file]);
		for (const e of entries.filter((x) => x.kind !== "custom")) {
			const hit = index.search(e.word).sessions;
			expect(
				hit.map((s) => s.path),
				e.word,
			).toEqual([file]);
			expect(
				hit[0].matches.map((m) => [m.entryId, m.kind]),
				e.word,
			).toEqual([[e.line.id, e.kind]]);
		}
		for (const [word, id] of alsoFound)
			expect(
				index.search(word).sessions[0]?.matches.map((m) => m.entryId),
				word,
			).toEqual([id]);
		for (const word of neverFound) expect(index.search(word).sessions, word).toEqual([]);
		// The header's and the session name's text give the title, not hits of their own.
		expect(index.search("fldsessname").sessions[0].title).toBe("fldsessname title");
	});
});

describe("the build's tokeniser", () => {
	it("yields the reference words for every entry of the real fixture sessions", () => {
		const fixtures = join(__dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions");
		let checked = 0;
		for (const name of readdirSync(fixtures).filter((n) => n.endsWith(".jsonl"))) {
			const texts: string[] = [];
			for (const line of readFileSync(join(fixtures, name), "utf8").split("\n")) {
				let o: unknown;
				try {
					o = JSON.parse(line);
				} catch {
					continue;
				}
				if (typeof o !== "object" || o === null) continue;
				const t = entryText(o as Record<string, unknown>);
				if (!t) continue;
				texts.push(t.text);
				expect(tableTerms([t.text])).toEqual(referenceTerms(t.text));
				checked++;
			}
			expect(tableTerms(texts), name).toEqual(referenceTerms(texts.join("\n")));
		}
		expect(checked).toBeGreaterThan(100);
	});

	it("yields the reference words on non-ASCII, case-changing, long and separator-heavy text", () => {
		const samples = [
			"Ünïcödé ÜBER naïve résumé café",
			"İstanbul ΣΟΦΟΣ σοφός ΌΣΟΣ",
			"emoji 😀party 👩‍👩‍👧 a😀b lone \ud800 surrogate \udfff",
			`${"x".repeat(64)} ${"y".repeat(65)} ${"é".repeat(70)}`,
			'a_b c-d e.f g/h i\\j k"l m\tn\no\r\np__q 123abc ABC123 ×÷ ¿¡ \u00bf\u00c0\u00ff',
			"ǅungla ß ẞ ﬁle Ꭰ ꭰ ΐ",
			"",
			"!!! ??? ...",
			"repeat repeat REPEAT Repeat",
			"at Object.__proto__ (x.js:1) constructor toString hasOwnProperty",
		];
		for (const s of samples) expect(tableTerms([s]), s).toEqual(referenceTerms(s));
		expect(tableTerms(samples)).toEqual(referenceTerms(samples.join("\n")));
		// Enough different words to grow and rehash the table, then each still found once.
		const many = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)} ${i % 7 ? "common" : "rare"}`);
		expect(tableTerms(many)).toEqual(referenceTerms(many.join(" ")));
	});

	it("keeps each word once per block and once per posting", () => {
		const table = new TermTable();
		table.addText("alpha beta alpha");
		table.addText("beta gamma");
		table.endBlock(7, 0);
		table.addText("alpha");
		table.endBlock(7, 1);
		const byWord = new Map<string, number[]>();
		for (const ids of table.pending.values()) for (const id of ids) byWord.set(table.words[id], [...table.postings(id)]);
		expect(Object.fromEntries(byWord)).toEqual({ alpha: [7, 0, 7, 1], beta: [7, 0], gamma: [7, 0] });
	});
});
