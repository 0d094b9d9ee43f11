// Keep: a try's changes (snapshot -> the try's tree) carried into the user's working tree, file by file, as a
// three-way merge whose base is the snapshot the try started from. Every file is decided first; only when none
// conflicts is anything written, and then as one step undone on any failure (keep-write.ts), so a conflict, a link
// or a failed write leaves the user's tree exactly as it was. Only working files are written: the user's index is
// never touched (`git apply --3way` would stage, and refuses files with unstaged edits). Git is read once per
// change set (blobs.ts), not per file; only a file both sides changed costs a `git merge-file`.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { KeepResult } from "../../../shared/tries";
import { rawChanges, readObjects } from "./blobs";
import { TriesError } from "./errors";
import { git } from "./git";
import { diskFile, type DiskFile, type KeepHooks, type KeepWrite, unsafeStep, writeAll } from "./keep-write";

export type { KeepResult };
export type { KeepHooks };

/**
 * The largest file Keep applies (either side, or the user's copy): Keep holds each file in memory to compare and
 * merge it, so a bigger one is refused, naming it, and nothing is written. Copy such a file by hand.
 */
export const MAX_KEEP_FILE_BYTES = 64 * 1024 * 1024;

/** A file's content and git mode in a tree or on disk; null when it does not exist there. */
type Blob = { data: Buffer; mode: string } | null;

const same = (a: Blob, b: Blob): boolean => (a === null || b === null ? a === b : a.mode === b.mode && a.data.equals(b.data));
const looksBinary = (b: Buffer): boolean => b.subarray(0, 8000).includes(0);
const MiB = (n: number): string => `${Math.ceil(n / 1024 / 1024)} MiB`;

async function mergeText(tmp: string, ours: Buffer, base: Buffer, theirs: Buffer): Promise<Buffer | null> {
	const [o, b, t] = ["ours", "base", "theirs"].map((n) => path.join(tmp, n)) as [string, string, string];
	fs.writeFileSync(o, ours);
	fs.writeFileSync(b, base);
	fs.writeFileSync(t, theirs);
	// In a private folder with the search for a repository stopped at its parent: no repository's config applies.
	// Exit 0: clean; > 0: that many conflicts; < 0 (255): an error such as a binary file.
	const r = await git(tmp, ["merge-file", "-p", "--", o, b, t], {
		env: { GIT_CEILING_DIRECTORIES: path.dirname(tmp) },
		allowExit: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 127, 255],
	});
	return r.code === 0 ? r.stdout : null;
}

/**
 * Applies the changes between `snapshot` and `tryTree` to the working files under `root`. All or nothing: with any
 * conflict nothing is written and the conflicting files are named; a link on a file's way, a file over
 * MAX_KEEP_FILE_BYTES, a file the user changed while Keep planned, or a failed write throw a TriesError, with
 * nothing written (or everything already written put back).
 */
export async function applyTryChanges(root: string, snapshot: string, tryTree: string, hooks: KeepHooks = {}): Promise<KeepResult> {
	const changes = await rawChanges(root, snapshot, tryTree);
	const unsafe = changes.filter((c) => unsafeStep(root, c.path)?.why === "link").map((c) => c.path);
	if (unsafe.length > 0)
		throw new TriesError(
			`Keep never writes through a symbolic link, and these files are at or under one in your tree: ${unsafe.join(", ")}; nothing was written`,
			"unsafe_path",
			unsafe,
		);
	const objects = await readObjects(
		root,
		changes.flatMap((c) => [c.before, c.after].flatMap((s) => (s && s.mode !== "160000" ? [s.id] : []))),
		MAX_KEEP_FILE_BYTES,
	);
	const tooLarge: string[] = [];
	const blob = (side: { mode: string; id: string } | null, file: string): Blob => {
		if (!side) return null;
		const o = objects.get(side.id)!;
		if ("tooLarge" in o) {
			tooLarge.push(`${file} (${MiB(o.tooLarge)})`);
			return { data: Buffer.alloc(0), mode: side.mode };
		}
		return { data: o.data, mode: side.mode };
	};
	const writes: KeepWrite[] = [];
	const conflicts: string[] = [];
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-merge-"));
	try {
		for (const c of changes) {
			// A submodule (Keep does not move other repositories), or a file of the user's where the try has a folder.
			if (c.before?.mode === "160000" || c.after?.mode === "160000" || unsafeStep(root, c.path)) {
				conflicts.push(c.path);
				continue;
			}
			const base = blob(c.before, c.path);
			const theirs = blob(c.after, c.path);
			const abs = path.join(root, c.path);
			const size = fs.lstatSync(abs, { throwIfNoEntry: false })?.size ?? 0;
			if (size > MAX_KEEP_FILE_BYTES) tooLarge.push(`${c.path} (${MiB(size)})`);
			if (tooLarge.length > 0) continue; // nothing will be written: the rest need not be read
			const disk = diskFile(abs);
			if (disk === "other" || disk === "link") {
				conflicts.push(c.path);
				continue;
			}
			const ours: Blob = disk && { data: disk.data, mode: disk.mode & 0o111 ? "100755" : "100644" };
			const plan = (after: Blob): void => void writes.push({ file: c.path, before: disk as DiskFile, after });
			if (same(ours, base)) plan(theirs);
			else if (same(ours, theirs)) continue;
			else if (ours && base && theirs && ours.mode === theirs.mode && theirs.mode !== "120000" && ![ours, base, theirs].some((b) => looksBinary(b.data))) {
				const merged = await mergeText(tmp, ours.data, base.data, theirs.data);
				if (merged === null) conflicts.push(c.path);
				else plan({ data: merged, mode: theirs.mode });
			} else conflicts.push(c.path);
		}
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
	if (tooLarge.length > 0)
		throw new TriesError(
			`Keep applies files up to ${MiB(MAX_KEEP_FILE_BYTES)}; over it: ${tooLarge.join(", ")}. Nothing was written: copy those files from the try's worktree by hand`,
			"too_large",
			tooLarge,
		);
	if (conflicts.length > 0) return { applied: [], conflicts };
	await writeAll(root, writes, hooks);
	return { applied: writes.map((w) => w.file), conflicts: [] };
}
