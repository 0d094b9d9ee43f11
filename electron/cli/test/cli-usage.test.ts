// Exit codes and help of the real `arbor` command: 0 ok, 1 usage error, 2 bad or unreadable file (with
// the file and line named on stderr).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, copyFixture, tempDir } from "./helpers";

beforeAll(buildCli);

describe("usage", () => {
	it("prints the command list with --help (exit 0) and without arguments (exit 1)", () => {
		const help = arbor(["--help"]);
		expect(help.status).toBe(0);
		for (const c of ["tree", "context", "branch", "label", "info", "sessions", "serve"]) expect(help.stdout).toContain(`  ${c} `);
		expect(arbor([]).status).toBe(1);
	});
	it("prints the package version with --version", () => {
		const r = arbor(["--version"]);
		expect(r.status).toBe(0);
		expect(r.stdout).toMatch(/^arbor \d+\.\d+\.\d+\n$/);
	});
	it.each([["tree"], ["context"], ["branch"], ["label"], ["info"], ["sessions"]])("%s --help prints its usage and exits 0", (cmd) => {
		const r = arbor([cmd, "--help"]);
		expect(r.status).toBe(0);
		expect(r.stdout).toMatch(new RegExp(`^Usage: arbor ${cmd}`));
	});
	it("rejects an unknown command, an unknown option, a bad filter and missing arguments with exit 1", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const cases = [
			["frobnicate"],
			["tree", file, "--bogus"],
			["tree", file, "--filter", "nope"],
			["tree"],
			["branch", file],
			["label"],
			["context", file, "--leaf", "no-such-id"],
			["tree", file, "extra"],
		];
		for (const args of cases) {
			const r = arbor(args);
			expect(r.status, args.join(" ")).toBe(1);
			expect(r.stderr, args.join(" ")).toMatch(/arbor/);
			expect(r.stdout).toBe("");
		}
	});
});

describe("bad files", () => {
	it("exits 2 naming the file when it does not exist", () => {
		const missing = join(tempDir(), "missing.jsonl");
		for (const cmd of ["tree", "context", "info"]) {
			const r = arbor([cmd, missing]);
			expect(r.status).toBe(2);
			expect(r.stderr).toContain(missing);
		}
	});
	it("exits 2 naming the file and line when the first record is not a session header", () => {
		const file = join(tempDir(), "no-header.jsonl");
		writeFileSync(file, '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}\n');
		const r = arbor(["tree", file]);
		expect(r.status).toBe(2);
		expect(r.stderr).toContain(`${file}:1`);
	});
	it("exits 2 when a directory is given as FILE", () => {
		const r = arbor(["info", tempDir()]);
		expect(r.status).toBe(2);
	});
});
