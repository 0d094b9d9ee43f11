// Search results equal the plain rule (every entry's text, label included, checked with shared/preview.ts)
// whichever path answers: the per-entry pi-scope strings, the raw-byte prefilter of the full scope, the
// cached decoded texts, and the narrowing of a query typed one character further.
import { appendFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SearchScope } from "../../../shared/api";
import type { SessionEntry } from "../../../shared/entries";
import { fullText, matchRank, queryTokens, rankedOrder, searchableText } from "../../../shared/preview";
import { SessionManager } from "../manager";
import { cleanupTempDirs, tempDir } from "./helpers/files";
import { generatedSession } from "./helpers/gen";
import { matchesQuery } from "./helpers/match";
import { countTurns } from "./helpers/turns";

afterAll(cleanupTempDirs);

/** The rule itself, entry by entry, as the search was defined before any index existed; best rank first. */
function reference(sm: SessionManager, query: string, scope: SearchScope): number[] {
	const tokens = queryTokens(query);
	const entries = sm.getEntries();
	const out: number[] = [];
	const ranks = new Map<number, number>();
	entries.forEach((e: SessionEntry, i) => {
		const label = sm.getLabel(e.id as string);
		const text = scope === "full" ? fullText(e, label) : searchableText(e, label);
		if (!matchesQuery(text, tokens)) return;
		out.push(i);
		ranks.set(i, tokens.length === 0 ? 0 : matchRank(tokens, text.toLowerCase()));
	});
	return rankedOrder(out, (i) => ranks.get(i)!);
}

/** Lines whose decoded text differs from their raw bytes: escapes, characters whose lower case is ASCII. */
function trickyLines(parentId: string): string[] {
	const lines: string[] = [];
	const add = (id: string, text: string, raw?: string): void => {
		const obj = { type: "message", id, parentId, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: text, timestamp: 1 } };
		let line = JSON.stringify(obj);
		if (raw !== undefined) line = line.replace(JSON.stringify(text), raw);
		lines.push(line);
		parentId = id;
	};
	add("t0000001", "Zebra\u00e9 escaped", '"Zebra\\u00e9 \\u0065scaped"');
	add("t0000002", "path src/zeta.ts here", '"path src\\/zeta.ts here"');
	add("t0000003", "\u0130stanbul \u212Aelvin");
	add("t0000004", 'quote "zq" and back\\slash');
	add("t0000005", "M\u00dcNCHEN \u00dcber Stra\u00dfe");
	add("t0000006", "tab\there newline\nthere");
	return lines;
}

const QUERIES = [
	"the",
	"read",
	"READ src",
	"ts",
	"zebra",
	"zebraé",
	"escaped",
	"src/zeta",
	"zeta.ts",
	"istanbul",
	"i",
	"kelvin",
	"k",
	'"zq"',
	"back\\slash",
	"münchen",
	"über",
	"straße",
	"ü",
	"compaction",
	"branch summary",
	"model",
	"thinking",
	"label",
	"title",
	"custom",
	"user",
	"assistant",
	"toolresult",
	"tab",
	"nope-nothing",
	"e",
	"error",
];

