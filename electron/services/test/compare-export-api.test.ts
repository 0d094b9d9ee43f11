// The compare / roll-up / export / pruned-copy / hide-branch requests through the real router and services on
// real files: params validated, results as the app uses them, the session file never touched.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRouter } from "../../api/router";
import { makeServices, readLines, type TestServices } from "./helpers/services";

const fixtures = path.resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions");
const sha = (f: string) => createHash("sha256").update(fs.readFileSync(f)).digest("hex");
let t: TestServices | undefined;
afterEach(() => t?.services.dispose());

async function setup() {
	t = makeServices();
	const file = path.join(t.dir, "s.jsonl");
	fs.copyFileSync(path.join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), file);
	const router = createRouter({ services: t.services as never, log: () => {} });
	await router.allowPath(file);
	const open = await router.handle("openSession", { path: file });
	if (!open.ok) throw new Error(open.error.message);
	return { router, file, sessionId: (open.result as { sessionId: string }).sessionId };
}

describe("compare / roll-ups / export through the router", () => {
	it("compareBranches: ancestor, sides, aligned prompts and the answer diff; bad params rejected", async () => {
		const { router, file, sessionId } = await setup();
		const before = sha(file);
		const r = await router.handle("compareBranches", { sessionId, a: "inactive-tool", b: "assistant-active" });
		expect(r.ok).toBe(true);
		const v = (r as { result: any }).result;
		expect(v.commonAncestorId).toBe("thinking-root");
		expect(v.rows[0].a.prompt).toBe("This abandoned branch must not become active chat.");
		expect(v.rows[0].b.prompt).toBe("Inspect the pinned Pi branch fixture.");
		expect(v.rows[1]).toMatchObject({ a: null, b: { prompt: "Continue from the compacted active branch." } });
		expect(v.finalAnswer.b.text).toContain("active branch closes");
		expect(v.answerDiff.some((p: any) => p.added)).toBe(true);
		expect(await router.handle("compareBranches", { sessionId, a: "inactive-tool" })).toMatchObject({ ok: false, error: { code: "bad_request" } });
		expect(await router.handle("compareBranches", { sessionId, a: "x", b: "inactive-tool" })).toMatchObject({ ok: false, error: { code: "not_found" } });
		expect(sha(file)).toBe(before);
	});

	it("getRollupCosts and getSubtreeStats", async () => {
		const { router, sessionId } = await setup();
		const c = await router.handle("getRollupCosts", { sessionId });
		expect(c.ok).toBe(true);
		const stats = await router.handle("getSubtreeStats", { sessionId, entryId: "thinking-root" });
		expect(stats).toMatchObject({ ok: true, result: { entries: 17, files: { read: expect.any(Array) } } });
	});

	it("exportBranch md/html/jsonl for a chosen leaf", async () => {
		const { router, sessionId } = await setup();
		const md = await router.handle("exportBranch", { sessionId, format: "md" });
		expect((md as any).result.text).toContain("Continue from the compacted active branch.");
		expect((md as any).result.fileName).toMatch(/^s\.unknown-active\.md$/);
		const html = await router.handle("exportBranch", { sessionId, format: "html", leafId: "inactive-tool" });
		expect((html as any).result.text).toContain("This abandoned branch must not become active chat.");
		expect((html as any).result.text).not.toContain("<script");
		const jsonl = await router.handle("exportBranch", { sessionId, format: "jsonl", leafId: "inactive-tool" });
		expect((jsonl as any).result.text.trim().split("\n")).toHaveLength(7);
		expect(await router.handle("exportBranch", { sessionId, format: "pdf" })).toMatchObject({ ok: false, error: { code: "bad_request" } });
	});

	it("savePrunedCopy writes a new openable file; the original is untouched", async () => {
		const { router, file, sessionId } = await setup();
		const before = sha(file);
		const r = await router.handle("savePrunedCopy", { sessionId, dropIds: ["inactive-user"] });
		expect(r.ok).toBe(true);
		const created = (r as any).result.path as string;
		expect(readLines(created).map((e) => e.id)).not.toContain("inactive-user");
		expect(sha(file)).toBe(before);
		expect(await router.handle("openSession", { path: created })).toMatchObject({ ok: true });
		expect(await router.handle("savePrunedCopy", { sessionId, dropIds: [] })).toMatchObject({ ok: false, error: { code: "bad_request" } });
	});

	it("hidden branches live in Arbor's settings file, never in the session file", async () => {
		const { router, file } = await setup();
		const before = sha(file);
		const r = await router.handle("setSettings", { settings: { hiddenBranches: { [file]: ["inactive-user", "inactive-user"] } } });
		expect(r).toMatchObject({ ok: true, result: { hiddenBranches: { [file]: ["inactive-user"] } } });
		const saved = JSON.parse(fs.readFileSync(path.join(t!.settingsDir, "settings.json"), "utf8"));
		expect(saved.hiddenBranches).toEqual({ [file]: ["inactive-user"] });
		expect(sha(file)).toBe(before);
	});
});
