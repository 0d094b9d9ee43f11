// Keep into the user's tree (issue 39 item 6), on real git repositories and real files, links and processes, without
// pi: no write through a symbolic link (planted at a temp path, at the file, at a folder, at a folder git ignores,
// or planted after planning); modes kept; all or nothing when a write fails half-way; a save while Keep plans is
// never overwritten; a bounded number of git processes whatever the number of files; files over the limit refused.

import * as fs from "node:fs";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { applyTryChanges, MAX_KEEP_FILE_BYTES } from "../tries/apply";
import { TriesError } from "../tries/errors";
import { keepTry } from "../tries/finish";
import { readRuns } from "../tries/state";
import { gitShim, type KeepRig, startKeepRig, treeState } from "./helpers/keep-rig";

let rig: KeepRig | undefined;
afterEach(() => {
	rig?.close();
	rig = undefined;
});

async function refusal(p: Promise<unknown>): Promise<TriesError> {
	const err = await p.then(
		() => undefined,
		(e: unknown) => e,
	);
	expect(err).toBeInstanceOf(TriesError);
	return err as TriesError;
}

const leftovers = (dir: string): string[] => Object.keys(treeState(dir)).filter((f) => f.includes(".arbor-keep-"));

describe("Keep never writes through a symbolic link", () => {
	it("a link planted at the old temp path (.a.txt.arbor-keep-<pid>) is not followed: the outside file keeps its bytes and mode", async () => {
		rig = await startKeepRig({ "a.txt": "one\n" });
		fs.writeFileSync(path.join(rig.worktree, "a.txt"), "one\ntwo\n");
		const secret = path.join(rig.outside, "secret");
		fs.writeFileSync(secret, "private\n", { mode: 0o600 });
		fs.chmodSync(secret, 0o600);
		const planted = path.join(rig.repo, `.a.txt.arbor-keep-${process.pid}`);
		fs.symlinkSync(secret, planted);
		const result = await applyTryChanges(rig.repo, rig.snapshot, await rig.tryTree());
		expect(result).toEqual({ applied: ["a.txt"], conflicts: [] });
		expect(fs.readFileSync(secret, "utf8")).toBe("private\n");
		expect(fs.statSync(secret).mode & 0o777).toBe(0o600);
		expect(fs.readFileSync(path.join(rig.repo, "a.txt"), "utf8")).toBe("one\ntwo\n");
		expect(fs.readlinkSync(planted)).toBe(secret);
		expect(leftovers(rig.repo)).toEqual([planted.slice(rig.repo.length + 1)]);
	});

	it("a target that is a link in the user's tree is refused, nothing written anywhere", async () => {
		rig = await startKeepRig({ "a.txt": "one\n", "b.txt": "bee\n" });
		fs.writeFileSync(path.join(rig.worktree, "a.txt"), "changed\n");
		fs.writeFileSync(path.join(rig.worktree, "new.txt"), "from the try\n");
		const target = path.join(rig.outside, "target.txt");
		fs.writeFileSync(target, "outside\n");
		fs.symlinkSync(target, path.join(rig.repo, "new.txt"));
		const before = treeState(rig.repo);
		const err = await refusal(applyTryChanges(rig.repo, rig.snapshot, await rig.tryTree()));
		expect(err.code).toBe("unsafe_path");
		expect(err.files).toEqual(["new.txt"]);
		expect(err.message).toContain("new.txt");
		expect(treeState(rig.repo)).toEqual(before);
		expect(fs.readFileSync(target, "utf8")).toBe("outside\n");
	});

	it("a folder on the way that is a link (one level, two levels down) is refused", async () => {
		for (const [linkAt, file] of [
			["sub", "sub/x.txt"],
			["deep/er", "deep/er/y.txt"],
		] as const) {
			rig = await startKeepRig({ "a.txt": "one\n", [`${path.dirname(file)}/keep.txt`]: "k\n" });
			fs.writeFileSync(path.join(rig.worktree, "a.txt"), "changed\n");
			fs.writeFileSync(path.join(rig.worktree, file), "from the try\n");
			// The user replaced the folder by a link to a folder outside the repository since the start.
			fs.rmSync(path.join(rig.repo, linkAt), { recursive: true });
			fs.symlinkSync(rig.outside, path.join(rig.repo, linkAt));
			const before = treeState(rig.repo);
			const err = await refusal(applyTryChanges(rig.repo, rig.snapshot, await rig.tryTree()));
			expect(err.code).toBe("unsafe_path");
			expect(err.files).toContain(file);
			expect(treeState(rig.repo)).toEqual(before);
			expect(fs.readdirSync(rig.outside)).toEqual([]);
			rig.close();
		}
		rig = undefined;
	});

	it("an ignored folder that is a link in the user's tree (the try un-ignores it) is refused, nothing outside written", async () => {
		rig = await startKeepRig({ ".gitignore": "out\n", "a.txt": "one\n" });
		fs.symlinkSync(rig.outside, path.join(rig.repo, "out"));
		fs.writeFileSync(path.join(rig.worktree, ".gitignore"), "");
		fs.mkdirSync(path.join(rig.worktree, "out"));
		fs.writeFileSync(path.join(rig.worktree, "out", "evil.txt"), "planted\n");
		const before = treeState(rig.repo);
		const err = await refusal(keepTry(rig.triesDir, rig.session));
		expect(err.code).toBe("unsafe_path");
		expect(err.files).toEqual(["out/evil.txt"]);
		expect(fs.readdirSync(rig.outside)).toEqual([]);
		expect(treeState(rig.repo)).toEqual(before);
		// Nothing was finished: the run and its worktree stay, to look at and keep again.
		expect(readRuns(rig.triesDir)).toHaveLength(1);
		expect(fs.existsSync(rig.worktree)).toBe(true);
	});

	it("a folder swapped for a link after planning is refused at write time, nothing written", async () => {
		rig = await startKeepRig({ "a.txt": "one\n", "sub/b.txt": "bee\n" });
		fs.writeFileSync(path.join(rig.worktree, "a.txt"), "changed\n");
		fs.writeFileSync(path.join(rig.worktree, "sub/b.txt"), "bee two\n");
		const sub = path.join(rig.repo, "sub");
		const err = await refusal(
			applyTryChanges(rig.repo, rig.snapshot, await rig.tryTree(), {
				staged: () => {
					fs.renameSync(sub, path.join(rig!.tmp, "sub-moved"));
					fs.symlinkSync(rig!.outside, sub);
				},
			}),
		);
		expect(err.code).toBe("unsafe_path");
		expect(fs.readFileSync(path.join(rig.repo, "a.txt"), "utf8")).toBe("one\n");
		expect(fs.readdirSync(rig.outside)).toEqual([]);
		expect(leftovers(rig.repo)).toEqual([]);
		// The moved-away folder keeps its file untouched (its staged temp file stays there: Keep cannot reach it
		// without going through the link).
		expect(fs.readFileSync(path.join(rig.tmp, "sub-moved", "b.txt"), "utf8")).toBe("bee\n");
	});
});

