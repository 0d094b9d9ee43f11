// The Arbor API: every request the renderer (or any client) can make, and every event the main process
// emits. One typed contract for both transports (Electron IPC, browser host WebSocket). The router in
// electron/api validates each request's params at runtime; these types are the compile-time side.

import type { SessionContext, SessionEntry, SessionHeader } from "./entries";
import type { CompareView, SideFiles } from "./compare";
import type { SubtreeRollup } from "./rollup";
import type { Skeleton, SkeletonDelta } from "./skeleton";

export type ExportFormat = "md" | "html" | "jsonl";
export const EXPORT_FORMATS: readonly ExportFormat[] = ["md", "html", "jsonl"];

export type FilterMode = "default" | "no-tools" | "user-only" | "labeled-only" | "all";
export const FILTER_MODES: readonly FilterMode[] = ["default", "no-tools", "user-only", "labeled-only", "all"];

/** "pi": pi's tree-selector rules (label + role + first 200 chars...). "full": whole contents, tool args, paths. */
export type SearchScope = "pi" | "full";

export interface LoadWarning {
	/** 1-based physical line number in the file (0 = whole file). */
	line: number;
	kind:
		| "malformed_line" | "truncated_last_line" | "glued_objects" | "duplicate_id" | "orphan" | "cycle"
		| "missing_id" | "invalid_utf8" | "bad_header" | "legacy_version" | "title_slot" | "other";
	message: string;
}

export interface SessionSummary {
	/** Opaque id of this open session in this process. */
	sessionId: string;
	/** Absolute path, or null for an in-memory session. */
	path: string | null;
	header: SessionHeader;
	/** Version as read from the file (1, 2, 3, 4...), before in-memory migration. */
	fileVersion: number;
	/** True when the file is v1/v2: writes need `upgradeLegacy` first. */
	needsUpgrade: boolean;
	title: string | null;
	warnings: LoadWarning[];
	/** Number of warnings, possibly more than `warnings` holds (which is capped). */
	warningCount: number;
	fileSize: number;
}

export interface SessionListItem {
	path: string;
	/** Project directory the session belongs to (header cwd, else decoded from the folder name). */
	project: string;
	/** Which agent's directory it was found in. */
	source: "pi" | "omp" | "dir";
	sessionId: string | null;
	title: string | null;
	firstUserMessage: string | null;
	mtimeMs: number;
	size: number;
	/** Approximate (bytes-based) when the file was not fully read. */
	entryCount: number;
	entryCountExact: boolean;
	/** Set when the header could not be read (listed so the user sees it, but greyed out). */
	error?: string;
}

export interface NavigationPreview {
	targetId: string;
	oldLeafId: string | null;
	commonAncestorId: string | null;
	/** Entries that would be summarized (old leaf back to the common ancestor, cut at a compaction), oldest first. */
	entriesToSummarize: string[];
	/** Leaf after navigating: the target, or its parent when the target is a user message / custom_message. */
	newLeafId: string | null;
	/** Text that goes to the composer (user message / custom_message targets). */
	editorText?: string;
	isNoop: boolean;
	estimatedTokens: number;
}

export interface NavigateResult {
	cancelled: boolean;
	/** Why it was cancelled (aborted by user, cancelled by extension...). */
	reason?: string;
	newLeafId: string | null;
	oldLeafId: string | null;
	editorText?: string;
	summaryEntryId?: string;
	noop?: boolean;
}

export interface ContextMessageView {
	/** Entry that produced this message (null for synthesized ones). */
	entryId: string | null;
	message: SessionContext["messages"][number];
	estimatedTokens: number;
}

export interface ContextView {
	leafId: string | null;
	thinkingLevel: string;
	model: { provider: string; modelId: string } | null;
	messages: ContextMessageView[];
	totalEstimatedTokens: number;
	/** Id of the compaction whose summary starts the context, if any. */
	compactionId: string | null;
}

export interface ModelSettings {
	provider?: string;
	modelId?: string;
	/** Custom base URL (OpenAI-compatible local servers, proxies). */
	baseUrl?: string;
	/** "openai-completions" | "anthropic-messages" | ... (pi-ai api name); defaults from provider. */
	api?: string;
	/** Write-only: clients send a key to store it ("" clears it); the main process never returns it. */
	apiKey?: string;
	/** Set in answers instead of the key itself: a stored key exists. */
	apiKeySet?: boolean;
}