describe("search index", () => {
	const src = generatedSession({ n: 800, seed: "search", branchSummary: 0.5, compactionEvery: 200, customMessages: 0.3 });

	function open(lazy: boolean): SessionManager {
		const dir = tempDir("arbor-search");
		const file = join(dir, "s.jsonl");
		const base = readFileSync(src, "utf8");
		const lastId = (JSON.parse(base.trimEnd().split("\n").pop() as string) as { id: string }).id;
		writeFileSync(file, `${base}${trickyLines(lastId).join("\n")}\n`);
		return SessionManager.open(file, { lazy });
	}

	for (const lazy of [true, false]) {
		it(`${lazy ? "large-file" : "small-file"} path: every query equals the entry-by-entry rule, in both scopes`, () => {
			const sm = open(lazy);
			sm.appendLabelChange(sm.getEntries()[10].id as string, "Zebra label");
			for (const scope of ["pi", "full"] as const) {
				for (const q of QUERIES) expect(sm.search(q, scope), `${scope} ${q}`).toEqual(reference(sm, q, scope));
				// Asked again: answered from what the first query kept.
				for (const q of QUERIES) expect(sm.search(q, scope), `${scope} again ${q}`).toEqual(reference(sm, q, scope));
			}
			sm.close();
		});
	}

	it("typing a query further, relabelling and appending between queries keep results exact", () => {
		const sm = open(true);
		const typed = ["r", "re", "rea", "read", "read s", "read sr", "read src"];
		for (const scope of ["pi", "full"] as const) {
			for (const q of typed) expect(sm.search(q, scope), `${scope} ${q}`).toEqual(reference(sm, q, scope));
			const target = sm.getEntries()[5].id as string;
			sm.appendLabelChange(target, "read src label");
			expect(sm.search("read src", scope)).toEqual(reference(sm, "read src", scope));
			expect(sm.search("read src lab", scope)).toContain(sm.indexOf(target));
			sm.appendLabelChange(target, undefined);
			expect(sm.search("read src labe", scope)).toEqual(reference(sm, "read src labe", scope));
			expect(sm.search("read src labe", scope)).not.toContain(sm.indexOf(target));
			sm.appendMessage({ role: "user", content: "read src labelled later", timestamp: 2 });
			const hits = sm.search("read src label", scope);
			expect(hits).toEqual(reference(sm, "read src label", scope));
			expect(hits).toContain(sm.getEntryCount() - 1);
		}
		sm.close();
	});

	it("ranks matches: the exact phrase first, then every word whole, then words found only inside others (pi's set of matches)", () => {
		const sm = open(false);
		const file = sm.getSessionFile() as string;
		let parent = sm.getLeafId();
		const texts = ["the cache of the parser, to fix later", "prefix: the parsers", "please Fix The\nParser now", "fix it: the parser"];
		for (const [k, content] of texts.entries()) {
			const id = `r000000${k}`;
			appendFileSync(
				file,
				`${JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-01-02T00:00:00.000Z", message: { role: "user", content, timestamp: 3 } })}\n`,
			);
			parent = id;
		}
		sm.catchUp();
		const [words, scattered, phrase, words2] = texts.map((_, k) => sm.indexOf(`r000000${k}`));
		for (const scope of ["pi", "full"] as const) {
			const hits = sm.search("fix the parser", scope);
			// Every entry holding the three words is still a match (pi's rule); only the order changes.
			expect(hits.slice(0, 3), scope).toEqual([phrase, words, words2]);
			expect(hits.indexOf(scattered), scope).toBeGreaterThan(2);
		}
		sm.close();
	});

	it("entries another writer appended are searched after catch-up", () => {
		const sm = open(true);
		expect(sm.search("quokka", "pi")).toEqual([]);
		expect(sm.search("quokka", "full")).toEqual([]);
		const file = sm.getSessionFile() as string;
		const leaf = sm.getLeafId();
		appendFileSync(
			file,
			`${JSON.stringify({ type: "message", id: "q0000001", parentId: leaf, timestamp: "2026-01-02T00:00:00.000Z", message: { role: "user", content: "a Quokka appears", timestamp: 3 } })}\n`,
		);
		sm.catchUp();
		const i = sm.indexOf("q0000001");
		expect(sm.search("quokka", "pi")).toEqual([i]);
		expect(sm.search("quokka", "full")).toEqual([i]);
		sm.close();
	});

	it("the cooperative search answers exactly like search(), hands the thread back between slices, and can be stopped", async () => {
		const sm = open(true);
		const turns = countTurns();
		for (const scope of ["pi", "full"] as const) {
			for (const q of ["read", "read src", "error", "zebra", "nope-nothing"]) {
				const before = turns.count;
				// sliceMs 0: a turn after every step, so even this small file is searched in several slices.
				expect(await sm.searchCooperative(q, scope, { sliceMs: 0 }), `${scope} ${q}`).toEqual(reference(sm, q, scope));
				if (q === "read") expect(turns.count - before, `${scope}: other tasks ran during the first query`).toBeGreaterThan(1);
			}
		}
		turns.stop();

		// Stopped at its first turn: undefined, and the next query (sync or not) is still exact.
		const fresh = open(true);
		expect(await fresh.searchCooperative("read", "pi", { sliceMs: 0, stop: () => true })).toBeUndefined();
		expect(await fresh.searchCooperative("read", "full", { sliceMs: 0, stop: () => true })).toBeUndefined();
		expect(fresh.search("read", "pi")).toEqual(reference(fresh, "read", "pi"));
		expect(await fresh.searchCooperative("read src", "full", { sliceMs: 0 })).toEqual(reference(fresh, "read src", "full"));
		sm.close();
		fresh.close();
	});

	it("a cooperative search overtaken by another one, or by a reload of the file, still answers exactly", async () => {
		const sm = open(true);
		const first = sm.searchCooperative("read", "pi", { sliceMs: 0 });
		const second = sm.searchCooperative("error", "pi", { sliceMs: 0 });
		const [a, b] = await Promise.all([first, second]);
		expect(a).toEqual(reference(sm, "read", "pi"));
		expect(b).toEqual(reference(sm, "error", "pi"));

		// The file is replaced by a different session while a search runs: it restarts on the new index.
		const file = sm.getSessionFile() as string;
		const other = readFileSync(generatedSession({ n: 300, seed: "search-other" }), "utf8");
		const running = sm.searchCooperative("read", "full", { sliceMs: 0 });
		writeFileSync(`${file}.new`, other);
		renameSync(`${file}.new`, file);
		sm.catchUp();
		expect(await running).toEqual(reference(sm, "read", "full"));
		expect(sm.getEntryCount()).toBe(other.trimEnd().split("\n").length - 1);
		sm.close();
	});
});
