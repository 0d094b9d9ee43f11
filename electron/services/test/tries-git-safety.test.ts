// A try's files must not make Arbor's git run a program (issue 39 item 6.4). The try can rewrite anything in its
// worktree: its `.git` file (pointing git at a repository whose config names an fsmonitor, hooks, filters, an
// external diff) and its `.gitattributes` (picking a filter driver the user's config defines). Each program here
// only creates a marker file; after Arbor's git has run over the try (its file count, its diff, Keep), no marker.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { keepTry } from "../tries/finish";
import { addTryWorktree, changedFiles, treeDiff, treeOfTry } from "../tries/git";
import { type KeepRig, startKeepRig } from "./helpers/keep-rig";

let rig: KeepRig | undefined;
afterEach(() => {
	rig?.close();
	rig = undefined;
});

/** A program that records that it ran (under `marks/NAME`), passing its input through (a filter's contract). */
function marker(r: KeepRig, name: string): string {
	const marks = path.join(r.tmp, "marks");
	fs.mkdirSync(marks, { recursive: true });
	const script = path.join(r.tmp, `run-${name}.sh`);
	fs.writeFileSync(script, `#!/bin/sh\ntouch '${path.join(marks, name)}'\ncat 2>/dev/null\nexit 0\n`, { mode: 0o755 });
	return script;
}
const marks = (r: KeepRig): string[] => (fs.existsSync(path.join(r.tmp, "marks")) ? fs.readdirSync(path.join(r.tmp, "marks")).sort() : []);

describe("Arbor's git in a try's worktree runs no program the try chose", () => {
	it("a rewritten .git file pointing at a hostile repository (fsmonitor, hooks, filter, external diff) is never read", async () => {
		rig = await startKeepRig({ "a.txt": "one\n" });
		const wt = rig.worktree;
		// The try makes its own repository inside the worktree, configured to run programs, and points .git at it.
		const evil = path.join(wt, ".evil");
		rig.sh(rig.tmp, "init", "-q", "--bare", evil);
		rig.sh(evil, "config", "core.bare", "false");
		rig.sh(evil, "config", "core.fsmonitor", marker(rig, "fsmonitor"));
		rig.sh(evil, "config", "filter.evil.clean", marker(rig, "filter"));
		rig.sh(evil, "config", "filter.evil.required", "true");
		rig.sh(evil, "config", "diff.external", marker(rig, "external-diff"));
		fs.mkdirSync(path.join(evil, "hooks"), { recursive: true });
		for (const hook of ["post-index-change", "pre-commit", "post-checkout", "reference-transaction"])
			fs.writeFileSync(path.join(evil, "hooks", hook), `#!/bin/sh\nexec '${marker(rig, `hook-${hook}`)}'\n`, { mode: 0o755 });
		fs.writeFileSync(path.join(wt, ".git"), `gitdir: ${evil}\n`);
		fs.writeFileSync(path.join(wt, ".gitattributes"), "* filter=evil\n");
		fs.writeFileSync(path.join(wt, "a.txt"), "one\ntwo\n");

		// What the run does when a try ends (its files), the Compare dialog (its diff), then Keep.
		const tree = await treeOfTry({ root: rig.repo, head: rig.head }, wt);
		const files = await changedFiles(rig.repo, rig.snapshot, tree);
		// The tree is the worktree's files seen through Arbor's own admin folder (git never records a `.git`).
		expect(files.map((f) => f.path)).toEqual(expect.arrayContaining([".gitattributes", "a.txt"]));
		expect(files.map((f) => f.path)).not.toContain(".git");
		expect(await treeDiff(rig.repo, rig.snapshot, tree, "a.txt")).toContain("+two");
		expect(marks(rig)).toEqual([]);
		const outcome = await keepTry(rig.triesDir, rig.session);
		expect(outcome.applied).toContain("a.txt");
		expect(fs.readFileSync(path.join(rig.repo, "a.txt"), "utf8")).toBe("one\ntwo\n");
		expect(marks(rig)).toEqual([]);
	});

	it("a .gitattributes of the try that picks a filter the user's config defines (as git-lfs does) runs no filter", async () => {
		rig = await startKeepRig({ "a.txt": "one\n", "b.bin": "bee\n" });
		rig.sh(rig.repo, "config", "filter.userdef.clean", marker(rig, "clean"));
		rig.sh(rig.repo, "config", "filter.userdef.smudge", marker(rig, "smudge"));
		rig.sh(rig.repo, "config", "filter.userdef.process", marker(rig, "process"));
		rig.sh(rig.repo, "config", "filter.userdef.required", "true");
		// A driver name git's `-c` could not carry (it holds "="): switched off all the same.
		rig.sh(rig.repo, "config", "filter.a=b.clean", marker(rig, "clean-eq"));
		fs.writeFileSync(path.join(rig.worktree, ".gitattributes"), "*.txt filter=userdef\n*.bin filter=a=b\n");
		fs.writeFileSync(path.join(rig.worktree, "a.txt"), "one\ntwo\n");
		fs.writeFileSync(path.join(rig.worktree, "b.bin"), "bee two\n");
		const tree = await treeOfTry({ root: rig.repo, head: rig.head }, rig.worktree);
		expect((await changedFiles(rig.repo, rig.snapshot, tree)).map((f) => f.path)).toEqual([".gitattributes", "a.txt", "b.bin"]);
		const outcome = await keepTry(rig.triesDir, rig.session);
		expect(outcome.applied).toEqual([".gitattributes", "a.txt", "b.bin"]);
		expect(fs.readFileSync(path.join(rig.repo, "a.txt"), "utf8")).toBe("one\ntwo\n");
		expect(marks(rig)).toEqual([]);
	});

	it("a try's diff runs no external diff or textconv program, and making a worktree runs no hook", async () => {
		rig = await startKeepRig({ "a.txt": "one\n" });
		rig.sh(rig.repo, "config", "diff.external", marker(rig, "external"));
		rig.sh(rig.repo, "config", "diff.conv.textconv", marker(rig, "textconv"));
		fs.writeFileSync(path.join(rig.repo, ".gitattributes"), "*.txt diff=conv\n");
		fs.writeFileSync(path.join(rig.repo, ".git", "hooks", "post-checkout"), `#!/bin/sh\nexec '${marker(rig, "post-checkout")}'\n`, { mode: 0o755 });
		fs.writeFileSync(path.join(rig.worktree, "a.txt"), "one\ntwo\n");
		const tree = await treeOfTry({ root: rig.repo, head: rig.head }, rig.worktree);
		expect(await treeDiff(rig.repo, rig.snapshot, tree)).toContain("+two");
		expect((await changedFiles(rig.repo, rig.snapshot, tree))[0]).toMatchObject({ path: "a.txt", added: 1, removed: 0 });
		await addTryWorktree({ root: rig.repo, prefix: "", head: rig.head }, path.join(rig.tmp, "worktrees", "rig", "try-2"), rig.snapshot);
		expect(marks(rig)).toEqual([]);
	});
});
