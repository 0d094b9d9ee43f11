// Files Arbor writes must load in pi with the same tree and context: appends of every kind, labels,
// branch summaries, createBranchedSession outputs, upgraded legacy files, appends after another writer.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { afterAll, describe, expect, it } from "vitest";
import { SessionFileError, SessionManager } from "../index";
import { cleanupTempDirs, copyFixture, copyToTemp, jsonl, sha256, tempDir, writeTempFile } from "./helpers/files";
import { generatedSession } from "./helpers/gen";
import { assistantMessage, userMessage } from "./helpers/messages";
import { idOf } from "./helpers/shapes";
import { compareSessions, type SessionLike, samplePoints } from "./helpers/snapshot";
import { PI_REFERENCES, Pi16SessionManager } from "./helpers/pi16";

afterAll(cleanupTempDirs);

/**
 * Load `file` (a copy of it: pi may rewrite) in pi 1.6.0 and in pi 0.73.1 and compare each with Arbor's
 * in-memory state. The contexts agree with both where the file holds nothing only 1.6 knows.
 */
function piAgrees(arbor: SessionManager, file: string, versions: readonly string[] = ["pi 1.6.0", "pi 0.73.1"]): string[] {
	const out: string[] = [];
	for (const [name, Pi] of PI_REFERENCES) {
		if (!versions.includes(name)) continue;
		const pi = Pi.open(copyToTemp(file, "pi-reload"));
		const sample = samplePoints(pi.getEntries(), 40);
		for (const d of compareSessions(arbor as unknown as SessionLike, pi as unknown as SessionLike, { byId: true, sample })) out.push(`${name}: ${d}`);
	}
	return out;
}

/** Every byte after `prefix` is whole JSON lines, each ending in "\n". */
function appendedLines(file: string, prefix: Buffer): unknown[] {
	const now = readFileSync(file);
	expect(now.subarray(0, prefix.length).equals(prefix), "original bytes are a prefix (append-only)").toBe(true);
	const tail = now.subarray(prefix.length).toString("utf8");
	expect(tail.endsWith("\n"), "file ends with a newline").toBe(true);
	return tail
		.split("\n")
		.filter((l) => l.length > 0)
		.map((l) => JSON.parse(l) as unknown);
}

