// The `ctx` objects handed to extension handlers and commands: pi 1.6's ExtensionContext and
// ExtensionCommandContext. Every member exists; what needs a terminal or a running agent is a no-op, an
// empty answer, or a NotAvailableInArborError when called (docs/extensions.md "The ctx argument").

import type { Api, Model } from "@earendil-works/pi-ai";
import type { AgentMessage, SessionEntry } from "../../../shared/entries";
import { EntryKind } from "../../../shared/skeleton";
import { type SessionManager, toPlain } from "../../session";
// Not re-exported by electron/session/index.ts.
import { toContextMessage } from "../../session/context";
import type { ResolvedModel } from "../models";
import { loadPiAi } from "../pi-ai";
import { NotAvailableInArborError, notAvailable } from "./not-available";

export interface ContextDeps {
	manager: SessionManager;
	sessionId: string;
	signal?: AbortSignal;
	abort(): void;
	model?: ResolvedModel;
	notify(message: string, level: "info" | "warning" | "error"): void;
}

export interface CommandDeps extends ContextDeps {
	entryId?: string;
	navigateTree(
		targetId: string,
		options: { summarize?: boolean; customInstructions?: string; replaceInstructions?: boolean; label?: string },
	): Promise<{ cancelled: boolean }>;
	branch(entryId: string): Promise<{ cancelled: boolean }>;
	reload(): Promise<void>;
}

type Loose = Record<string, unknown>;

/** pi 1.6's context entries of a path: from the latest compaction on, that compaction first, then the kept entries. */
export function contextEntriesOf(path: SessionEntry[]): SessionEntry[] {
	let at = -1;
	for (let i = path.length - 1; i >= 0; i--) {
		if ((path[i] as Loose).type === "compaction") {
			at = i;
			break;
		}
	}
	if (at < 0) return path;
	const compaction = path[at] as SessionEntry;
	const firstKept = (compaction as Loose).firstKeptEntryId;
	const out: SessionEntry[] = [compaction];
	let keeping = false;
	for (let i = 0; i < at; i++) {
		const e = path[i] as Loose;
		if (e.id === firstKept) keeping = true;
		const isSystem = e.type === "message" && (e.message as Loose | undefined)?.role === "system";
		if (keeping && !isSystem) out.push(path[i] as SessionEntry);
	}
	out.push(...path.slice(at + 1));
	return out;
}

/**
 * pi 1.6's session projection: each context entry with the messages it contributes, then the context.
 * A thin adapter over Arbor's core (its buildSessionContext gives the messages, thinking level and model);
 * entries whose pi 1.6 context rules the core does not know yet (context_edit) contribute nothing here.
 */
function projectionOf(m: SessionManager): Loose {
	const own = (m as unknown as { buildSessionProjection?: () => Loose }).buildSessionProjection;
	if (typeof own === "function") {
		// The core (pi 1.6 context rules) names each entry by its file index; pi's shape carries the entry.
		const p = own.call(m);
		const list = Array.isArray(p.entries) ? (p.entries as Loose[]) : [];
		return structuredClone({
			...p,
			entries: list.map((e) => ({
				sourceEntry: e.sourceEntry ?? (typeof e.index === "number" ? toPlain([m.getEntryAt(e.index) as SessionEntry])[0] : undefined),
				messages: e.messages,
			})),
		});
	}
	const entries = contextEntriesOf(toPlain(m.getBranch()) as SessionEntry[]);
	const context = structuredClone(m.buildSessionContext());
	const projected = entries.map((sourceEntry, i) => {
		const e = sourceEntry as Loose;
		let messages: AgentMessage[] = [];
		if (e.type === "compaction" && i === 0) {
			messages = [
				{
					role: "compactionSummary",
					summary: e.summary,
					tokensBefore: e.tokensBefore,
					timestamp: new Date(e.timestamp as string).getTime(),
				} as unknown as AgentMessage,
			];
		} else if (e.type !== "compaction") {
			const msg = toContextMessage(sourceEntry);
			if (msg !== undefined) messages = [msg];
		}
		return { sourceEntry, messages };
	});
	return { entries: projected, messages: context.messages, thinkingLevel: context.thinkingLevel, model: context.model };
}

