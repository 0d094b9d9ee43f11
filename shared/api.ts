// The Arbor API: every request the renderer (or any client) can make, and every event the main process
// emits. One typed contract for both transports (Electron IPC, browser host WebSocket). The router in
// electron/api validates each request's params at runtime; these types are the compile-time side.

import type { SessionContext, SessionEntry, SessionHeader } from "./entries";
import type { CompareSideRef, CompareView, SideFiles } from "./compare";
import type { SubtreeRollup } from "./rollup";
import type { Skeleton, SkeletonDelta } from "./skeleton";
import type { CardFacts, UsageRollup } from "./card-facts";
import type { FilterMode } from "./tree-view";
import type { AssistantMessage } from "./entries";
import type { LiveAgent, LiveCapability, NavigateOptions } from "./live";
import type { PiConnection, PiConnectResult } from "./pi-connection";
import type { TryEvent } from "./tries";
import type { ArborTriesRequests } from "./api-tries";

export type ExportFormat = "md" | "html" | "jsonl";
export const EXPORT_FORMATS: readonly ExportFormat[] = ["md", "html", "jsonl"];

// pi's tree filter modes are the tree view's own rule (shared/tree-view.ts); the API speaks them.
export { FILTER_MODES, type FilterMode } from "./tree-view";

/** "pi": pi's tree-selector rules (label + role + first 200 chars...). "full": whole contents, tool args, paths. */
export type SearchScope = "pi" | "full";
/** Who asks a session's search: a newer query supersedes only the same asker's older one. */
export type SearchAsker = "toolbar" | "branches";

export interface LoadWarning {
	/** 1-based physical line number in the file (0 = whole file). */
	line: number;
	kind:
		| "malformed_line"
		| "truncated_last_line"
		| "glued_objects"
		| "duplicate_id"
		| "orphan"
		| "cycle"
		| "missing_id"
		| "invalid_utf8"
		| "bad_header"
		| "legacy_version"
		| "title_slot"
		| "other";
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
	/** The file this session was branched or forked from, as its format's lineage rule reads it (docs/formats.md), or null. */
	parentFile?: string | null;
	warnings: LoadWarning[];
	/** Number of warnings, possibly more than `warnings` holds (which is capped). */
	warningCount: number;
	fileSize: number;
	/** The running pi that holds this file, when one with Arbor's extension is live (docs/live.md); null: file mode. */
	live?: LiveSessionInfo | null;
}

/**
 * A running pi / omp with Arbor's extension that holds a session's file (docs/live.md). While it is set,
 * navigate / branchToFile / setLabel / send / abort are carried out by that pi (`via: "pi"`).
 */
/** "Connect pi" (Settings): the pi extension this copy of Arbor ships, and the command that loads it into pi. */
export type { PiConnection, PiConnectResult };

export interface LiveSessionInfo {
	pid: number;
	agent: LiveAgent;
	agentVersion: string;
	extensionVersion: string;
	model: { provider: string; modelId: string } | null;
	thinkingLevel: string | null;
	/** streaming: a turn, tree summary or compaction runs (navigate / branch then fail with `busy`). */
	status: "idle" | "streaming";
	/** pi's in-memory leaf (also after a /tree move that wrote nothing). */
	leafId: string | null;
	sessionFile: string | null;
	capabilities: LiveCapability[];
	/** Other live pis on the same file (not steered: the newest one is; docs/live.md "Two pis on one file"). */
	otherPids: number[];
}

/** Who carried out a steering request: the running pi (with its pid) or Arbor on the file. */
export interface SteeredVia {
	via: "pi" | "file";
	pid?: number;
}

/**
 * Resume point safety (pi #9930, omp #12242): pi resumes at the file's last line. `stale` = that line sits on
 * another branch than the newest conversation (e.g. a label or a cache-warmer usage line appended from an old
 * leaf); `suggestedId` is the entry the user likely means, where "Save position for pi" would put it back.
 */