describe("appends Arbor writes load in pi with the same state", () => {
	it("every append kind (message, model, thinking, custom, custom_message, label set/clear, session_info, compaction, branch summary, new root)", () => {
		const file = copyToTemp(generatedSession({ n: 2000, seed: 1, customMessages: 0.3 }), "arbor");
		const original = readFileSync(file);
		const arbor = SessionManager.open(file);
		const entries = arbor.getEntries();
		const earlyId = idOf(entries[100]) as string;
		const midId = idOf(entries[1500]) as string;

		arbor.appendModelChange("anthropic", "claude-appended");
		arbor.appendThinkingLevelChange("high");
		const u = arbor.appendMessage(userMessage("appended question"));
		arbor.appendMessage(assistantMessage("appended answer"));
		arbor.appendCustomEntry("arbor-test", { a: 1 });
		arbor.appendCustomMessageEntry("ext", "string content", true, { d: 1 });
		arbor.appendCustomMessageEntry("ext-blocks", [{ type: "text", text: "block content" }], false);
		arbor.appendLabelChange(u, "mark");
		arbor.appendLabelChange(midId, "temporary");
		arbor.appendLabelChange(midId, undefined);
		arbor.appendSessionInfo("  Appended title  ");
		arbor.appendCompaction("compacted by test", u, 12345, { readFiles: ["a.ts"], modifiedFiles: [] });
		const left = arbor.appendMessage(userMessage("after compaction"));
		const summaryId = arbor.branchWithSummary(earlyId, "summary of the abandoned branch", { note: "x" }, true);
		arbor.appendMessage(userMessage("on the summarised branch"));
		arbor.branch(midId);
		arbor.appendMessage(userMessage("plain branch from mid"));
		arbor.resetLeaf();
		arbor.appendMessage(userMessage("a second root"));
		const rootSummary = arbor.branchWithSummary(null, "summary from root");

		// pi 1.6 (0.84.3): fromId is the leaf left behind, no longer the destination.
		expect(arbor.getEntry(summaryId)).toMatchObject({ type: "branch_summary", parentId: earlyId, fromId: left, summary: "summary of the abandoned branch" });
		expect(arbor.getEntry(rootSummary)).toMatchObject({ type: "branch_summary", parentId: null });
		expect((arbor.getEntry(rootSummary) as { fromId: string }).fromId).not.toBe("root");
		expect(arbor.getLabel(u)).toBe("mark");
		expect(arbor.getLabel(midId)).toBeUndefined();

		const lines = appendedLines(file, original);
		expect(lines.length).toBe(arbor.getEntries().length - entries.length);
		expect(piAgrees(arbor, file)).toEqual([]);
		// And Arbor itself, reopened, sees what it had in memory.
		const again = SessionManager.open(file);
		const sample = samplePoints(again.getEntries(), 40);
		expect(compareSessions(again as unknown as SessionLike, arbor as unknown as SessionLike, { byId: true, sample })).toEqual([]);
		arbor.close();
		again.close();
	});

	it("an append to a file without a final newline (kuato fixture) starts a new line, so pi keeps the entry", () => {
		const file = copyFixture("kuato__pi-session-orphan-no-eol.jsonl", "arbor");
		const original = readFileSync(file);
		expect(original[original.length - 1]).not.toBe(0x0a);
		const arbor = SessionManager.open(file);
		const id = arbor.appendMessage(userMessage("after a missing newline"));
		const lines = appendedLines(file, original);
		// The first appended "line" is the empty remainder of the old last line: only the new entry parses.
		expect(lines.map(idOf)).toEqual([id]);
		const pi = PiSessionManager.open(copyToTemp(file, "pi"));
		expect(pi.getEntry(id)).toBeDefined();
		expect(pi.getLeafId()).toBe(id);
		expect(piAgrees(arbor, file)).toEqual([]);
		arbor.close();
	});

	it("after another writer (pi) appended, Arbor catches up, parents its entry on its own leaf, and pi sees both branches", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl", "shared-file");
		const arbor = SessionManager.open(file);
		const arborLeaf = arbor.getLeafId();
		const pi = PiSessionManager.open(file); // same path: pi appends to the very file Arbor has open
		const piUser = pi.appendMessage(userMessage("written by pi") as never);
		const piAssistant = pi.appendMessage(assistantMessage("answered by pi") as never);
		const mine = arbor.appendMessage(userMessage("written by arbor"));
		expect(arbor.getEntry(piUser)).toBeDefined();
		expect(arbor.getEntry(piAssistant)).toBeDefined();
		expect(arbor.getEntry(mine)).toMatchObject({ parentId: arborLeaf });
		expect(piAgrees(arbor, file)).toEqual([]);
		const fresh = PiSessionManager.open(copyToTemp(file, "pi"));
		expect(fresh.getChildren(arborLeaf as string).map(idOf)).toEqual([piUser, mine]);
		arbor.close();
	});

	it("catchUp() reports entries appended by another process and indexes them", () => {
		const file = copyFixture("kimchi-dev__statsuline.v3.jsonl", "shared-file");
		const arbor = SessionManager.open(file);
		expect(arbor.catchUp()).toEqual({ kind: "none" });
		const pi = PiSessionManager.open(file);
		pi.appendMessage(userMessage("one") as never);
		pi.appendMessage(assistantMessage("two") as never);
		expect(arbor.catchUp()).toEqual({ kind: "appended", count: 2 });
		expect(piAgrees(arbor, file)).toEqual([]);
		arbor.close();
	});
});

