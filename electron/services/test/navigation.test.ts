import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { assistant, branchySession, compaction, customMessage, tempDir, user, writeSession } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

async function open(entries = branchySession()): Promise<{ sessionId: string; file: string }> {
	t = makeServices();
	const file = writeSession(tempDir(), entries);
	const s = await t.services.openSession({ path: file });
	t.events.length = 0;
	return { sessionId: s.sessionId, file };
}

describe("navigation preview", () => {
	it("lists the abandoned path from the old leaf back to the common ancestor, oldest first", async () => {
		const { sessionId } = await open();
		const p = await t.services.previewNavigation({ sessionId, targetId: "a4" });
		expect(p).toMatchObject({
			targetId: "a4",
			oldLeafId: "a3",
			commonAncestorId: "a1",
			entriesToSummarize: ["u2", "a2", "t2", "a3"],
			newLeafId: "a4",
			isNoop: false,
		});
		expect(p.estimatedTokens).toBeGreaterThan(0);
	});

	it("puts the leaf on the parent of a selected user message and returns its text", async () => {
		const { sessionId } = await open();
		const p = await t.services.previewNavigation({ sessionId, targetId: "u3" });
		expect(p.newLeafId).toBe("a1");
		expect(p.editorText).toBe("Try another approach instead");
	});

	it("treats a custom_message like a user message, and a root one leaves no leaf", async () => {
		const { sessionId } = await open([
			customMessage("c1", null, "injected note"),
			...branchySession().map((e) => (e.id === "u1" ? { ...e, parentId: "c1" } : e)),
		]);
		const p = await t.services.previewNavigation({ sessionId, targetId: "c1" });
		expect(p.newLeafId).toBeNull();
		expect(p.editorText).toBe("injected note");
		expect(p.commonAncestorId).toBe("c1");
	});

	it("stops the abandoned path at a compaction (its summary stands for the older entries)", async () => {
		const entries = [
			user("u1", null, "start"),
			assistant("a1", "u1", "ok"),
			user("u2", "a1", "more"),
			assistant("a2", "u2", "done"),
			compaction("c1", "a2", "Summary of u2/a2", "u2"),
			user("u4", "c1", "after compaction"),
			assistant("a5", "u4", "reply"),
		];
		const { sessionId } = await open(entries);
		const p = await t.services.previewNavigation({ sessionId, targetId: "a1" });
		expect(p.commonAncestorId).toBe("a1");
		expect(p.entriesToSummarize).toEqual(["c1", "u4", "a5"]);
	});

	it("marks selecting the current leaf as a no-op", async () => {
		const { sessionId } = await open();
		expect((await t.services.previewNavigation({ sessionId, targetId: "a3" })).isNoop).toBe(true);
	});
});