export interface ResumePointInfo {
	resumeLeafId: string | null;
	/** The resume leaf, or its nearest ancestor when the last line is one no tree shows (usage): where to draw it. */
	anchorId: string | null;
	newestConversationId: string | null;
	stale: boolean;
	suggestedId: string | null;
}

export interface SessionListItem {
	path: string;
	/** Project directory the session belongs to (header cwd, else decoded from the folder name). */
	project: string;
	/** Which agent's directory it was found in. */
	/** The format whose folders listed it ("pi", "omp", …: electron/session/formats) or "dir" (a folder given by the user). */
	source: string;
	sessionId: string | null;
	title: string | null;
	firstUserMessage: string | null;
	/** The file's modification time (what cached counts are keyed on). */
	mtimeMs: number;
	/**
	 * When the session was last active, by pi's session-list rule (its `modified`): the latest user or assistant
	 * message, else the header's timestamp, else `mtimeMs`. The library sorts and dates sessions by it.
	 */
	modifiedMs: number;
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
	/** Set by the live-aware service: "pi" when the running pi navigated (then `pid`). */
	via?: "pi" | "file";
	pid?: number;
}

export interface ContextMessageView {
	/** Entry that produced this message (null for synthesized ones). */
	entryId: string | null;
	message: SessionContext["messages"][number];
	estimatedTokens: number;
	/** pi 1.6: the context_edit entry that replaced this message's content (omitted messages are not listed). */
	contextEditId?: string;
}

export interface ContextView {
	leafId: string | null;
	thinkingLevel: string;
	model: { provider: string; modelId: string } | null;
	messages: ContextMessageView[];
	totalEstimatedTokens: number;
	/** Id of the compaction whose summary starts the context, if any. */
	compactionId: string | null;
	/** Whose context rules built this view: pi 1.6's buildSessionContext or omp 18.3's (docs/app.md "Context"). */
	rules?: ContextRules;
	/** Who wrote the file (the session core's sessionWriter rule): the rules used when none are asked for. */
	writer?: ContextRules;
	/** omp's context facts, when `rules` is "omp". */
	omp?: OmpContextFacts;
}

export type ContextRules = "pi" | "omp";

export interface OmpContextFacts {
	/** Model per role ("default", "smol", ...): "provider/modelId". */
	models: Record<string, string>;
	serviceTier?: string;
	thinkingLevel?: string;
	configuredThinkingLevel?: string;
	injectedTtsrRules: string[];
	mode: string;
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
	/** The graph's layout: "rows" (one line per entry, branches as lanes; the default) or a tidy tree. */
	layoutDirection: "rows" | "TB" | "LR";
	recentFiles: string[];
	/**
	 * pi extensions (module paths) the user chose to run in Arbor. Changed only through
	 * setExtensionEnabled, which accepts only what discovery found (docs/extensions.md).
	 */
	enabledExtensions?: string[];
	/** "Hide branch": per session file, the entry ids whose subtrees the graph hides (view state, never in the file). */
	hiddenBranches: Record<string, string[]>;
}

export interface ActiveModelInfo {
	provider: string;
	modelId: string;
	/**
	 * Where the choice came from: Arbor's settings, pi's saved default (settings.json), pi's automatic
	 * choice (first provider with credentials), or that automatic choice made on an environment key;
	 * pi-session: the model the session's own branch chose (pi restores it when the session is resumed).
	 */
	source: "arbor-settings" | "pi-settings" | "pi-automatic" | "env" | "pi-session";
	/** Kind of credential: stored key, OAuth login, environment variable, or none (custom endpoint). */
	auth: "api_key" | "oauth" | "env" | null;
	/** Set when Arbor's settings point at a custom endpoint. */
	baseUrl?: string;
	/** Why pi's saved default was passed over (e.g. a provider pi renamed). */
	note?: string;
}

