import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { branchySession, tempDir, writeSession } from "./helpers/entries";
import { makeServices, readLines, type TestServices } from "./helpers/services";

let t: TestServices;
afterEach(() => t?.services.dispose());

/** Services with the given extension files in ~/.arbor/extensions, and the branchy session open. */
async function withExtensions(files: Record<string, string>, opts: { extensionTimeoutMs?: number } = {}): Promise<{ sessionId: string; file: string }> {
	const base = tempDir("arbor-ext-home-");
	const extDir = path.join(base, "arbor", "extensions");
	fs.mkdirSync(extDir, { recursive: true });
	for (const [name, src] of Object.entries(files)) fs.writeFileSync(path.join(extDir, name), src);
	t = makeServices({ settingsDir: path.join(base, "arbor"), ...opts });
	const file = writeSession(tempDir(), branchySession());
	const s = await t.services.openSession({ path: file });
	t.events.length = 0;
	return { sessionId: s.sessionId, file };
}

describe("extensions in the navigation flow", () => {
	it("a session_before_tree handler can cancel: nothing changes", async () => {
		const { sessionId, file } = await withExtensions({
			"guard.js": `export default function (pi) { pi.on("session_before_tree", async () => ({ cancel: true })); }`,
		});
		const before = fs.readFileSync(file);
		const r = await t.services.navigate({ sessionId, targetId: "a4" });
		expect(r).toMatchObject({ cancelled: true, reason: "cancelled by an extension", newLeafId: "a3" });
		expect(fs.readFileSync(file).equals(before)).toBe(true);
		expect(t.of("leaf_changed")).toEqual([]);
	});

	it("a TypeScript extension can supply the summary (no model needed); it sees pi's TreePreparation", async () => {
		const { sessionId, file } = await withExtensions({
			"summarizer.ts": `
import type { SessionEntry } from "@mariozechner/pi-coding-agent";
interface Prep { targetId: string; oldLeafId: string | null; commonAncestorId: string | null; entriesToSummarize: SessionEntry[]; userWantsSummary: boolean }
export default function (pi: { on(e: string, h: (event: { preparation: Prep; signal: AbortSignal }, ctx: { cwd: string }) => unknown): void }) {
	pi.on("session_before_tree", async (event, ctx) => {
		const p = event.preparation;
		const ids = p.entriesToSummarize.map((e) => e.id).join(",");
		return { summary: { summary: "ext: " + ids + " from " + p.oldLeafId + " to " + p.targetId + " via " + p.commonAncestorId + " in " + ctx.cwd + " wants=" + p.userWantsSummary + " signal=" + (event.signal instanceof AbortSignal), details: { custom: true } } };
	});
}`,
		});
		const r = await t.services.navigate({ sessionId, targetId: "a4", summarize: true });
		const summary = readLines(file).find((l) => l.type === "branch_summary");
		expect(summary).toMatchObject({
			summary: "ext: u2,a2,t2,a3 from a3 to a4 via a1 in /work/project wants=true signal=true",
			details: { custom: true },
			fromHook: true,
		});
		expect(r.summaryEntryId).toBe(summary?.id);
		expect(t.of("session_tree").at(-1)).toMatchObject({ fromExtension: true, summaryEntryId: summary?.id });
	});

	it("a session_before_tree handler can override the label", async () => {
		const { sessionId, file } = await withExtensions({
			"labeller.js": `export default (pi) => pi.on("session_before_tree", (e) => ({ label: "via-" + e.preparation.label }));`,
		});
		await t.services.navigate({ sessionId, targetId: "a4", label: "user" });
		expect(readLines(file).at(-1)).toMatchObject({ type: "label", targetId: "a4", label: "via-user" });
	});

	it("session_tree handlers see the new leaf and the summary entry", async () => {
		const { sessionId } = await withExtensions({
			"a.js": `export default (pi) => pi.on("session_before_tree", () => ({ summary: { summary: "S" } }));`,
			"b.js": `export default (pi) => pi.on("session_tree", (e) => { globalThis.__arborTree = { newLeafId: e.newLeafId, oldLeafId: e.oldLeafId, type: e.summaryEntry && e.summaryEntry.type, fromExtension: e.fromExtension }; });`,
		});
		const r = await t.services.navigate({ sessionId, targetId: "a4", summarize: true });
		expect((globalThis as { __arborTree?: unknown }).__arborTree).toEqual({
			newLeafId: r.newLeafId,
			oldLeafId: "a3",
			type: "branch_summary",
			fromExtension: true,
		});
	});

	it("a throwing handler and a hanging handler are reported as errors and the navigation goes on", async () => {
		const { sessionId } = await withExtensions(
			{
				"boom.js": `export default (pi) => pi.on("session_before_tree", () => { throw new Error("kaboom"); });`,
				"stuck.js": `export default (pi) => pi.on("session_before_tree", () => new Promise(() => {}));`,
			},
			{ extensionTimeoutMs: 150 },
		);
		const r = await t.services.navigate({ sessionId, targetId: "a4" });
		expect(r).toMatchObject({ cancelled: false, newLeafId: "a4" });
		const errors = t.of("error").map((e) => e.error);
		expect(errors.map((e) => e.code)).toEqual(["extension_error", "extension_error"]);
		expect(errors[0]?.message).toContain("kaboom");
		expect(errors[1]?.message).toContain("150 ms");
	});

	it("a session_before_branch handler can cancel /branch", async () => {
		const { sessionId, file } = await withExtensions({
			"nobranch.js": `export default (pi) => pi.on("session_before_branch", (e) => e.entryId === "u2" ? { cancel: true } : undefined);`,
		});
		const r = await t.services.branchToFile({ sessionId, entryId: "u2" });
		expect(r).toEqual({ cancelled: true, path: null, editorText: "Fix the tokenizer", session: null, via: "file" });
		expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
	});

	it("pi 0.5x+ extensions listening to session_before_fork are asked too", async () => {
		const { sessionId } = await withExtensions({
			"nofork.js": `export default (pi) => pi.on("session_before_fork", (e) => ({ cancel: e.position === "before" }));`,
		});
		expect((await t.services.branchToFile({ sessionId, entryId: "u2" })).cancelled).toBe(true);
	});
});

