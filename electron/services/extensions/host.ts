// The extension host: loads pi-style extension modules (.js/.ts via jiti), dispatches the hosted session
// events to their handlers one by one, and keeps the registered commands. A handler that throws or does
// not settle within the timeout is reported and skipped; it can never take the app down.

import * as fs from "node:fs";
import * as path from "node:path";
import type { ExtensionCommandInfo } from "../../../shared/api";
import { createExtensionApi } from "./api";
import { folderEntries } from "./discovery";
import { extensionModules } from "./modules";
import { createEventBus } from "./pi-coding-agent-shim";
import type { BeforeResult, ExtensionEntry, ExtensionFailure, ExtensionOrigin, HostedEvent, LoadedExtension, RegisteredCommand } from "./types";
import { errorText, isObjectLike } from "../../../shared/guards";

export const DEFAULT_HANDLER_TIMEOUT_MS = 30_000;
export const DEFAULT_COMMAND_TIMEOUT_MS = 10 * 60_000;

const MODULE_EXTENSIONS = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"];

/** Side effects an extension may ask for through its `pi` object; applied to the session being handled. */
export interface HostBindings {
	appendEntry(customType: string, data: unknown): void;
	setLabel(entryId: string, label: string | undefined): void;
	setSessionName(name: string): void;
	getSessionName(): string | undefined;
	notify(extension: string, message: string, level: "info" | "warning" | "error"): void;
	/** pi's effective settings for `pi.getSettings()` (default: none). */
	getPiSettings?(): Record<string, unknown>;
}

export interface ExtensionHostOptions {
	/** Folders whose modules (and subfolders with an index module) are each loaded as one extension. */
	dirs: string[];
	/** Explicit files or folders (`--extension PATH`). */
	paths: string[];
	/** More modules to load after those, asked again on every (re)load: the pi extensions the user enabled. */
	extraEntries?: () => ExtensionEntry[];
	handlerTimeoutMs?: number;
	commandTimeoutMs?: number;
	onFailure(failure: ExtensionFailure): void;
	bindings: HostBindings;
}

/** One module of the last load: loaded, or the reason it did not. */
export interface LoadRecord {
	path: string;
	name: string;
	origin: ExtensionOrigin;
	loaded: boolean;
	error?: string;
	commands: string[];
}

class TimeoutError extends Error {}

function indexModule(dir: string): string | undefined {
	for (const ext of MODULE_EXTENSIONS) {
		const p = path.join(dir, `index${ext}`);
		if (fs.existsSync(p)) return p;
	}
	return undefined;
}

function isModuleFile(file: string): boolean {
	return MODULE_EXTENSIONS.includes(path.extname(file)) && !file.endsWith(".d.ts");
}

/** Module files an extension folder contributes, in a stable order. */
export function discoverExtensionFiles(dirs: string[], paths: string[]): string[] {
	const out: string[] = [];
	const add = (p: string): void => {
		const abs = path.resolve(p);
		if (!out.includes(abs)) out.push(abs);
	};
	const scan = (dir: string): void => {
		let names: string[];
		try {
			names = fs.readdirSync(dir).sort();
		} catch {
			return;
		}
		for (const name of names) {
			if (name.startsWith(".")) continue;
			const p = path.join(dir, name);
			let st: fs.Stats;
			try {
				st = fs.statSync(p);
			} catch {
				continue;
			}
			if (st.isDirectory()) {
				const idx = indexModule(p);
				if (idx) add(idx);
			} else if (isModuleFile(p)) add(p);
		}
	};
	for (const d of dirs) scan(d);
	for (const p of paths) {
		let st: fs.Stats | undefined;
		try {
			st = fs.statSync(p);
		} catch {
			st = undefined;
		}
		if (st?.isDirectory()) {
			// pi's rule for a folder: its package.json `pi.extensions`, else its index, else its modules.
			const declared = folderEntries(p);
			const idx = indexModule(p);
			if (declared) for (const d of declared) add(d);
			else if (idx) add(idx);
			else scan(p);
		} else add(p);
	}
	return out;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
	if (!(ms > 0) || !Number.isFinite(ms)) return p;
	return new Promise<T>((resolve, reject) => {
		const t = setTimeout(() => reject(new TimeoutError(`${what} did not finish within ${ms} ms`)), ms);
		p.then(
			(v) => {
				clearTimeout(t);
				resolve(v);
			},
			(e: unknown) => {
				clearTimeout(t);
				reject(e);
			},
		);
	});
}

