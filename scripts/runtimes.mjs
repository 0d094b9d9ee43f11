#!/usr/bin/env node
// The newer runtimes the oracle tests need, from the npm registry into a cache folder outside the repo:
// Node 24 runs pi 1.6.0's whole CLI (its main entry needs Node >= 22.19; Arbor itself stays on Node 20) and
// Bun runs oh-my-pi, which needs Bun. Neither is a dependency of the project: npm scripts put
// node_modules/.bin first on PATH, so a `node` dependency would switch every script to Node 24.
//
//   node scripts/runtimes.mjs          install what is missing, print {"node24": PATH, "bun": PATH}
//   import { runtimes } from ".../scripts/runtimes.mjs"   the same, from a test setup
//
// ARBOR_RUNTIMES_DIR moves the cache (default ~/.cache/arbor-runtimes). Installs are pinned and idempotent;
// two processes installing at once are serialised by a lock folder.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const NODE24_VERSION = "24.21.0";
export const BUN_VERSION = "1.4.5";

export const runtimesDir = process.env.ARBOR_RUNTIMES_DIR || join(homedir(), ".cache", "arbor-runtimes");

const RUNTIMES = {
	node24: { pkg: `node@${NODE24_VERSION}`, folder: `node-${NODE24_VERSION}`, bin: "node", probe: ["--version"], expect: `v${NODE24_VERSION}` },
	bun: { pkg: `bun@${BUN_VERSION}`, folder: `bun-${BUN_VERSION}`, bin: "bun", probe: ["--version"], expect: BUN_VERSION },
};

function binPath(r) {
	return join(runtimesDir, r.folder, "node_modules", ".bin", r.bin);
}

function works(r) {
	const bin = binPath(r);
	if (!existsSync(bin)) return false;
	const p = spawnSync(bin, r.probe, { encoding: "utf8", timeout: 30_000 });
	return p.status === 0 && p.stdout.trim() === r.expect;
}

/** Serialise installs between processes (a test run and .ci/run may start at once): mkdir is atomic. */
function withLock(fn) {
	mkdirSync(runtimesDir, { recursive: true, mode: 0o700 });
	const lock = join(runtimesDir, ".lock");
	const deadline = Date.now() + 300_000;
	for (;;) {
		try {
			mkdirSync(lock);
			break;
		} catch (e) {
			if (e.code !== "EEXIST") throw e;
			// A lock older than 10 minutes belongs to an install that died.
			try {
				if (Date.now() - statSync(lock).mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
			} catch {}
			if (Date.now() > deadline) throw new Error(`runtimes: another install holds ${lock} for more than 5 minutes`);
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
		}
	}
	try {
		return fn();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

function install(name) {
	const r = RUNTIMES[name];
	if (works(r)) return binPath(r);
	return withLock(() => {
		if (works(r)) return binPath(r);
		const dir = join(runtimesDir, r.folder);
		rmSync(dir, { recursive: true, force: true });
		mkdirSync(dir, { recursive: true });
		const npm = process.platform === "win32" ? "npm.cmd" : "npm";
		const p = spawnSync(npm, ["i", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", "--loglevel=error", r.pkg], { encoding: "utf8", timeout: 600_000 });
		if (!works(r)) {
			const why = (p.stderr || p.stdout || `exit ${p.status}`).trim().split("\n").slice(-3).join(" / ");
			throw new Error(`runtimes: could not install ${r.pkg} into ${dir} from the npm registry (${why})`);
		}
		return binPath(r);
	});
}

/** Paths of the installed runtimes, installing what is missing (throws a one-line reason when it cannot). */
export function runtimes(names = Object.keys(RUNTIMES)) {
	return Object.fromEntries(names.map((n) => [n, install(n)]));
}

if (import.meta.url === `file://${process.argv[1]}`) {
	try {
		process.stdout.write(`${JSON.stringify(runtimes(process.argv.slice(2).length ? process.argv.slice(2) : undefined))}\n`);
	} catch (e) {
		process.stderr.write(`${e.message}\n`);
		process.exit(1);
	}
}