describe("entries Arbor writes are byte-identical to pi's (ids and timestamps aside)", () => {
	interface Writer {
		appendMessage(m: unknown): string;
		appendModelChange(p: string, m: string): string;
		appendThinkingLevelChange(l: string): string;
		appendCustomEntry(t: string, d?: unknown): string;
		appendCustomMessageEntry(t: string, c: unknown, display: boolean, details?: unknown): string;
		appendLabelChange(id: string, l: string | undefined): string;
		appendSessionInfo(n: string): string;
		appendCompaction(s: string, first: string | undefined, tokens: number, details?: unknown, fromHook?: boolean, usage?: unknown): string;
		branchWithSummary(id: string | null, s: string, details?: unknown, fromHook?: boolean, usage?: unknown): string;
		branch(id: string): void;
		resetLeaf(): void;
		getLeafId(): string | null;
	}

	/** The same calls on either implementation; returns the ids it created, in order. */
	function script(w: Writer): string[] {
		const ids: string[] = [];
		const start = w.getLeafId() as string;
		ids.push(w.appendModelChange("anthropic", "claude-x"));
		ids.push(w.appendThinkingLevelChange("high"));
		const u = w.appendMessage(userMessage("same question", 1));
		ids.push(u);
		ids.push(w.appendMessage(assistantMessage("same answer", "claude-test", 2)));
		ids.push(w.appendCustomEntry("state", { a: 1 }));
		ids.push(w.appendCustomEntry("no-data"));
		ids.push(w.appendCustomMessageEntry("ext", "text", true));
		ids.push(w.appendCustomMessageEntry("ext", [{ type: "text", text: "blocks" }], false, { d: 1 }));
		ids.push(w.appendLabelChange(u, "mark"));
		ids.push(w.appendLabelChange(u, undefined));
		ids.push(w.appendLabelChange(u, ""));
		ids.push(w.appendSessionInfo("  spaced name  "));
		ids.push(w.appendSessionInfo("two\r\nlines\n\nname"));
		ids.push(w.appendCompaction("summary", u, 1234));
		ids.push(w.appendCompaction("summary 2", u, 99, { readFiles: ["x"] }, true));
		// pi 1.6: keep nothing (firstKeptEntryId = own id), the systemMessage checkpoint, usage.
		ids.push(
			w.appendMessage({
				role: "system",
				content: "prompt",
				sections: { a: "<a/>", b: "<b/>" },
				toolsAdded: [{ name: "read", description: "r", parameters: {} }],
				timestamp: 5,
			}),
		);
		ids.push(
			w.appendMessage({
				role: "system",
				content: "",
				sections: { a: null, c: "<c/>" },
				toolsRemoved: [{ name: "read" }],
				toolsAdded: [{ name: "bash", description: "b", parameters: {} }],
				timestamp: 6,
			}),
		);
		ids.push(w.appendCompaction("keep nothing", undefined, 77, undefined, undefined, { input: 1, output: 2, totalTokens: 3 }));
		ids.push(w.branchWithSummary(start, "plain summary"));
		ids.push(w.branchWithSummary(u, "summary with details", { note: 1 }, true, { input: 5, output: 6, totalTokens: 11 }));
		w.branch(start);
		ids.push(w.appendMessage(userMessage("on a branch", 3)));
		w.resetLeaf();
		ids.push(w.appendMessage(userMessage("new root", 4)));
		ids.push(w.branchWithSummary(null, "from the root"));
		return ids;
	}

	/** Appended lines with the created ids numbered and entry timestamps masked. */
	function canonicalTail(file: string, prefix: Buffer, created: string[]): string[] {
		const names = new Map(created.map((id, i) => [id, `#new${i}`]));
		return readFileSync(file)
			.subarray(prefix.length)
			.toString("utf8")
			.split("\n")
			.filter((l) => l.length > 0)
			.map((l) =>
				JSON.stringify(JSON.parse(l), (k, v: unknown) =>
					typeof v === "string" && names.has(v)
						? names.get(v)
						: k === "timestamp" && typeof v === "string"
							? "<ts>"
							: k === "timestamp" && typeof v === "number" && v > 1e12
								? "<ms>"
								: v,
				),
			);
	}

	it("every append kind, key order and absent optional keys included (as pi 1.6.0 writes them)", () => {
		const source = copyFixture("kimchi-dev__statsuline.v3.jsonl", "src");
		const prefix = readFileSync(source);
		const arborFile = copyToTemp(source, "arbor");
		const piFile = copyToTemp(source, "pi");
		const arbor = SessionManager.open(arborFile);
		const pi = Pi16SessionManager.open(piFile);
		const a = canonicalTail(arborFile, prefix, script(arbor as unknown as Writer));
		const p = canonicalTail(piFile, prefix, script(pi as unknown as Writer));
		expect(a.length).toBe(p.length);
		for (let i = 0; i < p.length; i++) expect(a[i], `appended line ${i + 1}`).toBe(p[i]);
		arbor.close();
	});
});