function extensionName(file: string): string {
	return path.basename(file).replace(/\.[^.]+$/, "") === "index" ? path.basename(path.dirname(file)) : path.basename(file);
}

/** A missing import the extension's own package.json declares: pi needs `npm install` there too. */
function explainMissingDependency(file: string, message: string): string {
	const m = /Cannot find (?:module|package) '([^']+)'/.exec(message);
	if (!m) return message;
	const spec = m[1] as string;
	const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : (spec.split("/")[0] as string);
	for (let dir = path.dirname(file), i = 0; i < 4; i++, dir = path.dirname(dir)) {
		try {
			const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as Record<string, Record<string, unknown> | undefined>;
			if (pkg.dependencies?.[name] !== undefined || pkg.optionalDependencies?.[name] !== undefined) {
				return `its dependency ${name} is not installed: run \`npm install\` in ${dir} (pi needs it too)`;
			}
		} catch {
			// no package.json at this level
		}
	}
	return message;
}

export class ExtensionHost {
	readonly #opts: ExtensionHostOptions;
	#extensions: LoadedExtension[] = [];
	#loading: Promise<void> | undefined;
	readonly #loadErrors: ExtensionFailure[] = [];
	#records: LoadRecord[] = [];

	constructor(opts: ExtensionHostOptions) {
		this.#opts = opts;
	}

	get extensions(): readonly LoadedExtension[] {
		return this.#extensions;
	}

	get loadErrors(): readonly ExtensionFailure[] {
		return this.#loadErrors;
	}

	/** Every module of the last load, loaded or not, in load order. */
	get records(): readonly LoadRecord[] {
		return this.#records;
	}

	/** Load once; later calls wait for the same load. */
	ready(): Promise<void> {
		this.#loading ??= this.#loadAll();
		return this.#loading;
	}

	/** Drop every extension and load the folders again (new files, edited files). */
	reload(): Promise<void> {
		this.#loading = this.#loadAll();
		return this.#loading;
	}

