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

/**
 * Arbor's git never runs a program on a repository's say: no fsmonitor, no hooks, no pager, no system-wide config
 * or attributes; diffs pass --no-ext-diff --no-textconv themselves. Inherited variables that would point git at
 * another repository or add config are dropped (a try's commands name theirs explicitly: `TryGit`).
 */
const SAFE_ARGS = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.untrackedCache=false", "--no-pager"];
const INHERITED_VARS = [
	"GIT_DIR",
	"GIT_WORK_TREE",
	"GIT_INDEX_FILE",
	"GIT_COMMON_DIR",
	"GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES",
	"GIT_NAMESPACE",
	"GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT",
];

/**
 * A try's worktree as Arbor made it: the admin folder `git worktree add` created in the user's repository
 * (`<common dir>/worktrees/<name>`), named explicitly, so the worktree's own `.git` file (which the try can
 * rewrite to point at a repository whose config runs programs) is never read. Every filter driver the config
 * defines is switched off there: the try's `.gitattributes` could otherwise pick one.
 */
export interface TryGit {
	gitDir: string;
	workTree: string;
	/** Config entries that switch every filter driver off (key, value), passed as GIT_CONFIG_KEY_n: any name fits. */
	filtersOff: [string, string][];
}

export interface GitOptions {
	env?: NodeJS.ProcessEnv;
	input?: Buffer;
	allowExit?: number[];
	/** Run in a try's worktree through its known admin folder (tryGitOf). */
	tryGit?: TryGit;
}

/** The argument list and environment of one of Arbor's git commands (also for the streaming cat-file). */
export function gitCommand(
	args: string[],
	options: Pick<GitOptions, "env" | "tryGit"> = {},
): { program: string | null; args: string[]; env: NodeJS.ProcessEnv } {
	const env: NodeJS.ProcessEnv = { ...process.env };
	for (const v of INHERITED_VARS) delete env[v];
	Object.assign(env, { GIT_CONFIG_NOSYSTEM: "1", GIT_ATTR_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" }, options.env);
	const t = options.tryGit;
	if (t) {
		env.GIT_CONFIG_COUNT = String(t.filtersOff.length);
		t.filtersOff.forEach(([k, v], i) => Object.assign(env, { [`GIT_CONFIG_KEY_${i}`]: k, [`GIT_CONFIG_VALUE_${i}`]: v }));
	}
	const place = t ? [`--git-dir=${t.gitDir}`, `--work-tree=${t.workTree}`] : [];
	// git from an absolute PATH entry only (shared-node/programs.ts): a `git` in the worktree must not run.
	return { program: findProgram("git", env), args: [...SAFE_ARGS, ...place, ...args], env };
}

/** Runs git in `cwd`; resolves stdout as a Buffer (file contents may be binary). */
export function git(cwd: string, args: string[], options: GitOptions = {}): Promise<{ stdout: Buffer; code: number }> {
	const cmd = gitCommand(args, options);
	return new Promise((resolve, reject) => {
		const program = cmd.program;
		if (!program) return reject(new GitError(`git ${args[0]} failed in ${cwd}: git is not on PATH (only absolute PATH entries are searched)`));
		const child = execFile(program, cmd.args, { cwd, env: cmd.env, encoding: "buffer", maxBuffer: 512 * 1024 * 1024 }, (err, stdout, stderr) => {
			const code = err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : -1) : 0;
			if (err && !(options.allowExit ?? []).includes(code)) {
				const text = stderr.toString("utf8").trim();
				reject(new GitError(`git ${args[0]} failed in ${cwd}: ${text || err.message}`, text));
				return;
			}
			resolve({ stdout, code });
		});
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
export async function treeOfWorkingFiles(dir: string, base: string, tryGit?: TryGit): Promise<string> {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-index-"));
	const o = { env: { GIT_INDEX_FILE: path.join(tmp, "index") }, tryGit };
	try {
		await git(dir, ["read-tree", base], o);
		await git(dir, ["add", "-A", "--", "."], o);
		return (await git(dir, ["write-tree"], o)).stdout.toString("utf8").trim();
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}

/**
 * The git of a try's worktree through the admin folder Arbor's `git worktree add` made for it: the entry of the
 * repository's `worktrees/` folder whose `gitdir` names this worktree. Read from the user's repository, never
 * from the worktree; throws when there is none (the worktree was removed or pruned).
 */
export async function tryGitOf(root: string, worktree: string): Promise<TryGit> {
	const common = path.resolve(root, (await git(root, ["rev-parse", "--git-common-dir"])).stdout.toString("utf8").trim());
	const wanted = new Set([path.join(path.resolve(worktree), ".git")]);
	try {
		wanted.add(path.join(fs.realpathSync(worktree), ".git"));
	} catch {
		/* gone: nothing will match */
	}
	const admin = path.join(common, "worktrees");
	let names: string[] = [];
	try {
		names = fs.readdirSync(admin);
	} catch {
		/* no worktree at all */
	}
	for (const name of names) {
		let gitdir: string;
		try {
			gitdir = fs.readFileSync(path.join(admin, name, "gitdir"), "utf8").trim();
		} catch {
			continue;
		}
		if (!wanted.has(path.resolve(gitdir))) continue;
		const gitDir = path.join(admin, name);
		const drivers = (await git(root, ["--git-dir", gitDir, "config", "-z", "--name-only", "--get-regexp", "^filter\\."], { allowExit: [1] })).stdout;
		const defined = new Set(
			drivers
				.toString("utf8")
				.split("\0")
				.flatMap((k) => /^filter\.(.+)\.[^.]+$/s.exec(k)?.[1] ?? []),
		);
		const filtersOff = [...defined].flatMap((n): [string, string][] => [
			[`filter.${n}.clean`, ""],
			[`filter.${n}.smudge`, ""],
			[`filter.${n}.process`, ""],
			[`filter.${n}.required`, "false"],
		]);
		return { gitDir, workTree: path.resolve(worktree), filtersOff };
	}
	throw new GitError(`${worktree} is not a worktree of ${root} any more`);
}

/** The tree of a try's working files (its worktree's own git never consulted: tryGitOf). */
export async function treeOfTry(repo: { root: string; head: string }, worktree: string): Promise<string> {
	return treeOfWorkingFiles(worktree, repo.head, await tryGitOf(repo.root, worktree));
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
	const patch = (await git(repo.root, ["diff", "--binary", "--no-renames", "--no-ext-diff", "--no-textconv", repo.head, snapshot])).stdout;
	if (patch.length > 0) await git(dir, ["apply", "--whitespace=nowarn", "-"], { input: patch, tryGit: await tryGitOf(repo.root, dir) });
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
	const status = (await git(root, ["diff", "--name-status", "--no-renames", "--no-ext-diff", "-z", from, to])).stdout.toString("utf8").split("\0");
	const counts = (await git(root, ["diff", "--numstat", "--no-renames", "--no-ext-diff", "--no-textconv", "-z", from, to])).stdout.toString("utf8").split("\0");
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
	const args = ["diff", "--binary", "--no-renames", "--no-ext-diff", "--no-textconv", from, to];
	if (file !== undefined) args.push("--", file);
	return (await git(root, args)).stdout.toString("utf8");
}
