// What an extension gets in Arbor when it imports `@earendil-works/pi-coding-agent` (or the older
// `@mariozechner/pi-coding-agent`). pi maps that import to its own running copy; Arbor is not pi, and pi
// 1.6's entry point does not even load on Node 20, so Arbor hands out this module instead. It has every
// value pi 1.6's entry point exports (docs/extensions.md "Imports"):
// - constants and small pure helpers behave as in pi (CONFIG_DIR_NAME, getAgentDir, defineTool, the
//   tool-event guards, createEventBus, the truncation limits);
// - the built-in tool factories return tool definitions whose `execute` throws: an extension may wrap or
//   re-register pi's tools while it loads, but Arbor never runs a tool;
// - classes (TUI components, AgentSession, SessionManager, ...) can be extended, and throw when constructed;
// - every other function throws NotAvailableInArborError when called.
// Nothing here throws while an extension loads.

import { piAgentDir } from "../../session";
import { NotAvailableInArborError, notAvailable } from "./not-available";

/** pi's folder as the host was configured with it; getAgentDir() answers this. */
let agentDir: string | undefined;

export function setShimAgentDir(dir: string): void {
	agentDir = dir;
}

function currentAgentDir(): string {
	return agentDir ?? piAgentDir(process.env);
}

/** The pi API version Arbor's host implements. */
export const HOSTED_PI_VERSION = "1.6.0";

function toolDefinition(name: string): Record<string, unknown> {
	return {
		name,
		label: name,
		description: `pi's built-in ${name} tool (Arbor never runs tools)`,
		parameters: { type: "object", properties: {} },
		execute: notAvailable(`pi's ${name} tool`, "Arbor does not run tools"),
	};
}

/** A class an extension may extend; constructing it (or calling a static method) throws. */
function unavailableClass(name: string): unknown {
	const cls = {
		[name]: class {
			constructor() {
				throw new NotAvailableInArborError(`${name}`);
			}
		},
	}[name] as unknown as object;
	return new Proxy(cls, {
		get(target, prop, receiver) {
			if (prop in target || typeof prop === "symbol") return Reflect.get(target, prop, receiver);
			return notAvailable(`${name}.${prop}`);
		},
	});
}

const CLASSES = [
	"AgentSession",
	"AgentSessionRuntime",
	"DefaultPackageManager",
	"DefaultResourceLoader",
	"ExtensionRunner",
	"InteractiveMode",
	"ModelRegistry",
	"ModelRuntime",
	"ProjectTrustStore",
	"RpcClient",
	"SessionManager",
	"SettingsManager",
	"Theme",
	// UI components for extensions (pi's modes/interactive/components)
	"ArminComponent",
	"AssistantMessageComponent",
	"BashExecutionComponent",
	"BorderedLoader",
	"BranchSummaryMessageComponent",
	"CompactionSummaryMessageComponent",
	"CustomEditor",
	"CustomMessageComponent",
	"DynamicBorder",
	"ExtensionEditorComponent",
	"ExtensionInputComponent",
	"ExtensionSelectorComponent",
	"FooterComponent",
	"LoginDialogComponent",
	"ModelSelectorComponent",
	"OAuthSelectorComponent",
	"SessionSelectorComponent",
	"SettingsSelectorComponent",
	"ShowImagesSelectorComponent",
	"SkillInvocationMessageComponent",
	"ThemeSelectorComponent",
	"ThinkingSelectorComponent",
	"ToolExecutionComponent",
	"TreeSelectorComponent",
	"UserMessageComponent",
	"UserMessageSelectorComponent",
];

