// How this pi was started, for its live registration (docs/live.md): Arbor runs a session's tries with the same
// runtime and CLI as the pi that holds the session (docs/tries.md), so they get the user's pi, version and
// extensions. Recorded only when this process provably runs pi's own CLI; otherwise nothing is recorded and
// Arbor falls back to `pi` on PATH. Three ways pi runs (its package's config.js tells them apart the same way):
// - a runtime and a script: `node` (or `bun`) with pi's CLI script as argv[1], often through a bin link;
// - a Bun-compiled pi: the executable is pi, argv[1] lies in Bun's virtual file system (`/$bunfs/...`,
//   `B:\~BUN\...`), and pi's package.json ships next to the executable;
// - a Node single executable: the executable is pi, with its package.json next to it too.

import * as fs from "node:fs";
import * as path from "node:path";
import type { LiveRegistration } from "../shared/live";

const PI_PACKAGE = "@earendil-works/pi-coding-agent";

export type PiRuntime = NonNullable<LiveRegistration["runtime"]>;

/** The facts of this process the answer depends on (tests pass others). */
export interface ProcessFacts {
	execPath: string;
	argv1: string | undefined;
	/** Started as one executable (Bun's `--compile`, Node's single executable application). */
	compiled: boolean;
}

function isNodeSea(): boolean {
	try {
		const sea = process.getBuiltinModule?.("node:sea") as { isSea?: () => boolean } | undefined;
		return sea?.isSea?.() === true;
	} catch {
		return false;
	}
}

export function processFacts(): ProcessFacts {
	const argv1 = process.argv[1];
	const inBunfs = argv1 !== undefined && /(^|[\\/])(\$bunfs|~BUN)([\\/]|$)/.test(argv1);
	return { execPath: process.execPath, argv1, compiled: (Boolean(process.versions.bun) && inBunfs) || isNodeSea() };
}

const real = (p: string): string | null => {
	try {
		return fs.realpathSync(p);
	} catch {
		return null;
	}
};

function readPackage(dir: string): { name?: unknown; bin?: unknown } | null {
	try {
		return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: unknown; bin?: unknown };
	} catch {
		return null;
	}
}

/** pi's CLI script: `bin.pi` of the nearest package.json above `script`, when that package is pi's. */
function isPiCli(script: string): boolean {
	for (let dir = path.dirname(script); dir !== path.dirname(dir); dir = path.dirname(dir)) {
		const pkg = readPackage(dir);
		if (!pkg || pkg.name === undefined) continue; // none here, or a nested {"type": "module"}
		const bin = typeof pkg.bin === "string" ? pkg.bin : (pkg.bin as { pi?: unknown } | undefined)?.pi;
		return pkg.name === PI_PACKAGE && typeof bin === "string" && real(path.join(dir, bin)) === script;
	}
	return false;
}

/** The runtime and CLI that started this pi, or undefined when this process is not provably pi's CLI. */
export function piRuntime(facts: ProcessFacts = processFacts()): PiRuntime | undefined {
	const exec = real(facts.execPath);
	if (!exec || !path.isAbsolute(exec)) return undefined;
	if (facts.compiled) {
		const beside = [path.dirname(facts.execPath), path.dirname(exec)];
		return beside.some((d) => readPackage(d)?.name === PI_PACKAGE) ? { execPath: exec, cliPath: null } : undefined;
	}
	const cli = facts.argv1 ? real(facts.argv1) : null;
	return cli && path.isAbsolute(cli) && isPiCli(cli) ? { execPath: exec, cliPath: cli } : undefined;
}
