// Keep's writes into the user's working tree, as one step that is undone on any failure:
// 1. stage: every new content goes to an exclusive temp file (random name, O_EXCL|O_NOFOLLOW: a planted link is
//    never followed or clobbered) next to its target, written whole and fsynced (many at a time);
// 2. check: each target is still exactly what Keep planned from (same inode, size, mtime, mode and bytes; or still
//    absent), and no folder on its way is a symbolic link; otherwise nothing is written;
// 3. apply: each target is kept aside under a hard link (or moved aside, for a deletion), then the temp file is
//    renamed over it; a failure at any file puts every file already replaced, created or deleted back.
// Modes: a replaced file keeps its own (only its executable bits follow the try); a new one gets git's 0644/0755,
// narrowed by the umask as git's checkout does.

import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { errorText } from "../../../shared/guards";
import { TriesError } from "./errors";

/** A file's state on disk when Keep planned: absent, or a regular file with these bytes. */
export type DiskFile = null | { ino: bigint; size: bigint; mtimeNs: bigint; mode: number; data: Buffer };

/** One target of Keep: what it was (`before`) and what it becomes (null: deleted). */
export interface KeepWrite {
	/** Relative to the repository's top folder. */
	file: string;
	before: DiskFile;
	after: { data: Buffer; mode: string } | null;
}

/** Seams for tests only: called after the staging, and before each file is applied. */
export interface KeepHooks {
	staged?(): void;
	beforeApply?(index: number, file: string): void;
}

const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** The first folder or file on `rel`'s way (below `root`) that is a symbolic link, or a non-folder where a folder is. */
export function unsafeStep(root: string, rel: string): { at: string; why: "link" | "not_folder" } | null {
	const parts = rel.split("/");
	let at = root;
	for (let i = 0; i < parts.length; i++) {
		at = path.join(at, parts[i]!);
		let st: fs.Stats;
		try {
			st = fs.lstatSync(at);
		} catch {
			return null; // missing from here down: Keep creates it
		}
		if (st.isSymbolicLink()) return { at: path.relative(root, at), why: "link" };
		if (i < parts.length - 1 && !st.isDirectory()) return { at: path.relative(root, at), why: "not_folder" };
	}
	return null;
}

/** The target's state now (lstat, bytes read without following a link). */
export function diskFile(abs: string): DiskFile | "link" | "other" {
	let st: fs.BigIntStats;
	try {
		st = fs.lstatSync(abs, { bigint: true });
	} catch {
		return null;
	}
	if (st.isSymbolicLink()) return "link";
	if (!st.isFile()) return "other";
	const fd = fs.openSync(abs, fs.constants.O_RDONLY | O_NOFOLLOW);
	try {
		const now = fs.fstatSync(fd, { bigint: true });
		if (now.ino !== st.ino) return "other";
		return { ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, mode: Number(st.mode), data: fs.readFileSync(fd) };
	} finally {
		fs.closeSync(fd);
	}
}

const sameDisk = (a: DiskFile | "link" | "other", b: DiskFile): boolean =>
	a === null || b === null
		? a === b
		: a !== "link" && a !== "other" && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.mode === b.mode && a.data.equals(b.data);

function refuseUnsafe(root: string, file: string): void {
	const bad = unsafeStep(root, file);
	if (bad?.why === "link")
		throw new TriesError(`${file}: ${bad.at} is a symbolic link in your tree; Keep never writes through one, so nothing was written`, "unsafe_path", [file]);
	if (bad) throw new TriesError(`${file}: ${bad.at} is a file in your tree where the try has a folder; nothing was written`, "conflict", [file]);
}

const tempName = (abs: string, what: string): string =>
	path.join(path.dirname(abs), `.${path.basename(abs)}.arbor-keep-${randomBytes(8).toString("hex")}${what}`);

/** The mode a file gets: an existing one keeps its bits (executable bits follow git's mode); a new one git's. */
function modeFor(after: string, before: DiskFile): number {
	if (!before) return after === "100755" ? 0o755 : 0o644;
	const had = before.mode & 0o7777;
	return after === "100755" ? had | ((had & 0o444) >> 2) : had & ~0o111;
}

interface Staged {
	w: KeepWrite;
	abs: string;
	temp: string | null;
}

type Done = { abs: string; undo: "unlink" | "restore"; aside: string | null };

/**
 * `act` on every item, 32 at a time (file system calls that wait on the disk overlap). On a failure no new item
 * starts, and it throws the first error only once every started one has ended (so a clean-up sees them all).
 */
async function eachAtOnce<T>(items: T[], act: (item: T) => Promise<unknown>): Promise<void> {
	let next = 0;
	let failure: { err: unknown } | undefined;
	const worker = async (): Promise<void> => {
		while (next < items.length && !failure) {
			try {
				await act(items[next++]!);
			} catch (err) {
				failure ??= { err };
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(32, items.length) }, worker));
	if (failure) throw failure.err;
}