/** The name pi shows for the session: the latest session_info entry on file (trimmed; empty clears it). */
export function sessionNameOf(m: SessionManager): string | undefined {
	const own = (m as unknown as { getSessionName?: () => string | undefined }).getSessionName;
	if (typeof own === "function") return own.call(m);
	// Found through the index's kinds: a 100k-entry file is not parsed entry by entry.
	for (let i = m.getEntryCount() - 1; i >= 0; i--) {
		if (m.kindAt(i) !== EntryKind.sessionInfo) continue;
		const e = m.getEntryAt(i) as Loose | undefined;
		const name = typeof e?.name === "string" ? e.name.trim() : "";
		return name === "" ? undefined : name;
	}
	return undefined;
}

/** The thinking level at the leaf (pi: the latest thinking_level_change on the path), found without parsing the path. */
export function thinkingLevelOf(m: SessionManager): string {
	const leaf = m.getLeafId();
	const at = leaf === null ? -1 : m.indexOf(leaf);
	if (at < 0) return "off";
	const path = m.pathIndices(at);
	for (let k = path.length - 1; k >= 0; k--) {
		const i = path[k] as number;
		if (m.kindAt(i) !== EntryKind.thinkingLevelChange) continue;
		const level = (m.getEntryAt(i) as Loose | undefined)?.thinkingLevel;
		return typeof level === "string" ? level : "off";
	}
	return "off";
}

/**
 * Read methods only (pi's ReadonlySessionManager, plus getChildren and buildSessionContext from older pi):
 * extensions see the session, they write through Arbor's flows. Objects are copies, so an extension that
 * edits what it was given cannot change the core's cached entries. Lists and trees are copied with the
 * core's toPlain: on large files they hold lazy stand-ins that structuredClone rejects.
 */
function readonlySession(m: SessionManager): Record<string, unknown> {
	return {
		getCwd: () => m.getCwd(),
		getSessionDir: () => m.getSessionDir(),
		getSessionId: () => m.getSessionId(),
		getSessionFile: () => m.getSessionFile(),
		getSessionName: () => sessionNameOf(m),
		getHeader: () => structuredClone(m.getHeader()),
		getLeafId: () => m.getLeafId(),
		getLeafEntry: () => structuredClone(m.getLeafEntry()),
		getEntry: (id: string) => structuredClone(m.getEntry(id)),
		getEntries: () => toPlain(m.getEntries()),
		getChildren: (id: string) => toPlain(m.getChildren(id)),
		getLabel: (id: string) => m.getLabel(id),
		getBranch: (fromId?: string) => toPlain(m.getBranch(fromId)),
		getTree: () => toPlain(m.getTree()),
		buildSessionContext: () => structuredClone(m.buildSessionContext()),
		buildContextEntries: () => {
			const own = (m as unknown as { buildContextEntries?: () => SessionEntry[] }).buildContextEntries;
			return typeof own === "function" ? toPlain(own.call(m)) : contextEntriesOf(toPlain(m.getBranch()) as SessionEntry[]);
		},
		buildSessionProjection: () => projectionOf(m),
	};
}

/** pi's theme, without colours: every styling call gives its text back unchanged. */
const plainTheme: unknown = new Proxy(
	{},
	{
		get(_t, prop) {
			if (typeof prop === "symbol" || prop === "then") return undefined;
			if (prop === "name") return "arbor-plain";
			return (...args: unknown[]) => {
				for (let i = args.length - 1; i >= 0; i--) if (typeof args[i] === "string") return args[i];
				return "";
			};
		},
	},
);

/** pi's UI calls: dialogs answer "no"/nothing (hasUI is false), decorations are ignored, notifications reach Arbor's UI. */
function uiStub(notify: ContextDeps["notify"]): unknown {
	const ignore = (): void => {};
	const known: Record<string, unknown> = {
		notify: (message: unknown, type?: unknown) => notify(String(message), type === "error" ? "error" : type === "warning" ? "warning" : "info"),
		confirm: async () => false,
		select: async () => undefined,
		input: async () => undefined,
		editor: async () => undefined,
		custom: async () => undefined,
		onTerminalInput: () => ignore,
		setStatus: ignore,
		setWorkingMessage: ignore,
		setWorkingVisible: ignore,
		setWorkingIndicator: ignore,
		setHiddenThinkingLabel: ignore,
		setWidget: ignore,
		setFooter: ignore,
		setHeader: ignore,
		setTitle: ignore,
		pasteToEditor: ignore,
		setEditorText: ignore,
		getEditorText: () => "",
		addAutocompleteProvider: ignore,
		setEditorComponent: ignore,
		getEditorComponent: () => undefined,
		theme: plainTheme,
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "Arbor has no terminal themes" }),
		getToolsExpanded: () => false,
		setToolsExpanded: ignore,
	};
	return new Proxy(known, {
		get(target, prop) {
			if (typeof prop === "string" && prop in target) return target[prop];
			if (typeof prop === "symbol" || prop === "then") return undefined;
			return () => undefined;
		},
	});
}

