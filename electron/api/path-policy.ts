// Which files the API may open: only those the user chose (command line, dialog, drop), those the
// session library listed, those inside directories the host allowed (`arbor serve DIR`), and those Arbor
// itself created (branch to file). A compromised or buggy renderer must not be able to read
// ~/.ssh/id_rsa by asking `openSession` for it.
//
// Paths are compared after realpath, so `..` segments and symlinks cannot walk out of an allowed
// directory. An explicitly allowed file is also matched by its normalized literal path: the user chose
// exactly that name (for example a symlink in a session folder).

import { realpath } from "node:fs/promises";
import { isAbsolute, resolve, sep } from "node:path";

export class PathPolicy {
	readonly #files = new Set<string>();
	readonly #dirs = new Set<string>();

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
	allowListedFile(path: string): void {
		this.#files.add(resolve(path));
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