/** Writes every change in `writes` as one step (see the header). Throws a TriesError; on it, nothing changed. */
export async function writeAll(root: string, writes: KeepWrite[], hooks: KeepHooks = {}): Promise<void> {
	const made: string[] = []; // folders Keep created, outermost first
	const staged: Staged[] = [];
	const cleanUp = (): void => {
		for (const s of staged) if (s.temp) fs.rmSync(s.temp, { force: true });
		for (const d of [...made].reverse()) {
			try {
				fs.rmdirSync(d); // only if still empty
			} catch {
				/* something else is in it now: it stays */
			}
		}
	};
	try {
		for (const w of writes) staged.push(stage(root, w, made));
		// Written and flushed many at a time: one after another cost 2.5 ms a file here (an fsync each), and a
		// thousand files took seconds; concurrent ones share the file system's journal commits.
		await eachAtOnce(
			staged.filter((x) => x.temp),
			writeTemp,
		);
		hooks.staged?.();
		for (const w of writes) {
			refuseUnsafe(root, w.file);
			if (!sameDisk(diskFile(path.join(root, w.file)), w.before)) throw changedError(w.file);
		}
	} catch (err) {
		cleanUp();
		throw asTriesError(err, "staged");
	}
	const done: Done[] = [];
	try {
		staged.forEach((s, i) => {
			hooks.beforeApply?.(i, s.w.file);
			done.push(applyOne(root, s));
		});
	} catch (err) {
		const lost = rollBack(done);
		cleanUp();
		if (lost.length > 0)
			throw new TriesError(`Keep failed (${errorText(err)}) and could not put back: ${lost.join(", ")}; the rest of your tree is as it was`, "io", lost);
		throw asTriesError(err, "applied");
	}
	await eachAtOnce(
		done.flatMap((d) => (d.aside ? [d.aside] : [])),
		(f) => fs.promises.rm(f, { force: true }),
	);
}

function changedError(file: string): TriesError {
	return new TriesError(`${file} changed in your tree while Keep was planning: nothing was written; keep again to merge your edit`, "changed", [file]);
}

function asTriesError(err: unknown, stage: "staged" | "applied"): TriesError {
	if (err instanceof TriesError) return err;
	const what = stage === "staged" ? "nothing was written" : "every file Keep had changed was put back";
	const file = (err as { path?: unknown }).path;
	return new TriesError(`Keep could not write ${typeof file === "string" ? file : "your tree"} (${errorText(err)}): ${what}`, "io");
}

function stage(root: string, w: KeepWrite, made: string[]): Staged {
	refuseUnsafe(root, w.file);
	const abs = path.join(root, w.file);
	if (!w.after) return { w, abs, temp: null };
	// Missing folders, one at a time: mkdir never follows a link at its own name (EEXIST).
	const parts = w.file.split("/").slice(0, -1);
	let dir = root;
	for (const p of parts) {
		dir = path.join(dir, p);
		if (fs.existsSync(dir)) continue;
		fs.mkdirSync(dir);
		made.push(dir);
	}
	return { w, abs, temp: tempName(abs, "") };
}

/** The staged file's content, written whole and flushed to disk (a link: made, not flushed). */
async function writeTemp(s: Staged): Promise<void> {
	const after = s.w.after!;
	if (after.mode === "120000") return fs.promises.symlink(after.data.toString("utf8"), s.temp!);
	const mode = modeFor(after.mode, s.w.before);
	const fh = await fs.promises.open(s.temp!, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | O_NOFOLLOW, mode);
	try {
		await fh.writeFile(after.data);
		if (s.w.before) await fh.chmod(mode); // the exact bits of the file it replaces, whatever the umask
		await fh.sync();
	} finally {
		await fh.close();
	}
}

function applyOne(root: string, s: Staged): Done {
	// The target once more, right before it is replaced: a save since the check is not overwritten.
	const now = fs.lstatSync(s.abs, { bigint: true, throwIfNoEntry: false });
	const before = s.w.before;
	if (before ? !now || now.ino !== before.ino || now.size !== before.size || now.mtimeNs !== before.mtimeNs : now) throw changedError(s.w.file);
	refuseUnsafe(root, s.w.file);
	if (!before) {
		fs.renameSync(s.temp!, s.abs);
		return { abs: s.abs, undo: "unlink", aside: null };
	}
	const aside = tempName(s.abs, ".was");
	if (!s.temp) {
		fs.renameSync(s.abs, aside);
		return { abs: s.abs, undo: "restore", aside };
	}
	try {
		fs.linkSync(s.abs, aside);
	} catch {
		fs.renameSync(s.abs, aside); // no hard links here: the file is missing for an instant
	}
	try {
		fs.renameSync(s.temp, s.abs);
	} catch (err) {
		if (!fs.existsSync(s.abs)) fs.renameSync(aside, s.abs);
		else fs.rmSync(aside, { force: true });
		throw err;
	}
	return { abs: s.abs, undo: "restore", aside };
}

/** Undoes the applied files, last first; returns the ones that could not be put back. */
function rollBack(done: Done[]): string[] {
	const lost: string[] = [];
	for (const d of [...done].reverse()) {
		try {
			if (d.undo === "unlink") fs.rmSync(d.abs, { force: true });
			else fs.renameSync(d.aside!, d.abs);
		} catch {
			lost.push(d.aside ? `${d.abs} (its old content is in ${d.aside})` : d.abs);
		}
	}
	return lost;
}
