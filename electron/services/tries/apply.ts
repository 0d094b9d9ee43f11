// Keep: a try's changes (snapshot -> the try's tree) carried into the user's working tree, file by file, as a
// three-way merge whose base is the snapshot the try started from. Every file is decided first; only when none
// conflicts is anything written, so a conflict leaves the user's tree exactly as it was. Only working files are
// written: the user's index is never touched (`git apply --3way` would stage, and refuses files with unstaged edits).

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { KeepResult } from "../../../shared/tries";
import { changedFiles, git } from "./git";

/** A file's content and mode in a tree or on disk; null when it does not exist there. */
type Blob = { data: Buffer; mode: string } | null;

async function blobAt(root: string, tree: string, file: string): Promise<Blob> {
	const ls = (await git(root, ["ls-tree", "-z", tree, "--", file])).stdout.toString("utf8");
	const m = /^(\d+) (\w+) ([0-9a-f]+)\t/.exec(ls);
	if (!m) return null;
	const data = (await git(root, ["cat-file", m[2]!, m[3]!])).stdout;
	return { data, mode: m[1]! };
}

function onDisk(file: string): Blob | "other" {
	let st: fs.Stats;
	try {
		st = fs.lstatSync(file);
	} catch {
		return null;
	}
	if (st.isSymbolicLink()) return { data: Buffer.from(fs.readlinkSync(file)), mode: "120000" };
	if (!st.isFile()) return "other";
	return { data: fs.readFileSync(file), mode: st.mode & 0o111 ? "100755" : "100644" };
}

const same = (a: Blob, b: Blob): boolean => (a === null || b === null ? a === b : a.mode === b.mode && a.data.equals(b.data));

/** What Keep will do to one file of the user's tree. */
type Plan = { file: string; result: Blob };

export type { KeepResult };

async function mergeText(ours: Buffer, base: Buffer, theirs: Buffer): Promise<Buffer | null> {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "arbor-merge-"));
	try {
		const [o, b, t] = ["ours", "base", "theirs"].map((n) => path.join(tmp, n)) as [string, string, string];
		fs.writeFileSync(o, ours);
		fs.writeFileSync(b, base);
		fs.writeFileSync(t, theirs);
		// Exit 0: clean; > 0: that many conflicts; < 0 (255): an error such as a binary file.
		const r = await git(tmp, ["merge-file", "-p", "--", o, b, t], { allowExit: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 127, 255] });
		return r.code === 0 ? r.stdout : null;
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}

const looksBinary = (b: Buffer): boolean => b.subarray(0, 8000).includes(0);

/**
 * Applies the changes between `snapshot` and `tryTree` to the working files under `root`. All or nothing:
 * with any conflict, nothing is written and the conflicting files are named.
 */
export async function applyTryChanges(root: string, snapshot: string, tryTree: string): Promise<KeepResult> {
	const plans: Plan[] = [];
	const conflicts: string[] = [];
	for (const change of await changedFiles(root, snapshot, tryTree)) {
		const base = await blobAt(root, snapshot, change.path);
		const theirs = await blobAt(root, tryTree, change.path);
		const ours = onDisk(path.join(root, change.path));
		if (ours === "other") {
			conflicts.push(change.path);
			continue;
		}
		if (same(ours, base)) plans.push({ file: change.path, result: theirs });
		else if (same(ours, theirs)) continue;
		else if (ours && base && theirs && ours.mode === theirs.mode && ![ours, base, theirs].some((b) => looksBinary(b.data))) {
			const merged = await mergeText(ours.data, base.data, theirs.data);
			if (merged === null) conflicts.push(change.path);
			else plans.push({ file: change.path, result: { data: merged, mode: theirs.mode } });
		} else conflicts.push(change.path);
	}
	if (conflicts.length > 0) return { applied: [], conflicts };
	for (const { file, result } of plans) writeWorkingFile(path.join(root, file), result);
	return { applied: plans.map((p) => p.file), conflicts: [] };
}

function writeWorkingFile(file: string, blob: Blob): void {
	if (blob === null) {
		fs.rmSync(file, { force: true });
		return;
	}
	fs.mkdirSync(path.dirname(file), { recursive: true });
	if (blob.mode === "120000") {
		fs.rmSync(file, { force: true });
		fs.symlinkSync(blob.data.toString("utf8"), file);
		return;
	}
	// Through a temp file and a rename in the same folder: a crash never leaves half a file.
	// An existing file keeps its permission bits (a 0600 file stays 0600); only the executable bits follow the try.
	let mode = blob.mode === "100755" ? 0o755 : 0o644;
	try {
		const had = fs.statSync(file).mode & 0o666;
		mode = blob.mode === "100755" ? had | ((had & 0o444) >> 2) : had;
	} catch {
		/* a new file */
	}
	const tmp = path.join(path.dirname(file), `.${path.basename(file)}.arbor-keep-${process.pid}`);
	fs.writeFileSync(tmp, blob.data, { mode });
	fs.chmodSync(tmp, mode);
	fs.renameSync(tmp, file);
}
