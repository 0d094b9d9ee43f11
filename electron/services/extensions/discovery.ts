// Finding pi's extensions as pi 1.6 does (its loader and package manager): `<agentDir>/extensions/`
// (files, folders with an index, folders whose package.json lists `pi.extensions`), the `extensions`
// list of pi's settings.json, and the packages of its `packages` list (installed under
// `<agentDir>/npm/node_modules/` and `<agentDir>/git/`, or local paths). Finding is not loading: Arbor
// runs a pi extension only when the user enabled it (docs/extensions.md).

import * as fs from "node:fs";
import * as path from "node:path";
import ignore from "ignore";
import { minimatch } from "minimatch";
import { expandHome } from "../../session";
import { piProjectTrusted, readPiProjectSettings } from "../pi-config";
import type { ExtensionEntry } from "./types";
import { isRecord } from "../../../shared/guards";

function readJson(file: string): unknown {
	try {
		return JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
	} catch {
		return undefined;
	}
}

function stat(p: string): fs.Stats | undefined {
	try {
		return fs.statSync(p);
	} catch {
		return undefined;
	}
}

/** pi reads only .ts and .js extension files. */
function isPiModule(name: string): boolean {
	return (name.endsWith(".ts") || name.endsWith(".js")) && !name.endsWith(".d.ts");
}

function manifestList(dir: string): string[] | undefined {
	const pkg = readJson(path.join(dir, "package.json"));
	if (!isRecord(pkg) || !isRecord(pkg.pi) || !Array.isArray(pkg.pi.extensions)) return undefined;
	return pkg.pi.extensions.filter((e): e is string => typeof e === "string");
}

/** A package.json's `pi.extensions`: paths and globs (expanded), then its `!` / `+` / `-` entries applied. */
function manifestExtensions(dir: string): string[] | undefined {
	const list = manifestList(dir);
	if (!list) return undefined;
	const sources = list.filter((e) => !isOverride(e)).flatMap((e) => (e.includes("*") || e.includes("?") ? expandGlob(e, dir) : [path.resolve(dir, e)]));
	const files = sources.filter((p) => stat(p)?.isFile());
	const dirs = sources.filter((p) => stat(p)?.isDirectory());
	const all = [...files, ...dirs.flatMap((d) => collectExtensionEntries(d))];
	const overrides = list.filter(isOverride);
	return overrides.length ? all.filter((f) => applyPatterns(all, overrides, dir).has(f)) : all;
}

/** A folder's own entries: its package.json `pi.extensions` (those that exist), else index.ts, else index.js. */
export function folderEntries(dir: string): string[] | undefined {
	const declared = manifestList(dir);
	if (declared && declared.length > 0) {
		// An extensions-folder entry's manifest names paths (no globs here, as in pi): those that exist.
		const found = declared.map((e) => path.resolve(dir, e)).filter((p) => fs.existsSync(p));
		if (found.length > 0) return found;
	}
	for (const index of ["index.ts", "index.js"]) {
		const p = path.join(dir, index);
		if (fs.existsSync(p)) return [p];
	}
	return undefined;
}

/** An extensions folder: its own entries if it has some, else each module file and each folder with entries, one level deep. */
export function collectExtensionEntries(dir: string): string[] {
	if (!stat(dir)?.isDirectory()) return [];
	const own = folderEntries(dir);
	if (own) return own;
	const out: string[] = [];
	let names: string[];
	try {
		names = fs.readdirSync(dir).sort();
	} catch {
		return [];
	}
	const ignored = ignoreRules(dir);
	for (const name of names) {
		if (name.startsWith(".") || name === "node_modules") continue;
		const p = path.join(dir, name);
		const st = stat(p);
		if (ignored(name, st?.isDirectory() === true)) continue;
		if (st?.isFile() && isPiModule(name)) out.push(p);
		else if (st?.isDirectory()) out.push(...(folderEntries(p) ?? []));
	}
	return out;
}

// ---------------------------------------------------------------- patterns (pi's package-manager rules)

const posix = (p: string): string => p.split(path.sep).join("/");

function matchesAny(file: string, patterns: string[], baseDir: string): boolean {
	const rel = posix(path.relative(baseDir, file));
	const name = path.basename(file);
	const abs = posix(file);
	return patterns.some((p) => {
		const glob = posix(path.normalize(p));
		return minimatch(rel, glob) || minimatch(name, glob) || minimatch(abs, glob);
	});
}

function matchesAnyExact(file: string, patterns: string[], baseDir: string): boolean {
	const rel = posix(path.relative(baseDir, file));
	const abs = posix(file);
	return patterns.some((p) => {
		const n = posix(path.normalize(p.startsWith("./") || p.startsWith(".\\") ? p.slice(2) : p));
		return n === rel || n === abs;
	});
}

const isOverride = (s: string): boolean => s.startsWith("!") || s.startsWith("+") || s.startsWith("-");
const isPattern = (s: string): boolean => isOverride(s) || s.includes("*") || s.includes("?");

