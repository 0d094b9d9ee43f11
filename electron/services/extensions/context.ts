// The `ctx` objects handed to extension handlers and commands: pi's ExtensionContext and
// ExtensionCommandContext, reduced to what makes sense without a terminal UI or a running agent.

import type { Api, Model } from "@earendil-works/pi-ai";
import { type SessionManager, toPlain } from "../../session";
import type { ResolvedModel } from "../models";

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
	navigateTree(targetId: string, options: { summarize?: boolean; customInstructions?: string; replaceInstructions?: boolean; label?: string }): Promise<{ cancelled: boolean }>;
	branch(entryId: string): Promise<{ cancelled: boolean }>;
	reload(): Promise<void>;
}

/**
 * Read methods only: extensions see the session, they write through Arbor's flows. Objects are copies, so
 * an extension that edits what it was given cannot change the core's cached entries. Lists and trees are
 * copied with the core's toPlain: on large files they hold lazy stand-ins that structuredClone rejects.
 */
function readonlySession(m: SessionManager): Record<string, unknown> {
	return {
		getCwd: () => m.getCwd(),
		getSessionDir: () => m.getSessionDir(),
		getSessionId: () => m.getSessionId(),
		getSessionFile: () => m.getSessionFile(),
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
	};
}

/** pi's UI calls: dialogs answer "no", decorations are ignored, notifications reach Arbor's UI. */
function uiStub(notify: ContextDeps["notify"]): unknown {
	const known: Record<string, unknown> = {
		notify: (message: unknown, type?: unknown) => notify(String(message), type === "error" ? "error" : type === "warning" ? "warning" : "info"),
		confirm: async () => false,
		select: async () => undefined,
		input: async () => undefined,
		editor: async () => undefined,
		custom: async () => undefined,
		getEditorText: () => "",
		getToolsExpanded: () => false,
	};
	return new Proxy(known, {
		get(target, prop) {
			if (typeof prop === "string" && prop in target) return target[prop];
			return () => undefined;
		},
	});
}

function modelRegistry(resolved: ResolvedModel | undefined): Record<string, unknown> {
	const matches = (m: unknown): boolean =>
		resolved !== undefined && typeof m === "object" && m !== null && (m as Model<Api>).provider === resolved.model.provider && (m as Model<Api>).id === resolved.model.id;
	return {
		getAll: () => (resolved ? [resolved.model] : []),
		getAvailable: () => (resolved ? [resolved.model] : []),
		find: (provider: string, modelId: string) => (resolved && resolved.model.provider === provider && resolved.model.id === modelId ? resolved.model : undefined),
		hasConfiguredAuth: (m: unknown) => matches(m),
		getApiKey: async (m: unknown) => (matches(m) && resolved ? (await resolved.models.getAuth(resolved.model))?.auth.apiKey : undefined),
		getApiKeyForProvider: async (p: string) => (resolved && resolved.model.provider === p ? (await resolved.models.getAuth(resolved.model))?.auth.apiKey : undefined),
		getApiKeyAndHeaders: async (m: unknown) => {
			const auth = matches(m) && resolved ? (await resolved.models.getAuth(resolved.model))?.auth : undefined;
			return auth ? { ok: true, apiKey: auth.apiKey, ...(auth.headers ? { headers: auth.headers } : {}) } : { ok: false, error: "Arbor has no key for this model" };
		},
	};
}

export function createEventContext(d: ContextDeps): Record<string, unknown> {
	return {
		ui: uiStub(d.notify),
		hasUI: false,
		cwd: d.manager.getCwd(),
		sessionManager: readonlySession(d.manager),
		modelRegistry: modelRegistry(d.model),
		model: d.model?.model,
		isIdle: () => true,
		signal: d.signal,
		abort: () => d.abort(),
		hasPendingMessages: () => false,
		shutdown: () => {},
		getContextUsage: () => undefined,
		compact: () => {},
		getSystemPrompt: () => "",
		/** Arbor extra: which open session this is. */
		sessionId: d.sessionId,
	};
}

export function createCommandContext(d: CommandDeps): Record<string, unknown> {
	const unsupported = async (): Promise<{ cancelled: boolean }> => ({ cancelled: true });
	return {
		...createEventContext(d),
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