const UNAVAILABLE_FUNCTIONS = [
	"parseArgs",
	"getDocsPath",
	"getExamplesPath",
	"getPackageDir",
	"getReadmePath",
	"parseSkillBlock",
	"readStoredCredential",
	"calculateContextTokens",
	"collectEntriesForBranchSummary",
	"compact",
	"estimateTokens",
	"findCutPoint",
	"findTurnStartIndex",
	"generateBranchSummary",
	"generateSummary",
	"generateSummaryWithUsage",
	"getLastAssistantUsage",
	"prepareBranchEntries",
	"serializeConversation",
	"shouldCompact",
	"createExtensionRuntime",
	"discoverAndLoadExtensions",
	"wrapRegisteredTool",
	"wrapRegisteredTools",
	"convertToLlm",
	"resolveCliModel",
	"resolveModelScopeWithDiagnostics",
	"loadProjectContextFiles",
	"createAgentSession",
	"createAgentSessionFromServices",
	"createAgentSessionRuntime",
	"createAgentSessionServices",
	"buildContextEntries",
	"buildSessionContext",
	"buildSessionProjection",
	"getLatestCompactionEntry",
	"migrateSessionEntries",
	"parseSessionEntries",
	"sessionEntryToContextMessages",
	"formatSkillsForPrompt",
	"loadSkills",
	"loadSkillsFromDir",
	"createSyntheticSourceInfo",
	"generateDiffString",
	"generateUnifiedPatch",
	"createLocalBashOperations",
	"createLocalPowerShellOperations",
	"truncateHead",
	"truncateLine",
	"truncateTail",
	"withFileMutationQueue",
	"formatReadLineRange",
	"hasTrustRequiringProjectResources",
	"createCodemodeExtension",
	"createMcpExtension",
	"createToolSearchExtension",
	"main",
	"runPrintMode",
	"runRpcMode",
	"keyHint",
	"keyText",
	"rawKeyHint",
	"renderDiff",
	"truncateToVisualLines",
	"getLanguageFromPath",
	"getMarkdownTheme",
	"getSelectListTheme",
	"getSettingsListTheme",
	"highlightCode",
	"initTheme",
	"copyToClipboard",
	"parseFrontmatter",
	"stripFrontmatter",
	"convertToPng",
	"formatDimensionNote",
	"resizeImage",
	"detectSupportedImageMimeTypeFromFile",
	"getPowerShellConfig",
	"getShellConfig",
];

class CredentialSynchronizationError extends Error {
	constructor(message?: string) {
		super(message);
		this.name = "CredentialSynchronizationError";
	}
}

type EventBusHandler = (data: unknown) => unknown;

/** pi's event bus: `on` returns an unsubscribe; a throwing handler does not stop the others. */
export function createEventBus(onError?: (channel: string, err: unknown) => void): {
	on(channel: string, handler: EventBusHandler): () => void;
	emit(channel: string, data?: unknown): void;
	clear(): void;
} {
	const channels = new Map<string, Set<EventBusHandler>>();
	return {
		on(channel, handler) {
			const set = channels.get(channel) ?? new Set();
			set.add(handler);
			channels.set(channel, set);
			return () => {
				set.delete(handler);
			};
		},
		emit(channel, data) {
			for (const fn of [...(channels.get(channel) ?? [])]) {
				try {
					const out = fn(data);
					if (out instanceof Promise) out.catch((err: unknown) => onError?.(channel, err));
				} catch (err) {
					onError?.(channel, err);
				}
			}
		},
		clear() {
			channels.clear();
		},
	};
}

function buildShim(): Record<string, unknown> {
	const m: Record<string, unknown> = {
		CONFIG_DIR_NAME: ".pi",
		VERSION: HOSTED_PI_VERSION,
		getAgentDir: () => currentAgentDir(),
		DEFAULT_COMPACTION_SETTINGS: { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 },
		CURRENT_SESSION_VERSION: 3,
		DEFAULT_MAX_LINES: 2000,
		DEFAULT_MAX_BYTES: 50 * 1024,
		VIRTUAL_MODEL_STATE_ENTRY: "pi.virtual-model-state",
		defineTool: <T>(tool: T): T => tool,
		// Extensions put it in tool descriptions while they load: B, then KB / MB with one decimal.
		formatSize: (bytes: number): string =>
			bytes < 1024 ? `${bytes}B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)}KB` : `${(bytes / (1024 * 1024)).toFixed(1)}MB`,
		isToolCallEventType: (toolName: string, event: { toolName?: unknown }) => event?.toolName === toolName,
		createEventBus: () => createEventBus(),
		CredentialSynchronizationError,
		createCodingTools: () => ["read", "bash", "edit", "write"].map(toolDefinition),
		createReadOnlyTools: () => ["read", "grep", "find", "ls"].map(toolDefinition),
	};
	for (const t of ["Bash", "Edit", "Find", "Grep", "Ls", "PowerShell", "Read", "Write"]) {
		const name = t.toLowerCase();
		m[`is${t}ToolResult`] = (e: { toolName?: unknown }) => e?.toolName === name;
		m[`create${t}Tool`] = () => toolDefinition(name);
		m[`create${t}ToolDefinition`] = () => toolDefinition(name);
	}
	for (const c of CLASSES) m[c] = unavailableClass(c);
	for (const f of UNAVAILABLE_FUNCTIONS) m[f] = notAvailable(`${f}() from @earendil-works/pi-coding-agent`);
	return m;
}

let shim: Record<string, unknown> | undefined;

/** The module object (one per process: classes keep their identity across extensions). */
export function piCodingAgentShim(): Record<string, unknown> {
	shim ??= buildShim();
	return shim;
}
