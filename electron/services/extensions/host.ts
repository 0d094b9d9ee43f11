// The extension host: loads pi-style extension modules (.js/.ts via jiti), dispatches the hosted session
// events to their handlers one by one, and keeps the registered commands. A handler that throws or does
// not settle within the timeout is reported and skipped; it can never take the app down.

import * as fs from "node:fs";
import * as path from "node:path";
import type { ExtensionCommandInfo } from "../../../shared/api";
import { errorMessage } from "../errors";
import type { BeforeResult, ExtensionFailure, ExtensionHandler, HostedEvent, LoadedExtension, RegisteredCommand } from "./types";

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
}

export interface ExtensionHostOptions {
	/** Folders whose modules (and subfolders with an index module) are each loaded as one extension. */
	dirs: string[];
	/** Explicit files or folders (`--extension PATH`). */
	paths: string[];
	handlerTimeoutMs?: number;
	commandTimeoutMs?: number;
	onFailure(failure: ExtensionFailure): void;
	bindings: HostBindings;
}

class TimeoutError extends Error {}

function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null;
}

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
			const idx = indexModule(p);
			if (idx) add(idx);
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

export class ExtensionHost {
	readonly #opts: ExtensionHostOptions;
	#extensions: LoadedExtension[] = [];
	#loading: Promise<void> | undefined;
	readonly #loadErrors: ExtensionFailure[] = [];

	constructor(opts: ExtensionHostOptions) {
		this.#opts = opts;
	}

	get extensions(): readonly LoadedExtension[] {
		return this.#extensions;
	}

	get loadErrors(): readonly ExtensionFailure[] {
		return this.#loadErrors;
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

	async #loadAll(): Promise<void> {
		const files = discoverExtensionFiles(this.#opts.dirs, this.#opts.paths);
		const loaded: LoadedExtension[] = [];
		this.#loadErrors.length = 0;
		for (const file of files) {
			const ext = await this.#loadOne(file);
			if (ext) loaded.push(ext);
		}
		this.#extensions = loaded;
	}

	async #loadOne(file: string): Promise<LoadedExtension | undefined> {
		const name = path.basename(file).replace(/\.[^.]+$/, "") === "index" ? path.basename(path.dirname(file)) : path.basename(file);
		const ext: LoadedExtension = { path: file, name, handlers: new Map(), commands: new Map() };
		try {
			const { createJiti } = await import("jiti");
			// moduleCache off: a reload must see the edited file, not the first version.
			const jiti = createJiti(file, { interopDefault: true, moduleCache: false, fsCache: false });
			const mod: unknown = await withTimeout(jiti.import(file, { default: true }), this.#opts.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS, `loading ${name}`);
			const factory = typeof mod === "function" ? mod : isRecord(mod) && typeof mod.default === "function" ? mod.default : undefined;
			if (typeof factory !== "function") throw new Error("the module has no default export function (export default function (pi) { ... })");
			const result: unknown = factory(this.#api(ext));
			if (result instanceof Promise) await withTimeout(result, this.#opts.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS, `setting up ${name}`);
			return ext;
		} catch (err) {
			const failure = { extension: file, event: "load", message: errorMessage(err) };
			this.#loadErrors.push(failure);
			this.#opts.onFailure(failure);
			return undefined;
		}
	}

	/** The `pi` object handed to an extension's factory. Registration calls Arbor does not host are accepted and ignored. */
	#api(ext: LoadedExtension): Record<string, unknown> {
		const b = this.#opts.bindings;
		const ignored = (): void => {};
		const listeners = new Map<string, Set<(data: unknown) => void>>();
		return {
			on: (event: unknown, handler: unknown): void => {
				if (typeof event !== "string" || typeof handler !== "function") return;
				const list = ext.handlers.get(event) ?? [];
				list.push(handler as ExtensionHandler);
				ext.handlers.set(event, list);
			},
			registerCommand: (name: unknown, options: unknown): void => {
				if (typeof name !== "string" || !name.trim() || !isRecord(options) || typeof options.handler !== "function") return;
				const clean = name.trim().replace(/^\//, "");
				ext.commands.set(clean, {
					name: clean,
					description: typeof options.description === "string" ? options.description : "",
					handler: options.handler as RegisteredCommand["handler"],
					extension: ext.name,
				});
			},
			registerTool: ignored,
			registerShortcut: ignored,
			registerFlag: ignored,
			getFlag: (): undefined => undefined,
			registerMessageRenderer: ignored,
			registerProvider: ignored,
			unregisterProvider: ignored,
			sendMessage: ignored,
			sendUserMessage: ignored,
			appendEntry: (customType: unknown, data?: unknown): void => {
				if (typeof customType === "string") b.appendEntry(customType, data);
			},
			setSessionName: (n: unknown): void => {
				if (typeof n === "string") b.setSessionName(n);
			},
			getSessionName: (): string | undefined => b.getSessionName(),
			setLabel: (entryId: unknown, label: unknown): void => {
				if (typeof entryId === "string") b.setLabel(entryId, typeof label === "string" ? label : undefined);
			},
			exec: (): Promise<never> => Promise.reject(new Error("pi.exec is not available in Arbor")),
			getActiveTools: (): string[] => [],
			getAllTools: (): unknown[] => [],
			setActiveTools: ignored,
			getCommands: (): ExtensionCommandInfo[] => this.listCommands(),
			setModel: (): Promise<boolean> => Promise.resolve(false),
			getThinkingLevel: (): string => "off",
			setThinkingLevel: ignored,
			events: {
				on: (channel: string, fn: (data: unknown) => void): (() => void) => {
					const set = listeners.get(channel) ?? new Set();
					set.add(fn);
					listeners.set(channel, set);
					return () => set.delete(fn);
				},
				emit: (channel: string, data: unknown): void => {
					for (const fn of listeners.get(channel) ?? []) {
						try {
							fn(data);
						} catch {
							// a listener's failure is its own
						}
					}
				},
			},
		};
	}

	hasHandlers(event: string): boolean {
		return this.#extensions.some((e) => (e.handlers.get(event)?.length ?? 0) > 0);
	}

	/**
	 * Run every handler of the event in load order. For "before" events the last non-empty result wins and
	 * a `cancel` stops at once (pi's runner rules). Failures and timeouts are reported, never thrown.
	 */
	async emit(event: HostedEvent, ctx: unknown): Promise<BeforeResult | undefined> {
		const isBefore = event.type.startsWith("session_before_");
		let result: BeforeResult | undefined;
		for (const ext of this.#extensions) {
			for (const handler of ext.handlers.get(event.type) ?? []) {
				try {
					const out: unknown = await withTimeout(
						Promise.resolve().then(() => handler(event, ctx)),
						this.#opts.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS,
						`${ext.name}: ${event.type} handler`,
					);
					if (isBefore && isRecord(out)) {
						result = out as BeforeResult;
						if (result.cancel === true) return result;
					}
				} catch (err) {
					this.#opts.onFailure({ extension: ext.path, event: event.type, message: errorMessage(err) });
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