describe("Keep keeps modes", () => {
	it("a replaced file keeps its own mode (0600, 0640), executable bits follow the try; new files get git's mode", async () => {
		rig = await startKeepRig({ "secret.txt": "s\n", "group.sh": "g\n", "plain.sh": "p\n" });
		fs.chmodSync(path.join(rig.repo, "secret.txt"), 0o600);
		fs.chmodSync(path.join(rig.repo, "group.sh"), 0o640);
		fs.chmodSync(path.join(rig.repo, "plain.sh"), 0o755);
		fs.writeFileSync(path.join(rig.worktree, "secret.txt"), "s2\n");
		fs.writeFileSync(path.join(rig.worktree, "group.sh"), "g2\n");
		fs.chmodSync(path.join(rig.worktree, "group.sh"), 0o755);
		fs.writeFileSync(path.join(rig.worktree, "new.txt"), "n\n");
		fs.writeFileSync(path.join(rig.worktree, "new.sh"), "x\n");
		fs.chmodSync(path.join(rig.worktree, "new.sh"), 0o755);
		// The user made plain.sh executable since the start; the try leaves it alone.
		const result = await applyTryChanges(rig.repo, rig.snapshot, await rig.tryTree());
		expect(result.applied.sort()).toEqual(["group.sh", "new.sh", "new.txt", "secret.txt"]);
		const mode = (f: string): number => fs.statSync(path.join(rig!.repo, f)).mode & 0o777;
		// What a new 0644/0755 file gets here (the process umask narrows it, as git's checkout).
		const ref = (m: number): number => {
			const p = path.join(rig!.tmp, `ref-${m}`);
			fs.writeFileSync(p, "", { mode: m });
			return fs.statSync(p).mode & 0o777;
		};
		expect(mode("secret.txt")).toBe(0o600);
		expect(mode("group.sh")).toBe(0o750);
		expect(mode("new.txt")).toBe(ref(0o644));
		expect(mode("new.sh")).toBe(ref(0o755));
		expect(mode("plain.sh")).toBe(0o755);
		expect(fs.readFileSync(path.join(rig.repo, "secret.txt"), "utf8")).toBe("s2\n");
	});
});

