// Extensions as the services see them: the loaded host, which session a running handler or command
// belongs to (the target of pi.appendEntry / pi.setLabel), the events sent per session (session_start,
// session_info_changed, the flows' before/after events), and the listing / enabling of pi's extensions.

import { AsyncLocalStorage } from "node:async_hooks";
import * as path from "node:path";
import type { ExtensionListing, NavigateResult, RequestParams, RequestResult } from "../../shared/api";
import { errorText } from "../../shared/guards";
import { ArborServiceError, toServiceError } from "./errors";
import type { EventHub } from "./events";
import { createCommandContext, createEventContext, sessionNameOf } from "./extensions/context";
import { discoverPiExtensions } from "./extensions/discovery";
import { ExtensionHost } from "./extensions/host";
import type { BeforeResult, ExtensionFailure, HostedEvent } from "./extensions/types";
import { readJsonFile } from "./fs-util";
import type { ResolvedModel } from "./models";
import { type OpenSession, titleOf } from "./open-session";
import type { SessionRegistry, SessionStart } from "./session-registry";
import type { SettingsStore } from "./settings";

export interface ExtensionBridgeOptions {
	sessions: SessionRegistry;
	events: EventHub;
	settings: SettingsStore;
	/** Arbor's own folder: its extensions/ subfolder is loaded. */
	settingsDir: string;
	piAgentDir: string;
	/** `--extension PATH`s. */
	extensionPaths: string[];
	handlerTimeoutMs?: number;
	commandTimeoutMs?: number;
}

/** The services' requests an extension command's ctx may call, and the model it is given. */
export interface CommandRequests {
	model(): Promise<ResolvedModel | undefined>;
	navigate(params: RequestParams<"navigate">): Promise<NavigateResult>;
	branchToFile(params: RequestParams<"branchToFile">): Promise<RequestResult<"branchToFile">>;
}

export class ExtensionBridge {
	readonly host: ExtensionHost;
	readonly #o: ExtensionBridgeOptions;
	/** Follows each handler and command through its awaits: two sessions' handlers can run at once. */
	readonly #activeStore = new AsyncLocalStorage<OpenSession>();

	constructor(options: ExtensionBridgeOptions) {
		this.#o = options;
		const { events } = options;
		this.host = new ExtensionHost({
			dirs: [path.join(options.settingsDir, "extensions")],
			paths: options.extensionPaths,
			// pi's extensions run only when the user enabled them (docs/extensions.md).
			extraEntries: () => {
				const enabled = new Set(this.enabledExtensions());
				return discoverPiExtensions(options.piAgentDir, process.cwd()).entries.filter((e) => enabled.has(e.path));
			},
			handlerTimeoutMs: options.handlerTimeoutMs,
			commandTimeoutMs: options.commandTimeoutMs,
			onFailure: (f) => this.#reportFailure(f),
			bindings: {
				appendEntry: (customType, data) => this.#withActive((s) => s.manager.appendCustomEntry(customType, data)),
				setLabel: (entryId, label) => this.#withActive((s) => s.manager.appendLabelChange(entryId, label)),
				setSessionName: (name) => this.#withActive((s) => s.manager.appendSessionInfo(name)),
				getSessionName: () => (this.active ? (titleOf(this.active.manager) ?? undefined) : undefined),
				notify: (extension, message, level) => events.emit({ type: "notice", sessionId: this.active?.id ?? null, level, message, source: extension }),
				getPiSettings: () => {
					const pi = readJsonFile(path.join(options.piAgentDir, "settings.json"));
					return typeof pi === "object" && pi !== null && !Array.isArray(pi) ? (pi as Record<string, unknown>) : {};
				},
			},
		});
	}

	/** The session whose extension handler / command is running. */
	get active(): OpenSession | undefined {
		return this.#activeStore.getStore();
	}

	ready(): Promise<void> {
		return this.host.ready();
	}

	hasHandlers(event: string): boolean {
		return this.host.hasHandlers(event);
	}

	/** Run `fn` (a command) as session `s`'s: pi.appendEntry and friends write there. */
	runAs<T>(s: OpenSession, fn: () => T): T {
		return this.#activeStore.run(s, fn);
	}

	/** Send an event of session `s` to the extensions (nothing when none listens). */
	async emit(s: OpenSession, event: HostedEvent, ctx: unknown): Promise<BeforeResult | undefined> {
		await this.host.ready();
		if (!this.host.hasHandlers(event.type)) return undefined;
		return this.#activeStore.run(s, () => this.host.emit(event, ctx));
	}

	/** pi's ExtensionContext for a handler of session `s`. */
	eventContext(s: OpenSession, signal?: AbortSignal, model?: ResolvedModel): Record<string, unknown> {
		return createEventContext({
			manager: s.manager,
			sessionId: s.id,
			signal,
			abort: () => s.abort?.abort(),
			model,
			notify: (message, level) => this.#o.events.emit({ type: "notice", sessionId: s.id, level, message }),
		});
	}

	/** pi 1.6's session_start, queued on the session so its flows run after the handlers. */
	sessionStart(s: OpenSession, start: SessionStart): void {
		s.sessionName = sessionNameOf(s.manager);
		const event: HostedEvent = {
			type: "session_start",
			reason: start.reason,
			...(start.previousSessionFile ? { previousSessionFile: start.previousSessionFile } : {}),
		};
		void this.#o.sessions
			.exclusive(s, async () => {
				await this.host.ready();
				// No context is built (nothing read) for the many opens no extension listens to.
				if (s.closed || !this.host.hasHandlers("session_start")) return;
				await this.emit(s, event, this.eventContext(s));
			})
			.catch(() => undefined);
	}

