#!/usr/bin/env node
// The runtimes the suite runs on, from the npm registry into a cache folder outside the repo: Node 24
// runs the main suite and pi 1.6.0's whole CLI (its main entry needs Node >= 22.19), Node 22.19 (Arbor's
// floor, engines.node) runs the main-process core once more, Bun runs oh-my-pi, "omp" is omp 18.3.4's own
// source for the Bun oracle, and verdaccio is the local npm registry of the install-path test. The system
// Node only bootstraps them. None is a dependency of the project: npm scripts put node_modules/.bin first
// on PATH, so a `node` dependency would switch every script to that Node.
//
//   node scripts/runtimes.mjs          install what is missing, print {"node24": PATH, "node22": PATH, ...}
//   import { runtimes } from ".../scripts/runtimes.mjs"   the same, from a test setup
//
// ARBOR_RUNTIMES_DIR moves the cache (default ~/.cache/arbor-runtimes). Installs are pinned and idempotent;
// two processes installing at once are serialised by a lock folder.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export const NODE24_VERSION = "24.21.0";
// Exactly the floor package.json's engines.node declares, so the floor is what the suite proves.
export const NODE22_VERSION = "22.19.0";
// verdaccio 6.10 needs Node >= 22: it runs under the Node 24 above.
export const VERDACCIO_VERSION = "6.10.4";
export const BUN_VERSION = "1.4.5";
// omp's own session code (the published tarball ships its TypeScript `src/`, which Bun runs as is). Its
// @oh-my-pi/* siblings were never published at 18.3.4, so they are pinned to the newest published ones
// (docs/compatibility.md "omp 18.3 as an oracle" says which modules those are and why they do not change what
// is compared). Only the siblings the session modules import are installed; pi-natives is loaded without its
// addon by the oracle script (scripts/oracles/omp-oracle.mjs).
export const OMP_VERSION = "18.3.4";
const OMP_SIBLINGS = {
	"@oh-my-pi/pi-agent-core": "18.2.11",
	"@oh-my-pi/pi-ai": "18.2.11",
	"@oh-my-pi/pi-tui": "18.2.9",
	"@oh-my-pi/pi-utils": "18.2.9",
	"@oh-my-pi/snapcompact": "18.2.11",
};
// Versions for every @oh-my-pi/* package those siblings depend on in turn (each asks for a sibling version
// that was not published either).
const OMP_OVERRIDES = {
	...OMP_SIBLINGS,
	"@oh-my-pi/omp-stats": "18.2.11",
	"@oh-my-pi/omptype": "18.2.11",
	"@oh-my-pi/pi-catalog": "18.2.11",
	"@oh-my-pi/pi-mnemopi": "18.2.11",
	"@oh-my-pi/pi-natives": "18.2.10",
	"@oh-my-pi/pi-wire": "18.2.11",
};

// omp 18.3.4's own CLI (dist/cli.js, one Bun bundle) as a test rig for live steering: at run time it needs only
// @oh-my-pi/pi-natives and @babel/parser. pi-natives 18.3.4 is unpublished; its 18.2.10 JS loads the 18.2.11
// linux-x64 addon (the newest published) once its version field names the addon's version, and the 8 exports
// 18.3.4 imports that this addon lacks get placeholders that throw when called (nothing the live tests use).
// Other coding agents' own CLIs as test rigs (docs/formats-claude.md, docs/formats-codex.md): each run against a
// loopback model with a throwaway HOME writes the real session files the formats are checked on. Both pull a
// ~400 MB native binary through an optional dependency, so they are installed only when asked for by name.
export const CLAUDE_CODE_VERSION = "2.1.337";
export const CODEX_VERSION = "0.171.0";
const ON_REQUEST = new Set(["claude", "codex"]);

const OMP_CLI_NATIVES = { js: "18.2.10", addon: "18.2.11" };
const OMP_CLI_MISSING_NATIVES = [
	"appleFmAvailability",
	"appleFmCancel",
	"appleFmGenerate",
	"ShellFsFileType",
	"ShellFsMissing",
	"ShellFsOp",
	"ShellFsResolve",
	"TextPredictor",
];

export const runtimesDir = process.env.ARBOR_RUNTIMES_DIR || join(homedir(), ".cache", "arbor-runtimes");

