// `--dir` of `arbor prune` and `arbor branch` names the folder the new file goes to (created when missing). A path
// that is a file, or lies below one, is refused in one line naming it (issue #28 item 10: it printed a stack
// trace); the session file is not changed and nothing is written.
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { arbor, buildCli, copyFixture, sha256, tempDir } from "./helpers";

beforeAll(buildCli);

const FIXTURE = "formic__pi-v3-branch-compaction.jsonl";

function userId(file: string): string {
	const r = arbor(["tree", file, "--json", "--filter", "user-only"]);
	const tree = JSON.parse(r.stdout) as { roots: { id: string }[] };
	return tree.roots[0].id;
}

describe("--dir naming a file", () => {
	for (const command of ["prune", "branch"]) {
		for (const [what, sub] of [
			["a file", ""],
			["a path below a file", "sub"],
		] as const) {
			it(`arbor ${command} --dir <${what}>: one line naming the folder, no stack trace, nothing written`, () => {
				const dir = tempDir();
				const file = copyFixture(FIXTURE, dir);
				const blocker = join(dir, "afile");
				writeFileSync(blocker, "x");
				const before = sha256(file);
				const listing = readdirSync(dir).sort();
				const r = arbor([command, file, userId(file), "--dir", sub ? join(blocker, sub) : blocker, ...(command === "branch" ? ["--no-live"] : [])]);
				expect(r.status, r.stderr).toBe(2);
				expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
				expect(r.stderr.trim().split("\n"), r.stderr).toHaveLength(1);
				expect(r.stderr).toMatch(/is not a folder/);
				expect(r.stderr).toContain(blocker);
				expect(sha256(file)).toBe(before);
				expect(readdirSync(dir).sort()).toEqual(listing);
			});
		}
	}
});