describe("Keep is all or nothing", () => {
	const FILES = { "a.txt": "a\n", "c-gone.txt": "c\n", "d.txt": "d\n", "e.txt": "e\n" };
	/** The try changes a, adds b-new/n.txt (a new folder), deletes c-gone, changes d and e: five steps. */
	async function fiveChanges(): Promise<KeepRig> {
		const r = await startKeepRig(FILES, { "a.txt": "a\nuser line\n" });
		fs.writeFileSync(path.join(r.worktree, "a.txt"), "try top\na\nuser line\n");
		fs.mkdirSync(path.join(r.worktree, "b-new"));
		fs.writeFileSync(path.join(r.worktree, "b-new", "n.txt"), "new\n");
		fs.rmSync(path.join(r.worktree, "c-gone.txt"));
		fs.writeFileSync(path.join(r.worktree, "d.txt"), "d2\n");
		fs.writeFileSync(path.join(r.worktree, "e.txt"), "e2\n");
		return r;
	}

	for (const [at, label] of [
		[0, "the first file"],
		[2, "a middle file"],
		[4, "the last file"],
	] as const) {
		it(`a write failing at ${label} puts every file back, leaves no temp file or new folder, and says why`, async () => {
			rig = await fiveChanges();
			const before = treeState(rig.repo);
			const err = await refusal(
				applyTryChanges(rig.repo, rig.snapshot, await rig.tryTree(), {
					beforeApply: (i, file) => {
						if (i !== at) return;
						// A real obstacle at this step: a folder (not empty) where the file goes.
						const abs = path.join(rig!.repo, file);
						fs.rmSync(abs, { force: true });
						fs.mkdirSync(abs);
						fs.writeFileSync(path.join(abs, "inside"), "x");
					},
				}),
			);
			const abs = path.join(rig.repo, ["a.txt", "b-new/n.txt", "c-gone.txt", "d.txt", "e.txt"][at]!);
			expect(["changed", "io"]).toContain(err.code);
			fs.rmSync(abs, { recursive: true });
			// Put back what the test itself replaced, then the tree must be exactly as before Keep.
			const original = { 0: "a\nuser line\n", 2: "c\n", 4: "e\n" }[at as 0 | 2 | 4];
			if (original !== undefined) fs.writeFileSync(abs, original);
			const after = treeState(rig.repo);
			for (const [f, v] of Object.entries(before)) if (path.join(rig.repo, f) !== abs) expect(after[f], f).toBe(v);
			expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
			expect(err.message).not.toMatch(/\n\s+at /);
		});
	}

	for (const [at, label] of [
		[0, "first"],
		[3, "middle"],
		[4, "last"],
	] as const) {
		it(`an I/O error at the ${label} step (its staged file gone) restores replaced, created and deleted files byte for byte`, async () => {
			rig = await fiveChanges();
			const before = treeState(rig.repo);
			const err = await refusal(
				applyTryChanges(rig.repo, rig.snapshot, await rig.tryTree(), {
					beforeApply: (i, file) => {
						if (i !== at) return;
						const dir = path.dirname(path.join(rig!.repo, file));
						for (const n of fs.readdirSync(dir)) if (n.startsWith(`.${path.basename(file)}.arbor-keep-`)) fs.rmSync(path.join(dir, n));
					},
				}),
			);
			expect(err.code).toBe("io");
			expect(err.message).toMatch(/put back/);
			expect(treeState(rig.repo)).toEqual(before);
			expect(leftovers(rig.repo)).toEqual([]);
		});
	}

	it("a file where the try has a folder is a conflict found before anything is written (was: EEXIST half-way)", async () => {
		rig = await startKeepRig({ "a.txt": "a\n" });
		fs.writeFileSync(path.join(rig.worktree, "a.txt"), "a2\n");
		fs.mkdirSync(path.join(rig.worktree, "zdir"));
		fs.writeFileSync(path.join(rig.worktree, "zdir", "f.txt"), "f\n");
		fs.writeFileSync(path.join(rig.repo, "zdir"), "the user's own file\n");
		const before = treeState(rig.repo);
		const result = await applyTryChanges(rig.repo, rig.snapshot, await rig.tryTree());
		expect(result).toEqual({ applied: [], conflicts: ["zdir/f.txt"] });
		expect(treeState(rig.repo)).toEqual(before);
	});
});