describe("createBranchedSession writes what pi writes when pi is right (no label entry on the path)", () => {
	it("same entries, same re-created label entries (order, parents, original timestamps), header fields as pi", () => {
		const h = { type: "session", version: 3, id: "src", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/proj" };
		const t = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
		const m = (id: string, parentId: string | null, s: number, role = "user") =>
			role === "user"
				? { type: "message", id, parentId, timestamp: t(s), message: { role: "user", content: id, timestamp: s } }
				: { type: "message", id, parentId, timestamp: t(s), message: { ...assistantMessage(id, "m", s) } };
		const lbl = (id: string, parentId: string, target: string, label: string, s: number) => ({
			type: "label",
			id,
			parentId,
			timestamp: t(s),
			targetId: target,
			label,
		});
		// Labels live on a side branch; the path a-b-c-d has none of them as entries.
		const bytes = jsonl([
			h,
			m("a", null, 1),
			m("b", "a", 2, "assistant"),
			m("c", "b", 3),
			m("d", "c", 4, "assistant"),
			m("side", "a", 5),
			lbl("l1", "side", "c", "third", 6),
			lbl("l2", "l1", "a", "first", 7),
			lbl("l3", "l2", "side", "off-path", 8),
			lbl("l4", "l3", "c", "third again", 9),
		]);
		const arborSrc = writeTempFile(bytes, "src.jsonl", "arbor");
		const piSrc = writeTempFile(bytes, "src.jsonl", "pi");
		const arborOut = SessionManager.open(arborSrc).createBranchedSession("d") as string;
		const piOut = PiSessionManager.open(piSrc).createBranchedSession("d") as string;
		const read = (f: string) =>
			readFileSync(f, "utf8")
				.trimEnd()
				.split("\n")
				.map((l) => JSON.parse(l) as Record<string, unknown>);
		const a = read(arborOut);
		const p = read(piOut);
		expect(Object.keys(a[0])).toEqual(Object.keys(p[0]).filter((k) => p[0][k] !== undefined));
		expect({ ...a[0], id: "", timestamp: "", parentSession: "" }).toEqual({ ...p[0], id: "", timestamp: "", parentSession: "" });
		expect(a[0].parentSession).toBe(arborSrc);
		const canon = (rows: Record<string, unknown>[]) => {
			const known = new Set(["a", "b", "c", "d", "side", "l1", "l2", "l3", "l4"]);
			const fresh = new Map<string, string>();
			return rows.slice(1).map((r) =>
				JSON.stringify(r, (k, v: unknown) => {
					if ((k === "id" || k === "parentId") && typeof v === "string" && !known.has(v)) {
						if (!fresh.has(v)) fresh.set(v, `#new${fresh.size}`);
						return fresh.get(v);
					}
					return v;
				}),
			);
		};
		expect(canon(a)).toEqual(canon(p));
	});
});

describe("createBranchedSession output loads in pi with the full path", () => {
	it("fixture with a label mid-path: new file in the same dir, parentSession, no orphan, pi context equals the source path's context", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl", "arbor");
		const before = sha256(file);
		const arbor = SessionManager.open(file);
		const expectedContext = JSON.stringify(arbor.buildSessionContext("unknown-active"));
		const newPath = arbor.createBranchedSession("unknown-active") as string;
		expect(typeof newPath).toBe("string");
		expect(dirname(newPath)).toBe(dirname(resolve(file)));
		expect(arbor.getSessionFile()).toBe(newPath);
		expect(sha256(file)).toBe(before);

		const text = readFileSync(newPath, "utf8");
		expect(text.endsWith("\n")).toBe(true);
		const records = text
			.trimEnd()
			.split("\n")
			.map((l) => JSON.parse(l) as Record<string, unknown>);
		expect(records[0]).toMatchObject({ type: "session", version: 3, parentSession: resolve(file), cwd: "/tmp/formic-pi-fixture/project" });
		expect(records[0].id).not.toBe("pi.native_2026-08-20");

		const pi = PiSessionManager.open(copyToTemp(newPath, "pi"));
		expect(pi.getTree().length, "one root: nothing orphaned").toBe(1);
		expect(JSON.stringify(pi.buildSessionContext())).toBe(expectedContext);
		expect(pi.getLabel("assistant-active")).toBe("accepted");
		expect(piAgrees(arbor, newPath)).toEqual([]);
		arbor.close();
	});

	it("generated session: branching at a deep entry with labels on its path keeps every non-label entry and every label", () => {
		const file = copyToTemp(generatedSession({ n: 2000, seed: 1, customMessages: 0.3 }), "arbor");
		const arbor = SessionManager.open(file);
		const entries = arbor.getEntries();
		// The deepest entry whose path contains a label entry (the case where pi orphans history).
		let best: { id: string; depth: number } | undefined;
		for (const e of entries) {
			const id = idOf(e);
			if (id === undefined) continue;
			const path = arbor.getBranch(id);
			if (path.slice(0, -1).some((p) => (p as { type: string }).type === "label") && (!best || path.length > best.depth)) best = { id, depth: path.length };
		}
		expect(best, "the generated session has a label mid-path").toBeDefined();
		const target = (best as { id: string }).id;
		const path = arbor.getBranch(target);
		const expectedContext = JSON.stringify(arbor.buildSessionContext(target));
		const labelled = path.map(idOf).filter((id): id is string => id !== undefined && arbor.getLabel(id) !== undefined);
		const labels = labelled.map((id) => [id, arbor.getLabel(id)]);
		const newPath = arbor.createBranchedSession(target) as string;

		const pi = PiSessionManager.open(copyToTemp(newPath, "pi"));
		const kept = path.filter((p) => (p as { type: string }).type !== "label").map(idOf);
		expect(pi.getEntries().slice(0, kept.length).map(idOf)).toEqual(kept);
		expect(pi.getTree().length, "one root: nothing orphaned").toBe(1);
		expect(JSON.stringify(pi.buildSessionContext())).toBe(expectedContext);
		expect(labelled.map((id) => [id, pi.getLabel(id)])).toEqual(labels);
		expect(piAgrees(arbor, newPath)).toEqual([]);
		arbor.close();
	});

	it("in memory: createBranchedSession replaces the entries with the path and returns undefined", () => {
		const sm = SessionManager.inMemory("/tmp/project");
		const a = sm.appendMessage(userMessage("q1"));
		sm.appendMessage(assistantMessage("a1"));
		sm.appendLabelChange(a, "first");
		const b = sm.appendMessage(userMessage("q2"));
		sm.branch(a);
		sm.appendMessage(userMessage("side"));
		expect(sm.createBranchedSession(b)).toBeUndefined();
		expect(sm.getTree().length).toBe(1);
		expect(sm.getBranch(b).map(idOf)).toEqual(sm.getEntries().slice(0, 3).map(idOf));
		expect(sm.getLabel(a)).toBe("first");
		expect(sm.isPersisted()).toBe(false);
		expect(sm.getSessionFile()).toBeUndefined();
	});
});

