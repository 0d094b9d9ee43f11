// Bundles the main-process side (Electron main, preload, the `arbor` CLI) to CommonJS with esbuild.
// CJS keeps __dirname and works for a sandboxed preload (../shared/notes/TOOLCHAIN.md).
import { build } from "esbuild";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entries = [
	{ in: "electron/cli/main.ts", out: "cli" },
	// `arbor context` alone (bin/arbor.cjs): the path-only reader without the rest of the CLI.
	{ in: "electron/cli/context-main.ts", out: "cli-context" },
	{ in: "electron/hosts/electron/main.ts", out: "main" },
	{ in: "electron/hosts/electron/preload.ts", out: "preload" },
].filter((e) => existsSync(join(root, e.in)));

await build({
	absWorkingDir: root,
	entryPoints: entries.map((e) => ({ in: e.in, out: e.out })),
	outdir: "dist",
	outExtension: { ".js": ".cjs" },
	bundle: true,
	platform: "node",
	format: "cjs",
	target: "node20",
	sourcemap: true,
	logLevel: "warning",
	// Runtime dependencies stay external (installed in node_modules / packaged by electron-builder).
	external: ["electron", "electron-updater", "@earendil-works/pi-ai", "jiti", "ws", "zod", "bufferutil", "utf-8-validate"],
});
