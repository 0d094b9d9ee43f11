// A rig for Keep without pi: a real git repository in a temp folder, the snapshot and a try worktree made by the
// tries' own git code, a run record and a try session file as startTries writes them, so keepTry runs end to end.
// The test then edits the worktree (the try's changes) and the repository (the user's), and keeps.

import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { addTryWorktree, snapshotWorkingTree, treeOfTry } from "../../tries/git";
import { type RunRecord, TRIES_STATE_VERSION, writeRun } from "../../tries/state";

export interface KeepRig {
	tmp: string;
	repo: string;
	worktree: string;
	head: string;
	snapshot: string;
	/** HOME for a CLI run: its ~/.arbor/tries is triesDir. */
	home: string;
	triesDir: string;
	/** The try's session file (keepTry's argument). */
	session: string;
	/** Files outside the repository (targets of planted links). */
	outside: string;
	sh(cwd: string, ...args: string[]): string;
	/** The try's tree, as Keep computes it. */
	tryTree(): Promise<string>;
	close(): void;
}

/** `files`: the committed files (path -> content); `user`: uncommitted files in the user's tree before the start. */
export async function startKeepRig(files: Record<string, string>, user: Record<string, string> = {}): Promise<KeepRig> {
	const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "arbor-keep-")));
	const repo = path.join(tmp, "repo");
	const outside = path.join(tmp, "outside");
	fs.mkdirSync(repo);
	fs.mkdirSync(outside);
	const sh = (cwd: string, ...args: string[]): string => execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
	sh(repo, "init", "-q");
	sh(repo, "config", "user.email", "t@t");
	sh(repo, "config", "user.name", "t");
	const put = (root: string, all: Record<string, string>): void => {
		for (const [f, c] of Object.entries(all)) {
			fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
			fs.writeFileSync(path.join(root, f), c);
		}
	};
	put(repo, files);
	sh(repo, "add", "-A");
	sh(repo, "commit", "-q", "-m", "init");
	put(repo, user);
	const head = sh(repo, "rev-parse", "HEAD");
	const info = { root: repo, prefix: "", head };
	const ref = "refs/arbor/tries/rig";
	const snapshot = await snapshotWorkingTree(info, ref);
	const runDir = path.join(tmp, "worktrees", "rig");
	fs.mkdirSync(runDir, { recursive: true });
	const worktree = path.join(runDir, "try-1");
	await addTryWorktree(info, worktree, snapshot);
	const home = path.join(tmp, "home");
	const triesDir = path.join(home, ".arbor", "tries");
	const session = path.join(tmp, "try-1.jsonl");
	fs.writeFileSync(session, `${JSON.stringify({ type: "session", version: 3, id: "s1", timestamp: new Date().toISOString(), cwd: worktree })}\n`);
	const record: RunRecord = {
		version: TRIES_STATE_VERSION,
		runId: "rig",
		ownerPid: process.pid,
		createdAt: new Date().toISOString(),
		source: path.join(tmp, "source.jsonl"),
		entryId: "e1",
		cwd: repo,
		repo: { root: repo, head, snapshot, ref },
		tries: [{ index: 0, sessionFile: session, worktree, cwd: worktree, pid: null }],
	};
	writeRun(triesDir, record);
	return {
		tmp,
		repo,
		worktree,
		head,
		snapshot,
		home,
		triesDir,
		session,
		outside,
		sh,
		tryTree: () => treeOfTry({ root: repo, head }, worktree),
		close: () => fs.rmSync(tmp, { recursive: true, force: true }),
	};
}

/** Every path under `dir` (links not followed) with its kind, mode, inode and bytes: a tree's full state. */
export function treeState(dir: string): Record<string, string> {
	const out: Record<string, string> = {};
	const walk = (d: string): void => {
		for (const name of fs.readdirSync(d).sort()) {
			const p = path.join(d, name);
			const rel = path.relative(dir, p);
			if (rel === ".git") continue;
			const st = fs.lstatSync(p);
			if (st.isSymbolicLink()) out[rel] = `link ${fs.readlinkSync(p)}`;
			else if (st.isDirectory()) {
				out[rel] = `dir ${(st.mode & 0o777).toString(8)}`;
				walk(p);
			} else out[rel] = `file ${(st.mode & 0o777).toString(8)} ino ${st.ino} ${fs.readFileSync(p, "utf8")}`;
		}
	};
	walk(dir);
	return out;
}

/**
 * A `git` first on PATH that logs each command line to `log` and then runs the real git; `onArgs` adds shell
 * lines run before it when the arguments match (a user who saves a file while Keep's git runs).
 */
export function gitShim(binDir: string, log: string, before = ""): { restore(): void; count(): number; lines(): string[] } {
	fs.mkdirSync(binDir, { recursive: true });
	const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
	fs.writeFileSync(path.join(binDir, "git"), `#!/bin/sh\necho "$*" >> '${log}'\n${before}\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
	fs.writeFileSync(log, "");
	const saved = process.env.PATH;
	process.env.PATH = `${binDir}:${saved}`;
	const lines = (): string[] => fs.readFileSync(log, "utf8").split("\n").filter(Boolean);
	return {
		restore: () => {
			process.env.PATH = saved;
		},
		lines,
		count: () => lines().length,
	};
}
