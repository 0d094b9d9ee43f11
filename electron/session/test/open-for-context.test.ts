// SessionManager.openForContext (what `arbor context` opens with) indexes large files by structure alone
// (scan-structure.ts). It must give exactly what open() gives: the same warnings in the same order, the same
// leaf and ids, and byte-identical contexts at every entry — on every fixture, on generated sessions, and on
// files damaged in the ways real files are (torn and glued lines, junk, duplicates, orphans, loops, bad
// UTF-8, CRs, NULs, escapes). The structure scan is forced on these small files with `lazy: true` and
// compared with open()'s large-file (lazy) load, which is what open() does on files that size; without
// the option both read small files the ordinary way.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { kindOf } from "../classify";
import { SessionManager } from "../index";
import { StructureScanner } from "../scan-structure";
import { FIXTURES, HEADER, fixtureNames, generated, msg, tempDir, writeSession } from "./helpers";

/** The context as JSON, or the error building it gives (a line the lazy index took that JSON.parse refuses). */
function context(sm: Pick<SessionManager, "buildSessionContext">, leaf: string | null): string {
	try {
		return JSON.stringify(sm.buildSessionContext(leaf));
	} catch (err) {
		return `error: ${(err as Error).message}`;
	}
}

function sameAsOpen(file: string): number {
	check(file, undefined);
	return check(file, true);
}

function check(file: string, lazy: boolean | undefined): number {
	const full = SessionManager.open(file, { lazy });
	const fast = SessionManager.openForContext(file, { lazy });
	expect(fast.getWarnings()).toEqual(full.getWarnings());
	expect(fast.getWarningCount()).toBe(full.getWarningCount());
	expect(fast.getLeafId()).toBe(full.getLeafId());
	expect(context(fast, fast.getLeafId())).toBe(context(full, full.getLeafId()));
	// From the index, not getEntries(): that would parse (and read ahead through) every entry of `full` first.
	const ids = Array.from({ length: full.getEntryCount() }, (_, i) => full.idAt(i));
	for (const id of ids) {
		expect(fast.indexOf(id)).toBe(full.indexOf(id));
		expect(context(fast, id), id).toBe(context(full, id));
	}
	expect(fast.indexOf("no-such-entry")).toBe(-1);
	return ids.length;
}

