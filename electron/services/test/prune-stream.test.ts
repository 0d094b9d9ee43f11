// The pruned copy through the real router and services (issue #23 item 5): an incomplete last line is left
// out and reported, and the copy runs in slices with progress, so the host answers other requests meanwhile.
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRouter } from "../../api/router";
import { makeServices, type TestServices } from "./helpers/services";

const fixtures = path.resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions");
const gen = path.resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "tools", "gen-session.mjs");
let t: TestServices | undefined;
afterEach(() => t?.services.dispose());

async function open(file: string, sliceMs?: number) {
	t = makeServices(sliceMs === undefined ? {} : { sliceMs });
	const router = createRouter({ services: t.services as never, log: () => {} });
	await router.allowPath(file);
	const r = await router.handle("openSession", { path: file });
	if (!r.ok) throw new Error(r.error.message);
	return { router, sessionId: (r.result as { sessionId: string }).sessionId };
}

describe("savePrunedCopy", () => {
	it("leaves an incomplete last line out of the copy and reports its size; the source is untouched", async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-prune-torn-"));
		const file = path.join(dir, "s.jsonl");
		const torn = '{"type":"message","id":"torn-tail","parentId":"unknown-active","message":{"role":"user","content":"hal';
		fs.writeFileSync(file, fs.readFileSync(path.join(fixtures, "formic__pi-v3-branch-compaction.jsonl"), "utf8") + torn);
		const before = fs.readFileSync(file);
		const { router, sessionId } = await open(file);
		const r = await router.handle("savePrunedCopy", { sessionId, dropIds: ["inactive-user"] });
		if (!r.ok) throw new Error(r.error.message);
		const result = r.result as { path: string; kept: number; dropped: number; tornTailBytes: number };
		expect(result.tornTailBytes).toBe(Buffer.byteLength(torn));
		const text = fs.readFileSync(result.path, "utf8");
		expect(text).not.toContain("torn-tail");
		expect(text.endsWith("\n")).toBe(true);
		for (const line of text.split("\n").filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
		expect(fs.readFileSync(file).equals(before)).toBe(true);
	});

	it("runs in slices with progress: another request is answered before the copy is done", async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-prune-slices-"));
		const file = path.join(dir, "g.jsonl");
		// A few MB: several read chunks, so several slices.
		execFileSync(process.execPath, [gen, "--n", "3000", "--seed", "prune-slices", "--out", file]);
		const lines = fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
		const dropId = (JSON.parse(lines[lines.length - 10]) as { id: string }).id;
		const { router, sessionId } = await open(file, 0);
		const order: string[] = [];
		const prune = router.handle("savePrunedCopy", { sessionId, dropIds: [dropId] }).then((r) => (order.push("prune"), r));
		// When the other answer arrives, the copy must still be in progress: not yet published in the folder.
		let copiesWhenAnswered = -1;
		const other = router.handle("getSkeleton", { sessionId }).then((r) => {
			order.push("other");
			copiesWhenAnswered = fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl") && f !== "g.jsonl").length;
			return r;
		});
		const [p, o] = await Promise.all([prune, other]);
		expect(p.ok && o.ok).toBe(true);
		expect(order).toEqual(["other", "prune"]);
		expect(copiesWhenAnswered).toBe(0);
		const progress = (t as TestServices).of("progress").filter((e) => e.task === "pruned copy");
		expect(progress.length).toBeGreaterThan(1);
		expect(progress.some((e) => e.done < e.total)).toBe(true);
		expect(progress.at(-1)).toMatchObject({ sessionId });
		expect(progress.at(-1)?.done).toBe(progress.at(-1)?.total);
		const copy = fs
			.readFileSync((p as { result: { path: string } }).result.path, "utf8")
			.split("\n")
			.filter(Boolean);
		expect(copy.some((l) => l.includes(`"id":"${dropId}"`))).toBe(false);
		expect(copy.length).toBeGreaterThan(lines.length - 20);
	});
});
