// The writing commands: `arbor branch` writes a new file (source untouched) with pi's createBranchedSession
// content; `arbor label` appends exactly one label entry; legacy files are refused with exit 2.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { SessionManager as PiSessionManager } from "@mariozechner/pi-coding-agent";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, copyFixture, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

const lines = (f: string) =>
	readFileSync(f, "utf8")
		.split("\n")
		.filter((l) => l.trim() !== "");

describe("arbor branch", () => {
	it("writes the root -> entry path to a new file next to the source and prints its path", () => {
		const file = copyFixture("formic__pi-v3-branch-compaction.jsonl");
		const before = sha256(file);
		const r = arbor(["branch", file, "tool-active"]);
		expect(r.status).toBe(0);
		const created = r.stdout.trim();
		expect(dirname(created)).toBe(dirname(file));
		expect(existsSync(created)).toBe(true);
		expect(sha256(file)).toBe(before);
		const header = JSON.parse(lines(created)[0]) as { type: string; parentSession: string; version: number };
		expect(header).toMatchObject({ type: "session", version: 3, parentSession: file });
		// The branch holds the path to tool-active (labels re-added after it) and pi reads it the same way.
		const pi = PiSessionManager.open(created);
		const path = pi.getBranch().map((e) => e.id);
		expect(path.filter((id) => !pi.getEntry(id) || pi.getEntry(id)?.type !== "label")).toContain("tool-active");
		expect(pi.getLabel("assistant-active")).toBe("accepted");
		const tree = JSON.parse(arbor(["tree", created, "--filter", "all", "--json"]).stdout) as { roots: unknown[] };
		expect(tree.roots).toHaveLength(1);
	});
	it("--dir puts the new file in another folder", () => {
		const file = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		const ids = lines(file)
			.slice(1)
			.map((l) => (JSON.parse(l) as { id: string }).id);
		const out = join(tempDir(), "nested", "branches");
		const r = arbor(["branch", file, ids[20], "--dir", out]);
		expect(r.status).toBe(0);
		const created = r.stdout.trim();
		expect(dirname(created)).toBe(out);
		expect(readdirSync(out)).toEqual([created.split("/").pop()]);
		expect(readdirSync(dirname(file))).toEqual([file.split("/").pop()]);
		expect(lines(created)).toHaveLength(22);
	});
	it("refuses an unknown entry id with exit 1 and writes nothing", () => {
		const file = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		const r = arbor(["branch", file, "nope"]);
		expect(r.status).toBe(1);
		expect(readdirSync(dirname(file))).toHaveLength(1);
	});
});

describe("arbor label", () => {
	it("sets and clears a label by appending one label entry each time", () => {
		const file = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		const n = lines(file).length;
		const target = (JSON.parse(lines(file)[5]) as { id: string }).id;
		const set = arbor(["label", file, target, "  checkpoint  "]);
		expect(set.status).toBe(0);
		expect(lines(file)).toHaveLength(n + 1);
		const entry = JSON.parse(lines(file)[n]) as Record<string, unknown>;
		expect(entry).toMatchObject({ type: "label", targetId: target, label: "checkpoint" });
		expect(arbor(["tree", file, "--filter", "labeled-only"]).stdout).toContain("[checkpoint] ");
		const pi = PiSessionManager.open(`${file}`);
		expect(pi.getLabel(target)).toBe("checkpoint");
		const clear = arbor(["label", file, target]);
		expect(clear.status).toBe(0);
		expect(lines(file)).toHaveLength(n + 2);
		expect(JSON.parse(lines(file)[n + 1])).not.toHaveProperty("label");
		expect(arbor(["tree", file, "--filter", "labeled-only"]).stdout).toBe("");
	});
	it("adds the missing newline before appending to a file that lacks one", () => {
		const file = copyFixture("kuato__pi-session-orphan-no-eol.jsonl");
		const size = statSync(file).size;
		const target = (JSON.parse(lines(file)[1]) as { id: string }).id;
		expect(arbor(["label", file, target, "x"]).status).toBe(0);
		const text = readFileSync(file, "utf8");
		expect(text[size]).toBe("\n");
		expect(text.endsWith("\n")).toBe(true);
		expect(lines(file).every((l) => JSON.parse(l))).toBeTruthy();
	});
	it("refuses to write to a legacy (v2) file with exit 2 and leaves it unchanged", () => {
		const file = copyFixture("formic__pi-v2-hook-message.jsonl");
		const before = sha256(file);
		const target = (JSON.parse(lines(file)[1]) as { id: string }).id;
		const r = arbor(["label", file, target, "x"]);
		expect(r.status).toBe(2);
		expect(r.stderr).toContain(file);
		expect(sha256(file)).toBe(before);
	});
	it("refuses an unknown entry id with exit 1", () => {
		const file = copyFixture("kimchi-dev__statsuline.v3.jsonl");
		const before = sha256(file);
		expect(arbor(["label", file, "nope", "x"]).status).toBe(1);
		expect(sha256(file)).toBe(before);
	});
});
