// `arbor context` reads through the path-only reader (electron/session/path-reader.ts) and falls back to
// SessionManager for every file the reader cannot read exactly. The whole command must print the same bytes
// (stdout, stderr, exit code) either way: ARBOR_CONTEXT_READER=full forces the SessionManager path.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, copyFixture, fixtures, generate, tempDir } from "./helpers";

beforeAll(buildCli);

/** `freshIds`: a v1 file gets fresh random ids on every read (migration), so the text form's leaf id differs. */
function both(args: string[], freshIds = false): void {
	const fast = arbor(args);
	const full = arbor(args, { ARBOR_CONTEXT_READER: "full" });
	expect(fast.status, args.join(" ")).toBe(full.status);
	const norm = (s: string): string => (freshIds ? s.replace(/^leaf: \S+/, "leaf: -") : s);
	expect(norm(fast.stdout) === norm(full.stdout), `stdout of ${args.join(" ")}`).toBe(true);
	expect(fast.stderr).toBe(full.stderr);
}

const dir = tempDir();

describe("arbor context: path reader = SessionManager, whole command", () => {
	it.each(readdirSync(fixtures).filter((f) => f.endsWith(".jsonl")))("%s (--json and text)", (name) => {
		const file = copyFixture(name, dir);
		both(["context", file, "--json"]);
		both(["context", file], name.includes(".v1."));
	});

	it("a generated file above SessionManager's 16 MiB skim threshold, its leaf and another leaf", () => {
		const file = generate(dir, "big.jsonl", [
			"--n",
			"6000",
			"--seed",
			"reader-big",
			"--branch-every",
			"12",
			"--compaction-every",
			"200",
			"--custom-messages",
			"0.2",
		]);
		const ls = readFileSync(file, "utf8").split("\n");
		expect(readFileSync(file).length).toBeGreaterThan(16 * 1024 * 1024);
		both(["context", file, "--json"]);
		const other = (JSON.parse(ls[Math.floor(ls.length / 3)]) as { id: string }).id;
		both(["context", file, "--json", "--leaf", other]);
		both(["context", file, "--leaf", other]);
		// Damaged copies: each one falls back and prints SessionManager's warnings.
		const write = (name: string, text: string): string => {
			const f = join(dir, name);
			writeFileSync(f, text);
			return f;
		};
		const body = ls.filter((l) => l !== "");
		both(["context", write("torn.jsonl", `${body.join("\n")}\n${body[body.length - 1].slice(0, 30)}`), "--json"]);
		both(["context", write("dup.jsonl", `${[...body, body[body.length - 1]].join("\n")}\n`), "--json"]);
		both(["context", write("crlf.jsonl", `${body.join("\r\n")}\r\n`), "--json"]);
	});

	it("a missing leaf, a missing file, a directory, an empty file", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl", dir);
		both(["context", file, "--leaf", "no-such-id"]);
		both(["context", join(dir, "missing.jsonl")]);
		both(["context", dir]);
		both(["context", (writeFileSync(join(dir, "empty.jsonl"), ""), join(dir, "empty.jsonl"))]);
	});
});
