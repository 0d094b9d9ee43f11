// Hostile and broken files, each as a real file in a temp dir. For every one the outcome Arbor chose for it
// (docs/session-core.md "Robustness"): a typed SessionFileError naming the file (and line), or a load with
// exactly the warnings it counts; never a crash, never a hang; and the file's bytes are unchanged after loading. Cases that could hang (cycles, FIFOs) first run in a killable child
// process (helpers/probe), so a regression fails the test instead of freezing the run.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { afterAll, describe, expect, it } from "vitest";
import { SessionFileError, SessionManager } from "../index";
import { cleanupTempDirs, copyToTemp, jsonl, sha256, tempDir, writeTempFile } from "./helpers/files";
import { userMessage } from "./helpers/messages";
import { describeOutcome, tryOpen } from "./helpers/outcome";
import { probe } from "./helpers/probe";
import { idOf } from "./helpers/shapes";

afterAll(cleanupTempDirs);

const header = { type: "session", version: 3, id: "robust", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
const ts = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
const msg = (id: string, parentId: string | null, s: number, text = id) => ({
	type: "message",
	id,
	parentId,
	timestamp: ts(s),
	message: { role: "user", content: text, timestamp: s },
});
const line = (o: unknown) => JSON.stringify(o);

function kinds(sm: SessionManager): string[] {
	return sm.getWarnings().map((w) => w.kind);
}

function warningAt(sm: SessionManager, kind: string, lineNo: number): boolean {
	return sm.getWarnings().some((w) => w.kind === kind && w.line === lineNo);
}

/** pi's context for the same bytes (pi may rewrite its own copy; only safe for inputs pi does not hang on). */
function piContext(file: string): string {
	return JSON.stringify(PiSessionManager.open(copyToTemp(file, "pi")).buildSessionContext());
}

describe("empty and header-only files", () => {
	it("empty file (0 bytes): no write, no crash; an empty session with one bad_header warning (a header is written before the first entry)", () => {
		const file = writeTempFile("", "empty.jsonl");
		const o = tryOpen(file);
		expect(o.kind, describeOutcome(o)).toBe("loaded");
		if (o.kind !== "loaded") return;
		expect(o.sm.getEntries()).toEqual([]);
		expect(o.sm.getLeafId()).toBeNull();
		expect(o.sm.getWarnings().map((w) => [w.kind, w.line])).toEqual([["bad_header", 0]]);
		expect(statSync(file).size).toBe(0);
	});

	it("only blank lines: same as empty, bytes untouched", () => {
		const file = writeTempFile("\n  \n\r\n\n", "blank.jsonl");
		const before = sha256(file);
		const o = tryOpen(file);
		expect(o.kind, describeOutcome(o)).toBe("loaded");
		if (o.kind !== "loaded") return;
		expect(o.sm.getEntries()).toEqual([]);
		expect(o.sm.getWarnings().map((w) => [w.kind, w.line])).toEqual([["bad_header", 0]]);
		expect(sha256(file)).toBe(before);
	});

	it("header only: loads with no entries, null leaf, empty context, no warnings", () => {
		const file = writeTempFile(jsonl([header]), "header.jsonl");
		const before = sha256(file);
		const sm = SessionManager.open(file);
		expect(sm.getEntries()).toEqual([]);
		expect(sm.getLeafId()).toBeNull();
		expect(sm.getTree()).toEqual([]);
		expect(sm.getBranch()).toEqual([]);
		expect(sm.buildSessionContext()).toEqual({ messages: [], thinkingLevel: "off", model: null });
		expect(sm.getWarningCount()).toBe(0);
		expect(sm.getSessionId()).toBe("robust");
		sm.close();
		expect(sha256(file)).toBe(before);
	});

	it("header only, without a final newline: loads the same", () => {
		const file = writeTempFile(line(header), "header-noeol.jsonl");
		const sm = SessionManager.open(file);
		expect(sm.getEntries()).toEqual([]);
		expect(sm.getSessionId()).toBe("robust");
		sm.close();
	});
});

describe("missing or malformed header", () => {
	// Arbor loads what it can read and names the bad header (writing is refused: the next describe). Each
	// variant: its exact warnings (kind, line), entries and leaf.
	const variants: Array<[string, string, { warnings: Array<[string, number]>; entries: string[]; leaf: string }]> = [
		["first line is an entry", jsonl([msg("a", null, 1), msg("b", "a", 2)]), { warnings: [["bad_header", 1]], entries: ["a", "b"], leaf: "b" }],
		[
			"header lacks an id",
			jsonl([{ type: "session", version: 3, cwd: "/p" }, msg("a", null, 1)]),
			{
				warnings: [
					["bad_header", 1],
					["other", 1],
				],
				entries: ["a"],
				leaf: "a",
			},
		],
		[
			"header id is a number",
			jsonl([{ type: "session", version: 3, id: 42 }, msg("a", null, 1)]),
			{
				warnings: [
					["bad_header", 1],
					["other", 1],
				],
				entries: ["a"],
				leaf: "a",
			},
		],
		[
			"first line is not JSON",
			`this is not json\n${jsonl([header, msg("a", null, 1)])}`,
			{
				warnings: [
					["bad_header", 1],
					["malformed_line", 1],
				],
				entries: ["a"],
				leaf: "a",
			},
		],
		[
			"first line is a JSON array",
			`[1,2,3]\n${jsonl([msg("a", null, 1)])}`,
			{
				warnings: [
					["bad_header", 1],
					["malformed_line", 1],
					["bad_header", 2],
				],
				entries: ["a"],
				leaf: "a",
			},
		],
		[
			"first line is JSON null",
			`null\n${jsonl([msg("a", null, 1)])}`,
			{
				warnings: [
					["bad_header", 1],
					["malformed_line", 1],
					["bad_header", 2],
				],
				entries: ["a"],
				leaf: "a",
			},
		],
	];
	for (const [name, bytes, want] of variants) {
		it(`${name}: loads what it can read with a bad_header warning at line 1 (exact warnings, entries, leaf); bytes untouched`, () => {
			const file = writeTempFile(bytes, "bad-header.jsonl");
			const before = sha256(file);
			const o = tryOpen(file);
			expect(o.kind, describeOutcome(o)).toBe("loaded");
			if (o.kind !== "loaded") return;
			expect(o.sm.getWarnings().map((w) => [w.kind, w.line])).toEqual(want.warnings);
			expect(o.sm.getEntries().map(idOf)).toEqual(want.entries);
			expect(o.sm.getLeafId()).toBe(want.leaf);
			o.sm.close();
			expect(sha256(file)).toBe(before);
		});
	}
});

describe("writing to a file whose header is bad or absent", () => {
	it("missing header: a write is refused with a typed bad_file error naming file and line 1; bytes untouched", () => {
		const file = writeTempFile(jsonl([msg("a", null, 1), msg("b", "a", 2)]), "no-header.jsonl");
		const before = sha256(file);
		const sm = SessionManager.open(file);
		let err: unknown;
		try {
			sm.appendMessage(userMessage("refused"));
		} catch (e) {
			err = e;
		}
		expect(err).toBeInstanceOf(SessionFileError);
		expect(err).toMatchObject({ code: "bad_file", file, line: 1 });
		expect(sha256(file)).toBe(before);
		sm.close();
	});

	it("empty file: the first append writes a header and the entry, and pi reads that file", () => {
		const file = writeTempFile("", "empty.jsonl");
		const sm = SessionManager.open(file);
		const id = sm.appendMessage(userMessage("first words"));
		const lines = readFileSync(file, "utf8")
			.trimEnd()
			.split("\n")
			.map((l) => JSON.parse(l) as Record<string, unknown>);
		expect(lines.length).toBe(2);
		expect(lines[0]).toMatchObject({ type: "session", version: 3, id: sm.getSessionId() });
		expect(lines[1]).toMatchObject({ id, parentId: null });
		const pi = PiSessionManager.open(copyToTemp(file, "pi"));
		expect(pi.getLeafId()).toBe(id);
		expect(pi.getSessionId()).toBe(sm.getSessionId());
		sm.close();
	});
});

describe("broken lines", () => {
	it("malformed lines are skipped and counted with their line numbers", () => {
		const file = writeTempFile(
			[line(header), line(msg("a", null, 1)), "{broken", line(msg("b", "a", 2)), "garbage here", line(msg("c", "b", 3)), ""].join("\n"),
		);
		const before = sha256(file);
		const sm = SessionManager.open(file);
		expect(sm.getEntries().map(idOf)).toEqual(["a", "b", "c"]);
		expect(sm.getLeafId()).toBe("c");
		expect(sm.getBranch().map(idOf)).toEqual(["a", "b", "c"]);
		expect(warningAt(sm, "malformed_line", 3), JSON.stringify(sm.getWarnings())).toBe(true);
		expect(warningAt(sm, "malformed_line", 5), JSON.stringify(sm.getWarnings())).toBe(true);
		expect(sm.getWarningCount()).toBe(2);
		expect(JSON.stringify(sm.buildSessionContext())).toBe(piContext(file));
		sm.close();
		expect(sha256(file)).toBe(before);
	});

	it("a truncated last line is reported, and the next append starts on a fresh line so the entry survives a reload", () => {
		const bytes = [line(header), line(msg("a", null, 1)), line(msg("b", "a", 2)), `{"type":"message","id":"c","parentId":"b","timest`].join("\n");
		const file = writeTempFile(bytes, "truncated.jsonl");
		const before = sha256(file);
		const sm = SessionManager.open(file);
		expect(sha256(file)).toBe(before);
		expect(sm.getEntries().map(idOf)).toEqual(["a", "b"]);
		expect(sm.getLeafId()).toBe("b");
		const w = sm.getWarnings().find((x) => x.line === 4);
		expect(w && ["truncated_last_line", "malformed_line"].includes(w.kind), JSON.stringify(sm.getWarnings())).toBe(true);
		const id = sm.appendMessage(userMessage("after the truncated line"));
		const text = readFileSync(file, "utf8");
		expect(text.startsWith(bytes)).toBe(true);
		expect(text.slice(bytes.length).startsWith("\n{")).toBe(true);
		const again = SessionManager.open(file);
		expect(again.getEntries().map(idOf)).toEqual(["a", "b", id]);
		expect(again.getEntry(id)).toMatchObject({ parentId: "b" });
		const pi = PiSessionManager.open(copyToTemp(file, "pi"));
		expect(pi.getLeafId()).toBe(id);
		sm.close();
		again.close();
	});

	it("two objects glued on one line: reported at that line; the surrounding entries load", () => {
		const file = writeTempFile(jsonl([header, msg("a", null, 1)]) + line(msg("b", "a", 2)) + line(msg("c", "b", 3)) + "\n" + jsonl([msg("d", "a", 4)]));
		const before = sha256(file);
		const sm = SessionManager.open(file);
		const ids = sm.getEntries().map(idOf);
		expect(ids).toContain("a");
		expect(ids).toContain("d");
		expect(sm.getLeafId()).toBe("d");
		expect(sm.getBranch().map(idOf)).toEqual(["a", "d"]);
		const w = sm.getWarnings().find((x) => x.line === 3);
		expect(w && ["glued_objects", "malformed_line"].includes(w.kind), JSON.stringify(sm.getWarnings())).toBe(true);
		sm.close();
		expect(sha256(file)).toBe(before);
	});

	it("non-UTF-8 bytes inside a string and a line of binary garbage: loads, warns, bytes untouched", () => {
		const bad = Buffer.concat([
			Buffer.from('{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"caf'),
			Buffer.from([0xe9, 0xff, 0xfe]),
			Buffer.from('","timestamp":2}}\n'),
		]);
		const garbage = Buffer.from([0x00, 0x9f, 0x92, 0x96, 0xc3, 0x28, 0x0a]);
		const file = writeTempFile(
			Buffer.concat([Buffer.from(jsonl([header, msg("a", null, 1)])), bad, garbage, Buffer.from(jsonl([msg("c", "b", 3)]))]),
			"bytes.jsonl",
		);
		const before = sha256(file);
		const sm = SessionManager.open(file);
		const ids = sm.getEntries().map(idOf);
		expect(ids).toContain("a");
		expect(ids).toContain("c");
		expect(sm.getLeafId()).toBe("c");
		expect(sm.getWarningCount(), JSON.stringify(sm.getWarnings())).toBeGreaterThanOrEqual(1);
		expect(
			sm.getWarnings().some((w) => w.line === 4),
			JSON.stringify(sm.getWarnings()),
		).toBe(true);
		// The context is still JSON-serialisable and walks through b when b loaded.
		const ctx = sm.buildSessionContext();
		expect(ctx.messages.length).toBe(ids.includes("b") ? 3 : 1);
		sm.close();
		expect(sha256(file)).toBe(before);
	});

	it("a 20 MB line (base64 image) loads and its content is returned whole", () => {
		const data = Buffer.alloc(15 * 1024 * 1024, 7).toString("base64"); // 20 MiB of base64
		const image = {
			type: "message",
			id: "img",
			parentId: "a",
			timestamp: ts(2),
			message: {
				role: "user",
				content: [
					{ type: "text", text: "look" },
					{ type: "image", data, mimeType: "image/png" },
				],
				timestamp: 2,
			},
		};
		const file = writeTempFile(jsonl([header, msg("a", null, 1), image, msg("c", "img", 3)]), "big-line.jsonl");
		const before = sha256(file);
		const sm = SessionManager.open(file);
		expect(sm.getEntries().map(idOf)).toEqual(["a", "img", "c"]);
		const entry = sm.getEntry("img") as { message: { content: Array<{ data?: string }> } };
		expect(entry.message.content[1].data?.length).toBe(data.length);
		const ctx = sm.buildSessionContext();
		expect(ctx.messages.length).toBe(3);
		expect(JSON.stringify(ctx).length).toBeGreaterThan(data.length);
		sm.close();
		expect(sha256(file)).toBe(before);
	});
});

describe("broken structure", () => {
	it("duplicate ids: reported; getEntry returns the last one (as pi); the context matches pi's", () => {
		const file = writeTempFile(jsonl([header, msg("a", null, 1), msg("b", "a", 2, "first b"), msg("b", "a", 3, "second b"), msg("c", "b", 4)]));
		const before = sha256(file);
		const sm = SessionManager.open(file);
		expect(sm.getEntries().length).toBe(4);
		expect(sm.getEntry("b")).toMatchObject({ message: { content: "second b" } });
		expect(warningAt(sm, "duplicate_id", 4), JSON.stringify(sm.getWarnings())).toBe(true);
		expect(JSON.stringify(sm.buildSessionContext())).toBe(piContext(file));
		expect(sm.getBranch().map((e) => (e as { message: { content: string } }).message.content)).toEqual(["a", "second b", "c"]);
		sm.close();
		expect(sha256(file)).toBe(before);
	});

	it("orphans: reported, become extra roots in file order, and the path stops at them (as pi)", () => {
		const file = writeTempFile(jsonl([header, msg("a", null, 1), msg("b", "missing", 2), msg("c", "b", 3)]));
		const before = sha256(file);
		const sm = SessionManager.open(file);
		expect(sm.getTree().map((n) => idOf(n.entry))).toEqual(["a", "b"]);
		expect(sm.getBranch("c").map(idOf)).toEqual(["b", "c"]);
		expect(warningAt(sm, "orphan", 3), JSON.stringify(sm.getWarnings())).toBe(true);
		expect(JSON.stringify(sm.buildSessionContext())).toBe(piContext(file));
		sm.close();
		expect(sha256(file)).toBe(before);
	});

	it("parentId === id: no hang (child-process probe), reported as a cycle, root in the tree, path stops", () => {
		const file = writeTempFile(jsonl([header, msg("a", null, 1), msg("s", "s", 2), msg("t", "s", 3)]));
		const before = sha256(file);
		const r = probe(
			file,
			"return { b: sm.getBranch().map(e => e.id), t: sm.getTree().length, c: sm.buildSessionContext().messages.length, sk: sm.getSkeleton().count };",
			20_000,
		);
		expect(r.outcome, `${JSON.stringify(r.detail)} ${r.stderr.slice(0, 500)}`).toBe("ok");
		expect(r.detail).toEqual({ b: ["s", "t"], t: 2, c: 2, sk: 3 });
		const sm = SessionManager.open(file);
		expect(kinds(sm)).toContain("cycle");
		expect(sm.getTree().map((n) => idOf(n.entry))).toEqual(["a", "s"]);
		sm.close();
		expect(sha256(file)).toBe(before);
	});

	it("a longer cycle (x -> z -> y -> x): no hang, reported, each entry walked once, every entry reachable in getTree", () => {
		const file = writeTempFile(jsonl([header, msg("a", null, 1), msg("x", "z", 2), msg("y", "x", 3), msg("z", "y", 4), msg("w", "y", 5)]));
		const before = sha256(file);
		const ops = `
			const b = sm.getBranch('w').map(e => e.id);
			const seen = []; const stack = [...sm.getTree()];
			while (stack.length) { const n = stack.pop(); seen.push(n.entry.id); stack.push(...n.children); }
			return { b, treeIds: seen.sort(), c: sm.buildSessionContext('w').messages.length, cx: sm.buildSessionContext('x').messages.length };`;
		const r = probe(file, ops, 20_000);
		expect(r.outcome, `${JSON.stringify(r.detail)} ${r.stderr.slice(0, 500)}`).toBe("ok");
		const d = r.detail as { b: string[]; treeIds: string[]; c: number; cx: number };
		expect(new Set(d.b).size).toBe(d.b.length);
		expect(d.b.at(-1)).toBe("w");
		expect(d.c).toBe(d.b.length);
		expect(d.cx).toBe(3);
		// Arbor cuts the loop (skeleton flag cycleCut) so its entries stay visible; pi and omp drop them.
		expect(d.treeIds).toEqual(["a", "w", "x", "y", "z"]);
		const sm = SessionManager.open(file);
		expect(kinds(sm)).toContain("cycle");
		sm.close();
		expect(sha256(file)).toBe(before);
	});

	it("entries without an id: reported, listed once each, and the context matches pi's", () => {
		const noId = { type: "message", parentId: "a", timestamp: ts(2), message: { role: "user", content: "no id", timestamp: 2 } };
		const noIdNoParent = { type: "custom", customType: "x", data: {}, timestamp: ts(3) };
		const file = writeTempFile(jsonl([header, msg("a", null, 1), noId, noIdNoParent, msg("b", "a", 4)]));
		const before = sha256(file);
		const sm = SessionManager.open(file);
		expect(sm.getEntries().length).toBe(4);
		expect(warningAt(sm, "missing_id", 3), JSON.stringify(sm.getWarnings())).toBe(true);
		expect(sm.getLeafId()).toBe("b");
		expect(JSON.stringify(sm.buildSessionContext())).toBe(piContext(file));
		let nodes = 0;
		const stack = [...sm.getTree()];
		while (stack.length) {
			const n = stack.pop() as (typeof stack)[number];
			nodes++;
			stack.push(...n.children);
		}
		expect(nodes).toBe(4);
		sm.close();
		expect(sha256(file)).toBe(before);
	});

	it("an id-less last line: the leaf is still the last entry and the context matches pi's", () => {
		const file = writeTempFile(
			jsonl([
				header,
				msg("a", null, 1),
				msg("b", "a", 2),
				{ type: "message", parentId: "b", timestamp: ts(3), message: { role: "user", content: "last, no id", timestamp: 3 } },
			]),
		);
		const sm = SessionManager.open(file);
		expect(sm.getLeafEntry()).toMatchObject({ message: { content: "last, no id" } });
		expect(JSON.stringify(sm.buildSessionContext())).toBe(piContext(file));
		sm.close();
	});
});

describe("versions", () => {
	const v1Body = [
		{ type: "message", timestamp: ts(1), message: { role: "user", content: "v1 question", timestamp: 1 } },
		{
			type: "message",
			timestamp: ts(2),
			message: { role: "assistant", content: [{ type: "text", text: "v1 answer" }], provider: "anthropic", model: "m1", stopReason: "stop", timestamp: 2 },
		},
	];
	it('version "1" (a string): migrated in memory like v1, context equals pi\'s, bytes untouched', () => {
		const file = writeTempFile(jsonl([{ type: "session", version: "1", id: "s1", timestamp: ts(0), cwd: "/p" }, ...v1Body]));
		const before = sha256(file);
		const sm = SessionManager.open(file);
		expect(sm.needsUpgrade()).toBe(true);
		expect(sm.getFileVersion()).toBe(1);
		expect(sm.getBranch().length).toBe(2);
		expect(JSON.stringify(sm.buildSessionContext())).toBe(piContext(file));
		sm.close();
		expect(sha256(file)).toBe(before);
	});

	it('version "3" (a string): current, no migration, context equals pi\'s', () => {
		const file = writeTempFile(jsonl([{ type: "session", version: "3", id: "s3", timestamp: ts(0), cwd: "/p" }, msg("a", null, 1), msg("b", "a", 2)]));
		const before = sha256(file);
		const sm = SessionManager.open(file);
		expect(sm.needsUpgrade()).toBe(false);
		expect(sm.getFileVersion()).toBe(3);
		expect(sm.getEntries().map(idOf)).toEqual(["a", "b"]);
		expect(JSON.stringify(sm.buildSessionContext())).toBe(piContext(file));
		sm.close();
		expect(sha256(file)).toBe(before);
	});

	it("no version at all: treated as v1 (migrated in memory)", () => {
		const file = writeTempFile(jsonl([{ type: "session", id: "s0", timestamp: ts(0), cwd: "/p" }, ...v1Body]));
		const sm = SessionManager.open(file);
		expect(sm.getFileVersion()).toBe(1);
		expect(sm.needsUpgrade()).toBe(true);
		expect(JSON.stringify(sm.buildSessionContext())).toBe(piContext(file));
		sm.close();
	});
});

describe("paths that are not readable session files", () => {
	it("a directory: typed io/bad_file error naming it", () => {
		const dir = tempDir("arbor-dir");
		const o = tryOpen(dir);
		expect(o.kind, describeOutcome(o)).toBe("typed_error");
		if (o.kind === "typed_error") {
			expect(["io", "bad_file"]).toContain(o.err.code);
			expect(o.err.file).toBe(dir);
		}
	});

	it("a path under a regular file (ENOTDIR): typed io error naming it", () => {
		const file = writeTempFile(jsonl([header]), "plain.jsonl");
		const bogus = join(file, "child.jsonl");
		const o = tryOpen(bogus);
		expect(o.kind, describeOutcome(o)).toBe("typed_error");
		if (o.kind === "typed_error") expect(o.err).toMatchObject({ code: "io", file: bogus });
	});

	it("a dangling symlink: no crash, and opening does not create the link's target", () => {
		const dir = tempDir("arbor-link");
		const link = join(dir, "dangling.jsonl");
		const target = join(dir, "nowhere", "target.jsonl");
		symlinkSync(target, link);
		const o = tryOpen(link);
		expect(o.kind, describeOutcome(o)).not.toBe("other_error");
		if (o.kind === "typed_error") expect(o.err.file).toBe(link);
		expect(existsSync(target)).toBe(false);
	});

	it("a FIFO: typed error at once, not a blocked read (child-process probe)", () => {
		const dir = tempDir("arbor-fifo");
		const fifo = join(dir, "pipe.jsonl");
		execFileSync("mkfifo", [fifo]);
		const r = probe(fifo, "return 'opened';", 10_000);
		expect(r.outcome, `${JSON.stringify(r.detail)} ${r.stderr.slice(0, 300)}`).toBe("error");
		expect(r.detail).toMatchObject({ name: "SessionFileError", file: fifo });
	});
});

describe("scale without recursion", () => {
	it("a 100k-deep linear chain: getTree, getBranch, buildSessionContext, getSkeleton and createBranchedSession without stack overflow", () => {
		const N = 100_000;
		const parts: string[] = [line(header)];
		for (let i = 0; i < N; i++) parts.push(line(msg(`e${i}`, i === 0 ? null : `e${i - 1}`, i, i % 2 ? "a" : "q")));
		const file = writeTempFile(`${parts.join("\n")}\n`, "chain.jsonl");
		const before = sha256(file);
		const sm = SessionManager.open(file);
		expect(sm.getEntries().length).toBe(N);
		expect(sm.getLeafId()).toBe(`e${N - 1}`);
		expect(sm.getBranch().length).toBe(N);
		expect(sm.getBranch("e50000").length).toBe(50_001);
		expect(sm.buildSessionContext().messages.length).toBe(N);
		const roots = sm.getTree();
		expect(roots.length).toBe(1);
		let depth = 0;
		let node = roots[0];
		while (node) {
			depth++;
			node = node.children[0];
		}
		expect(depth).toBe(N);
		expect(sm.getSkeleton().count).toBe(N);
		expect(sha256(file)).toBe(before);
		const branched = sm.createBranchedSession(`e${N - 1}`) as string;
		const again = SessionManager.open(branched);
		expect(again.getBranch().length).toBe(N);
		expect(again.getHeader().parentSession).toBe(file);
		sm.close();
		again.close();
	});
});
