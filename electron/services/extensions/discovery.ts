// Finding pi's extensions as pi 1.6 does (its loader and package manager): `<agentDir>/extensions/`
// (files, folders with an index, folders whose package.json lists `pi.extensions`), the `extensions`
// list of pi's settings.json, and the packages of its `packages` list (installed under
// `<agentDir>/npm/node_modules/` and `<agentDir>/git/`, or local paths). Finding is not loading: Arbor
// runs a pi extension only when the user enabled it (docs/extensions.md).

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ExtensionEntry } from "./types";

function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

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

function manifestExtensions(dir: string): string[] | undefined {
	const pkg = readJson(path.join(dir, "package.json"));
	if (!isRecord(pkg) || !isRecord(pkg.pi) || !Array.isArray(pkg.pi.extensions)) return undefined;
	return pkg.pi.extensions.filter((e): e is string => typeof e === "string");
}

/** A folder's own entries: its package.json `pi.extensions` (those that exist), else index.ts, else index.js. */
export function folderEntries(dir: string): string[] | undefined {
	const declared = manifestExtensions(dir);
	if (declared && declared.length > 0) {
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
	for (const name of names) {
		if (name.startsWith(".") || name === "node_modules") continue;
		const p = path.join(dir, name);
		const st = stat(p);
		if (st?.isFile() && isPiModule(name)) out.push(p);
		else if (st?.isDirectory()) out.push(...(folderEntries(p) ?? []));
	}
	return out;
}

function expandHome(p: string): string {
	const t = p.trim();
	if (t === "~") return os.homedir();
	if (t.startsWith("~/")) return path.join(os.homedir(), t.slice(2));
	return t;
}

/** An npm spec's package name: `npm:@scope/name@1.2.3` → `@scope/name`. */
function npmName(spec: string): string {
	const s = spec.trim();
	const at = s.startsWith("@") ? s.indexOf("@", 1) : s.indexOf("@");
	return at > 0 ? s.slice(0, at) : s;
}

/** A git source's install folder under `<agentDir>/git/<host>/<path>`. */
function gitInstallPath(agentDir: string, source: string): string | undefined {
	let s = source.trim().replace(/^git:/, "").replace(/^git\+/, "");
	s = s.replace(/^[a-z]+:\/\//, "").replace(/^git@([^:]+):/, "$1/");
	s = s.replace(/[#@][^/]*$/, "").replace(/\.git$/, "").replace(/\/+$/, "");
	const parts = s.split("/").filter(Boolean);
	if (parts.length < 2 || parts.some((x) => x === "..")) return undefined;
	return path.join(agentDir, "git", ...parts);
}

function looksLocal(source: string): boolean {
	return source.startsWith(".") || source.startsWith("/") || source.startsWith("~") || /^[A-Za-z]:[\\/]/.test(source);
}

/** A package's extensions: its manifest's `pi.extensions`, else its `extensions/` folder. */
function packageEntries(root: string): string[] {
	const declared = manifestExtensions(root);
	if (declared) return declared.map((e) => path.resolve(root, e)).filter((p) => fs.existsSync(p));
	return collectExtensionEntries(path.join(root, "extensions"));
}

export interface PiDiscovery {
	entries: ExtensionEntry[];
	/** Listed in pi's settings but not found (a package not installed, a path that does not exist). */
	missing: { source: string; reason: string }[];
}

/** Every pi extension module pi 1.6 would find in its user scope, in pi's order. */
export function discoverPiExtensions(agentDir: string): PiDiscovery {
	const entries: ExtensionEntry[] = [];
	const missing: PiDiscovery["missing"] = [];
	const seen = new Set<string>();
	const add = (p: string, origin: ExtensionEntry["origin"], pkg?: string): void => {
		const abs = path.resolve(p);
		if (seen.has(abs)) return;
		seen.add(abs);
		entries.push({ path: abs, origin, ...(pkg !== undefined ? { package: pkg } : {}) });
	};
	const settings = readJson(path.join(agentDir, "settings.json"));
	const s = isRecord(settings) ? settings : {};
	// Packages first, then settings paths, then the extensions folder (pi's resolver order for one scope).
	for (const pkg of Array.isArray(s.packages) ? s.packages : []) {
		const source = typeof pkg === "string" ? pkg : isRecord(pkg) && typeof pkg.source === "string" ? pkg.source : undefined;
		if (!source) continue;
		let root: string | undefined;
		if (source.startsWith("npm:")) root = path.join(agentDir, "npm", "node_modules", npmName(source.slice(4)));
		else if (looksLocal(source)) root = path.resolve(agentDir, expandHome(source));
		else root = gitInstallPath(agentDir, source);
		const st = root ? stat(root) : undefined;
		if (!root || !st) {
			missing.push({ source, reason: source.startsWith("npm:") || !looksLocal(source) ? "not installed (run `pi install` or start pi once)" : "no such file or folder" });
			continue;
		}
		// A filter object's `extensions: []` turns the package's extensions off in pi.
		if (isRecord(pkg) && Array.isArray(pkg.extensions) && pkg.extensions.length === 0) continue;
		const found = st.isFile() ? [root] : packageEntries(root);
		for (const f of found) add(f, "pi-package", source);
	}
	for (const entry of Array.isArray(s.extensions) ? s.extensions : []) {
		if (typeof entry !== "string" || /^[!+-]/.test(entry)) continue;
		const p = path.resolve(agentDir, expandHome(entry));
		const st = stat(p);
		if (!st) {
			missing.push({ source: entry, reason: "no such file or folder" });
			continue;
		}
		for (const f of st.isFile() ? [p] : collectExtensionEntries(p)) add(f, "pi-settings");
	}
	for (const f of collectExtensionEntries(path.join(agentDir, "extensions"))) add(f, "pi");
	return { entries, missing };
}