describe("legacy files: never rewritten silently; upgraded files load in pi unchanged", () => {
	for (const name of ["pi-mono__large-session.v1.jsonl", "formic__pi-v2-hook-message.jsonl"]) {
		it(`${name}: first write throws legacy_needs_upgrade; upgradeLegacy keeps a .bak; pi then opens the file without rewriting it and agrees`, () => {
			const file = copyFixture(name, "arbor");
			const before = sha256(file);
			const arbor = SessionManager.open(file);
			expect(arbor.needsUpgrade()).toBe(true);
			let err: unknown;
			try {
				arbor.appendMessage(userMessage("too early"));
			} catch (e) {
				err = e;
			}
			expect(err).toBeInstanceOf(SessionFileError);
			expect((err as SessionFileError).code).toBe("legacy_needs_upgrade");
			expect((err as SessionFileError).file).toBe(resolve(file));
			expect(sha256(file)).toBe(before);

			const bak = arbor.upgradeLegacy();
			expect(sha256(bak)).toBe(before);
			expect(arbor.needsUpgrade()).toBe(false);
			expect(arbor.getFileVersion()).toBe(3);
			const upgraded = sha256(file);
			const piCopy = copyToTemp(file, "pi");
			const pi = PiSessionManager.open(piCopy);
			expect(sha256(piCopy), "pi found nothing to migrate").toBe(upgraded);
			const sample = samplePoints(pi.getEntries(), 40);
			expect(compareSessions(arbor as unknown as SessionLike, pi as unknown as SessionLike, { byId: true, sample })).toEqual([]);

			arbor.appendMessage(userMessage("after upgrade"));
			expect(piAgrees(arbor, file)).toEqual([]);
			arbor.close();
		});
	}
});