describe("openForContext gives what open() gives", () => {
	it("on every fixture (except v1, whose migration draws fresh random ids on every load)", () => {
		for (const name of fixtureNames().filter((n) => !n.includes(".v1."))) sameAsOpen(join(FIXTURES, name));
	});

	it("on generated sessions: both size profiles, branches, compactions, custom messages", () => {
		expect(sameAsOpen(generated(1500, "ofc1", ["--custom-messages", "0.5", "--branch-every", "6"]))).toBe(1500);
		expect(sameAsOpen(generated(1200, "ofc2", ["--profile", "fixture", "--compaction-every", "40"]))).toBe(1200);
		expect(sameAsOpen(generated(600, "ofc3", ["--branch-every", "0"]))).toBe(600);
	});

	it("on damaged files: torn, glued and junk lines, duplicates, orphans, loops, bad bytes", () => {
		const good = [
			msg("a1", null, "user", "first"),
			msg("a2", "a1", "assistant", "reply with \"quotes\" and \\ backslashes \\\\\" and \u00fc and \ud83d\ude00"),
			{ type: "model_change", id: "a3", parentId: "a2", timestamp: "2026-01-01T00:00:09.000Z", provider: "p2", modelId: "m2" },
			{ type: "thinking_level_change", id: "a4", parentId: "a3", timestamp: "2026-01-01T00:00:10.000Z", thinkingLevel: "high" },
			msg("a5", "a4", "user", "next"),
		];
		const lines = good.map((r) => JSON.stringify(r));
		const cases: string[][] = [
			// glued records, torn line, junk, a JSON array, an object without type
			[lines[0], lines[1] + lines[2], lines[3].slice(0, 30), "not json", "[1,2]", "{\"id\":\"x\"}", lines[4]],
			// duplicate ids (the later wins), an orphan, a self-parent, a loop
			[...lines, JSON.stringify(msg("a2", "a1", "assistant", "again")), JSON.stringify(msg("o1", "missing", "user", "orphan")),
				JSON.stringify(msg("s1", "s1", "user", "self")), JSON.stringify(msg("l1", "l2", "user", "loop")), JSON.stringify(msg("l2", "l1", "user", "loop"))],
			// bad UTF-8, CR line ends, NUL runs, a raw tab between tokens, a raw control byte in a string
			[lines[0], `${lines[1].slice(0, 60)}\xff\xfe${lines[1].slice(60)}`, `${lines[2]}\r`, "\0\0\0\0", lines[3].replace("{", "{\t"),
				lines[4].replace("next", "ne\u0001xt"), JSON.stringify(msg("a6", "a5", "user", "z"))],
			// raw control bytes and bad escapes deep inside non-ASCII text (skimLine refuses those lines, JSON.parse too)
			[lines[0], JSON.stringify(msg("c1", "a1", "user", "ü".repeat(30) + " raw \u0014 byte")).replace("\\u0014", "\u0014"),
				JSON.stringify(msg("c2", "c1", "user", "ü".repeat(30) + " bad \\q escape")).replace("\\\\q", "\\q"),
				JSON.stringify(msg("c3", "c2", "assistant", "ü".repeat(30) + " tab\there")).replace("\\t", "\t"), JSON.stringify(msg("c4", "c3", "user", "end"))],
			// escapes where the index reads (id, parentId, type, keys, role), a bad escape, numbers and literals
			[lines[0], lines[1].replace("\"a2\"", "\"a\\u0032\""), lines[2].replace("\"parentId\"", "\"parent\\u0049d\""), lines[3].replace("\"type\"", "\"\\u0074ype\""),
				lines[4].replace("\"user\"", "\"us\\u0065r\""), lines[4].replace("\"next\"", "\"ne\\qxt\"").replace("a5", "b5"),
				JSON.stringify({ ...msg("n1", "a5", "user", "n"), n: [0, -1, 1.5, 2e10, -3.25E-7, true, false, null, {}, []] }),
				`${JSON.stringify(msg("n2", "n1", "user", "n")).slice(0, -1)},"bad":01}`, `${JSON.stringify(msg("n3", "n1", "user", "n")).slice(0, -1)},"bad":1.}`,
				`${JSON.stringify(msg("n4", "n1", "user", "n")).slice(0, -1)},"bad":[1,]}`, `${JSON.stringify(msg("n5", "n1", "user", "n")).slice(0, -1)},"bad":tru}`,
				`${JSON.stringify(msg("n6", "n1", "user", "n")).slice(0, -1)} , "ok" : [ 1 , { "x" : null } ] }`],
			// messages: duplicate roles and messages (the last wins), odd roles, a message that is not an object
			[JSON.stringify({ type: "message", id: "m1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "u", role2: 1 } }),
				`{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"x","role":"assistant","provider":"p","model":"m"}}`,
				`{"type":"message","id":"m3","parentId":"m2","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant","content":[]},"message":{"role":"user","content":"second wins"}}`,
				`{"type":"message","id":"m4","parentId":"m3","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"y"},"message":7}`,
				`{"type":"message","id":"m5","parentId":"m4","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"weird","content":"w"}}`,
				`{"type":"message","id":"m6","parentId":"m5","timestamp":"2026-01-01T00:00:06.000Z","message":{"content":"no role"}}`,
				`{"type":"message","id":"m7","parentId":"m6","timestamp":"2026-01-01T00:00:07.000Z","message":{"role":null,"content":"null role"}}`,
				`{"type":"label","id":"m8","parentId":"m7","timestamp":"2026-01-01T00:00:08.000Z","targetId":"m2","label":"L"}`,
				`{"type":"custom_message","id":"m9","parentId":"m8","timestamp":"2026-01-01T00:00:09.000Z","customType":"c","content":"shown","display":true}`,
				`{"type":"session","version":3,"id":"again","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}`,
				`{"type":"branch_summary","id":"m10","parentId":"m9","timestamp":"2026-01-01T00:00:10.000Z","fromId":"m9","summary":"s"}`],
		];
		for (const c of cases) {
			const file = writeSession([], { raw: `${JSON.stringify(HEADER)}\n${c.join("\n")}\n` });
			sameAsOpen(file);
			// and without the final newline (the last line is then read by JSON.parse alone)
			writeFileSync(file, `${JSON.stringify(HEADER)}\n${c.join("\n")}`);
			sameAsOpen(file);
		}
	});

	it("small files open the ordinary way unless forced, large ones the structure way, same answers", () => {
		const dir = tempDir();
		const file = join(dir, "big.jsonl");
		// Over SMALL_FILE_BYTES (16 MiB) of generated lines: openForContext takes the structure scan by itself.
		const src = generated(6000, "ofc-big");
		writeFileSync(file, readFileSync(src));
		expect(readFileSync(file).length).toBeGreaterThan(16 * 1024 * 1024);
		const full = SessionManager.open(file);
		const fast = SessionManager.openForContext(file);
		expect(fast.getWarnings()).toEqual(full.getWarnings());
		expect(fast.getLeafId()).toBe(full.getLeafId());
		const ids = full.getEntries().map((e) => e.id);
		for (const id of ids.filter((_, i) => i % 50 === 0).concat(ids.slice(-3))) {
			expect(JSON.stringify(fast.buildSessionContext(id))).toBe(JSON.stringify(full.buildSessionContext(id)));
		}
	});
});

describe("StructureScanner.line", () => {
	const scan = (line: string) => {
		const b = Buffer.from(`${line}\n`);
		const sc = new StructureScanner();
		sc.chunk(b, b.length - 1);
		const r = sc.line(b, 0, b.length - 1);
		return r && { ...r };
	};

	it("reads type, id, parentId and the kind classify.ts gives, on every valid line of the fixtures and generated files", () => {
		const files = [...fixtureNames().map((n) => join(FIXTURES, n)), generated(800, "ofc-sc", ["--custom-messages", "0.5"])];
		let answered = 0;
		for (const f of files) {
			for (const line of readFileSync(f, "utf8").split("\n")) {
				if (!line) continue;
				const r = scan(line);
				let obj: Record<string, unknown>;
				try {
					obj = JSON.parse(line) as Record<string, unknown>;
				} catch {
					expect(r, line.slice(0, 200)).toBeUndefined(); // invalid JSON is never answered
					continue;
				}
				if (!r) continue;
				answered++;
				expect(r, line.slice(0, 200)).toEqual({ type: obj.type, id: obj.id, parentId: obj.parentId, kind: kindOf(obj) });
			}
		}
		expect(answered).toBeGreaterThan(700);
	});

	it("answers undefined for what it must leave to the ordinary reader", () => {
		const good = JSON.stringify(msg("a", "p", "user", "hello there, a text longer than sixteen bytes"));
		expect(scan(good)).toEqual({ type: "message", id: "a", parentId: "p", kind: kindOf(JSON.parse(good) as Record<string, unknown>) });
		for (const bad of [
			good + good, `${good} x`, good.slice(0, -1), good.slice(0, 40), "{}", "[]", "\"s\"", "1", "", "  ",
			good.replace("\"id\"", "\"\\u0069d\""), good.replace("\"a\"", "\"\\u0061\""), good.replace("\"p\"", "7"), good.replace("\"message\",", "1,"),
			good.replace("{\"type\"", "{\"type\":1,\"x\""), good.replace("\"user\"", "\"us\\u0065r\""), good.replace("\"user\"", "\"us\u0001r\""),
			good.replace(",\"id\"", ",,\"id\""), good.replace(":", "::"), good.replace("}", "]"), `\ufeff${good}`,
			JSON.stringify({ type: "session", id: "s", parentId: null }), JSON.stringify({ type: "label", id: "l", parentId: null, targetId: "a" }),
			JSON.stringify({ type: "x", parentId: null }), JSON.stringify({ type: "x", id: "i" }), JSON.stringify({ type: "x", id: 5, parentId: null }),
		]) expect(scan(bad), bad.slice(0, 120)).toBeUndefined();
	});
});
