// How pi 1.6 reads its configuration (docs/summaries.md): settings.json, project trust and the value
// templates of models.json and auth.json ("$VAR", "${VAR}", "$$", "$!", "!command"). Arbor's own implementation of pi's published rules.
// Where the folders are (agent dir, sessions dir) is the session core's rule: electron/session/formats/pi/dirs.ts (omp: formats/omp/dirs.ts).

import { execSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { isRecord, errorText } from "../../shared/guards";

export type Env = Readonly<Record<string, string | undefined>>;

function stripBom(text: string): string {
	return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Remove `//` and `/* *\/` comments outside strings, and trailing commas before `}` / `]`
 * (pi reads models.json this way).
 */
export function stripJsonComments(text: string): string {
	let out = "";
	let i = 0;
	while (i < text.length) {
		const c = text[i] as string;
		if (c === '"') {
			let j = i + 1;
			while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
			out += text.slice(i, j + 1);
			i = j + 1;
		} else if (c === "/" && text[i + 1] === "/") {
			while (i < text.length && text[i] !== "\n") i++;
		} else if (c === "/" && text[i + 1] === "*") {
			const end = text.indexOf("*/", i + 2);
			i = end < 0 ? text.length : end + 2;
		} else {
			out += c;
			i++;
		}
	}
	return out.replace(/,(\s*[}\]])/g, "$1");
}

export type JsonRead = { ok: true; value: unknown } | { ok: false; missing: boolean; error?: string };

/** A pi config file: BOM dropped, comments allowed when `comments`; a missing file is not an error. */
export function readPiJson(file: string, comments = false): JsonRead {
	let text: string;
	try {
		text = fs.readFileSync(file, "utf8");
	} catch (err) {
		const code = (err as NodeJS.ErrnoException).code;
		return { ok: false, missing: code === "ENOENT" || code === "ENOTDIR", error: code };
	}
	try {
		const body = stripBom(text);
		return { ok: true, value: JSON.parse(comments ? stripJsonComments(body) : body) as unknown };
	} catch (err) {
		return { ok: false, missing: false, error: errorText(err) };
	}
}

/** pi's global settings (`<agentDir>/settings.json`), or {} when missing or unreadable. */
export function readPiSettings(agentDir: string): Record<string, unknown> {
	const r = readPiJson(path.join(agentDir, "settings.json"));
	return r.ok && isRecord(r.value) ? r.value : {};
}

// ---------------------------------------------------------------- value templates