describe("extension commands", () => {
	it("lists registered commands and runs them with a command context that can navigate, branch and write", async () => {
		const { sessionId, file } = await withExtensions({
			"cmds.ts": `
export default function (pi: any) {
	pi.registerCommand("jump", {
		description: "Go to an entry with a summary",
		handler: async (args: string, ctx: any) => {
			const r = await ctx.navigateTree(args || ctx.entryId, { summarize: true });
			pi.appendEntry("jumped", { to: args || ctx.entryId, cancelled: r.cancelled, leaf: ctx.sessionManager.getLeafId() });
		},
	});
	pi.registerCommand("fork-here", { description: "Branch to a new file", handler: async (_a: string, ctx: any) => { await ctx.branch(ctx.entryId); } });
	pi.registerCommand("fail", { description: "Always fails", handler: async () => { throw new Error("nope"); } });
	pi.on("session_before_tree", () => ({ summary: { summary: "by command" } }));
}`,
		});
		expect(await t.services.listCommands({})).toEqual([
			{ name: "jump", description: "Go to an entry with a summary", extension: "cmds.ts" },
			{ name: "fork-here", description: "Branch to a new file", extension: "cmds.ts" },
			{ name: "fail", description: "Always fails", extension: "cmds.ts" },
		]);
		await t.services.runExtensionCommand({ sessionId, name: "jump", entryId: "a4" });
		const lines = readLines(file);
		expect(lines.find((l) => l.type === "branch_summary")).toMatchObject({ summary: "by command", parentId: "a4" });
		expect(lines.at(-1)).toMatchObject({ type: "custom", customType: "jumped", data: { to: "a4", cancelled: false } });
		await t.services.runExtensionCommand({ sessionId, name: "/fork-here", entryId: "u2" });
		expect(t.of("session_branch")).toHaveLength(1);
		await expect(t.services.runExtensionCommand({ sessionId, name: "fail" })).rejects.toMatchObject({
			code: "extension_error",
			message: expect.stringContaining("nope"),
		});
		await expect(t.services.runExtensionCommand({ sessionId, name: "missing" })).rejects.toMatchObject({ code: "not_found" });
	});
});

