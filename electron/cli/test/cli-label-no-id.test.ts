// `arbor label` on an entry that has no id in the file (issue 39 item 2a): one line on stderr saying why (pi
// resolves a label by its target's id, and the entry has none), exit 2, the file byte for byte unchanged. An entry
// with an id in the same file still gets its label.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, copyFixture, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

const FIXTURE = "pi-doctor__pi-session-v3-without-ids.jsonl";

/** The ids `arbor tree --json` shows for every entry (Arbor's in-memory ids for the id-less ones). */
function treeIds(file: string): string[] {
	const out: string[] = [];
	const walk = (n: { id: string; children?: unknown[] }) => {
		out.push(n.id);
		for (const c of n.children ?? []) walk(c as { id: string; children?: unknown[] });
	};
	for (const root of (JSON.parse(arbor(["tree", file, "--filter", "all", "--json"]).stdout) as { roots: { id: string }[] }).roots) walk(root);
	return out;
}

/** stderr without the load warnings every command prints for such a file. */
const errorLines = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("arbor label:"));

describe("arbor label on an entry with no id in the file", () => {
	// In file order: Arbor's in-memory id names the line ("~arbor:no-id:LINE:N").
	const lineOf = (id: string) => Number(id.split(":")[2]);
	const ids = (() => {
		let cached: string[] | undefined;
		return () => (cached ??= treeIds(copyFixture(FIXTURE)).sort((a, b) => lineOf(a) - lineOf(b)));
	})();
	for (const [where, pick] of [
		["first", () => 0],
		["middle", (n: number) => Math.floor(n / 2)],
		["last", (n: number) => n - 1],
	] as const) {
		it(`the ${where} entry: one line saying why, exit 2, nothing written (also with --json and when clearing)`, () => {
			const all = ids();
			// The tree shows 10 of the 15 entries (tool-only turns are hidden): the first and last lines among them.
			expect([lineOf(all[0]), lineOf(all[all.length - 1])]).toEqual([2, 16]);
			const id = all[pick(all.length)];
			expect(id).toMatch(/^~arbor:no-id:/);
			const file = copyFixture(FIXTURE);
			const before = sha256(file);
			const r = arbor(["label", file, id, "keep"]);
			expect(r.status).toBe(2);
			expect(r.stdout).toBe("");
			expect(errorLines(r.stderr)).toEqual([
				`arbor label: ${file}: entry ${id} has no id in the file, so pi could not resolve a label on it; nothing was written`,
			]);
			expect(r.stderr).not.toMatch(/\n\s+at /);
			const cleared = arbor(["label", file, id]);
			expect(cleared.status).toBe(2);
			expect(errorLines(cleared.stderr)).toHaveLength(1);
			const json = arbor(["label", file, id, "keep", "--json"]);
			expect(json.status).toBe(2);
			expect(JSON.parse(json.stdout)).toEqual({
				error: `${file}: entry ${id} has no id in the file, so pi could not resolve a label on it; nothing was written`,
			});
			expect(sha256(file)).toBe(before);
		});
	}

	it("a file where some entries have ids: those are labelled, the id-less one is refused", () => {
		const file = join(tempDir(), "mixed.jsonl");
		const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
		const msg = (text: string, s: number) => ({ role: "user", content: [{ type: "text", text }], timestamp: s });
		const records = [
			{ type: "session", version: 3, id: "s1", timestamp: at(0), cwd: "/tmp" },
			{ type: "message", id: "u1", parentId: null, timestamp: at(1), message: msg("first", 1) },
			{ type: "message", parentId: "u1", timestamp: at(2), message: msg("second", 2) },
			{ type: "message", id: "u3", parentId: "u1", timestamp: at(3), message: msg("third", 3) },
		];
		writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join("\n")}\n`);
		const idLess = treeIds(file).filter((id) => id.startsWith("~arbor:no-id:"));
		expect(idLess).toHaveLength(1);
		const before = sha256(file);
		const refused = arbor(["label", file, idLess[0], "nope"]);
		expect(refused.status).toBe(2);
		expect(errorLines(refused.stderr)).toHaveLength(1);
		expect(sha256(file)).toBe(before);
		for (const id of ["u1", "u3"]) {
			const r = arbor(["label", file, id, `on ${id}`]);
			expect(r.status).toBe(0);
			const last = JSON.parse(readFileSync(file, "utf8").trimEnd().split("\n").at(-1) as string) as Record<string, unknown>;
			expect(last).toMatchObject({ type: "label", targetId: id, label: `on ${id}` });
		}
		expect(readFileSync(file, "utf8")).not.toContain("~arbor:");
	});
});