describe("Keep never overwrites a save made while it plans", () => {
	it("an edit saved during the merge of that file (a real git process running) is refused with the file named; nothing written", async () => {
		rig = await startKeepRig({ "a.txt": "one\ntwo\nthree\n", "b.txt": "b\n" });
		fs.writeFileSync(path.join(rig.worktree, "a.txt"), "one\ntwo\nthree\nfour\n");
		// The user edits the top of a.txt after the start: Keep merges it.
		fs.writeFileSync(path.join(rig.repo, "a.txt"), "zero\none\ntwo\nthree\n");
		fs.writeFileSync(path.join(rig.worktree, "b.txt"), "b2\n");
		const tree = await rig.tryTree();
		const a = path.join(rig.repo, "a.txt");
		// The user saves a.txt while Keep's `git merge-file` of it runs.
		const shim = gitShim(path.join(rig.tmp, "bin"), path.join(rig.tmp, "git.log"), `case "$*" in *merge-file*) printf 'saved by the user\\n' > '${a}';; esac`);
		let err: TriesError;
		try {
			err = await refusal(applyTryChanges(rig.repo, rig.snapshot, tree));
		} finally {
			shim.restore();
		}
		expect(shim.lines().some((l) => l.includes("merge-file"))).toBe(true);
		expect(err.code).toBe("changed");
		expect(err.files).toEqual(["a.txt"]);
		expect(err.message).toContain("a.txt");
		expect(fs.readFileSync(a, "utf8")).toBe("saved by the user\n");
		expect(fs.readFileSync(path.join(rig.repo, "b.txt"), "utf8")).toBe("b\n");
		expect(leftovers(rig.repo)).toEqual([]);
	});

	for (const [what, act] of [
		["changed", (f: string) => fs.appendFileSync(f, "more\n")],
		["deleted", (f: string) => fs.rmSync(f)],
		["created", (f: string) => fs.writeFileSync(f, "new by the user\n")],
	] as const) {
		it(`a planned file ${what} by the user after planning makes Keep refuse, nothing written`, async () => {
			rig = await startKeepRig({ "a.txt": "a\n", "m.txt": "m\n" });
			fs.writeFileSync(path.join(rig.worktree, "a.txt"), "a2\n");
			fs.writeFileSync(path.join(rig.worktree, what === "created" ? "n.txt" : "m.txt"), "from the try\n");
			const target = path.join(rig.repo, what === "created" ? "n.txt" : "m.txt");
			let after: Record<string, string> = {};
			const err = await refusal(
				applyTryChanges(rig.repo, rig.snapshot, await rig.tryTree(), {
					staged: () => {
						act(target);
						after = treeState(rig!.repo);
					},
				}),
			);
			expect(err.code).toBe("changed");
			expect(err.files).toEqual([path.basename(target)]);
			const now = treeState(rig.repo);
			expect(now).toEqual(Object.fromEntries(Object.entries(after).filter(([f]) => !f.includes(".arbor-keep-"))));
			expect(fs.readFileSync(path.join(rig.repo, "a.txt"), "utf8")).toBe("a\n");
		});
	}
});

