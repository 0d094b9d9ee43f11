// What Keep reads from git, one process per change set whatever its size: the changed files with their modes and
// object ids (`git diff --raw`), then every object's bytes through one `git cat-file --batch`. (Reading them per
// file took four processes a file: 83 s for 1,500 files.)

import { spawn } from "node:child_process";
import { git, GitError, gitCommand } from "./git";

/** A file that differs between two trees: each side's mode ("000000": absent) and object id. */
export interface RawChange {
	path: string;
	before: { mode: string; id: string } | null;
	after: { mode: string; id: string } | null;
}

export async function rawChanges(root: string, from: string, to: string): Promise<RawChange[]> {
	const out = (await git(root, ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", "--no-ext-diff", from, to])).stdout.toString("utf8").split("\0");
	const changes: RawChange[] = [];
	for (let i = 0; i + 1 < out.length; i += 2) {
		// ":OLDMODE NEWMODE OLDID NEWID STATUS" then the path.
		const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) [A-Z]\d*$/.exec(out[i]!);
		if (!m) throw new GitError(`git diff --raw: unexpected record ${JSON.stringify(out[i])}`);
		const side = (mode: string, id: string): { mode: string; id: string } | null => (/^0+$/.test(mode) ? null : { mode, id });
		changes.push({ path: out[i + 1]!, before: side(m[1]!, m[3]!), after: side(m[2]!, m[4]!) });
	}
	return changes;
}

/** An object's bytes, or its size when over the limit (the bytes are read past, never kept). */
export type ObjectBytes = { data: Buffer } | { tooLarge: number };

/** Every object in `ids` through one `git cat-file --batch`, streamed: an object over `limit` bytes is not held. */
export function readObjects(root: string, ids: string[], limit: number): Promise<Map<string, ObjectBytes>> {
	const unique = [...new Set(ids)];
	const found = new Map<string, ObjectBytes>();
	if (unique.length === 0) return Promise.resolve(found);
	const cmd = gitCommand(["cat-file", "--batch"]);
	const program = cmd.program;
	if (!program) return Promise.reject(new GitError("git cat-file failed: git is not on PATH (only absolute PATH entries are searched)"));
	return new Promise((resolve, reject) => {
		const child = spawn(program, cmd.args, { cwd: root, env: cmd.env, stdio: ["pipe", "pipe", "pipe"] });
		let head: Buffer = Buffer.alloc(0);
		let body: { id: string; size: number; left: number; parts: Buffer[] | null } | null = null;
		let err = "";
		let failed: Error | null = null;
		const take = (chunk: Buffer): void => {
			let rest: Buffer = chunk;
			while (rest.length > 0 && !failed) {
				if (body) {
					// The object's bytes, then one newline.
					const n = Math.min(body.left, rest.length);
					if (body.parts && n > 0) body.parts.push(rest.subarray(0, n));
					body.left -= n;
					rest = rest.subarray(n);
					if (body.left === 0) {
						const size = body.size;
						found.set(body.id, body.parts ? { data: Buffer.concat(body.parts).subarray(0, size) } : { tooLarge: size });
						body = null;
					}
					continue;
				}
				head = head.length > 0 ? Buffer.concat([head, rest]) : rest;
				rest = Buffer.alloc(0);
				const nl = head.indexOf(0x0a);
				if (nl < 0) break;
				const line = head.subarray(0, nl).toString("utf8");
				rest = head.subarray(nl + 1);
				head = Buffer.alloc(0);
				const m = /^([0-9a-f]+) (\w+) (\d+)$/.exec(line);
				if (!m) {
					failed = new GitError(`git cat-file: ${line}`);
					child.kill();
					break;
				}
				const size = Number(m[3]);
				body = { id: m[1]!, size, left: size + 1, parts: size <= limit ? [] : null };
			}
		};
		child.stdout.on("data", take);
		child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
		child.on("error", reject);
		child.on("close", (code) => {
			if (failed) reject(failed);
			else if (code !== 0) reject(new GitError(`git cat-file failed in ${root}: ${err.trim() || `exit ${code}`}`, err));
			else if (found.size !== unique.length) reject(new GitError(`git cat-file: ${unique.length - found.size} objects missing in ${root}`));
			else resolve(found);
		});
		child.stdin.on("error", () => undefined);
		child.stdin.end(`${unique.join("\n")}\n`);
	});
}