describe("navigate without a summary", () => {
	it("moves the in-app leaf, writes nothing, and reports leaf_changed and session_tree", async () => {
		const { sessionId, file } = await open();
		const before = fs.readFileSync(file);
		const r = await t.services.navigate({ sessionId, targetId: "a4" });
		expect(r).toEqual({ cancelled: false, newLeafId: "a4", oldLeafId: "a3", via: "file" });
		expect(fs.readFileSync(file).equals(before)).toBe(true);
		expect(t.of("leaf_changed").at(-1)).toEqual({ type: "leaf_changed", sessionId, leafId: "a4", resumeLeafId: "a3" });
		expect(t.of("session_tree")).toEqual([{ type: "session_tree", sessionId, newLeafId: "a4", oldLeafId: "a3" }]);
	});

	it("returns the composer text when a user message is selected, and a root message resets the leaf", async () => {
		const { sessionId } = await open();
		const r = await t.services.navigate({ sessionId, targetId: "u1" });
		expect(r).toMatchObject({ cancelled: false, newLeafId: null, editorText: "Build the parser" });
		const ctx = await t.services.getContext({ sessionId, leafId: null });
		expect(ctx.messages).toEqual([]);
	});

	it("does nothing when the current leaf is selected", async () => {
		const { sessionId } = await open();
		const r = await t.services.navigate({ sessionId, targetId: "a3" });
		expect(r).toMatchObject({ cancelled: false, noop: true, newLeafId: "a3" });
		expect(t.events).toEqual([]);
	});

	it("labels the selected entry when there is no summary (pi's rule) and the label entry becomes the leaf", async () => {
		const { sessionId, file } = await open();
		const r = await t.services.navigate({ sessionId, targetId: "a4", label: "alt" });
		const last = readLines(file).at(-1);
		expect(last).toMatchObject({ type: "label", targetId: "a4", label: "alt", parentId: "a4" });
		expect(r.newLeafId).toBe(last?.id);
		expect(t.of("labels_changed")).toHaveLength(1);
		expect(t.of("session_appended")).toHaveLength(1);
	});

	it("fails with not_found for an unknown entry", async () => {
		const { sessionId } = await open();
		await expect(t.services.navigate({ sessionId, targetId: "nope" })).rejects.toMatchObject({ code: "not_found" });
	});

	it("fails with no_model at once when a summary is asked for and no model is configured; nothing changes", async () => {
		const { sessionId, file } = await open();
		const before = fs.readFileSync(file);
		await expect(t.services.navigate({ sessionId, targetId: "a4", summarize: true })).rejects.toMatchObject({
			code: "no_model",
			message: expect.stringContaining("No model"),
		});
		expect(fs.readFileSync(file).equals(before)).toBe(true);
		expect((await t.services.leafHistory({ sessionId, direction: "back" })).leafId).toBe("a3");
		expect(t.events.filter((e) => e.type !== "error")).toEqual([]);
	});
});

describe("context view", () => {
	it("pairs each context message with its entry id and a token estimate", async () => {
		const { sessionId } = await open();
		const v = await t.services.getContext({ sessionId, leafId: "a3" });
		expect(v.messages.map((m) => m.entryId)).toEqual(["u1", "a1", "u2", "a2", "t2", "a3"]);
		expect(v.messages[0]?.estimatedTokens).toBe(Math.ceil("Build the parser".length / 4));
		expect(v.totalEstimatedTokens).toBe(v.messages.reduce((n, m) => n + m.estimatedTokens, 0));
		expect(v.compactionId).toBeNull();
	});

	it("starts with the compaction summary and names the compaction", async () => {
		const entries = [
			user("u1", null, "start"),
			assistant("a1", "u1", "ok"),
			user("u2", "a1", "more"),
			assistant("a2", "u2", "done"),
			compaction("c1", "a2", "Summary", "u2"),
			user("u4", "c1", "after"),
		];
		const { sessionId } = await open(entries);
		const v = await t.services.getContext({ sessionId, leafId: "u4" });
		expect(v.compactionId).toBe("c1");
		expect(v.messages.map((m) => m.entryId)).toEqual(["c1", "u2", "a2", "u4"]);
		expect(v.messages[0]?.message.role).toBe("compactionSummary");
	});
});

describe("context view on real session files", () => {
	const fixtures = path.resolve(import.meta.dirname, "../../../../shared/fixtures/sessions");
	const files = fs.existsSync(fixtures) ? fs.readdirSync(fixtures).filter((f) => f.endsWith(".jsonl")) : [];

	it("finds the shared fixtures", () => {
		expect(files.length).toBeGreaterThan(3);
	});

	for (const name of files) {
		it(`attributes every context message to an entry: ${name}`, async () => {
			t = makeServices();
			const dir = tempDir();
			const file = path.join(dir, name);
			fs.copyFileSync(path.join(fixtures, name), file);
			const { sessionId } = await t.services.openSession({ path: file });
			const sk = await t.services.getSkeleton({ sessionId });
			const leafId = sk.leaf >= 0 ? (sk.ids[sk.leaf] as string) : null;
			const v = await t.services.getContext({ sessionId, leafId });
			expect(v.messages.every((m) => m.entryId !== null)).toBe(true);
			for (const m of v.messages) expect(sk.ids).toContain(m.entryId);
		});
	}
});

