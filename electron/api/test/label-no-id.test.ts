// A label on an entry that has no id in the file (issue 39 item 2a): pi resolves a label by its target's id, so
// Arbor's in-memory id ("~arbor:no-id:…") must never reach the file. The request is refused with the typed code
// `no_entry_id` naming the file (the fuzzer counted the untyped Error it was before as a crash), and the file
// stays byte for byte the same. Entries that do have an id in the same file still label as usual.
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { user } from "../../services/test/helpers/entries";
import { makeServices, readLines, type TestServices } from "../../services/test/helpers/services";
import { createRouter } from "../router";

const fixture = path.resolve(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "sessions", "pi-doctor__pi-session-v3-without-ids.jsonl");
const sha = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

let t: TestServices | undefined;
afterEach(() => t?.services.dispose());

async function openThroughRouter(file: string) {
	t = makeServices();
	const router = createRouter({ services: t.services as never, log: () => {} });
	await router.allowPath(file);
	const open = await router.handle("openSession", { path: file });
	if (!open.ok) throw new Error(open.error.message);
	const { sessionId } = open.result as { sessionId: string };
	const sk = await router.handle("getSkeleton", { sessionId });
	if (!sk.ok) throw new Error(sk.error.message);
	return { router, sessionId, ids: (sk.result as { ids: string[] }).ids };
}

describe("a label on an entry with no id in the file", () => {
	const positions: [string, (n: number) => number][] = [
		["first", () => 0],
		["middle", (n) => Math.floor(n / 2)],
		["last", (n) => n - 1],
	];
	for (const [where, pick] of positions) {
		for (const label of ["keep", null]) {
			it(`the ${where} id-less entry of a v3 file without ids: ${label === null ? "clearing" : "setting"} is refused as no_entry_id, nothing written`, async () => {
				const file = path.join(fs.mkdtempSync(path.join(fs.realpathSync("/tmp"), "arbor-noid-")), "s.jsonl");
				fs.copyFileSync(fixture, file);
				const before = sha(file);
				const { router, sessionId, ids } = await openThroughRouter(file);
				expect(ids.length).toBe(15);
				const entryId = ids[pick(ids.length)];
				expect(entryId).toMatch(/^~arbor:no-id:/);
				const r = await router.handle("setLabel", { sessionId, entryId, label });
				expect(r.ok).toBe(false);
				const error = (r as { error: { code: string; file?: string; message: string } }).error;
				expect(error.code).toBe("no_entry_id");
				expect(error.file).toBe(file);
				expect(error.message).toBe(`${file}: entry ${entryId} has no id in the file, so pi could not resolve a label on it; nothing was written`);
				expect(error.message).not.toContain("\n");
				expect(sha(file)).toBe(before);
				expect(t?.of("labels_changed")).toEqual([]);
			});
		}
	}

	it("in a file where only some entries have ids, those label as usual and the id-less ones are refused", async () => {
		const dir = fs.mkdtempSync(path.join(fs.realpathSync("/tmp"), "arbor-noid-"));
		const file = path.join(dir, "mixed.jsonl");
		const header = { type: "session", version: 3, id: "s1", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp" };
		const noId = (text: string, parentId: string) => {
			const { id: _id, ...rest } = user("x", parentId, text);
			return rest;
		};
		const records = [header, user("u1", null, "first"), noId("second", "u1"), user("u3", "u1", "third"), noId("fourth", "u3"), user("u5", "u3", "fifth")];
		fs.writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
		const { router, sessionId, ids } = await openThroughRouter(file);
		expect(ids.filter((id) => id.startsWith("~arbor:no-id:"))).toHaveLength(2);
		for (const id of ["u1", "u3", "u5"]) {
			const size = fs.statSync(file).size;
			const r = await router.handle("setLabel", { sessionId, entryId: id, label: `on ${id}` });
			expect(r.ok).toBe(true);
			expect(fs.statSync(file).size).toBeGreaterThan(size);
			expect(readLines(file).at(-1)).toMatchObject({ type: "label", targetId: id, label: `on ${id}` });
		}
		for (const id of ids.filter((i) => i.startsWith("~arbor:no-id:"))) {
			const before = sha(file);
			const r = await router.handle("setLabel", { sessionId, entryId: id, label: "nope" });
			expect(r.ok).toBe(false);
			expect((r as { error: { code: string } }).error.code).toBe("no_entry_id");
			expect(sha(file)).toBe(before);
		}
		expect(fs.readFileSync(file, "utf8")).not.toContain("~arbor:");
	});
});
