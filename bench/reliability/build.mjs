// Bundles the TypeScript workers of the reliability harness (bench/reliability/workers/*.ts, which import
// the real electron/ and shared/ sources) to CommonJS in bench/.cache/reliability/workers with esbuild, so
// a fresh clone needs nothing but `npm ci`. A worker whose imports do not resolve yet (a layer not landed)
// is reported as unavailable instead of failing the whole run.
import { build } from "esbuild";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { cacheDir, repoRoot } from "./fuzz-gen.mjs";

export const workersOut = join(cacheDir, "workers");

/** Returns { name -> bundle path | Error }. */
export async function buildWorkers() {
	const src = join(repoRoot, "bench", "reliability", "workers");
	mkdirSync(workersOut, { recursive: true });
	const out = {};
	for (const f of readdirSync(src).filter((f) => f.endsWith(".ts") && f !== "common.ts")) {
		const name = f.replace(/\.ts$/, "");
		const outfile = join(workersOut, `${name}.cjs`);
		try {
			await build({
				absWorkingDir: repoRoot,
				entryPoints: [join(src, f)],
				outfile,
				bundle: true,
				platform: "node",
				format: "cjs",
				target: "node20",
				sourcemap: "inline",
				logLevel: "silent",
				external: [
					"electron",
					"@earendil-works/pi-ai",
					"@mariozechner/pi-ai",
					"@mariozechner/pi-coding-agent",
					"jiti",
					"ws",
					"zod",
					"bufferutil",
					"utf-8-validate",
					"playwright-core",
					"@playwright/test",
				],
			});
			out[name] = outfile;
		} catch (err) {
			const msg = err && typeof err === "object" && "errors" in err ? err.errors.map((e) => e.text).join("; ") : String(err);
			out[name] = new Error(msg);
		}
	}
	return out;
}

export function workerPath(workers, name) {
	const w = workers[name];
	if (!w) throw new Error(`no worker ${name}`);
	if (w instanceof Error) throw new Error(`worker ${name} does not build yet: ${w.message}`);
	if (!existsSync(w)) throw new Error(`worker ${name} bundle missing`);
	return w;
}
