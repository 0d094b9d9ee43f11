// The byte skimmer (large files) must index exactly what JSON.parse + factsOf would: same ids, parents,
// kinds, flags, tokens and times, and "unsure" (undefined) rather than wrong on anything unusual.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tmpdir } from "node:os";
import { EntryKind } from "../../../shared/skeleton";
import { writePi16Session } from "../../../shared/test/pi16-writer";
import { factsOf } from "../classify";
import { SessionManager, toPlain } from "../index";
import { skimLine } from "../formats/pi/scan-line";
import { FIXTURES, fixtureNames, generated, writeSession } from "./helpers";

function lines(file: string): Buffer[] {
	const buf = readFileSync(file);
	const out: Buffer[] = [];
	let s = 0;
	for (;;) {
		const nl = buf.indexOf(10, s);
		if (nl < 0) {
			if (s < buf.length) out.push(buf.subarray(s));
			return out;
		}
		out.push(buf.subarray(s, nl));
		s = nl + 1;
	}
}

/** Skims a line as the loader does (the byte after the line is its "\n"). */
function skim(line: Buffer | string) {
	const b = Buffer.concat([Buffer.from(line), Buffer.from("\n")]);
	return skimLine(b, 0, b.length - 1);
}

function expectAgrees(line: Buffer | string): void {
	const text = Buffer.from(line).toString("utf8");
	const obj = JSON.parse(text) as Record<string, unknown>;
	const sk = skim(line);
	if (obj.type === "session" || obj.type === "title") return;
	if (sk === undefined) return; // unsure is always allowed: the slow path parses it
	const f = factsOf(obj);
	expect(
		{ id: sk.id, parentId: sk.parentId, type: sk.type, kind: sk.kind, flags: sk.flags, tokens: sk.tokens, cost: sk.cost, time: sk.time },
		text.slice(0, 300),
	).toEqual({
		id: typeof obj.id === "string" ? obj.id : undefined,
		parentId: typeof obj.parentId === "string" || obj.parentId === null ? obj.parentId : undefined,
		type: obj.type,
		kind: f.kind,
		flags: f.flags,
		tokens: f.tokens,
		cost: f.cost,
		time: f.time,
	});
}

