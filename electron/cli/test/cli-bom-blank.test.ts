// One rule for a UTF-8 byte-order mark, in the core, the app's services and the CLI: pi 1.6 reads no
// session header behind it (JSON.parse rejects U+FEFF) and refuses the file, so Arbor shows the file
// read-only, never writes to it and never strips a byte. Files of lone CRs or NUL bytes say what they hold.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { SessionManager } from "../../session/index";
import { arbor, buildCli, repo, tempDir } from "./helpers";

const header = '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n';
const entry = '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}\n';
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

// eslint-disable-next-line arbor/layers -- pi 1.6's dist/core by path (its exports map hides it)
const pi16 = (await import(join(repo, "node_modules/@earendil-works/pi-coding-agent/dist/core/session-manager.js"))) as {
	SessionManager: { open(path: string, dir?: string): unknown };
};

beforeAll(() => buildCli());

describe("a file that starts with a UTF-8 BOM", () => {
	it("pi 1.6 refuses it without changing it: the rule Arbor follows", () => {
		const f = join(tempDir(), "bom.jsonl");
		writeFileSync(f, Buffer.concat([BOM, Buffer.from(header + entry)]));
		expect(() => pi16.SessionManager.open(f, tempDir())).toThrow(/not a valid/);
	});

	it("the core shows its entries read-only in both loading modes, refuses every write and keeps every byte", () => {
		const f = join(tempDir(), "bom.jsonl");
		const bytes = Buffer.concat([BOM, Buffer.from(header + entry)]);
		writeFileSync(f, bytes);
		for (const lazy of [false, true]) {
			const sm = SessionManager.open(f, { lazy });
			expect(sm.getEntries().map((e) => e.id)).toEqual(["a"]);
			expect(sm.getWarnings()).toEqual([expect.objectContaining({ kind: "bad_header", line: 1, message: expect.stringMatching(/byte-order mark/) })]);
			expect(() => sm.appendLabelChange("a", "x")).toThrow(/byte-order mark/);
			expect(() => sm.appendMessage({ role: "user", content: "x", timestamp: 1 })).toThrow(/byte-order mark/);
		}
		expect(readFileSync(f).equals(bytes)).toBe(true);
	});

	it("the CLI says the same for reading and writing commands (exit 2), and the file is unchanged", () => {
		const f = join(tempDir(), "bom.jsonl");
		const bytes = Buffer.concat([BOM, Buffer.from(header + entry)]);
		writeFileSync(f, bytes);
		for (const args of [
			["info", f],
			["tree", f],
			["context", f],
			["label", f, "a", "x"],
		]) {
			const r = arbor(args);
			expect(r.status, args.join(" ")).toBe(2);
			expect(r.stderr, args.join(" ")).toMatch(/byte-order mark/);
		}
		expect(readFileSync(f).equals(bytes)).toBe(true);
	});
});

describe("files without a record say what they hold", () => {
	const cases: [string, Buffer, RegExp][] = [
		["lone CRs", Buffer.from("\r\r\r"), /only carriage returns \(3 CR\) and no line feed/],
		["NUL bytes", Buffer.alloc(4096), /only NUL bytes \(4096\)/],
		["NUL bytes and newlines", Buffer.from("\0\0\0\n\0"), /only NUL bytes \(4, with line feeds\)/],
		["blank lines", Buffer.from("\n \n\t\n"), /only blank lines/],
	];
	for (const [what, bytes, message] of cases) {
		it(`${what}: the core's first warning and the CLI both name it`, () => {
			const f = join(tempDir(), "odd.jsonl");
			writeFileSync(f, bytes);
			expect(SessionManager.open(f).getWarnings()[0].message).toMatch(message);
			const r = arbor(["info", f]);
			expect(r.status).toBe(2);
			expect(r.stderr).toMatch(message);
			expect(readFileSync(f).equals(bytes)).toBe(true);
		});
	}
});