describe("pi's own example extensions run unchanged", () => {
	const examples = path.resolve(import.meta.dirname, "../../../node_modules/@mariozechner/pi-coding-agent/examples/extensions");

	it("bookmark.ts: /bookmark labels the last assistant message, /unbookmark clears it", async () => {
		t = makeServices({ extensionPaths: [path.join(examples, "bookmark.ts")] });
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		expect((await t.services.listCommands({})).map((c) => c.name)).toEqual(["bookmark", "unbookmark"]);
		await t.services.runExtensionCommand({ sessionId, name: "bookmark", args: "parser done" });
		expect(readLines(file).at(-1)).toMatchObject({ type: "label", targetId: "a3", label: "parser done" });
		expect(t.of("notice").at(-1)).toMatchObject({ sessionId, level: "info", message: "Bookmarked as: parser done" });
		expect(t.of("labels_changed")).toHaveLength(1);
		await t.services.runExtensionCommand({ sessionId, name: "unbookmark" });
		expect(readLines(file).at(-1)).toMatchObject({ type: "label", targetId: "a3" });
		expect(readLines(file).at(-1)).not.toHaveProperty("label");
	});

	it("confirm-destructive.ts loads and, with no terminal UI to ask in, lets /branch through", async () => {
		t = makeServices({ extensionPaths: [path.join(examples, "confirm-destructive.ts")] });
		const file = writeSession(tempDir(), branchySession());
		const { sessionId } = await t.services.openSession({ path: file });
		const r = await t.services.branchToFile({ sessionId, entryId: "u2" });
		expect(r.cancelled).toBe(false);
		expect(t.of("error")).toEqual([]);
	});
});

describe("extensions cannot damage the session through what they are given", () => {
	it("editing the preparation's entries or the read-only session's entries changes nothing in Arbor", async () => {
		const { sessionId, file } = await withExtensions({
			"vandal.js": `export default (pi) => pi.on("session_before_tree", (event, ctx) => {
				for (const e of event.preparation.entriesToSummarize) { if (e.message) e.message.content = "HACKED"; e.parentId = "nowhere"; }
				const u = ctx.sessionManager.getEntry("u1"); u.message.content = "HACKED"; u.id = "zzz";
				ctx.sessionManager.getEntries().forEach((e) => { e.type = "bogus"; });
			});`,
		});
		const before = fs.readFileSync(file);
		await t.services.navigate({ sessionId, targetId: "a4" });
		expect(fs.readFileSync(file).equals(before)).toBe(true);
		expect(await t.services.getEntry({ sessionId, id: "u2" })).toMatchObject({
			parentId: "a1",
			message: { content: [{ type: "text", text: "Fix the tokenizer" }] },
		});
		expect(await t.services.getEntry({ sessionId, id: "u1" })).toMatchObject({ type: "message", id: "u1" });
		expect((await t.services.getContext({ sessionId, leafId: "a3" })).messages.map((m) => m.entryId)).toEqual(["u1", "a1", "u2", "a2", "t2", "a3"]);
	});
});

describe("extension failures outside handlers", () => {
	it("a module that fails to load is reported as an extension_error event naming the file", async () => {
		const base = tempDir("arbor-ext-home-");
		fs.mkdirSync(path.join(base, "extensions"), { recursive: true });
		fs.writeFileSync(
			path.join(base, "extensions", "broken.ts"),
			`export default function (pi: any) { pi.on("session_tree", () => {}); }\nthis is not typescript(`,
		);
		t = makeServices({ settingsDir: base });
		await t.services.listCommands({});
		const errors = t.of("error");
		expect(errors).toHaveLength(1);
		expect(errors[0]?.error).toMatchObject({ code: "extension_error", file: expect.stringContaining("broken.ts") });
	});

	it("a command that never finishes fails its request after the command timeout", async () => {
		const base = tempDir("arbor-ext-home-");
		fs.mkdirSync(path.join(base, "extensions"), { recursive: true });
		fs.writeFileSync(path.join(base, "extensions", "slow.js"), `export default (pi) => pi.registerCommand("slow", { handler: () => new Promise(() => {}) });`);
		t = makeServices({ settingsDir: base, commandTimeoutMs: 150 });
		const s = t.services.openInMemory("/tmp");
		await expect(t.services.runExtensionCommand({ sessionId: s.sessionId, name: "slow" })).rejects.toMatchObject({
			code: "extension_error",
			message: expect.stringContaining("150 ms"),
		});
	});
});