const RUNTIMES = {
	node24: { pkg: `node@${NODE24_VERSION}`, folder: `node-${NODE24_VERSION}`, bin: "node", probe: ["--version"], expect: `v${NODE24_VERSION}` },
	node22: { pkg: `node@${NODE22_VERSION}`, folder: `node-${NODE22_VERSION}`, bin: "node", probe: ["--version"], expect: `v${NODE22_VERSION}` },
	verdaccio: {
		pkg: `verdaccio@${VERDACCIO_VERSION}`,
		folder: `verdaccio-${VERDACCIO_VERSION}`,
		bin: "verdaccio",
		manifest: "verdaccio",
		expect: VERDACCIO_VERSION,
	},
	bun: { pkg: `bun@${BUN_VERSION}`, folder: `bun-${BUN_VERSION}`, bin: "bun", probe: ["--version"], expect: BUN_VERSION },
	omp: { folder: `omp-${OMP_VERSION}`, path: join("node_modules", "@oh-my-pi", "pi-coding-agent"), marker: ".arbor-installed" },
	claude: {
		pkg: `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`,
		folder: `claude-code-${CLAUDE_CODE_VERSION}`,
		bin: "claude",
		probe: ["--version"],
		expect: CLAUDE_CODE_VERSION,
		// Prints "2.1.337 (Claude Code)".
		expectWord: true,
	},
	codex: {
		pkg: `@openai/codex@${CODEX_VERSION}`,
		folder: `codex-${CODEX_VERSION}`,
		bin: "codex",
		probe: ["--version"],
		expect: CODEX_VERSION,
		expectWord: true,
	},
	ompCli: { folder: `omp-cli-${OMP_VERSION}`, path: join("node_modules", "@oh-my-pi", "pi-coding-agent", "dist", "cli.js"), marker: ".arbor-installed" },
};

function binPath(r) {
	return r.path ? join(runtimesDir, r.folder, r.path) : join(runtimesDir, r.folder, "node_modules", ".bin", r.bin);
}

function works(r) {
	const bin = binPath(r);
	// omp is a source tree, not a program: installed when the last step of its install wrote the marker.
	if (r.marker) return existsSync(join(runtimesDir, r.folder, r.marker));
	if (!existsSync(bin)) return false;
	// A package whose program needs a newer Node than the one installing it: its manifest's version says.
	if (r.manifest) {
		try {
			return JSON.parse(readFileSync(join(runtimesDir, r.folder, "node_modules", r.manifest, "package.json"), "utf8")).version === r.expect;
		} catch {
			return false;
		}
	}
	const p = spawnSync(bin, r.probe, { encoding: "utf8", timeout: 30_000 });
	if (p.status !== 0) return false;
	// Some programs print a name beside the version ("codex-cli 0.171.0"): the version must be one of the words.
	return r.expectWord ? p.stdout.trim().split(/\s+/).includes(r.expect) : p.stdout.trim() === r.expect;
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
		if (name === "omp") return installOmp(r, dir, npm);
		if (name === "ompCli") return installOmpCli(r, dir, npm);
		const p = spawnSync(npm, ["i", "--prefix", dir, "--no-audit", "--no-fund", "--no-save", "--loglevel=error", r.pkg], { encoding: "utf8", timeout: 600_000 });
		if (!works(r)) {
			const why = (p.stderr || p.stdout || `exit ${p.status}`).trim().split("\n").slice(-3).join(" / ");
			throw new Error(`runtimes: could not install ${r.pkg} into ${dir} from the npm registry (${why})`);
		}
		return binPath(r);
	});
}

/** omp: its siblings from the registry (scripts skipped: pi-natives' addon is not used), then the packed
 * 18.3.4 tarball unpacked as node_modules/@oh-my-pi/pi-coding-agent (after npm, which would prune it). */