type Stream = AsyncIterable<unknown> & { result(): Promise<unknown> };

/**
 * What the bridge needs from a resolved model, structurally: today's ResolvedModel carries the key and
 * headers (called through pi-ai); pi-ai 1.6's `Models` collection (when the model layer hands one out)
 * resolves credentials itself and is used instead.
 */
interface ModelBridge {
	model: Model<Api>;
	apiKey?: string;
	headers?: Record<string, string>;
	models?: {
		complete(m: unknown, c: unknown, o?: unknown): Promise<unknown>;
		stream(m: unknown, c: unknown, o?: unknown): Stream;
		streamSimple(m: unknown, c: unknown, o?: unknown): Stream;
		getAuth?(m: unknown): Promise<{ auth?: { apiKey?: string; headers?: Record<string, string>; baseUrl?: string } } | undefined>;
	};
}

/** Thin bridge to the model layer: Arbor knows one model (the one its summaries use) and its credentials. */
function modelRegistry(resolvedModel: ResolvedModel | undefined): Record<string, unknown> {
	const resolved = resolvedModel as unknown as ModelBridge | undefined;
	const isActive = (m: unknown): boolean =>
		resolved !== undefined &&
		typeof m === "object" &&
		m !== null &&
		(m as Model<Api>).provider === resolved.model.provider &&
		(m as Model<Api>).id === resolved.model.id;
	const same = (provider: string, modelId: string): Model<Api> | undefined =>
		resolved && resolved.model.provider === provider && resolved.model.id === modelId ? resolved.model : undefined;
	const requireActive = (m: unknown, what: string): ModelBridge => {
		if (!resolved) throw new NotAvailableInArborError(`ctx.modelRegistry.${what}`, "no model is set up for Arbor (see `arbor model`)");
		if (!isActive(m)) {
			const name = typeof m === "object" && m !== null ? `${String((m as Loose).provider)}/${String((m as Loose).id)}` : String(m);
			throw new NotAvailableInArborError(
				`ctx.modelRegistry.${what} for ${name}`,
				`Arbor only has credentials for its own model ${resolved.model.provider}/${resolved.model.id}`,
			);
		}
		return resolved;
	};
	/** The key, headers and base URL the model is called with. */
	const auth = async (): Promise<{ apiKey?: string; headers?: Record<string, string>; baseUrl?: string } | undefined> => {
		if (!resolved) return undefined;
		if (resolved.models?.getAuth) return (await resolved.models.getAuth(resolved.model))?.auth;
		return {
			apiKey: resolved.apiKey,
			...(resolved.headers ? { headers: resolved.headers } : {}),
			...(resolved.model.baseUrl ? { baseUrl: resolved.model.baseUrl } : {}),
		};
	};
	/** Options for a direct pi-ai call: the caller's, with Arbor's key and headers. */
	const withAuth = (r: ModelBridge, options: unknown): Loose => ({
		...(typeof options === "object" && options !== null ? (options as Loose) : {}),
		apiKey: r.apiKey,
		...(r.headers ? { headers: { ...r.headers, ...(((options as Loose | undefined)?.headers as Loose | undefined) ?? {}) } } : {}),
	});
	const streamOf = (fn: "stream" | "streamSimple", m: unknown, context: unknown, options: unknown): Stream => {
		const r = requireActive(m, fn);
		if (r.models) return r.models[fn](r.model, context, options);
		return relayStream(fn, r, context, withAuth(r, options));
	};
	return {
		refresh: async () => ({ ok: true }),
		getError: () => undefined,
		getAll: () => (resolved ? [resolved.model] : []),
		getAvailable: () => (resolved ? [resolved.model] : []),
		find: (provider: string, modelId: string) => same(provider, modelId),
		findOfType: (_type: string, provider: string, modelId: string) => same(provider, modelId),
		hasConfiguredAuth: (m: unknown) => isActive(m),
		isUsingOAuth: () => false,
		getApiKey: async (m: unknown) => (isActive(m) ? (await auth())?.apiKey : undefined),
		getApiKeyForProvider: async (p: string) => (resolved?.model.provider === p ? (await auth())?.apiKey : undefined),
		getApiKeyAndHeaders: async (m: unknown) => {
			const a = isActive(m) ? await auth() : undefined;
			return a ? { ok: true, apiKey: a.apiKey, ...(a.headers ? { headers: a.headers } : {}) } : { ok: false, error: "Arbor has no key for this model" };
		},
		getProviderAuthStatus: (p: string) => ({ configured: resolved?.model.provider === p }),
		getProviderAuth: async (p: string) => {
			const a = resolved?.model.provider === p ? await auth() : undefined;
			return a ? { auth: a } : undefined;
		},
		getProvider: () => undefined,
		getProviderDisplayName: (p: string) => p,
		getModelsOfType: () => (resolved ? [resolved.model] : []),
		getAvailableOfType: async () => (resolved ? [resolved.model] : []),
		getModelOfType: (_type: string, provider: string, modelId: string) => same(provider, modelId),
		complete: async (m: unknown, context: unknown, options?: unknown) => {
			const r = requireActive(m, "complete");
			if (r.models) return r.models.complete(r.model, context, options);
			const ai = (await loadPiAi()) as unknown as { complete(m: unknown, c: unknown, o: unknown): Promise<unknown> };
			return ai.complete(r.model, context, withAuth(r, options));
		},
		stream: (m: unknown, context: unknown, options?: unknown) => streamOf("stream", m, context, options),
		streamSimple: (m: unknown, context: unknown, options?: unknown) => streamOf("streamSimple", m, context, options),
		classify: notAvailable("ctx.modelRegistry.classify", "Arbor only runs chat models"),
		generateImages: notAvailable("ctx.modelRegistry.generateImages", "Arbor only runs chat models"),
		registerProvider: () => {},
		unregisterProvider: () => {},
		registerVirtualModel: () => {},
		unregisterVirtualModel: () => {},
		getRegisteredProviderConfig: () => undefined,
		getRegisteredNativeProvider: () => undefined,
		getRegisteredProviderIds: () => [],
	};
}

