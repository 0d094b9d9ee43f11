// The reliability harness's own rules: a harness that cannot see a violation would print zeros forever.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateCorpus, MUTATIONS, makeRng } from "../fuzz-gen.mjs";
import { appendOnlyViolation } from "../util.mjs";
import { describeViewDiff } from "../concurrency.mjs";

const B = (s: string) => Buffer.from(s);

describe("appendOnlyViolation", () => {
	const before = B('{"type":"session","id":"s"}\n{"type":"message","id":"a"}\n');
	it("accepts whole appended JSON lines", () => {
		expect(appendOnlyViolation(before, Buffer.concat([before, B('{"id":"b"}\n{"id":"c"}\n')]))).toBeNull();
	});
	it("flags a partial last line", () => {
		expect(appendOnlyViolation(before, Buffer.concat([before, B('{"id":"b"}\n{"id":')]))).toMatch(/partial/);
	});
	it("flags a changed existing byte", () => {
		const after = Buffer.concat([before, B('{"id":"b"}\n')]);
		after[3] = 0x41;
		expect(appendOnlyViolation(before, after)).toMatch(/changed/);
	});
	it("flags a line glued onto an unterminated last line", () => {
		const open = B('{"type":"session","id":"s"}\n{"id":"a"}');
		expect(appendOnlyViolation(open, Buffer.concat([open, B('{"id":"b"}\n')]))).toMatch(/glued/);
		expect(appendOnlyViolation(open, Buffer.concat([open, B('\n{"id":"b"}\n')]))).toBeNull();
	});
	it("flags a shrunk file and a non-object line", () => {
		expect(appendOnlyViolation(before, before.subarray(0, 5))).toMatch(/shrank/);
		expect(appendOnlyViolation(before, Buffer.concat([before, B("[1,2]\n")]))).toMatch(/not a JSON object/);
	});
});

describe("fuzz corpus", () => {
	it("is the same for the same seed and different for another", () => {
		const a = mkdtempSync(join(tmpdir(), "arbor-fz-a-"));
		const b = mkdtempSync(join(tmpdir(), "arbor-fz-b-"));
		const c = mkdtempSync(join(tmpdir(), "arbor-fz-c-"));
		generateCorpus({ seed: "t", count: 12, outDir: a, tinyLines: 100, hugeMiB: 1 });
		generateCorpus({ seed: "t", count: 12, outDir: b, tinyLines: 100, hugeMiB: 1 });
		generateCorpus({ seed: "u", count: 12, outDir: c, tinyLines: 100, hugeMiB: 1 });
		const bytes = (d: string) =>
			readdirSync(d)
				.sort()
				.map((f) => readFileSync(join(d, f)).toString("base64"))
				.join("|");
		expect(bytes(a)).toBe(bytes(b));
		expect(bytes(a)).not.toBe(bytes(c));
	});
	it("really mutates: truncation shortens, gluing removes newlines, BOM prefixes, cycles loop", () => {
		const src = B('{"type":"session","version":3,"id":"s"}\n{"type":"message","id":"a","parentId":null}\n{"type":"message","id":"b","parentId":"a"}\n');
		const r = makeRng("m");
		expect(MUTATIONS.truncate(src, r).length).toBeLessThanOrEqual(src.length);
		expect(MUTATIONS.bom(src).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
		const glued = MUTATIONS.glueLines(src, makeRng("g"));
		expect(glued.toString().split("\n").length).toBeLessThan(src.toString().split("\n").length);
		const cyc = MUTATIONS.cycles(src, makeRng("c"))
			.toString()
			.split("\n")
			.filter(Boolean)
			.map((l) => JSON.parse(l));
		const byId = new Map(cyc.filter((o) => o.type !== "session").map((o) => [o.id, o]));
		const loops = [...byId.values()].some((e) => {
			const seen = new Set();
			for (let x = e; x; x = byId.get(x.parentId)) {
				if (seen.has(x.id)) return true;
				seen.add(x.id);
			}
			return false;
		});
		expect(loops).toBe(true);
	});
});

describe("describeViewDiff (what the concurrency figure prints when the live view drifts)", () => {
	const view = (ids: string[], parents: (string | null)[], labels: [string, string][] = [], leaf = ids.at(-1) ?? null) => ({
		ids,
		parents,
		labels,
		leaf,
		resumeLeaf: ids.at(-1) ?? null,
	});
	it("names the first differing entry with its parent in each view, and both leaves", () => {
		const live = view(["a", "b", "c"], [null, "a", null]);
		const reload = view(["a", "b", "c"], [null, "a", "b"]);
		const text = describeViewDiff(live, reload);
		expect(text).toContain("first differing entry #2: live c (parent null), reload c (parent b)");
		expect(text).toContain("leaf live c, reload c");
	});
	it("a live view that is behind: the missing entry, the counts, a label and the leaves", () => {
		const text = describeViewDiff(view(["a", "b"], [null, "a"], [["a", "x"]]), view(["a", "b", "c"], [null, "a", "b"], [["a", "y"]]));
		expect(text).toContain("live (none) (parent null), reload c (parent b)");
		expect(text).toContain("entries live 2, reload 3");
		expect(text).toContain('first on a: live "x", reload "y"');
		expect(text).toContain("leaf live b, reload c");
	});
});