function installOmp(r, dir, npm) {
	const step = (args) => {
		const p = spawnSync(npm, args, { cwd: dir, encoding: "utf8", timeout: 600_000 });
		if (p.status !== 0) {
			const why = (p.stderr || p.stdout || `exit ${p.status}`).trim().split("\n").slice(-3).join(" / ");
			throw new Error(`runtimes: omp ${OMP_VERSION}: npm ${args[0]} failed in ${dir} (${why})`);
		}
		return p.stdout;
	};
	const manifest = { name: "arbor-omp-oracle", private: true, dependencies: OMP_SIBLINGS, overrides: OMP_OVERRIDES };
	writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, "\t")}\n`);
	step(["i", "--prefix", dir, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]);
	const tgz = step(["pack", `@oh-my-pi/pi-coding-agent@${OMP_VERSION}`, "--pack-destination", dir, "--silent"])
		.trim()
		.split("\n")
		.pop();
	const target = binPath(r);
	mkdirSync(target, { recursive: true });
	const t = spawnSync("tar", ["xzf", join(dir, tgz), "-C", target, "--strip-components=1"], { encoding: "utf8" });
	if (t.status !== 0) throw new Error(`runtimes: omp ${OMP_VERSION}: could not unpack ${tgz} (${t.stderr.trim()})`);
	rmSync(join(dir, tgz), { force: true });
	writeFileSync(join(dir, r.marker), `${OMP_VERSION}\n`);
	return target;
}

/** omp's CLI rig (see OMP_CLI_NATIVES): @babel/parser from the registry, then three packed tarballs unpacked
 * into node_modules (after npm, which would prune them) and pi-natives' JS adjusted to the addon. */
function installOmpCli(r, dir, npm) {
	if (process.platform !== "linux" || process.arch !== "x64")
		throw new Error(`runtimes: omp's CLI rig needs linux-x64 (pi-natives' addon); this is ${process.platform}-${process.arch}`);
	const step = (args) => {
		const p = spawnSync(npm, args, { cwd: dir, encoding: "utf8", timeout: 900_000 });
		if (p.status !== 0) {
			const why = (p.stderr || p.stdout || `exit ${p.status}`).trim().split("\n").slice(-3).join(" / ");
			throw new Error(`runtimes: omp CLI ${OMP_VERSION}: npm ${args[0]} failed in ${dir} (${why})`);
		}
		return p.stdout;
	};
	writeFileSync(
		join(dir, "package.json"),
		`${JSON.stringify({ name: "arbor-omp-cli-rig", private: true, dependencies: { "@babel/parser": "7.29.7" } }, null, "\t")}\n`,
	);
	step(["i", "--prefix", dir, "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]);
	const unpack = (spec, target) => {
		const tgz = step(["pack", spec, "--pack-destination", dir, "--silent"]).trim().split("\n").pop();
		mkdirSync(target, { recursive: true });
		const t = spawnSync("tar", ["xzf", join(dir, tgz), "-C", target, "--strip-components=1"], { encoding: "utf8" });
		if (t.status !== 0) throw new Error(`runtimes: omp CLI ${OMP_VERSION}: could not unpack ${tgz} (${t.stderr.trim()})`);
		rmSync(join(dir, tgz), { force: true });
	};
	const scope = join(dir, "node_modules", "@oh-my-pi");
	unpack(`@oh-my-pi/pi-coding-agent@${OMP_VERSION}`, join(scope, "pi-coding-agent"));
	unpack(`@oh-my-pi/pi-natives@${OMP_CLI_NATIVES.js}`, join(scope, "pi-natives"));
	unpack(`@oh-my-pi/pi-natives-linux-x64@${OMP_CLI_NATIVES.addon}`, join(scope, "pi-natives-linux-x64"));
	const manifestPath = join(scope, "pi-natives", "package.json");
	const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
	writeFileSync(manifestPath, `${JSON.stringify({ ...manifest, version: OMP_CLI_NATIVES.addon }, null, "\t")}\n`);
	const index = join(scope, "pi-natives", "native", "index.js");
	const placeholders = OMP_CLI_MISSING_NATIVES.map((n) => `export const ${n} = nativeBindings.${n} ?? missingNativeExport(${JSON.stringify(n)});`);
	writeFileSync(
		index,
		`${readFileSync(index, "utf8")}\n// Added by Arbor's test rig (scripts/runtimes.mjs): exports omp ${OMP_VERSION} imports that this addon lacks.\n${placeholders.join("\n")}\n`,
	);
	writeFileSync(join(dir, r.marker), `${OMP_VERSION}\n`);
	return binPath(r);
}

/** Paths of the installed runtimes, installing what is missing (throws a one-line reason when it cannot). */
export function runtimes(
	names = Object.keys(RUNTIMES).filter((n) => !ON_REQUEST.has(n) && (n !== "ompCli" || (process.platform === "linux" && process.arch === "x64"))),
) {
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