describe("Keep's cost in git processes does not grow with the number of files", () => {
	it("30 and 300 changed files take the same few git processes (was four per file)", async () => {
		const counts: number[] = [];
		for (const n of [30, 300]) {
			const files = Object.fromEntries(Array.from({ length: n }, (_, i) => [`d${i % 7}/f${i}.txt`, `file ${i}\n`]));
			rig = await startKeepRig(files);
			for (let i = 0; i < n; i++) fs.writeFileSync(path.join(rig.worktree, `d${i % 7}/f${i}.txt`), `file ${i}\nchanged\n`);
			const tree = await rig.tryTree();
			const shim = gitShim(path.join(rig.tmp, "bin"), path.join(rig.tmp, "git.log"));
			try {
				const result = await applyTryChanges(rig.repo, rig.snapshot, tree);
				expect(result.applied).toHaveLength(n);
			} finally {
				shim.restore();
			}
			counts.push(shim.count());
			expect(fs.readFileSync(path.join(rig.repo, "d3/f10.txt"), "utf8")).toBe("file 10\nchanged\n");
			rig.close();
		}
		rig = undefined;
		expect(counts[0]).toBe(counts[1]);
		expect(counts[1]).toBeLessThanOrEqual(3);
	});

	it(`a file over ${MAX_KEEP_FILE_BYTES / 1024 / 1024} MiB is refused, naming it, nothing written; one of exactly the limit is kept`, async () => {
		rig = await startKeepRig({ "a.txt": "a\n" });
		fs.writeFileSync(path.join(rig.worktree, "a.txt"), "a2\n");
		fs.writeFileSync(path.join(rig.worktree, "big.bin"), Buffer.alloc(MAX_KEEP_FILE_BYTES + 1, 7));
		fs.writeFileSync(path.join(rig.worktree, "edge.bin"), Buffer.alloc(MAX_KEEP_FILE_BYTES, 8));
		const before = treeState(rig.repo);
		const err = await refusal(applyTryChanges(rig.repo, rig.snapshot, await rig.tryTree()));
		expect(err.code).toBe("too_large");
		expect(err.files).toEqual(["big.bin (65 MiB)"]);
		expect(err.message).toMatch(/big\.bin/);
		expect(treeState(rig.repo)).toEqual(before);
		fs.rmSync(path.join(rig.worktree, "big.bin"));
		const result = await applyTryChanges(rig.repo, rig.snapshot, await rig.tryTree());
		expect(result.applied).toEqual(["a.txt", "edge.bin"]);
		expect(fs.statSync(path.join(rig.repo, "edge.bin")).size).toBe(MAX_KEEP_FILE_BYTES);
	});
});