/** One extension module Arbor found (docs/extensions.md "Where they are loaded from"). */
export interface ExtensionInfo {
	path: string;
	name: string;
	/**
	 * arbor: ~/.arbor/extensions; cli: --extension; pi: <agentDir>/extensions; pi-settings: pi's `extensions` list;
	 * pi-package: pi's `packages`; pi-project: a trusted project's `.pi` (its extensions folder, lists or packages).
	 */
	origin: "arbor" | "cli" | "pi" | "pi-settings" | "pi-package" | "pi-project";
	/** The `packages` entry it came from. */
	package?: string;
	/** false when pi's own settings turn it off (an `!pattern` / `-path` entry of its `extensions` list). */
	piEnabled?: false;
	/** Arbor's own and --extension modules always run; pi's only when the user enabled them. */
	enabled: boolean;
	loaded: boolean;
	/** Why it did not load. */
	error?: string;
	commands: string[];
}

export interface ExtensionListing {
	extensions: ExtensionInfo[];
	/** Listed in pi's settings but not found (a package not installed, a missing path). */
	missing: { source: string; reason: string }[];
	/** A project folder with a `.pi` that pi does not trust (trust.json / defaultProjectTrust): its extensions are not listed. */
	untrustedProject?: string;
}

export interface ExtensionCommandInfo {
	name: string;
	description: string;
	extension: string;
}

/** One file of a session family (`arbor family --json` member; docs/cli.md). */
export interface FamilyMember {
	path: string;
	parentPath: string | null;
	/** The parent's entry this file branched at (last shared entry id), null when nothing was copied. */
	branchedAtEntryId: string | null;
	sessionId: string | null;
	/** The file's own name (session_info / omp title), null when it has none. */
	title: string | null;
	/**
	 * Its first user message; for a branched or forked file, the first one after the fork (the messages it
	 * shares with its parent do not tell forks apart). Null when there is none.
	 */
	firstPrompt: string | null;
	/** "role: first words" of the parent's entry it branched at (`branchedAtEntryId`), null when unknown. */
	branchedAtText: string | null;
	/** Null for an `outside` member (not read). */
	entries: number | null;
	/** The header's timestamp: when the file was created / branched. */
	createdAt: string | null;
	/**
	 * A parent an allowed file's header names, outside what the user opened or served: only its path is
	 * known (it exists); it was not read and cannot be opened through this family (docs/security.md).
	 */
	outside?: true;
}

export interface SessionFamily {
	members: FamilyMember[];
}

/** One session found by the search across all sessions (`arbor search --json`; docs/cli.md). */
export interface CrossSearchSession {
	path: string;
	sessionId: string | null;
	title: string | null;
	score: number;
	/**
	 * `line`, for a hit without an id only (an id-less or v1 file, whose ids Arbor makes up when it opens it):
	 * the entry's 1-based line in the file, by which it is found once the session is open (`entryAtLine`).
	 */
	matches: { entryId: string | null; line?: number; kind: string; snippet: string; score: number }[];
	matchCount: number;
	matchingBlocks: number;
}

export interface CrossSearchResult {
	query: string;
	sessions: CrossSearchSession[];
	indexedFiles: number;
	/** Files were still waiting to be indexed: results may grow (a `search_index` event follows). */
	partial: boolean;
}

