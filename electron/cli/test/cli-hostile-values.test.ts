import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, sha256, tempDir } from "./helpers";

// JSON.parse accepts a 20,000-deep array, but String() and JSON.stringify of it overflow the stack. A
// session file may hold one wherever a string belongs; every reading command must still answer.
const deep = (n: number): string => "[".repeat(n) + "]".repeat(n);
const header = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/" });
const first = '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"x"}}';
const hostile: Record<string, string> = {
	role: `{"type":"message","id":"z","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":${deep(20000)},"content":"x"}}`,
	type: `{"type":${deep(20000)},"id":"z","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z"}`,
	timestamp: `{"type":"message","id":"z","parentId":"a","timestamp":${deep(20000)},"message":{"role":"user","content":"q"}}`,
	content: `{"type":"message","id":"z","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":${deep(20000)}}}`,
	label: `{"type":"label","id":"z","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","targetId":"a","label":${deep(20000)}}`,
	parentId: `{"type":"message","id":"z","parentId":${deep(20000)},"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"y"}}`,
	id: `{"type":"message","id":${deep(20000)},"parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"y"}}`,
};

describe("reading commands on values nested 20,000 deep", () => {
	beforeAll(() => buildCli());
	for (const [field, line] of Object.entries(hostile)) {
		it(`answer (exit 0) when the ${field} field is a 20,000-deep array, and leave the file unchanged`, () => {
			const file = join(tempDir(), "deep.jsonl");
			writeFileSync(file, `${[header, first, line].join("\n")}\n`);
			const before = sha256(file);
			for (const args of [["info"], ["tree"], ["tree", "--json"], ["tree", "--filter", "all", "--search", "x"], ["context"], ["context", "--json"]]) {
				const r = arbor([args[0], file, ...args.slice(1)]);
				expect(r.stderr, `${args.join(" ")}`).not.toMatch(/internal error/);
				expect(r.status, `${args.join(" ")}: ${r.stderr}`).toBe(0);
			}
			expect(sha256(file)).toBe(before);
		});
	}
});
