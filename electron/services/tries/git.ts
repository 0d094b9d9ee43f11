// Git for tries: a snapshot of the user's working tree (HEAD plus every uncommitted change, untracked files
// included) taken through a temporary index so the user's own index is never touched; a worktree per try holding
// that snapshot; a try's changes as the tree of its worktree; and the file list and line counts between two trees.
// Only git's own commands, run with execFile (no shell): paths never pass through a shell.

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ChangedFile } from "../../../shared/tries";
import { findProgram } from "../../../shared-node/programs";

export class GitError extends Error {
	constructor(
		message: string,
		readonly stderr = "",
	) {
		super(message);
		this.name = "GitError";
	}
}

/** Runs git in `cwd`; resolves stdout as a Buffer (file contents may be binary). */
export function git(
	cwd: string,
	args: string[],
	options: { env?: NodeJS.ProcessEnv; input?: Buffer; allowExit?: number[] } = {},
): Promise<{ stdout: Buffer; code: number }> {
	return new Promise((resolve, reject) => {
		// git from an absolute PATH entry only (shared-node/programs.ts): a `git` in the worktree must not run.
		const program = findProgram("git", { ...process.env, ...options.env });
		if (!program) return reject(new GitError(`git ${args[0]} failed in ${cwd}: git is not on PATH (only absolute PATH entries are searched)`));
		const child = execFile(
			program,
			args,
			{ cwd, env: { ...process.env, ...options.env, GIT_TERMINAL_PROMPT: "0" }, encoding: "buffer", maxBuffer: 512 * 1024 * 1024 },
			(err, stdout, stderr) => {
				const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : -1) : 0;
				if (err && !(options.allowExit ?? []).includes(code)) {
					const text = stderr.toString("utf8").trim();
					reject(new GitError(`git ${args[0]} failed in ${cwd}: ${text || err.message}`, text));
					return;
				}
				resolve({ stdout, code });
			},
		);
		if (options.input) child.stdin?.end(options.input);
		else child.stdin?.end();
	});
}

async function gitText(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
	return (await git(cwd, args, { env })).stdout.toString("utf8").trim();
}

/** The repository that holds `cwd`: its top folder, `cwd` relative to it ("" at the top) and HEAD. */
export interface RepoInfo {
	root: string;
	prefix: string;
	head: string;
}

/** undefined when `cwd` is not inside a git work tree (tries then run read-only in the session's own folder). */
export async function repoOf(cwd: string): Promise<RepoInfo | undefined> {
	let inside: string;
	try {
		inside = await gitText(cwd, ["rev-parse", "--is-inside-work-tree"]);
	} catch {
		return undefined;
	}
	if (inside !== "true") return undefined;
	const root = await gitText(cwd, ["rev-parse", "--show-toplevel"]);
	const prefix = await gitText(cwd, ["rev-parse", "--show-prefix"]);
	let head: string;
	try {
		head = await gitText(cwd, ["rev-parse", "--verify", "HEAD^{commit}"]);
	} catch {
		throw new GitError(`${root} has no commit yet: tries start from HEAD plus your changes, so commit once first`);
	}
	return { root, prefix: prefix.replace(/\/$/, ""), head };
}

/**
 * The tree of a folder's current files (tracked, modified and untracked; ignored files left out) written
 * through a temporary index seeded from `base`, so the folder's own index stays as the user left it.
 */
export async function treeOfWorkingFiles(dir: string, base: string): Promise<string> {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-index-"));
	const env = { GIT_INDEX_FILE: path.join(tmp, "index") };
	try {
		await git(dir, ["read-tree", base], { env });
		await git(dir, ["add", "-A", "--", "."], { env });
		return await gitText(dir, ["write-tree"], env);
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}

/**
 * Commits the user's working tree (HEAD + uncommitted changes) as a commit whose parent is HEAD, and pins it
 * under `ref` so git's garbage collection keeps it while the tries run.
 */
export async function snapshotWorkingTree(repo: RepoInfo, ref: string): Promise<string> {
	const tree = await treeOfWorkingFiles(repo.root, repo.head);
	const env = { GIT_AUTHOR_NAME: "Arbor", GIT_AUTHOR_EMAIL: "arbor@localhost", GIT_COMMITTER_NAME: "Arbor", GIT_COMMITTER_EMAIL: "arbor@localhost" };
	const commit = await gitText(repo.root, ["commit-tree", tree, "-p", repo.head, "-m", "Arbor tries: snapshot of the working tree"], env);
	await git(repo.root, ["update-ref", ref, commit]);
	return commit;
}

/** A detached worktree at HEAD with the snapshot's uncommitted changes replayed as uncommitted changes. */
export async function addTryWorktree(repo: RepoInfo, dir: string, snapshot: string): Promise<void> {
	await git(repo.root, ["worktree", "add", "--detach", dir, repo.head]);
	const patch = (await git(repo.root, ["diff", "--binary", "--no-renames", repo.head, snapshot])).stdout;
	if (patch.length > 0) await git(dir, ["apply", "--whitespace=nowarn", "-"], { input: patch });
}

/** Removes a try's worktree (its uncommitted files included) and git's record of it. */
export async function removeTryWorktree(root: string, dir: string): Promise<void> {
	try {
		await git(root, ["worktree", "remove", "--force", "--force", dir]);
	} catch {
		// A folder git no longer knows (or a record whose folder is gone): remove what is left, then forget it.
		fs.rmSync(dir, { recursive: true, force: true });
	}
	await git(root, ["worktree", "prune"]).catch(() => undefined);
}

export async function deleteRef(root: string, ref: string): Promise<void> {
	await git(root, ["update-ref", "-d", ref]).catch(() => undefined);
}

/** The files that differ between two trees (paths relative to the repository's top folder), renames as delete + add. */
export async function changedFiles(root: string, from: string, to: string): Promise<ChangedFile[]> {
	const status = (await git(root, ["diff", "--name-status", "--no-renames", "-z", from, to])).stdout.toString("utf8").split("\0");
	const counts = (await git(root, ["diff", "--numstat", "--no-renames", "-z", from, to])).stdout.toString("utf8").split("\0");
	const lines = new Map<string, { added: number | null; removed: number | null }>();
	for (const rec of counts) {
		const m = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(rec);
		if (m) lines.set(m[3]!, { added: m[1] === "-" ? null : Number(m[1]), removed: m[2] === "-" ? null : Number(m[2]) });
	}
	const out: ChangedFile[] = [];
	for (let i = 0; i + 1 < status.length; i += 2) {
		const code = status[i]!;
		const file = status[i + 1]!;
		if (!code) continue;
		const kind = code[0] === "A" ? "added" : code[0] === "D" ? "deleted" : "modified";
		out.push({ path: file, status: kind, ...(lines.get(file) ?? { added: null, removed: null }) });
	}
	return out;
}

/** The unified diff between two trees (text; binary files as git's binary patch). */
export async function treeDiff(root: string, from: string, to: string, file?: string): Promise<string> {
	const args = ["diff", "--binary", "--no-renames", from, to];
	if (file !== undefined) args.push("--", file);
	return (await git(root, args)).stdout.toString("utf8");
}