/** Every request: the ones below plus the tries requests (shared/api-tries.ts). */
export interface ArborRequests extends ArborTriesRequests {
	/** Open a file the user chose (dialog, CLI argument, library, drop, a file Arbor created). */
	openSession: { params: { path: string }; result: SessionSummary };
	closeSession: { params: { sessionId: string }; result: void };
	/** Sessions opened by the host at launch (CLI argument / sample). */
	getInitialSessions: { params: Record<string, never>; result: SessionSummary[] };
	listSessions: { params: { dirs?: string[] }; result: SessionListItem[] };
	/** The files linked to this one by parentSession (pi /fork, omp /fork /branch, Arbor), root first. */
	getFamily: { params: { path: string }; result: SessionFamily };
	/**
	 * Full-text search over every session of the library through Arbor's index. Starts (or continues) the
	 * background index build and answers from what is indexed so far (`partial`).
	 */
	searchAllSessions: { params: { query: string; limit?: number; dirs?: string[] }; result: CrossSearchResult };
	getSkeleton: { params: { sessionId: string }; result: Skeleton };
	/** A big session's first skeleton (shared/first-skeleton.ts), drawn before the whole one; null when small. */
	getFirstSkeleton: { params: { sessionId: string }; result: Skeleton | null };
	/** One-line previews (pi tree-selector row text) for entry indices; pages of <= 2000. */
	getPreviews: { params: { sessionId: string; indices: number[] }; result: string[] };
	/** Card facts per index (null outside the file): system changes, context edit targets, usage, omp records. */
	getCardFacts: { params: { sessionId: string; indices: number[] }; result: (CardFacts | null)[] };
	/** Usage lines (hidden in every tree mode) summed into the entry each hangs under. */
	getUsageRollup: { params: { sessionId: string }; result: UsageRollup[] };
	getEntry: { params: { sessionId: string; id: string }; result: SessionEntry };
	/** The id of the entry read from this 1-based line of the file (as Arbor gave it, for a line without one), or null. */
	entryAtLine: { params: { sessionId: string; line: number }; result: string | null };
	getContext: { params: { sessionId: string; leafId: string | null; as?: ContextRules }; result: ContextView };
	/** Indices of matching entries, ascending. */
	/** `by` (default "toolbar"): the toolbar's search box or the Branches panel's filter, which run side by side. */
	search: { params: { sessionId: string; query: string; scope: SearchScope; by?: SearchAsker }; result: number[] };
	previewNavigation: { params: { sessionId: string; targetId: string }; result: NavigationPreview };
	navigate: {
		params: { sessionId: string; targetId: string } & NavigateOptions;
		result: NavigateResult;
	};
	/** /branch: right-click a user message -> new session file (which is opened). */
	branchToFile: {
		params: { sessionId: string; entryId: string; waitForIdle?: boolean };
		result: { cancelled: boolean; path: string | null; editorText: string; session: SessionSummary | null } & Partial<SteeredVia>;
	};
	setLabel: { params: { sessionId: string; entryId: string; label: string | null }; result: SteeredVia | void };
	/** The live pi holding this session's file, or null (file mode). */
	getLiveState: { params: { sessionId: string }; result: LiveSessionInfo | null };
	/**
	 * Composer text -> a real turn in the live pi (pi.sendUserMessage). Fails with `no_live_agent` in file mode
	 * (use appendUserMessage there) and `busy` while pi streams unless `deliverAs` queues it. Answers when the
	 * turn started (`wait: "start"`, default) or ended (`"end"`); streamed text arrives as `live_stream` events.
	 */
	send: {
		params: { sessionId: string; text: string; deliverAs?: "steer" | "followUp"; wait?: "start" | "end" };
		result: { via: "pi"; pid: number; outcome: "started" | "ended" | "queued"; leafId: string | null; stopReason?: string; errorMessage?: string };
	};
	/** Stop the live pi's running turn / summary (Escape); `no_live_agent` in file mode. */
	abort: { params: { sessionId: string }; result: { via: "pi"; pid: number; wasStreaming: boolean } };
	/** Append an `arbor.position` custom entry under the leaf so pi/omp resume there. */
	savePosition: { params: { sessionId: string }; result: { entryId: string } };
	/** Where pi will resume (the last line) and whether that is on another branch than the newest conversation. */
	getResumePoint: { params: { sessionId: string }; result: ResumePointInfo };
	appendUserMessage: { params: { sessionId: string; text: string }; result: { entryId: string } };
	leafHistory: {
		params: { sessionId: string; direction: "back" | "forward" };
		result: { leafId: string | null; canBack: boolean; canForward: boolean };
	};
	/** Opt in to rewriting a v1/v2 file as v3 (keeps FILE.bak, atomic rename). */
	upgradeLegacy: { params: { sessionId: string }; result: { backupPath: string } };
	getSettings: { params: Record<string, never>; result: ArborSettings };
	/** This copy's pi extension and the `pi install` command for it (Settings, "Connect pi"). */
	getPiConnection: { params: Record<string, never>; result: PiConnection };
	/** Run that `pi install` command (needs pi on PATH; a failure is an answer with ok: false). */
	connectPi: { params: Record<string, never>; result: PiConnectResult };
	setSettings: { params: { settings: Partial<ArborSettings> }; result: ArborSettings };
	/**
	 * The model a summary would use: with a session, the one a summary in that session uses (pi restores the
	 * branch's own model, project settings of its cwd); without, pi's choice for a session of its own.
	 */
	getActiveModel: { params: { sessionId?: string }; result: ActiveModelInfo | null };
	listCommands: { params: Record<string, never>; result: ExtensionCommandInfo[] };
	runExtensionCommand: { params: { sessionId: string; name: string; entryId?: string; args?: string }; result: void };
	/** What extensions were found, which run, and each load error. */
	listExtensions: { params: Record<string, never>; result: ExtensionListing };
	/** Run (or stop running) a pi extension Arbor found; extensions reload. */
	setExtensionEnabled: { params: { path: string; enabled: boolean }; result: ExtensionListing };
	/** Abort the running summary / extension call of a session. */
	cancel: { params: { sessionId: string }; result: void };
	/**
	 * Compare the branches ending at `a` and `b` (common ancestor, each side's facts, aligned prompts, answer diff):
	 * two entries of one open session, or one side per session file (forks such as tries; the paths pass the path policy).
	 */
	compareBranches: { params: { sessionId: string; a: string; b: string } | { a: CompareSideRef; b: CompareSideRef }; result: CompareView };
	/** Per-entry cost column and pi 1.x usage records for shared/rollup computeRollups. */
	getRollupCosts: { params: { sessionId: string }; result: { costs: number[]; usage: number[] } };
	/** The inspector's roll-up of the subtree under an entry, with the files its tool calls touched. */
	getSubtreeStats: { params: { sessionId: string; entryId: string }; result: SubtreeRollup & { files: SideFiles } };
	/** One branch (root -> leafId, default the leaf) as Markdown, self-contained HTML, or JSONL of just that path. */
	exportBranch: { params: { sessionId: string; leafId?: string; format: ExportFormat }; result: { text: string; fileName: string; mimeType: string } };
	/** A new session file without the subtrees under `dropIds`, next to the original (which is untouched). */
	/** `tornTailBytes`: an unterminated last line of that many bytes was left out of the copy (0: none). */
	savePrunedCopy: { params: { sessionId: string; dropIds: string[] }; result: { path: string; kept: number; dropped: number; tornTailBytes: number } };
	/** Electron only (browser host answers `unsupported`): native open dialog. */
	showOpenDialog: { params: Record<string, never>; result: SessionSummary | null };
	/** Electron only: reveal the file in the OS file manager. */
	revealInFolder: { params: { sessionId: string }; result: void };
}