/**
 * pi's list rule: plain patterns keep the files they match (all when there are none), `!pattern` drops
 * matches, `+path` adds an exact path back, `-path` removes an exact path whatever came before.
 */
export function applyPatterns(files: string[], patterns: string[], baseDir: string): Set<string> {
	const by = (prefix: string): string[] => patterns.filter((p) => p.startsWith(prefix)).map((p) => p.slice(1));
	const includes = patterns.filter((p) => !isOverride(p));
	let out = includes.length ? files.filter((f) => matchesAny(f, includes, baseDir)) : [...files];
	const excludes = by("!");
	if (excludes.length) out = out.filter((f) => !matchesAny(f, excludes, baseDir));
	for (const f of files) if (!out.includes(f) && matchesAnyExact(f, by("+"), baseDir)) out.push(f);
	const forceOut = by("-");
	if (forceOut.length) out = out.filter((f) => !matchesAnyExact(f, forceOut, baseDir));
	return new Set(out);
}

/** Whether the override entries (`!`, `+`, `-`) of a settings list leave an auto-discovered file on. */
export function enabledByOverrides(file: string, entries: string[], baseDir: string): boolean {
	let on = true;
	const by = (prefix: string): string[] => entries.filter((p) => p.startsWith(prefix)).map((p) => p.slice(1));
	if (matchesAny(file, by("!"), baseDir)) on = false;
	if (matchesAnyExact(file, by("+"), baseDir)) on = true;
	if (matchesAnyExact(file, by("-"), baseDir)) on = false;
	return on;
}

/** A folder's `.gitignore`, `.ignore` and `.fdignore` rules, read with the same library pi uses (`ignore`). */
function ignoreRules(dir: string): (name: string, isDir: boolean) => boolean {
	const ig = ignore();
	for (const file of [".gitignore", ".ignore", ".fdignore"]) {
		try {
			ig.add(fs.readFileSync(path.join(dir, file), "utf8"));
		} catch {
			// A folder without that file, or one Arbor cannot read: no rules from it.
		}
	}
	return (name, isDir) => ig.ignores(isDir ? `${name}/` : name);
}

/** A glob of a package manifest: the matching paths under `root`, none inside dot folders, sorted. */
function expandGlob(glob: string, root: string): string[] {
	const pattern = posix(glob.startsWith("./") ? glob.slice(2) : glob);
	const out: string[] = [];
	const walk = (dir: string, depth: number): void => {
		if (depth > 8) return;
		let names: string[];
		try {
			names = fs.readdirSync(dir);
		} catch {
			return;
		}
		for (const name of names) {
			if (name.startsWith(".") || name === "node_modules") continue;
			const p = path.join(dir, name);
			if (minimatch(posix(path.relative(root, p)), pattern)) out.push(p);
			if (stat(p)?.isDirectory()) walk(p, depth + 1);
		}
	};
	walk(root, 0);
	return out.sort();
}

/** Files of a list of paths: a file itself, a folder read as an extensions folder. */
function filesOf(paths: string[]): string[] {
	const out: string[] = [];
	for (const p of paths) {
		const st = stat(p);
		if (st?.isFile()) out.push(p);
		else if (st?.isDirectory()) out.push(...collectExtensionEntries(p));
	}
	return out;
}

/** An npm spec's package name: `npm:@scope/name@1.2.3` → `@scope/name`. */
function npmName(spec: string): string {
	const s = spec.trim();
	const at = s.startsWith("@") ? s.indexOf("@", 1) : s.indexOf("@");
	return at > 0 ? s.slice(0, at) : s;
}