describe("skimmer agrees with JSON.parse", () => {
	it("on every line of every fixture", () => {
		for (const name of fixtureNames())
			for (const l of lines(join(FIXTURES, name))) {
				try {
					JSON.parse(l.toString("utf8"));
				} catch {
					continue;
				}
				expectAgrees(l);
			}
	});

	it("on generated sessions (both size profiles, custom messages, branches, compactions)", () => {
		const files = [generated(1500, "sk1", ["--custom-messages", "0.5"]), generated(1500, "sk2", ["--profile", "fixture", "--branch-every", "5"])];
		let skimmed = 0;
		for (const f of files)
			for (const l of lines(f).slice(1)) {
				expectAgrees(l);
				if (skim(l)) skimmed++;
			}
		expect(skimmed).toBeGreaterThan(2900);
	});

	it("on sessions written by pi 1.6.0 (usage, context edits, system messages, compactions with usage and checkpoints) and omp 18 records", () => {
		const f = writePi16Session(join(tmpdir(), `arbor-skim-pi16-${process.pid}`), { seed: 5, turns: 400 });
		let skimmed = 0;
		const kinds = new Set<number>();
		for (const l of lines(f).slice(1)) {
			expectAgrees(l);
			const sk = skim(l);
			if (sk) {
				skimmed++;
				kinds.add(sk.kind);
			}
		}
		for (const k of [EntryKind.usage, EntryKind.contextEdit, EntryKind.system, EntryKind.compaction, EntryKind.branchSummary]) expect(kinds.has(k)).toBe(true);
		expect(skimmed).toBeGreaterThan(1000);
		const t = "2026-01-01T00:00:00.000Z";
		for (const rec of [
			{ type: "usage", id: "u", parentId: "p", timestamp: t, kind: "cache_warm", provider: "a", model: "m", usage: { input: 5, output: 7, totalTokens: 12 } },
			{ type: "usage", id: "u", parentId: "p", timestamp: t, usage: { input: 5, output: 7 }, kind: "k" },
			{ id: "u", usage: { totalTokens: 40 }, type: "usage", parentId: "p", timestamp: t },
			{
				type: "model_usage",
				id: "m",
				parentId: "p",
				timestamp: t,
				purpose: "title",
				api: "x",
				provider: "a",
				model: "m",
				usage: { totalTokens: 9 },
				stopReason: "stop",
			},
			{
				type: "compaction",
				id: "c",
				parentId: "p",
				timestamp: t,
				summary: "s",
				firstKeptEntryId: "c",
				tokensBefore: 500,
				usage: { totalTokens: 9 },
				systemMessage: { role: "system", content: "x", timestamp: 1 },
			},
			{ type: "branch_summary", id: "b", parentId: "p", timestamp: t, fromId: null, summary: "s", usage: { totalTokens: 3 } },
			{
				type: "message",
				id: "s",
				parentId: null,
				timestamp: t,
				message: { role: "system", content: "p", sections: { a: null }, toolsAdded: [{ name: "read" }] },
			},
			{ type: "message", id: "d", parentId: "s", timestamp: t, message: { role: "assistant", content: [], stopReason: "deferred", responseModel: "r" } },
			{ type: "context_edit", id: "e", parentId: "d", timestamp: t, targetId: "d", replacement: null },
			...["service_tier_change", "reset_boundary", "title_change", "ttsr_injection", "session_init", "mode_change", "credential_pin"].map((type) => ({
				type,
				id: type,
				parentId: "p",
				timestamp: t,
			})),
		]) {
			expectAgrees(JSON.stringify(rec));
			expect(skim(JSON.stringify(rec))?.kind, rec.type).toBe(factsOf(rec).kind);
		}
	});

	it("on tricky but valid lines: escapes, unicode blanks, nested look-alike keys, numbers, odd key order", () => {
		const base = { id: "a", parentId: "p", timestamp: "2026-01-01T00:00:00.000Z" };
		const cases: unknown[] = [
			{ type: "message", ...base, message: { role: "assistant", content: [{ type: "text", text: "\u00a0\u3000 \n\t" }], stopReason: "stop" } },
			{ type: "message", ...base, message: { role: "assistant", content: [{ type: "text", text: "  \n x" }], stopReason: "toolUse" } },
			{
				type: "message",
				...base,
				message: {
					role: "assistant",
					content: [{ type: "toolCall", id: "c", name: "t", arguments: { content: [{ type: "text", text: "nested" }], type: "image" } }],
					stopReason: "toolUse",
					usage: { input: 10, output: 5.5, cost: { total: 1e-7 } },
				},
			},
			{
				type: "message",
				...base,
				message: {
					role: "assistant",
					content: [
						{ type: "thinking", thinking: 'q"uote\\\\' },
						{ text: "late type", type: "text" },
					],
					stopReason: "length",
					usage: { totalTokens: 123456789 },
				},
			},
			{ type: "message", ...base, message: { role: "assistant", content: [], stopReason: "", errorMessage: "x" } },
			{ type: "message", ...base, message: { role: "assistant", content: "plain string", stopReason: "weird" } },
			{ type: "message", ...base, message: { role: "us\u0065r", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] } },
			{
				type: "message",
				...base,
				message: {
					role: "toolResult",
					toolCallId: "c",
					toolName: "x",
					content: [{ type: "text", text: "e" }],
					details: { isError: true, deep: [[[{}]]] },
					isError: false,
				},
			},
			{ type: "message", ...base, message: { role: "bashExecution", command: "ls", output: "", exitCode: -2, cancelled: true } },
			{ type: "message", ...base, message: { role: "custom", customType: "x", content: "c", display: false } },
			{ type: "message", ...base, message: { role: "fileMention", files: [] } },
			{ type: "message", ...base, message: "not an object" },
			{
				customType: "ext",
				content: [{ type: "image", data: "x", mimeType: "m" }],
				display: false,
				details: { id: "nested-id" },
				type: "custom_message",
				...base,
			},
			{ type: "compaction", ...base, summary: "s", firstKeptEntryId: "a", tokensBefore: 41234 },
			{ type: "label", ...base, targetId: "t", label: 'ü label "quoted"' },
			{ type: "label", ...base, targetId: "t" },
			{ type: "future_thing", ...base, payload: { a: [1, 2, { b: null }], s: "\u0000" } },
			{ type: "message", id: 42, parentId: 7, timestamp: "2026-13-01T00:00:00.000Z", message: { role: "user", content: "x" } },
			{ type: "message", id: "ü-id", parentId: null, timestamp: "Mon, 01 Jan 2026 00:00:00 GMT", message: { role: "user", content: "x" } },
			{ type: "custom", customType: "t", data: { parentId: "nested", id: "nested" }, id: "real", parentId: "realp", timestamp: "2026-01-01T00:00:00.000Z" },
		];
		for (const c of cases) expectAgrees(JSON.stringify(c));
		expectAgrees(JSON.stringify(cases[0], null, 2).replace(/\n/g, " "));
	});

	it("cost column: usage.cost.total of every carrier, as JSON.parse + factsOf reads it, without falling back", () => {
		const base = { id: "a", parentId: "p", timestamp: "2026-01-01T00:00:00.000Z" };
		// omp 18.3's ModelUsageEntry (session-entries.ts): purpose, role, api, provider, model, usage (pi-ai Usage), stopReason.
		const ompUsage = {
			input: 120,
			output: 30,
			cacheRead: 900,
			cacheWrite: 0,
			totalTokens: 1050,
			premiumRequests: 1,
			cost: { input: 0.00036, output: 0.00045, cacheRead: 0.00027, cacheWrite: 0, total: 0.00108 },
		};
		const cases: [unknown, number][] = [
			[
				{
					type: "message",
					...base,
					message: {
						role: "assistant",
						content: [{ type: "text", text: "x" }],
						stopReason: "stop",
						usage: { totalTokens: 5, cost: { input: 0.1, total: 0.25 } },
					},
				},
				0.25,
			],
			[
				{
					type: "model_usage",
					...base,
					purpose: "title",
					role: "smol",
					api: "anthropic-messages",
					provider: "anthropic",
					model: "m",
					usage: ompUsage,
					stopReason: "stop",
				},
				0.00108,
			],
			[{ type: "usage", ...base, kind: "cache_warm", provider: "p", model: "m", usage: { totalTokens: 3, cost: { total: 0.0125 } } }, 0.0125],
			[{ type: "compaction", ...base, summary: "s", firstKeptEntryId: "a", tokensBefore: 900, usage: { totalTokens: 40, cost: { total: 0.5 } } }, 0.5],
			[{ type: "branch_summary", ...base, fromId: null, summary: "s", usage: { cost: { total: 0.75 } } }, 0.75],
			[{ type: "future_thing", ...base, usage: { cost: { total: 2 } } }, 2],
			[{ usage: { cost: { total: 3 } }, type: "usage", ...base }, 3], // usage before type
			[{ type: "custom", ...base, customType: "x", usage: { cost: { total: 9 } } }, 0], // not a carrier
			[{ type: "message", ...base, message: { role: "user", content: "x", usage: { cost: { total: 9 } } } }, 0],
			[{ type: "message", ...base, usage: { cost: { total: 9 } }, message: { role: "assistant", content: [], stopReason: "stop" } }, 0],
			[{ type: "usage", ...base, usage: { cost: "free" } }, 0],
			[{ type: "usage", ...base, usage: { cost: { total: "1.5" } } }, 0],
			[{ type: "usage", ...base, usage: { cost: [1] } }, 0],
			[{ type: "usage", ...base, usage: null }, 0],
			[{ type: "usage", ...base, usage: { cost: { total: -0.5 } } }, -0.5],
		];
		for (const [c, want] of cases) {
			const line = JSON.stringify(c);
			expect(skim(line), line).toBeDefined();
			expect(skim(line)?.cost, line).toBe(want);
			expect(factsOf(c as Record<string, unknown>).cost, line).toBe(want);
			expectAgrees(line);
		}
		// Hand-written lines JSON.stringify cannot make: a repeated key (the last wins) and an overflowing number.
		for (const [line, want] of [
			['{"type":"usage","id":"a","parentId":null,"usage":{"cost":{"total":1,"total":4}}}', 4],
			['{"type":"usage","id":"a","parentId":null,"usage":{"cost":{"total":1},"cost":{"input":2}}}', 0],
			['{"type":"usage","id":"a","parentId":null,"usage":{"cost":{"total":1}},"usage":7}', 0],
			['{"type":"usage","id":"a","parentId":null,"usage":{"cost":{"total":1e999}}}', 0],
			[
				'{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[],"usage":{"cost":{"total":2}}},"message":{"role":"assistant","content":[]}}',
				0,
			],
		] as [string, number][]) {
			expect(factsOf(JSON.parse(line)).cost, line).toBe(want);
			const sk = skim(line);
			if (sk) expect(sk.cost, line).toBe(want);
			expectAgrees(line);
		}
	});

	it("cost numbers read exactly as JSON.parse reads them (short decimals computed, others through Number)", () => {
		let seed = 7;
		const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
		const texts = [
			"0",
			"-0",
			"0.1",
			"0.085683",
			"1e-7",
			"2.5E3",
			"-0.0000001",
			"123456789012345",
			"1234567890123456789",
			"0.30000000000000004",
			"0.1234567890123456",
			"9007199254740993",
			"1.0",
		];
		for (let k = 0; k < 3000; k++) {
			const digits = 1 + Math.floor(rnd() * 18);
			let d = "";
			for (let j = 0; j < digits; j++) d += String(Math.floor(rnd() * 10));
			const at = Math.floor(rnd() * digits);
			const text = at === 0 ? d.replace(/^0+(?=\d)/, "") : `${d.slice(0, at).replace(/^0+(?=\d)/, "")}.${d.slice(at)}`;
			texts.push(rnd() < 0.2 ? `-${text}` : text);
		}
		let checked = 0;
		for (const text of texts) {
			const line = `{"type":"usage","id":"a","parentId":null,"usage":{"totalTokens":1,"cost":{"input":1,"total":${text}}}}`;
			const want = JSON.parse(line).usage.cost.total as number;
			const sk = skim(line);
			expect(sk, line).toBeDefined();
			expect(Object.is(sk!.cost, Number.isFinite(want) ? want : 0), `${text}: ${sk!.cost} vs ${want}`).toBe(true);
			checked++;
		}
		expect(checked).toBe(texts.length);
	});

	it("answers unsure (never a wrong entry) for glued, truncated or invalid lines", () => {
		const good = JSON.stringify({ type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: "x" } });
		expect(skim(good)).toBeDefined();
		expect(skim(good + good)).toBeUndefined();
		expect(skim(good.slice(0, -5))).toBeUndefined();
		expect(skim(`${good.slice(0, 40)}\u0001${good.slice(40)}`)).toBeUndefined();
		expect(skim(good.replace('"user"', '"us\ter"'))).toBeUndefined();
		expect(skim("[1,2]")).toBeUndefined();
		expect(skim("{}")).toBeUndefined();
		expect(skim(good.replace('"x"', "tru"))).toBeUndefined();
	});
});