describe("new sessions Arbor creates load in pi", () => {
	it("create(cwd, dir): pi-style file name, v3 header with cwd, pi reads the same context", () => {
		const dir = tempDir("arbor-create");
		const sm = SessionManager.create("/work/project", dir);
		expect(sm.isPersisted()).toBe(true);
		sm.appendModelChange("anthropic", "claude-test");
		sm.appendMessage(userMessage("hello"));
		sm.appendMessage(assistantMessage("hi"));
		const file = sm.getSessionFile() as string;
		expect(dirname(file)).toBe(resolve(dir));
		expect(file.split("/").pop()).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/);
		const header = JSON.parse(readFileSync(file, "utf8").split("\n")[0]) as Record<string, unknown>;
		expect(header).toMatchObject({ type: "session", version: 3, id: sm.getSessionId(), cwd: "/work/project" });
		expect(file).toContain(sm.getSessionId());
		expect(piAgrees(sm, file)).toEqual([]);
		sm.close();
	});
});

describe("createBranchedSession on a compaction whose firstKeptEntryId names a label (pi 1.6.0 remaps it)", () => {
	it("the branch file keeps from the entry after the dropped label, as pi 1.6.0's does; both reload with the same context", () => {
		const h = { type: "session", version: 3, id: "src", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/proj" };
		const t = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();
		const u = (id: string, parentId: string | null, s: number) => ({
			type: "message",
			id,
			parentId,
			timestamp: t(s),
			message: { role: "user", content: id, timestamp: s },
		});
		const bytes = jsonl([
			h,
			u("a", null, 1),
			{ type: "label", id: "l1", parentId: "a", timestamp: t(2), targetId: "a", label: "start" },
			u("b", "l1", 3),
			u("c", "b", 4),
			{ type: "compaction", id: "k", parentId: "c", timestamp: t(5), summary: "S", firstKeptEntryId: "l1", tokensBefore: 5 },
			u("d", "k", 6),
		]);
		const arborOut = SessionManager.open(writeTempFile(bytes, "src.jsonl", "arbor")).createBranchedSession("d") as string;
		const piOut = Pi16SessionManager.open(writeTempFile(bytes, "src.jsonl", "pi")).createBranchedSession("d") as string;
		const compactionOf = (f: string) =>
			readFileSync(f, "utf8")
				.split("\n")
				.filter(Boolean)
				.map((l) => JSON.parse(l) as Record<string, unknown>)
				.find((e) => e.type === "compaction");
		expect(compactionOf(arborOut)?.firstKeptEntryId).toBe("b");
		expect(compactionOf(piOut)?.firstKeptEntryId).toBe("b");
		const a = JSON.stringify(SessionManager.open(arborOut).buildSessionContext());
		expect(a).toBe(JSON.stringify(Pi16SessionManager.open(copyToTemp(piOut, "pi-reload")).buildSessionContext()));
		expect(a).toContain('"content":"b"');
	});
});
