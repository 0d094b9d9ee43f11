// `arbor try keep` when Keep refuses or fails (issue 39 item 6): the built CLI on a real repository and try worktree
// (no pi needed: the run's record is written as startTries writes it). One line on stderr naming the file and the
// reason, no stack trace, the documented exit code, the user's tree and the run left as they were.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type KeepRig, startKeepRig, treeState } from "../../services/test/helpers/keep-rig";
import { arborInEnv, buildCli } from "./helpers";

let rig: KeepRig | undefined;
beforeAll(() => buildCli());
afterEach(() => {
	rig?.close();
	rig = undefined;
});

const keep = (r: KeepRig) => arborInEnv(["try", "keep", r.session], { ...process.env, HOME: r.home });

describe("arbor try keep refusals", () => {
	it("a folder of the user's that is a symbolic link: exit 3, one line naming the file, nothing written, the run kept", async () => {
		rig = await startKeepRig({ "a.txt": "one\n", "sub/b.txt": "bee\n" });
		fs.writeFileSync(path.join(rig.worktree, "a.txt"), "one\ntwo\n");
		fs.writeFileSync(path.join(rig.worktree, "sub/b.txt"), "bee two\n");
		fs.rmSync(path.join(rig.repo, "sub"), { recursive: true });
		fs.symlinkSync(rig.outside, path.join(rig.repo, "sub"));
		const before = treeState(rig.repo);
		const r = await keep(rig);
		expect(r.status).toBe(3);
		expect(r.stderr.trim().split("\n")).toHaveLength(1);
		expect(r.stderr).toMatch(/^arbor try keep: .*symbolic link.*sub\/b\.txt/);
		expect(r.stderr).not.toMatch(/\n\s+at /);
		expect(treeState(rig.repo)).toEqual(before);
		expect(fs.readdirSync(rig.outside)).toEqual([]);
		expect(fs.existsSync(rig.worktree)).toBe(true);
	});

	it("a user file where the try has a folder: a conflict (exit 6), not a failure half-way", async () => {
		rig = await startKeepRig({ "a.txt": "one\n" });
		fs.writeFileSync(path.join(rig.worktree, "a.txt"), "one\ntwo\n");
		fs.mkdirSync(path.join(rig.worktree, "zdir"));
		fs.writeFileSync(path.join(rig.worktree, "zdir", "f.txt"), "f\n");
		fs.writeFileSync(path.join(rig.repo, "zdir"), "mine\n");
		const before = treeState(rig.repo);
		const r = await keep(rig);
		expect(r.status).toBe(6);
		expect(r.stderr).toContain("zdir/f.txt");
		expect(r.stderr).not.toMatch(/\n\s+at /);
		expect(treeState(rig.repo)).toEqual(before);
	});

	it("with nothing in the way it keeps: exit 0, the file applied, the worktree gone", async () => {
		rig = await startKeepRig({ "a.txt": "one\n" });
		fs.writeFileSync(path.join(rig.worktree, "a.txt"), "one\ntwo\n");
		const r = await keep(rig);
		expect(r.stderr).toBe("");
		expect(r.status).toBe(0);
		expect(fs.readFileSync(path.join(rig.repo, "a.txt"), "utf8")).toBe("one\ntwo\n");
		expect(fs.existsSync(rig.worktree)).toBe(false);
	});
});