describe("lazy (large-file) and eager loading give the same session", () => {
	function compare(file: string): void {
		const eager = SessionManager.open(file, { lazy: false });
		const lazy = SessionManager.open(file, { lazy: true });
		const a = eager.getSkeleton();
		const b = lazy.getSkeleton();
		expect(b.ids).toEqual(a.ids);
		expect(Array.from(b.parent)).toEqual(Array.from(a.parent));
		expect(Array.from(b.kind)).toEqual(Array.from(a.kind));
		expect(Array.from(b.flags)).toEqual(Array.from(a.flags));
		expect(Array.from(b.time)).toEqual(Array.from(a.time));
		expect(Array.from(b.tokens)).toEqual(Array.from(a.tokens));
		expect(b.labels).toEqual(a.labels);
		expect([b.leaf, b.resumeLeaf]).toEqual([a.leaf, a.resumeLeaf]);
		expect(JSON.stringify(lazy.getTree())).toBe(JSON.stringify(eager.getTree()));
		expect(JSON.stringify(lazy.getEntries())).toBe(JSON.stringify(eager.getEntries()));
		for (const id of a.ids.filter((_, i) => i % 97 === 0).concat(a.ids.slice(-3))) {
			expect(JSON.stringify(lazy.buildSessionContext(id))).toBe(JSON.stringify(eager.buildSessionContext(id)));
			expect(lazy.getBranch(id)).toEqual(eager.getBranch(id));
		}
		const sample = Array.from({ length: Math.min(a.count, 400) }, (_, i) => i);
		expect(lazy.getPreviews(sample, { homeDir: "/home/u" })).toEqual(eager.getPreviews(sample, { homeDir: "/home/u" }));
		for (const q of ["the", "read src", "TS2", "compaction", "ü", "model", "label"]) {
			expect(lazy.search(q, "pi"), q).toEqual(eager.search(q, "pi"));
			expect(lazy.search(q, "full"), q).toEqual(eager.search(q, "full"));
		}
	}

	it("on every fixture (except v1, whose migration draws fresh random ids on every load)", () => {
		for (const name of fixtureNames().filter((n) => !n.includes(".v1."))) compare(join(FIXTURES, name));
	});

	it("on generated sessions with labels, branches and compactions", () => {
		compare(generated(1200, "lz1", ["--custom-messages", "0.3", "--branch-every", "8"]));
		compare(generated(800, "lz2", ["--profile", "fixture", "--compaction-every", "60"]));
	});

	it("a lazily filled path behaves as an ordinary array", () => {
		const f = generated(200, "lz4", ["--branch-every", "0"]);
		const lazy = SessionManager.open(f, { lazy: true });
		const eager = SessionManager.open(f, { lazy: false });
		const p = lazy.getBranch();
		const q = eager.getBranch();
		const id = (e: unknown) => (e as { id: string }).id;
		expect(Array.isArray(p)).toBe(true);
		expect(p.length).toBe(q.length);
		expect(p.map(id)).toEqual(q.map(id));
		expect([...p].map(id)).toEqual(q.map(id));
		expect(p.slice(-3).map(id)).toEqual(q.slice(-3).map(id));
		expect(p.at(-1)).toEqual(q.at(-1));
		expect(Object.keys(p).length).toBe(q.length);
		expect(p.findIndex((e) => id(e) === id(q[5]))).toBe(5);
		expect(JSON.stringify(p)).toBe(JSON.stringify(q));
		p.push(q[0]);
		p.reverse();
		expect(p.length).toBe(q.length + 1);
		expect(id(p[1])).toBe(id(q.at(-1)));
	});

	it("lazy entries become cloneable plain objects with toPlain (structuredClone rejects the stand-ins)", () => {
		const f = generated(300, "lz3");
		const lazy = SessionManager.open(f, { lazy: true });
		const eager = SessionManager.open(f, { lazy: false });
		const branch = lazy.getBranch();
		expect(() => structuredClone(branch)).toThrow();
		expect(structuredClone(toPlain(branch))).toEqual(eager.getBranch());
		expect(structuredClone(toPlain(lazy.getTree()))).toEqual(eager.getTree());
		expect(structuredClone(lazy.getEntry(lazy.getLeafId() as string))).toEqual(eager.getLeafEntry());
	});

	it("on a file with glued, malformed and id-less lines", () => {
		const a = { type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hello" } };
		const b = {
			type: "message",
			id: "b",
			parentId: "a",
			timestamp: "2026-01-01T00:00:02.000Z",
			message: { role: "assistant", content: [{ type: "text", text: "hi" }], stopReason: "stop" },
		};
		const c = { type: "custom", customType: "x", timestamp: "2026-01-01T00:00:03.000Z" };
		const d = { type: "message", id: "d", parentId: "b", timestamp: "2026-01-01T00:00:04.000Z", message: { role: "user", content: "after glue" } };
		const f = writeSession([a, `${JSON.stringify(b)}${JSON.stringify(c)}`, "{not json", d]);
		compare(f);
	});
});