export type RequestName = keyof ArborRequests;
export type RequestParams<K extends RequestName> = ArborRequests[K]["params"];
export type RequestResult<K extends RequestName> = ArborRequests[K]["result"];
export const REQUEST_NAMES: readonly RequestName[] = [
	"openSession",
	"closeSession",
	"getInitialSessions",
	"listSessions",
	"getFamily",
	"searchAllSessions",
	"getSkeleton",
	"getFirstSkeleton",
	"getPreviews",
	"getCardFacts",
	"getUsageRollup",
	"getEntry",
	"entryAtLine",
	"getContext",
	"search",
	"previewNavigation",
	"navigate",
	"branchToFile",
	"setLabel",
	"savePosition",
	"getResumePoint",
	"appendUserMessage",
	"leafHistory",
	"upgradeLegacy",
	"getSettings",
	"setSettings",
	"getPiConnection",
	"connectPi",
	"getActiveModel",
	"listCommands",
	"runExtensionCommand",
	"listExtensions",
	"setExtensionEnabled",
	"cancel",
	"showOpenDialog",
	"revealInFolder",
	"compareBranches",
	"getRollupCosts",
	"getSubtreeStats",
	"exportBranch",
	"savePrunedCopy",
	"getLiveState",
	"send",
	"abort",
	"startTries",
	"stopTries",
	"keepTry",
	"discardTries",
	"getTryDiff",
	"listTries",
	"prepareTries",
];