	#entries(): ExtensionEntry[] {
		const own = discoverExtensionFiles(this.#opts.dirs, []).map((p): ExtensionEntry => ({ path: p, origin: "arbor" }));
		const cli = discoverExtensionFiles([], this.#opts.paths).map((p): ExtensionEntry => ({ path: p, origin: "cli" }));
		const out: ExtensionEntry[] = [];
		const seen = new Set<string>();
		for (const e of [...own, ...cli, ...(this.#opts.extraEntries?.() ?? [])]) {
			if (seen.has(e.path)) continue;
			seen.add(e.path);
			out.push(e);
		}
		return out;
	}

	async #loadAll(): Promise<void> {
		const entries = this.#entries();
		const loaded: LoadedExtension[] = [];
		const records: LoadRecord[] = [];
		this.#loadErrors.length = 0;
		// One event bus per load, shared by the extensions (pi.events is how they talk to each other).
		const bus = createEventBus((channel, err) => this.#opts.onFailure({ extension: "(event bus)", event: `events:${channel}`, message: errorText(err) }));
		for (const entry of entries) {
			const ext = await this.#loadOne(entry.path, bus, loaded);
			records.push({
				path: entry.path,
				name: extensionName(entry.path),
				origin: entry.origin,
				loaded: ext !== undefined,
				...(ext ? {} : { error: this.#loadErrors.find((f) => f.extension === entry.path)?.message ?? "failed to load" }),
				commands: ext ? [...ext.commands.keys()] : [],
			});
			if (ext) loaded.push(ext);
		}
		this.#extensions = loaded;
		this.#records = records;
	}

	async #loadOne(file: string, bus: ReturnType<typeof createEventBus>, loaded: LoadedExtension[]): Promise<LoadedExtension | undefined> {
		const name = extensionName(file);
		const ext: LoadedExtension = {
			path: file,
			name,
			handlers: new Map(),
			commands: new Map(),
			tools: new Map(),
			flags: new Map(),
			providers: new Map(),
			mcpServers: new Map(),
		};
		try {
			const { createJiti } = await import("jiti");
			// moduleCache off: a reload must see the edited file, not the first version. virtualModules: pi's
			// own packages resolve to Arbor's copies, wherever the extension lives (modules.ts).
			const jiti = createJiti(file, { interopDefault: true, moduleCache: false, fsCache: false, virtualModules: await extensionModules() });
			const mod: unknown = await withTimeout(
				jiti.import(file, { default: true }),
				this.#opts.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS,
				`loading ${name}`,
			);
			const factory = typeof mod === "function" ? mod : isObjectLike(mod) && typeof mod.default === "function" ? mod.default : undefined;
			if (typeof factory !== "function") throw new Error("the module has no default export function (export default function (pi) { ... })");
			const b = this.#opts.bindings;
			const api = createExtensionApi(
				ext,
				{
					appendEntry: b.appendEntry,
					setLabel: b.setLabel,
					setSessionName: b.setSessionName,
					getSessionName: b.getSessionName,
					getSettings: () => structuredClone(b.getPiSettings?.() ?? {}),
					getCommands: () => this.listCommands(),
					getAllTools: () =>
						[...new Set([...loaded, ext])].flatMap((e) =>
							[...e.tools.values()].map((t) => ({ name: t.name, description: t.description, parameters: t.parameters, sourceInfo: { path: e.path } })),
						),
				},
				bus,
			);
			const result: unknown = factory(api);
			if (result instanceof Promise) await withTimeout(result, this.#opts.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS, `setting up ${name}`);
			return ext;
		} catch (err) {
			const failure = { extension: file, event: "load", message: explainMissingDependency(file, errorText(err)) };
			this.#loadErrors.push(failure);
			this.#opts.onFailure(failure);
			return undefined;
		}
	}

	hasHandlers(event: string): boolean {
		return this.#extensions.some((e) => (e.handlers.get(event)?.length ?? 0) > 0);
	}

	/**
	 * Run every handler of the event in load order. For "before" events the last non-empty result wins and
	 * a `cancel` stops at once (pi's runner rules). Failures and timeouts are reported, never thrown.
	 */
	async emit(event: HostedEvent, ctx: unknown): Promise<BeforeResult | undefined> {
		if (!this.hasHandlers(event.type)) return undefined;
		const isBefore = event.type.startsWith("session_before_");
		let result: BeforeResult | undefined;
		for (const ext of this.#extensions) {
			for (const handler of [...(ext.handlers.get(event.type) ?? [])]) {
				try {
					const out: unknown = await withTimeout(
						Promise.resolve().then(() => handler(event, ctx)),
						this.#opts.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS,
						`${ext.name}: ${event.type} handler`,
					);
					if (isBefore && isObjectLike(out)) {
						result = out as BeforeResult;
						if (result.cancel === true) return result;
					}
				} catch (err) {
					this.#opts.onFailure({ extension: ext.path, event: event.type, message: errorText(err) });
				}
			}
		}
		return result;
	}

	listCommands(): ExtensionCommandInfo[] {
		const out: ExtensionCommandInfo[] = [];
		for (const ext of this.#extensions) {
			for (const c of ext.commands.values()) out.push({ name: c.name, description: c.description, extension: c.extension });
		}
		return out;
	}

	getCommand(name: string): RegisteredCommand | undefined {
		const clean = name.trim().replace(/^\//, "");
		// Later extensions override earlier ones with the same command name.
		for (let i = this.#extensions.length - 1; i >= 0; i--) {
			const c = (this.#extensions[i] as LoadedExtension).commands.get(clean);
			if (c) return c;
		}
		return undefined;
	}

	/** Run a command handler with the command timeout; its failure is returned to the caller. */
	async runCommand(command: RegisteredCommand, args: string, ctx: unknown): Promise<void> {
		await withTimeout(
			Promise.resolve().then(() => command.handler(args, ctx)),
			this.#opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
			`command /${command.name}`,
		);
	}
}