	/** pi 1.6's session_info_changed, when the session's name really changed (a session_info entry arrived). */
	nameMaybeChanged(s: OpenSession): void {
		const name = sessionNameOf(s.manager);
		if (name === s.sessionName) return;
		s.sessionName = name;
		if (this.host.hasHandlers("session_info_changed")) void this.emit(s, { type: "session_info_changed", name }, this.eventContext(s));
	}

	enabledExtensions(): string[] {
		try {
			return this.#o.settings.load().enabledExtensions ?? [];
		} catch {
			return [];
		}
	}

	/**
	 * An extension command on session `s`: its ctx can navigate and branch through the services' own
	 * requests (queued behind the session's other flows like any request).
	 */
	async runCommand(s: OpenSession, params: RequestParams<"runExtensionCommand">, requests: CommandRequests): Promise<void> {
		await this.host.ready();
		const command = this.host.getCommand(params.name);
		if (!command) throw new ArborServiceError("not_found", `No extension command /${params.name}.`);
		if (params.entryId !== undefined) this.#o.sessions.entry(s, params.entryId);
		const model = await requests.model();
		const controller = new AbortController();
		const ctx = createCommandContext({
			manager: s.manager,
			sessionId: s.id,
			signal: controller.signal,
			abort: () => controller.abort(),
			model,
			notify: (message, level) => this.#o.events.emit({ type: "notice", sessionId: s.id, level, message, source: command.extension }),
			entryId: params.entryId,
			navigateTree: async (targetId, options) => {
				const res = await requests.navigate({ sessionId: s.id, targetId, ...options });
				return { cancelled: res.cancelled };
			},
			branch: async (entryId) => {
				const res = await requests.branchToFile({ sessionId: s.id, entryId });
				return { cancelled: res.cancelled };
			},
			reload: () => this.reload(),
		});
		try {
			await this.#activeStore.run(s, () => this.host.runCommand(command, params.args ?? "", ctx));
		} catch (err) {
			if (err instanceof ArborServiceError) throw err;
			throw new ArborServiceError("extension_error", `/${command.name} (${command.extension}) failed: ${errorText(err)}`);
		}
	}

	/** The folders of every extension module of the last load (the hosts' crash guard treats them as extension code). */
	folders(): string[] {
		return [...new Set(this.host.records.map((r) => path.dirname(r.path)))];
	}

	async list(): Promise<ExtensionListing> {
		await this.host.ready();
		const enabled = new Set(this.enabledExtensions());
		const pi = discoverPiExtensions(this.#o.piAgentDir, process.cwd());
		const records = new Map(this.host.records.map((r) => [r.path, r]));
		const extensions: ExtensionListing["extensions"] = [];
		for (const r of this.host.records) {
			if (r.origin !== "arbor" && r.origin !== "cli") continue;
			extensions.push({
				path: r.path,
				name: r.name,
				origin: r.origin,
				enabled: true,
				loaded: r.loaded,
				...(r.error ? { error: r.error } : {}),
				commands: r.commands,
			});
		}
		for (const e of pi.entries) {
			const r = records.get(e.path);
			// A pi extension also given with --extension is listed once, as the command line's.
			if (r && (r.origin === "arbor" || r.origin === "cli")) continue;
			extensions.push({
				path: e.path,
				name: path.basename(e.path).replace(/\.[^.]+$/, "") === "index" ? path.basename(path.dirname(e.path)) : path.basename(e.path),
				origin: e.origin,
				...(e.package !== undefined ? { package: e.package } : {}),
				...(e.piEnabled === false ? { piEnabled: false as const } : {}),
				enabled: enabled.has(e.path),
				loaded: r?.loaded === true,
				...(r?.error ? { error: r.error } : {}),
				commands: r?.commands ?? [],
			});
		}
		return { extensions, missing: pi.missing, ...(pi.untrustedProject ? { untrustedProject: pi.untrustedProject } : {}) };
	}

	async setEnabled(params: RequestParams<"setExtensionEnabled">): Promise<ExtensionListing> {
		const found = discoverPiExtensions(this.#o.piAgentDir, process.cwd()).entries.some((e) => e.path === params.path);
		if (!found) throw new ArborServiceError("not_found", `${params.path} is not one of the pi extensions Arbor found (see \`arbor extensions\`).`);
		const current = this.enabledExtensions();
		const next = params.enabled ? [...new Set([...current, params.path])] : current.filter((p) => p !== params.path);
		try {
			this.#o.settings.update({ enabledExtensions: next });
		} catch (err) {
			throw toServiceError(err);
		}
		await this.reload();
		return this.list();
	}

	/** Load the extension folders again and tell clients the command list may have changed. */
	async reload(): Promise<void> {
		// pi 1.6's reload: the old extensions hear session_shutdown, the new ones session_start, per open session.
		const open = this.#o.sessions.all();
		for (const s of open) await this.emit(s, { type: "session_shutdown", reason: "reload" }, this.eventContext(s)).catch(() => undefined);
		await this.host.reload();
		this.#o.events.emit({ type: "commands_changed" });
		for (const s of open) if (!s.closed) this.sessionStart(s, { reason: "reload" });
	}

	#withActive(fn: (s: OpenSession) => void): void {
		const s = this.active;
		if (!s) throw new Error("no session is active for this extension call");
		fn(s);
		this.#o.sessions.sync(s);
	}

	#reportFailure(f: ExtensionFailure): void {
		this.#o.events.emit({
			type: "error",
			sessionId: this.active?.id ?? null,
			error: { code: "extension_error", message: `Extension ${path.basename(f.extension)} failed in ${f.event}: ${f.message}`, file: f.extension },
		});
	}
}