/** A git source's install folder under `<agentDir>/git/<host>/<path>`. */
function gitInstallPath(agentDir: string, source: string): string | undefined {
	let s = source
		.trim()
		.replace(/^git:/, "")
		.replace(/^git\+/, "");
	s = s.replace(/^[a-z]+:\/\//, "").replace(/^git@([^:]+):/, "$1/");
	s = s
		.replace(/[#@][^/]*$/, "")
		.replace(/\.git$/, "")
		.replace(/\/+$/, "");
	const parts = s.split("/").filter(Boolean);
	if (parts.length < 2 || parts.some((x) => x === "..")) return undefined;
	return path.join(agentDir, "git", ...parts);
}

function looksLocal(source: string): boolean {
	return source.startsWith(".") || source.startsWith("/") || source.startsWith("~") || /^[A-Za-z]:[\\/]/.test(source);
}

/** A package's extensions: its manifest's `pi.extensions` (globs and overrides applied), else its `extensions/` folder. */
function packageEntries(root: string): string[] {
	const declared = (manifestList(root)?.length ?? 0) > 0 ? manifestExtensions(root) : undefined;
	if (declared) return declared;
	return collectExtensionEntries(path.join(root, "extensions"));
}

export interface PiDiscovery {
	entries: ExtensionEntry[];
	/** Listed in pi's settings but not found (a package not installed, a path that does not exist). */
	missing: { source: string; reason: string }[];
	/** The project folder whose `.pi` pi would read, when it has one that is not trusted (its extensions are not listed). */
	untrustedProject?: string;
}

interface Scope {
	scope: "project" | "user";
	/** `<cwd>/.pi` or the agent folder: where relative entries and installed packages live. */
	base: string;
	settings: Record<string, unknown>;
}

function stringList(v: unknown): string[] {
	return Array.isArray(v) ? v.filter((e): e is string => typeof e === "string") : [];
}

/**
 * Every pi extension module pi 1.6 would find, in pi's order: packages (project first), the `extensions`
 * lists (project, then user), `<cwd>/.pi/extensions`, `<agentDir>/extensions`. A trusted project
 * (pi's trust rule, `piProjectTrusted`) adds its own; an entry pi's settings turn off (`!pattern`,
 * `-path`, a plain pattern it does not match) is listed with `piEnabled: false`.
 */
export function discoverPiExtensions(agentDir: string, cwd?: string): PiDiscovery {
	const entries: ExtensionEntry[] = [];
	const missing: PiDiscovery["missing"] = [];
	const seen = new Map<string, ExtensionEntry>();
	const add = (p: string, origin: ExtensionEntry["origin"], on: boolean, pkg?: string): void => {
		const abs = path.resolve(p);
		if (seen.has(abs)) return;
		const e: ExtensionEntry = { path: abs, origin, ...(pkg !== undefined ? { package: pkg } : {}), ...(on ? {} : { piEnabled: false }) };
		seen.set(abs, e);
		entries.push(e);
	};
	const scopes: Scope[] = [];
	let untrustedProject: string | undefined;
	if (cwd) {
		const projectBase = path.join(path.resolve(cwd), ".pi");
		if (stat(projectBase)?.isDirectory()) {
			if (piProjectTrusted(cwd, agentDir)) scopes.push({ scope: "project", base: projectBase, settings: readPiProjectSettings(agentDir, cwd) });
			else untrustedProject = path.resolve(cwd);
		}
	}
	const user = readJson(path.join(agentDir, "settings.json"));
	scopes.push({ scope: "user", base: agentDir, settings: isRecord(user) ? user : {} });
	const projectOrigin = (o: ExtensionEntry["origin"], sc: Scope): ExtensionEntry["origin"] => (sc.scope === "project" ? "pi-project" : o);

	// Packages first (a project's before the user's; the same source once, the project's).
	const seenSources = new Set<string>();
	for (const sc of scopes) {
		for (const pkg of Array.isArray(sc.settings.packages) ? sc.settings.packages : []) {
			const source = typeof pkg === "string" ? pkg : isRecord(pkg) && typeof pkg.source === "string" ? pkg.source : undefined;
			if (!source || seenSources.has(source)) continue;
			seenSources.add(source);
			let root: string | undefined;
			if (source.startsWith("npm:")) root = path.join(sc.base, "npm", "node_modules", npmName(source.slice(4)));
			else if (looksLocal(source)) root = path.resolve(sc.base, expandHome(source.trim()));
			else root = gitInstallPath(sc.base, source);
			const st = root ? stat(root) : undefined;
			if (!root || !st) {
				missing.push({
					source,
					reason: source.startsWith("npm:") || !looksLocal(source) ? "not installed (run `pi install` or start pi once)" : "no such file or folder",
				});
				continue;
			}
			const found = st.isFile() ? [root] : packageEntries(root);
			// A filter object's `extensions` list narrows the package's extensions with pi's list rule
			// (`[]` turns them all off).
			const filter = isRecord(pkg) && Array.isArray(pkg.extensions) ? stringList(pkg.extensions) : undefined;
			const kept =
				filter === undefined ? new Set(found) : filter.length === 0 ? new Set<string>() : applyPatterns(found, filter, st.isFile() ? path.dirname(root) : root);
			for (const f of found) if (kept.has(f)) add(f, sc.scope === "project" ? "pi-project" : "pi-package", true, source);
		}
	}
	// The `extensions` lists: plain entries are files or folders; patterns (`*`, `?`, `!`, `+`, `-`) pick among them.
	for (const sc of scopes) {
		const list = stringList(sc.settings.extensions);
		const plain = list.filter((e) => !isPattern(e));
		const patterns = list.filter(isPattern);
		const resolved: string[] = [];
		for (const entry of plain) {
			const p = path.resolve(sc.base, expandHome(entry.trim()));
			if (!stat(p)) missing.push({ source: entry, reason: "no such file or folder" });
			else resolved.push(p);
		}
		const files = filesOf(resolved);
		const on = applyPatterns(files, patterns, sc.base);
		for (const f of files) add(f, projectOrigin("pi-settings", sc), on.has(f));
	}
	// The extensions folders, with that scope's override entries.
	for (const sc of scopes) {
		const overrides = stringList(sc.settings.extensions).filter(isOverride);
		for (const f of collectExtensionEntries(path.join(sc.base, "extensions"))) add(f, projectOrigin("pi", sc), enabledByOverrides(f, overrides, sc.base));
	}
	return { entries, missing, ...(untrustedProject ? { untrustedProject } : {}) };
}