type Part = { kind: "text"; text: string } | { kind: "env"; name: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;

function parseTemplate(value: string): Part[] {
	const parts: Part[] = [];
	const text = (t: string): void => {
		if (!t) return;
		const last = parts[parts.length - 1];
		if (last?.kind === "text") last.text += t;
		else parts.push({ kind: "text", text: t });
	};
	let i = 0;
	while (i < value.length) {
		const d = value.indexOf("$", i);
		if (d < 0) {
			text(value.slice(i));
			break;
		}
		text(value.slice(i, d));
		const next = value[d + 1];
		if (next === "$" || next === "!") {
			text(next);
			i = d + 2;
		} else if (next === "{") {
			const close = value.indexOf("}", d + 2);
			const name = close < 0 ? "" : value.slice(d + 2, close);
			if (close < 0) {
				text("$");
				i = d + 1;
			} else if (NAME.test(name) && (name.match(NAME)?.[0] ?? "") === name) {
				parts.push({ kind: "env", name });
				i = close + 1;
			} else {
				text(value.slice(d, close + 1));
				i = close + 1;
			}
		} else {
			const m = value.slice(d + 1).match(NAME);
			if (m) {
				parts.push({ kind: "env", name: m[0] });
				i = d + 1 + m[0].length;
			} else {
				text("$");
				i = d + 1;
			}
		}
	}
	return parts;
}

export function isCommandValue(value: string): boolean {
	return value.startsWith("!");
}

/** Environment variable names a template value reads (none for "!command" values). */
export function templateEnvNames(value: string): string[] {
	if (isCommandValue(value)) return [];
	return [...new Set(parseTemplate(value).flatMap((p) => (p.kind === "env" ? [p.name] : [])))];
}

const commandCache = new Map<string, string | undefined>();

function runCommand(command: string): string | undefined {
	if (commandCache.has(command)) return commandCache.get(command);
	let out: string | undefined;
	try {
		out = execSync(command, { encoding: "utf8", timeout: 10_000, stdio: ["ignore", "pipe", "ignore"] }).trim() || undefined;
	} catch {
		out = undefined;
	}
	commandCache.set(command, out);
	return out;
}

/** For tests: forget cached "!command" results. */
export function clearCommandCache(): void {
	commandCache.clear();
}

/**
 * pi 1.6's value rule: "!cmd" is the trimmed output of a shell command (cached for the process);
 * otherwise "$NAME" / "${NAME}" are replaced by environment values ("$$" is "$", "$!" is "!") and
 * every other character is literal — a plain "LAB_KEY" is the key "LAB_KEY". `scoped` (an auth.json
 * credential's `env` map) is read before the process environment. Undefined when a variable is unset
 * or empty, or the command fails.
 */
export function resolveConfigValue(value: string, env: Env, scoped?: Env): string | undefined {
	if (isCommandValue(value)) return runCommand(value.slice(1));
	let out = "";
	for (const p of parseTemplate(value)) {
		if (p.kind === "text") out += p.text;
		else {
			const v = scoped?.[p.name] || env[p.name] || undefined;
			if (v === undefined) return undefined;
			out += v;
		}
	}
	return out;
}

// ---------------------------------------------------------------- project settings and trust

/** What makes a folder a "project" to pi 1.6: any of these under `<cwd>/.pi` (trust-manager.js). */
const PROJECT_RESOURCES = ["settings.json", "mcp.json", "extensions", "skills", "prompts", "themes", "SYSTEM.md", "APPEND_SYSTEM.md"];

function canonical(p: string): string {
	try {
		return fs.realpathSync(p);
	} catch {
		return path.resolve(p);
	}
}

/**
 * pi 1.6's trust decision for a project folder, made without asking (Arbor never shows pi's trust prompt):
 * the nearest decision in `<agentDir>/trust.json` for the folder or one of its parents; without one,
 * `defaultProjectTrust` of pi's global settings ("always" trusts, "never" and the default "ask" do not —
 * pi without a terminal does not trust either). A folder without `.pi` resources needs no trust.
 */
export function piProjectTrusted(cwd: string, agentDir: string): boolean {
	const dir = canonical(cwd);
	if (!PROJECT_RESOURCES.some((r) => fs.existsSync(path.join(dir, ".pi", r)))) return true;
	const store = readPiJson(path.join(agentDir, "trust.json"));
	if (store.ok && isRecord(store.value)) {
		const data = store.value;
		const norm = (k: string): string => path.resolve(k);
		let cur = dir;
		for (;;) {
			for (const [k, v] of Object.entries(data)) if ((v === true || v === false) && norm(k) === cur) return v;
			const parent = path.dirname(cur);
			if (parent === cur) break;
			cur = parent;
		}
	}
	return readPiSettings(agentDir).defaultProjectTrust === "always";
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
	const out: Record<string, unknown> = { ...base };
	for (const [k, v] of Object.entries(over)) {
		if (v === undefined) continue;
		const b = base[k];
		out[k] = isRecord(b) && isRecord(v) ? deepMerge(b, v) : v;
	}
	return out;
}

/** A trusted project's `<cwd>/.pi/settings.json`, or {} (missing, unreadable, or the project is not trusted). */
export function readPiProjectSettings(agentDir: string, cwd: string | undefined): Record<string, unknown> {
	if (!cwd || !piProjectTrusted(cwd, agentDir)) return {};
	const r = readPiJson(path.join(canonical(cwd), ".pi", "settings.json"));
	return r.ok && isRecord(r.value) ? r.value : {};
}

/**
 * pi 1.6's effective settings for a working folder: the global settings with a trusted project's settings
 * merged over them (nested objects merge key by key, everything else — lists included — is replaced).
 */
export function readPiEffectiveSettings(agentDir: string, cwd?: string): Record<string, unknown> {
	return deepMerge(readPiSettings(agentDir), readPiProjectSettings(agentDir, cwd));
}
