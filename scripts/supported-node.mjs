// A Node that Arbor supports, for the README's commands on a machine whose own Node is older: package.json's
// engines.node is the floor (pi 1.6's own); below it, `npm start` and `npm test` run on the Node 24 that
// scripts/runtimes.mjs brings from the npm registry instead of stopping. The system Node only bootstraps.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtimes } from "./runtimes.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** [major, minor] of package.json's engines.node (">=22.19.0"). */
export function nodeFloor() {
	const range = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).engines.node;
	const m = /^>=\s*(\d+)\.(\d+)/.exec(range);
	if (!m) throw new Error(`package.json engines.node is not a ">=MAJOR.MINOR" floor: ${range}`);
	return [Number(m[1]), Number(m[2])];
}

export function meetsFloor(version = process.versions.node) {
	const [major, minor] = version.split(".").map(Number);
	const [fMajor, fMinor] = nodeFloor();
	return major > fMajor || (major === fMajor && minor >= fMinor);
}

/** This Node when it meets the floor, else the runtimes' Node 24 (installed on first use; throws one line). */
export function supportedNode() {
	return meetsFloor() ? process.execPath : runtimes(["node24"]).node24;
}

/** An environment whose `node` (and so npm, npx and every `#!/usr/bin/env node` child) is `node`. */
export function envWithNode(node, env = process.env) {
	return { ...env, PATH: `${dirname(node)}:${env.PATH ?? ""}` };
}
