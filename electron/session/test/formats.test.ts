// The session-format seam (formats/format.ts, docs/formats.md): detection from the first bytes, lineage, the
// context rules each format names, and a read-only foreign format end to end through SessionManager — a toy
// format written here whose records have no ids (each hangs under the previous one, a "back" record starts a
// branch, a "pair" record holds two turns), read eagerly and lazily (the lazy re-read maps the line again
// through toEntry), followed while it grows, and refused on every write path with `read_only_format`.

import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SessionEntry } from "../../../shared/entries";
import { EntryKind } from "../../../shared/skeleton";
import {
	agentNameOf,
	contextRuleIds,
	detectFormat,
	lineageOf,
	SessionFileError,
	SessionManager,
	type IndexRow,
	type RecordReader,
	type SessionFormat,
} from "../index";
import { cleanupTempDirs, tempDir } from "./helpers/files";

afterAll(cleanupTempDirs);

function file(name: string, text: string): string {
	const p = join(tempDir(), name);
	writeFileSync(p, text);
	return p;
}

const probe = (path: string, text: string) => ({ path, head: Buffer.from(text) });
const line = (o: unknown) => `${JSON.stringify(o)}\n`;

describe("detectFormat", () => {
	const header = { type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" };
	it("reads pi's header as pi, and omp's title slot or an omp-only header field as omp", () => {
		expect(detectFormat(probe("/x/a.jsonl", line(header))).id).toBe("pi");
		expect(detectFormat(probe("/x/a.jsonl", line({ ...header, parentSession: "/x/p.jsonl" }))).id).toBe("pi");
		expect(detectFormat(probe("/x/a.jsonl", line({ type: "title", v: 1, title: "t", updatedAt: "", pad: "" }) + line(header))).id).toBe("omp");
		for (const field of ["title", "titleSource", "additionalDirectories", "previousSessionFiles", "providerPromptCacheKey"]) {
			expect(detectFormat(probe("/x/a.jsonl", line({ ...header, [field]: "x" }))).id, field).toBe("omp");
		}
	});
	it("falls back to pi for what no format claims: empty, blank, not JSON, a cut first line", () => {
		for (const text of ["", "\n\n", "not json\n", '{"type":"session","id":"s"', "[1,2]\n"]) {
			expect(detectFormat(probe("/x/a.jsonl", text)).id, JSON.stringify(text)).toBe("pi");
		}
	});
});

describe("lineageOf", () => {
	it("names the parent file pi's header names (parentSession, else the older branchedFrom), nothing for empty or odd values", () => {
		expect(lineageOf({ type: "session", parentSession: "/a.jsonl" })).toEqual({ file: "/a.jsonl" });
		expect(lineageOf({ type: "session", branchedFrom: "/b.jsonl" })).toEqual({ file: "/b.jsonl" });
		expect(lineageOf({ type: "session", parentSession: "/a.jsonl", branchedFrom: "/b.jsonl" })).toEqual({ file: "/a.jsonl" });
		expect(lineageOf({ type: "session", parentSession: "", branchedFrom: "/b.jsonl" })).toEqual({ file: "/b.jsonl" });
		expect(lineageOf({ type: "session", parentSession: 7 })).toBeUndefined();
		expect(lineageOf({ type: "session" })).toBeUndefined();
		expect(lineageOf(undefined)).toBeUndefined();
	});
	it("adds omp's earlier paths of a moved file, strings only", () => {
		expect(lineageOf({ type: "session", previousSessionFiles: ["/old.jsonl", 3] })).toEqual({ previousFiles: ["/old.jsonl"] });
		expect(lineageOf({ type: "session", parentSession: "/a.jsonl", previousSessionFiles: [] })).toEqual({ file: "/a.jsonl" });
	});
});

describe("the registry's names", () => {
	it("context rules are pi's and omp's; agents are shown by name", () => {
		expect(contextRuleIds()).toEqual(["pi", "omp"]);
		expect(agentNameOf("omp")).toBe("oh-my-pi");
		expect(agentNameOf("pi")).toBe("pi");
		expect(agentNameOf("other")).toBe("other");
	});
});

// ---------------------------------------------------------------- a toy read-only format

interface ToyRecord {
	t: "say" | "pair" | "back" | "meta";
	who?: string;
	text?: string;
	texts?: string[];
	at?: string;
}

/**
 * Parent = the previous turn; a "back" record makes the next turn a sibling of the turn before the previous one.
 * `skims`: it also indexes lines from their bytes (rows only: bodies stay on disk and are mapped when read).
 */
class ToyReader implements RecordReader {
	skim?: RecordReader["skim"];
	constructor(skims: boolean) {
		if (skims) this.skim = (buf, s, e, at) => this.read(JSON.parse(buf.toString("utf8", s, e)) as Record<string, unknown>, at);
	}
	#trail: string[] = [];
	read(raw: Record<string, unknown>, at: { lineNo: number }): IndexRow[] {
		const r = raw as unknown as ToyRecord;
		if (r.t === "meta") return [];
		if (r.t === "back") {
			this.#trail.pop();
			return [];
		}
		const texts = r.t === "pair" ? (r.texts ?? []) : [r.text ?? ""];
		return texts.map((_, part) => {
			const id = `toy-${at.lineNo}-${part}`;
			const parentId = this.#trail.at(-1) ?? null;
			this.#trail.push(id);
			return { id, parentId, kind: r.who === "bot" ? EntryKind.assistant : EntryKind.user, flags: 0, tokens: 0, cost: 0, time: Date.parse(r.at ?? ""), part };
		});
	}
}

let mapped = 0;
const toyFormat = (skims: boolean): SessionFormat => ({
	id: "toy",
	agentName: "Toy Agent",
	writable: false,
	detect: (p) => p.path.endsWith(".toy"),
	sessionRoots: () => [],
	isSessionFile: (f) => f.endsWith(".toy"),
	newReader: () => new ToyReader(skims),
	toEntry(raw, row): SessionEntry {
		mapped++;
		const r = raw as unknown as ToyRecord;
		const text = r.t === "pair" ? (r.texts ?? [])[row.part] : r.text;
		const role = r.who === "bot" ? "assistant" : "user";
		return {
			type: "message",
			id: row.id,
			parentId: row.parentId,
			timestamp: r.at ?? "",
			message: { role, content: [{ type: "text", text: text ?? "" }] },
		} as SessionEntry;
	},
	lineage: () => undefined,
	resumeRow: (ix) => ix.count - 1,
});
const toy = toyFormat(false);

const TOY = [
	{ t: "meta", text: "bookkeeping" },
	{ t: "say", who: "me", text: "hello", at: "2026-01-01T00:00:01.000Z" },
	{ t: "say", who: "bot", text: "hi", at: "2026-01-01T00:00:02.000Z" },
	{ t: "back" },
	{ t: "pair", who: "bot", texts: ["again", "and again"], at: "2026-01-01T00:00:03.000Z" },
]
	.map(line)
	.join("");

const textOf = (e: SessionEntry | undefined) => ((e as { message?: { content?: { text?: string }[] } })?.message?.content?.[0]?.text ?? null) as string | null;

describe("a read-only foreign format through SessionManager", () => {
	for (const [lazy, skims] of [
		[false, false],
		[true, false],
		[true, true],
	]) {
		it(`indexes its rows and maps its entries (${lazy ? "lazy" : "eager"}${skims ? ", skimmed: bodies re-read from their lines through toEntry" : ""})`, () => {
			const p = file("s.toy", TOY);
			const sm = SessionManager.open(p, { lazy, format: toyFormat(skims) });
			mapped = 0;
			try {
				if (skims) {
					// Nothing mapped at open; the first read of an entry reads its line back and maps that row.
					expect(textOf(sm.getEntry("toy-5-1"))).toBe("and again");
					expect(mapped).toBe(1);
				}
				expect(sm.getFormat().id).toBe("toy");
				const sk = sm.getSkeleton();
				expect(sk.ids).toEqual(["toy-2-0", "toy-3-0", "toy-5-0", "toy-5-1"]);
				expect(Array.from(sk.kind)).toEqual([EntryKind.user, EntryKind.assistant, EntryKind.assistant, EntryKind.assistant]);
				// "back" dropped "hi": "again" hangs under "hello" next to it, "and again" under "again".
				expect(sm.getEntry("toy-5-0")?.parentId).toBe("toy-2-0");
				expect(sm.getEntry("toy-5-1")?.parentId).toBe("toy-5-0");
				expect(sm.getBranch("toy-5-1").map((e) => textOf(e))).toEqual(["hello", "again", "and again"]);
				expect(textOf(sm.getEntry("toy-3-0"))).toBe("hi");
				expect(sm.getResumeLeafId()).toBe("toy-5-1");
				expect(sm.getHeader().type).toBe("session");
				expect(sm.getWarnings()).toEqual([]);
			} finally {
				sm.close();
			}
		});
	}

	it("follows the file as its agent appends, continuing the reader's state", () => {
		const p = file("s.toy", TOY);
		const sm = SessionManager.open(p, { lazy: true, format: toy });
		try {
			appendFileSync(p, line({ t: "say", who: "me", text: "more", at: "2026-01-01T00:00:04.000Z" }));
			expect(sm.catchUp()).toMatchObject({ kind: "appended", count: 1 });
			expect(sm.getEntry("toy-6-0")?.parentId).toBe("toy-5-1");
			expect(textOf(sm.getEntry("toy-6-0"))).toBe("more");
			expect(sm.getResumeLeafId()).toBe("toy-6-0");
		} finally {
			sm.close();
		}
	});

	it("refuses every write with read_only_format naming the agent, and leaves the file as it was", () => {
		const p = file("s.toy", TOY);
		const before = readFileSync(p);
		const sm = SessionManager.open(p, { format: toy });
		try {
			const writes: [string, () => unknown][] = [
				["appendMessage", () => sm.appendMessage({ role: "user", content: "x", timestamp: 1 } as never)],
				["appendLabelChange", () => sm.appendLabelChange("toy-2-0", "l")],
				["appendCustomEntry", () => sm.appendCustomEntry("arbor.position", {})],
				["createBranchedSession", () => sm.createBranchedSession("toy-3-0")],
			];
			for (const [name, write] of writes) {
				let err: unknown;
				try {
					write();
				} catch (e) {
					err = e;
				}
				expect(err, name).toBeInstanceOf(SessionFileError);
				expect((err as SessionFileError).code, name).toBe("read_only_format");
				expect((err as Error).message, name).toContain("Toy Agent");
			}
			expect(readFileSync(p).equals(before)).toBe(true);
		} finally {
			sm.close();
		}
	});

	it("a pi file keeps reading as pi: the detected format, writable", () => {
		const p = file("a.jsonl", line({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" }));
		const sm = SessionManager.open(p);
		try {
			expect(sm.getFormat().id).toBe("pi");
			expect(sm.getFormat().writable).toBe(true);
			sm.appendMessage({ role: "user", content: "x", timestamp: 1 } as never);
			expect(readFileSync(p, "utf8").split("\n").length).toBe(3);
		} finally {
			sm.close();
		}
	});
});