export interface ArborSettings {
	model: ModelSettings;
	/** pi's `doubleEscapeAction`: which selector double-Escape and /branch open. */
	doubleEscapeAction: "tree" | "branch";
	/** pi's `treeFilterMode`: initial filter. */
	treeFilterMode: FilterMode;
	/** pi's `branchSummary.skipPrompt`. */
	skipSummaryPrompt: boolean;
	layoutDirection: "TB" | "LR";
	recentFiles: string[];
	/** "Hide branch": per session file, the entry ids whose subtrees the graph hides (view state, never in the file). */
	hiddenBranches: Record<string, string[]>;
}

export interface ActiveModelInfo {
	provider: string;
	modelId: string;
	/** Where it came from: Arbor settings, pi settings, environment. */
	source: "arbor" | "pi" | "env";
	baseUrl?: string;
}

export interface ExtensionCommandInfo {
	name: string;
	description: string;
	extension: string;
}

export interface ArborRequests {
	/** Open a file the user chose (dialog, CLI argument, library, drop, a file Arbor created). */
	openSession: { params: { path: string }; result: SessionSummary };
	closeSession: { params: { sessionId: string }; result: void };
	/** Sessions opened by the host at launch (CLI argument / sample). */
	getInitialSessions: { params: Record<string, never>; result: SessionSummary[] };
	listSessions: { params: { dirs?: string[] }; result: SessionListItem[] };
	getSkeleton: { params: { sessionId: string }; result: Skeleton };
	/** One-line previews (pi tree-selector row text) for entry indices; pages of <= 2000. */
	getPreviews: { params: { sessionId: string; indices: number[] }; result: string[] };
	getEntry: { params: { sessionId: string; id: string }; result: SessionEntry };
	getContext: { params: { sessionId: string; leafId: string | null }; result: ContextView };
	/** Indices of matching entries, ascending. */
	search: { params: { sessionId: string; query: string; scope: SearchScope }; result: number[] };
	previewNavigation: { params: { sessionId: string; targetId: string }; result: NavigationPreview };
	navigate: {
		params: {
			sessionId: string; targetId: string; summarize?: boolean; customInstructions?: string;
			replaceInstructions?: boolean; label?: string;
		};
		result: NavigateResult;
	};
	/** /branch: right-click a user message -> new session file (which is opened). */
	branchToFile: {
		params: { sessionId: string; entryId: string };
		result: { cancelled: boolean; path: string | null; editorText: string; session: SessionSummary | null };
	};
	setLabel: { params: { sessionId: string; entryId: string; label: string | null }; result: void };
	/** Append an `arbor.position` custom entry under the leaf so pi/omp resume there. */
	savePosition: { params: { sessionId: string }; result: { entryId: string } };
	appendUserMessage: { params: { sessionId: string; text: string }; result: { entryId: string } };
	leafHistory: {
		params: { sessionId: string; direction: "back" | "forward" };
		result: { leafId: string | null; canBack: boolean; canForward: boolean };
	};
	/** Opt in to rewriting a v1/v2 file as v3 (keeps FILE.bak, atomic rename). */
	upgradeLegacy: { params: { sessionId: string }; result: { backupPath: string } };
	getSettings: { params: Record<string, never>; result: ArborSettings };
	setSettings: { params: { settings: Partial<ArborSettings> }; result: ArborSettings };
	getActiveModel: { params: Record<string, never>; result: ActiveModelInfo | null };
	listCommands: { params: Record<string, never>; result: ExtensionCommandInfo[] };
	runExtensionCommand: { params: { sessionId: string; name: string; entryId?: string; args?: string }; result: void };
	/** Abort the running summary / extension call of a session. */
	cancel: { params: { sessionId: string }; result: void };
	/** Compare the branches ending at `a` and `b` (common ancestor, each side's facts, aligned prompts, answer diff). */
	compareBranches: { params: { sessionId: string; a: string; b: string }; result: CompareView };
	/** Per-entry cost column and pi 1.x usage records for shared/rollup computeRollups. */
	getRollupCosts: { params: { sessionId: string }; result: { costs: number[]; usage: number[] } };
	/** The inspector's roll-up of the subtree under an entry, with the files its tool calls touched. */
	getSubtreeStats: { params: { sessionId: string; entryId: string }; result: SubtreeRollup & { files: SideFiles } };
	/** One branch (root -> leafId, default the leaf) as Markdown, self-contained HTML, or JSONL of just that path. */
	exportBranch: { params: { sessionId: string; leafId?: string; format: ExportFormat }; result: { text: string; fileName: string; mimeType: string } };
	/** A new session file without the subtrees under `dropIds`, next to the original (which is untouched). */
	savePrunedCopy: { params: { sessionId: string; dropIds: string[] }; result: { path: string; kept: number; dropped: number } };
	/** Electron only (browser host answers `unsupported`): native open dialog. */
	showOpenDialog: { params: Record<string, never>; result: SessionSummary | null };
	/** Electron only: reveal the file in the OS file manager. */
	revealInFolder: { params: { sessionId: string }; result: void };
}

