// Where this install of Arbor lives (the folder with its package.json), found by walking up from this
// code: the same lookup works from the sources (vitest), the esbuild bundle in dist/, and a packaged app.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** package.json's name (the npm package; the command is `arbor`). */
export const PACKAGE_NAME = "pi-arbor";

export function findAppRoot(start: string = __dirname): string {
	let dir = start;
	for (;;) {
		const pkg = join(dir, "package.json");
		if (existsSync(pkg)) {
			try {
				if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: unknown }).name === PACKAGE_NAME) return dir;
			} catch {
				// not ours; keep walking
			}
		}
		const up = dirname(dir);
		if (up === dir) return start;
		dir = up;
	}
}

/** The built renderer (`vite build` output). */
export function defaultRendererDir(): string {
	return join(findAppRoot(), "dist", "renderer");
}