describe("reading", () => {
	it("passes search and previews through to the core by entry index", async () => {
		const { sessionId } = await open();
		const sk = await t.services.getSkeleton({ sessionId });
		const hits = await t.services.search({ sessionId, query: "tokenizer", scope: "pi" });
		expect(hits.map((i) => sk.ids[i])).toEqual(["u2"]);
		const full = await t.services.search({ sessionId, query: "src/b.ts", scope: "full" });
		expect(full.map((i) => sk.ids[i])).toContain("a3");
		const previews = await t.services.getPreviews({ sessionId, indices: [0, 4] });
		expect(previews).toEqual(["user: Build the parser", "user: Fix the tokenizer"]);
		expect(await t.services.getEntry({ sessionId, id: "a1" })).toMatchObject({ type: "message", message: { role: "assistant" } });
		await expect(t.services.getEntry({ sessionId, id: "zz" })).rejects.toMatchObject({ code: "not_found" });
	});
});

describe("searching a big session", () => {
	it("keeps answering other requests while a first query runs, and a newer query supersedes an older one", async () => {
		t = makeServices({ sliceMs: 0 });
		const entries = [user("u0", null, "start")];
		for (let i = 1; i < 3000; i++)
			entries.push(
				i % 2 ? assistant(`a${i}`, entries[i - 1]!.id as string, `answer ${i} about the parser`) : user(`u${i}`, entries[i - 1]!.id as string, `question ${i}`),
			);
		const file = writeSession(tempDir(), entries);
		const { sessionId } = await t.services.openSession({ path: file });
		const order: string[] = [];
		const first = t.services.search({ sessionId, query: "parser", scope: "full" }).then(
			(r) => order.push(`first:${r.length}`),
			(e: { code?: string }) => order.push(`first:${e.code}`),
		);
		const entry = t.services.getEntry({ sessionId, id: "u2" }).then(() => order.push("getEntry"));
		await entry;
		const second = t.services.search({ sessionId, query: "question", scope: "full" }).then((r) => order.push(`second:${r.length}`));
		await Promise.all([first, second]);
		// The entry was answered while the first search was still running; the first search then gave way.
		expect(order).toEqual(["getEntry", "first:cancelled", "second:1499"]);
		expect(await t.services.search({ sessionId, query: "parser", scope: "full" })).toHaveLength(1500);
	});

	it("the Branches panel's filter and the toolbar's search do not stop each other: only the same asker's newer query supersedes", async () => {
		t = makeServices({ sliceMs: 0 });
		const entries = [user("u0", null, "start")];
		for (let i = 1; i < 3000; i++)
			entries.push(
				i % 2 ? assistant(`a${i}`, entries[i - 1]!.id as string, `answer ${i} about the parser`) : user(`u${i}`, entries[i - 1]!.id as string, `question ${i}`),
			);
		const order: string[] = [];
		const note = (name: string) => [(r: number[]) => order.push(`${name}:${r.length}`), (e: { code?: string }) => order.push(`${name}:${e.code}`)] as const;
		// Each case on a session whose first query still has the whole file to read.
		const open = async () => (await t.services.openSession({ path: writeSession(tempDir(), entries) })).sessionId;
		const a = await open();
		const toolbar = t.services.search({ sessionId: a, query: "parser", scope: "full" }).then(...note("toolbar"));
		const branches = t.services.search({ sessionId: a, query: "question", scope: "pi", by: "branches" }).then(...note("branches"));
		await Promise.all([toolbar, branches]);
		expect(order.sort()).toEqual(["branches:1499", "toolbar:1500"]);
		// A newer filter text supersedes the older one.
		order.length = 0;
		const b = await open();
		const older = t.services.search({ sessionId: b, query: "answer", scope: "pi", by: "branches" }).then(...note("older"));
		const newer = t.services.search({ sessionId: b, query: "start", scope: "pi", by: "branches" }).then(...note("newer"));
		await Promise.all([older, newer]);
		expect(order).toEqual(["older:cancelled", "newer:1"]);
	});
});