export type RequestName = keyof ArborRequests;
export type RequestParams<K extends RequestName> = ArborRequests[K]["params"];
export type RequestResult<K extends RequestName> = ArborRequests[K]["result"];
export const REQUEST_NAMES: readonly RequestName[] = [
	"openSession", "closeSession", "getInitialSessions", "listSessions", "getSkeleton", "getPreviews", "getEntry",
	"getContext", "search", "previewNavigation", "navigate", "branchToFile", "setLabel", "savePosition",
	"appendUserMessage", "leafHistory", "upgradeLegacy", "getSettings", "setSettings", "getActiveModel",
	"listCommands", "runExtensionCommand", "cancel", "showOpenDialog", "revealInFolder",
	"compareBranches", "getRollupCosts", "getSubtreeStats", "exportBranch", "savePrunedCopy",
];

export type ArborEvent =
	| { type: "session_loaded"; session: SessionSummary }
	/** Entries appended (by Arbor or another process, e.g. pi in a terminal). */
	| { type: "session_appended"; sessionId: string; delta: SkeletonDelta }
	/** File shrank, was replaced, or was rewritten: fetch the skeleton again. */
	| { type: "session_reloaded"; sessionId: string; session: SessionSummary; reason: string }
	| { type: "session_closed"; sessionId: string }
	| { type: "leaf_changed"; sessionId: string; leafId: string | null; resumeLeafId: string | null }
	| { type: "labels_changed"; sessionId: string }
	| { type: "summary_progress"; sessionId: string; phase: "start" | "delta" | "done" | "error" | "aborted"; text: string }
	| { type: "session_tree"; sessionId: string; newLeafId: string | null; oldLeafId: string | null; summaryEntryId?: string; fromExtension?: boolean }
	| { type: "session_branch"; sessionId: string; newPath: string | null; newSessionId: string | null }
	| { type: "progress"; sessionId: string | null; task: string; done: number; total: number }
	| { type: "commands_changed" }
	| { type: "menu_command"; command: string; args?: unknown }
	/** A message for the user from an extension (pi's ctx.ui.notify) or a flow; not an error of a request. */
	| { type: "notice"; sessionId: string | null; level: "info" | "warning" | "error"; message: string; source?: string }
	| { type: "error"; sessionId: string | null; error: ArborErrorData };

export type ArborErrorCode =
	| "bad_request" | "forbidden" | "not_found" | "bad_file" | "conflict" | "legacy_needs_upgrade" | "io"
	| "no_model" | "llm_error" | "cancelled" | "extension_error" | "unsupported" | "internal";

export interface ArborErrorData {
	code: ArborErrorCode;
	message: string;
	file?: string;
	line?: number;
}

/** The one interface the renderer uses (exposed as `window.arbor` by both hosts). */
export interface ArborClient {
	request<K extends RequestName>(name: K, params: RequestParams<K>): Promise<RequestResult<K>>;
	/** Subscribe to events; returns an unsubscribe function. */
	onEvent(listener: (event: ArborEvent) => void): () => void;
	/** "electron" or "browser". */
	readonly host: "electron" | "browser";
}

/** Error thrown by `ArborClient.request` when the main process answers with an error. */
export class ArborRequestError extends Error {
	readonly code: ArborErrorCode;
	readonly file?: string;
	readonly line?: number;
	constructor(data: ArborErrorData) {
		super(data.message);
		this.name = "ArborRequestError";
		this.code = data.code;
		this.file = data.file;
		this.line = data.line;
	}
}