export type ArborEvent =
	| { type: "session_loaded"; session: SessionSummary }
	/** Entries appended (by Arbor or another process, e.g. pi in a terminal). */
	| { type: "session_appended"; sessionId: string; delta: SkeletonDelta }
	/** File shrank, was replaced or rewritten, or entries already sent changed (a late parent, a re-used id): fetch the skeleton again. */
	| { type: "session_reloaded"; sessionId: string; session: SessionSummary; reason: string }
	| { type: "session_closed"; sessionId: string }
	| { type: "leaf_changed"; sessionId: string; leafId: string | null; resumeLeafId: string | null }
	| { type: "labels_changed"; sessionId: string }
	| { type: "summary_progress"; sessionId: string; phase: "start" | "delta" | "done" | "error" | "aborted"; text: string }
	| { type: "session_tree"; sessionId: string; newLeafId: string | null; oldLeafId: string | null; summaryEntryId?: string; fromExtension?: boolean }
	| { type: "session_branch"; sessionId: string; newPath: string | null; newSessionId: string | null }
	| { type: "progress"; sessionId: string | null; task: string; done: number; total: number }
	/** The search index build across all sessions: started, advancing, done. */
	| { type: "search_index"; phase: "indexing" | "done"; filesDone: number; filesTotal: number; bytesDone: number; bytesTotal: number }
	/** Exact entry counts for library items listed with an estimate ("≈"), counted in the background after listSessions. */
	| { type: "library_counts"; counts: { path: string; entryCount: number; size: number; mtimeMs: number }[] }
	| { type: "commands_changed" }
	/** pi's models.json, settings.json or auth.json, or Arbor's settings, changed on disk: the model a summary uses may differ. */
	| { type: "model_config_changed" }
	| { type: "menu_command"; command: string; args?: unknown }
	/** A message for the user from an extension (pi's ctx.ui.notify) or a flow; not an error of a request. */
	| { type: "notice"; sessionId: string | null; level: "info" | "warning" | "error"; message: string; source?: string }
	| { type: "error"; sessionId: string | null; error: ArborErrorData }
	/** A live pi took or released this session's file; null = file mode again, `reason` says why (pi exited...). */
	| { type: "live_state"; sessionId: string; live: LiveSessionInfo | null; reason?: string }
	/**
	 * The live pi's assistant message as it streams (text, thinking, tool calls so far); `key` is stable per
	 * message; "end" is the complete message, which the file then brings as an entry (session_appended).
	 */
	| { type: "live_stream"; sessionId: string; phase: "start" | "update" | "end"; key: string; parentId: string | null; message: AssistantMessage }
	/** A try changed state, streamed a piece of its answer, or its run ended (docs/tries.md). */
	| { type: "tries"; event: TryEvent };

/** Every error code a request can fail with (the router passes on only these). */
export const ARBOR_ERROR_CODES = [
	"bad_request",
	"forbidden",
	"not_found",
	"bad_file",
	"conflict",
	"legacy_needs_upgrade",
	/** The file is another agent's read-only format (Claude Code, Codex): Arbor shows it, never writes to it. */
	"read_only_format",
	"io",
	"no_model",
	"llm_error",
	"cancelled",
	"extension_error",
	"unsupported",
	"internal",
	/** The live pi runs a turn / summary: navigateTree and fork refuse (retry with waitForIdle, or abort). */
	"busy",
	/** send / abort on a file no live pi holds. */
	"no_live_agent",
] as const;
export type ArborErrorCode = (typeof ARBOR_ERROR_CODES)[number];

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
