// The `pi` object (pi 1.6's ExtensionAPI) handed to an extension's factory. Every method of pi 1.6 exists.
// What Arbor hosts works as in pi (events, commands, entries, labels, the session name, the event bus);
// registrations Arbor has no use for (tools, renderers, shortcuts, providers, MCP servers, virtual models)
// are recorded and otherwise ignored; actions only a running agent can do (sendMessage, sendUserMessage,
// exec) throw NotAvailableInArborError when called. Nothing throws while the extension loads.

import type { ExtensionCommandInfo } from "../../../shared/api";
import type { createEventBus } from "./pi-coding-agent-shim";
import { NotAvailableInArborError } from "./not-available";
import type { ExtensionHandler, LoadedExtension, RegisteredCommand } from "./types";
import { isObjectLike } from "../../../shared/guards";

export interface ApiBindings {
	appendEntry(customType: string, data: unknown): void;
	setLabel(entryId: string, label: string | undefined): void;
	setSessionName(name: string): void;
	getSessionName(): string | undefined;
	/** pi's effective settings (a copy). */
	getSettings(): Record<string, unknown>;
	getCommands(): ExtensionCommandInfo[];
	/** Tools every loaded extension registered (pi's ToolInfo shape, as far as Arbor knows it). */
	getAllTools(): Record<string, unknown>[];
}

export function createExtensionApi(ext: LoadedExtension, b: ApiBindings, bus: ReturnType<typeof createEventBus>): Record<string, unknown> {
	const ignored = (): void => {};
	const agentOnly = (what: string) => (): never => {
		throw new NotAvailableInArborError(`pi.${what}`, "Arbor does not run agent turns");
	};
	return {
		on: (event: unknown, handler: unknown): (() => void) => {
			if (typeof event !== "string" || typeof handler !== "function") return ignored;
			const registered: ExtensionHandler = (e, ctx) => (handler as ExtensionHandler)(e, ctx);
			const list = ext.handlers.get(event) ?? [];
			list.push(registered);
			ext.handlers.set(event, list);
			return () => {
				const now = ext.handlers.get(event);
				const at = now?.indexOf(registered) ?? -1;
				if (now && at >= 0) now.splice(at, 1);
			};
		},
		registerCommand: (name: unknown, options: unknown): void => {
			if (typeof name !== "string" || !name.trim() || !isObjectLike(options) || typeof options.handler !== "function") return;
			const clean = name.trim().replace(/^\//, "");
			ext.commands.set(clean, {
				name: clean,
				description: typeof options.description === "string" ? options.description : "",
				handler: options.handler as RegisteredCommand["handler"],
				extension: ext.name,
			});
		},
		registerTool: (tool: unknown): void => {
			if (isObjectLike(tool) && typeof tool.name === "string") ext.tools.set(tool.name, tool);
		},
		registerShortcut: ignored,
		registerFlag: (name: unknown, options: unknown): void => {
			if (typeof name !== "string") return;
			ext.flags.set(name, isObjectLike(options) ? options.default : undefined);
		},
		// Arbor has no command line for extension flags: a registered flag has its default.
		getFlag: (name: unknown): unknown => (typeof name === "string" ? ext.flags.get(name) : undefined),
		registerMessageRenderer: ignored,
		registerMarkdownTransformer: ignored,
		registerEntryRenderer: ignored,
		registerToolRenderer: ignored,
		sendMessage: agentOnly("sendMessage"),
		sendUserMessage: agentOnly("sendUserMessage"),
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
		exec: (): Promise<never> => Promise.reject(new NotAvailableInArborError("pi.exec", "Arbor does not run shell commands for extensions")),
		getActiveTools: (): string[] => [],
		getAllTools: (): Record<string, unknown>[] => b.getAllTools(),
		getSettings: (): Record<string, unknown> => b.getSettings(),
		setActiveTools: ignored,
		getCommands: (): ExtensionCommandInfo[] => b.getCommands(),
		// pi's contract: false when the model cannot be used. Arbor's model is chosen in its settings.
		setModel: (): Promise<boolean> => Promise.resolve(false),
		getThinkingLevel: (): string => "off",
		setThinkingLevel: ignored,
		registerProvider: (provider: unknown, config?: unknown): void => {
			const name = typeof provider === "string" ? provider : isObjectLike(provider) && typeof provider.id === "string" ? provider.id : undefined;
			if (name) ext.providers.set(name, config ?? provider);
		},
		unregisterProvider: (name: unknown): void => {
			if (typeof name === "string") ext.providers.delete(name);
		},
		registerMcpServer: (name: unknown, config: unknown): void => {
			if (typeof name === "string") ext.mcpServers.set(name, config);
		},
		unregisterMcpServer: (name: unknown): void => {
			if (typeof name === "string") ext.mcpServers.delete(name);
		},
		getMcpServers: (): { name: string; config: unknown; extensionPath: string }[] =>
			[...ext.mcpServers].map(([name, config]) => ({ name, config: structuredClone(config), extensionPath: ext.path })),
		registerVirtualModel: ignored,
		unregisterVirtualModel: ignored,
		events: {
			on: (channel: unknown, handler: unknown): (() => void) =>
				typeof channel === "string" && typeof handler === "function" ? bus.on(channel, handler as (d: unknown) => unknown) : ignored,
			emit: (channel: unknown, data?: unknown): void => {
				if (typeof channel === "string") bus.emit(channel, data);
			},
		},
	};
}
