// Which files the API may open: only those the user chose (command line, dialog, drop), those the
// session library listed, those inside directories the host allowed (`arbor serve DIR`), and those Arbor
// itself created (branch to file). A compromised or buggy renderer must not be able to read
// ~/.ssh/id_rsa by asking `openSession` for it.
//
// Paths are compared after realpath, so `..` segments and symlinks cannot walk out of an allowed
// directory. An explicitly allowed file is also matched by its normalized literal path: the user chose
// exactly that name (for example a symlink in a session folder). A file the library listed is checked
// again on every open: its path resolved now must still lie inside the folder it was listed from (a plain
// file swapped for a symlink to ~/.ssh/id_rsa after the listing is refused).

import { realpath } from "node:fs/promises";
import { isAbsolute, resolve, sep } from "node:path";

export class PathPolicy {
	readonly #files = new Set<string>();
	readonly #dirs = new Set<string>();
	/** Library listings: literal path -> the folder it was listed from. */
	readonly #listed = new Map<string, string>();

	/**
	 * Allow one file. The literal path counts at once (synchronously); its realpath is added when it
	 * resolves (the file may not exist yet: a file Arbor is about to create).
	 */
	async allowFile(path: string): Promise<void> {
		const literal = resolve(path);
		this.#files.add(literal);
		const real = await realOrNull(literal);
		if (real) this.#files.add(real);
	}

	/**
	 * Allow one file by its exact (normalized) path only: the session library's listings, which can run
	 * to thousands of files where a realpath each would cost more than the listing itself.
	 */
	allowListedFile(path: string, root?: string): void {
		const literal = resolve(path);
		this.#listed.set(literal, resolve(root ?? resolve(literal, "..")));
	}

	/** Allow a directory tree (its realpath; every file below it, after symlinks are resolved). */
	async allowDir(path: string): Promise<void> {
		const literal = resolve(path);
		this.#dirs.add(literal);
		const real = await realOrNull(literal);
		if (real) this.#dirs.add(real);
	}

	get dirs(): string[] {
		return [...this.#dirs];
	}

	/**
	 * The path to hand to the services when `path` may be opened, else null. Relative paths are refused:
	 * the renderer has no working directory of its own.
	 */
	async check(path: string): Promise<string | null> {
		if (!isAbsolute(path) || path.includes("\0")) return null;
		const literal = resolve(path);
		const real = await realOrNull(literal);
		if (real && this.#files.has(real)) return real;
		if (this.#files.has(literal)) return real ?? literal;
		if (real && this.#insideDir(real)) return real;
		const listedFrom = this.#listed.get(literal);
		if (listedFrom !== undefined) {
			// Resolved now, on this open: a symlink swapped in since the listing must not lead out of its folder.
			if (!real) return literal;
			if (real === literal) return real;
			const rootReal = await realOrNull(listedFrom);
			if (rootReal && (real === rootReal || real.startsWith(rootReal.endsWith(sep) ? rootReal : rootReal + sep))) return real;
			return null;
		}
		// A file that does not exist yet cannot be a symlink: its resolved parent decides.
		if (!real && this.#insideDir(literal)) {
			const parentReal = await realOrNull(resolve(literal, ".."));
			if (parentReal && this.#insideDir(`${parentReal}${sep}x`)) return literal;
		}
		return null;
	}

	/** True when `dir` (already absolute) is one of the allowed directories or inside one. */
	async isDirAllowed(dir: string): Promise<boolean> {
		if (!isAbsolute(dir) || dir.includes("\0")) return false;
		const real = await realOrNull(resolve(dir));
		if (!real) return false;
		return this.#dirs.has(real) || this.#insideDir(real);
	}

	#insideDir(p: string): boolean {
		for (const d of this.#dirs) {
			const prefix = d.endsWith(sep) ? d : d + sep;
			if (p.startsWith(prefix)) return true;
		}
		return false;
	}
}

async function realOrNull(p: string): Promise<string | null> {
	try {
		return await realpath(p);
	} catch {
		return null;
	}
}