/**
 * pi-ai's stream functions return an async-iterable event stream synchronously; the library is loaded
 * lazily here, so the stream is relayed: iterate it, or await `result()` for the final message.
 */
function relayStream(fn: "stream" | "streamSimple", r: ModelBridge, context: unknown, options: Loose): Stream {
	const inner: Promise<Stream> = loadPiAi().then((ai) =>
		(ai as unknown as Record<string, (m: unknown, c: unknown, o: unknown) => Stream>)[fn](r.model, context, options),
	);
	return {
		async *[Symbol.asyncIterator]() {
			yield* await inner;
		},
		result: async () => (await inner).result(),
	};
}

export function createEventContext(d: ContextDeps): Record<string, unknown> {
	return {
		ui: uiStub(d.notify),
		/** pi 1.6's modes: Arbor is like print mode (no terminal, no dialogs). */
		mode: "print",
		hasUI: false,
		cwd: d.manager.getCwd(),
		sessionManager: readonlySession(d.manager),
		modelRegistry: modelRegistry(d.model),
		model: d.model?.model,
		scopedModels: [],
		thinkingLevel: thinkingLevelOf(d.manager),
		isIdle: () => true,
		// Arbor never loads project-local resources (.pi/ of a session's folder): nothing is trusted.
		isProjectTrusted: () => false,
		signal: d.signal,
		abort: () => d.abort(),
		hasPendingMessages: () => false,
		shutdown: () => {},
		getContextUsage: () => undefined,
		compact: (options?: { onError?: (e: Error) => void }) => {
			options?.onError?.(new NotAvailableInArborError("ctx.compact", "Arbor does not compact sessions"));
		},
		getSystemPrompt: () => "",
		/** Arbor extra: which open session this is. */
		sessionId: d.sessionId,
	};
}

export function createCommandContext(d: CommandDeps): Record<string, unknown> {
	const unsupported = async (): Promise<{ cancelled: boolean }> => ({ cancelled: true });
	return {
		...createEventContext(d),
		getSystemPromptOptions: () => ({ cwd: d.manager.getCwd() }),
		waitForIdle: async () => {},
		navigateTree: (targetId: string, options?: Parameters<CommandDeps["navigateTree"]>[1]) => d.navigateTree(targetId, options ?? {}),
		/** /branch to a new file from a user message (pi's older name); `fork` is pi's current name. */
		branch: (entryId: string) => d.branch(entryId),
		fork: (entryId: string) => d.branch(entryId),
		newSession: unsupported,
		switchSession: unsupported,
		reload: () => d.reload(),
		/** Arbor extra: the entry the command was invoked on (context menu), if any. */
		entryId: d.entryId,
	};
}
