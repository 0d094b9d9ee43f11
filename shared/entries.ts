// The pi / oh-my-pi session file format as types (../shared/format/SESSION-FORMAT.md).
// Discriminated by `type` (entries) and `role` (messages), each with a tolerant fallback: session files
// are untrusted input written by many tool versions, so every field may be missing or of the wrong type.

export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh" | (string & {});

export interface TextBlock {
	type: "text";
	text: string;
	textSignature?: string;
}
export interface ThinkingBlock {
	type: "thinking";
	thinking: string;
	thinkingSignature?: string;
	redacted?: boolean;
}
export interface ImageBlock {
	type: "image";
	data: string;
	mimeType: string;
}
export interface ToolCallBlock {
	type: "toolCall";
	id: string;
	name: string;
	arguments: Record<string, unknown>;
	thoughtSignature?: string;
}
export interface UnknownBlock {
	type: string;
	[key: string]: unknown;
}
export type ContentBlock = TextBlock | ThinkingBlock | ImageBlock | ToolCallBlock | UnknownBlock;

export interface Usage {
	input?: number;
	output?: number;
	cacheRead?: number;
	cacheWrite?: number;
	totalTokens?: number;
	cost?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; total?: number };
	[key: string]: unknown;
}

/** "deferred" (pi 1.x): the provider answers later; pi's tree keeps such text-less rows visible. */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted" | "deferred" | (string & {});

export interface UserMessage {
	role: "user";
	content: string | ContentBlock[];
	timestamp?: number;
	[k: string]: unknown;
}
export interface AssistantMessage {
	role: "assistant";
	content: ContentBlock[];
	api?: string;
	provider?: string;
	model?: string;
	usage?: Usage;
	stopReason?: StopReason;
	errorMessage?: string;
	timestamp?: number;
	/** pi 1.x: the concrete model that answered (e.g. behind a virtual model); the context model stays `model`. */
	responseModel?: string;
	[k: string]: unknown;
}
/**
 * pi 1.6 role "system": the prompt and tool state. The first one on a path is complete; later ones patch it
 * (`content` appended, `sections` replaced by name, `null` removes one, tools added / removed by name).
 */
export interface SystemMessage {
	role: "system";
	content: string | ContentBlock[];
	sections?: Record<string, string | null>;
	toolsAdded?: { name: string; description?: string; parameters?: unknown; [k: string]: unknown }[];
	toolsRemoved?: { name: string; [k: string]: unknown }[];
	timestamp?: number;
	[k: string]: unknown;
}
export interface ToolResultMessage {
	role: "toolResult";
	toolCallId: string;
	toolName: string;
	content: ContentBlock[];
	details?: unknown;
	isError?: boolean;
	timestamp?: number;
	[k: string]: unknown;
}
export interface BashExecutionMessage {
	role: "bashExecution";
	command: string;
	output: string;
	exitCode?: number;
	cancelled?: boolean;
	truncated?: boolean;
	fullOutputPath?: string;
	excludeFromContext?: boolean;
	timestamp?: number;
	[k: string]: unknown;
}
export interface CustomRoleMessage {
	role: "custom" | "hookMessage";
	customType: string;
	content: string | ContentBlock[];
	display?: boolean;
	details?: unknown;
	timestamp?: number;
	[k: string]: unknown;
}
export interface BranchSummaryMessage {
	role: "branchSummary";
	summary: string;
	fromId: string;
	timestamp: number;
}
export interface CompactionSummaryMessage {
	role: "compactionSummary";
	summary: string;
	tokensBefore: number;
	timestamp: number;
}
export interface UnknownRoleMessage {
	role: string;
	[k: string]: unknown;
}

export type AgentMessage =
	| UserMessage
	| SystemMessage
	| AssistantMessage
	| ToolResultMessage
	| BashExecutionMessage
	| CustomRoleMessage
	| BranchSummaryMessage
	| CompactionSummaryMessage
	| UnknownRoleMessage;

export interface SessionHeader {
	type: "session";
	version?: number | string;
	id: string;
	timestamp?: string;
	cwd?: string;
	parentSession?: string;
	branchedFrom?: string;
	title?: string;
	titleSource?: "auto" | "user";
	/** omp 18: extra workspace roots, and the file's earlier locations after moves. */
	additionalDirectories?: string[];
	previousSessionFiles?: string[];
	[k: string]: unknown;
}

/** omp's optional fixed-width (256 bytes incl. "\n") first line. */
export interface TitleSlot {
	type: "title";
	v: 1;
	title: string;
	source?: "auto" | "user";
	updatedAt: string;
	pad: string;
}

interface EntryBase {
	id: string;
	parentId: string | null;
	timestamp: string;
}

export interface MessageEntry extends EntryBase {
	type: "message";
	message: AgentMessage;
}
export interface ThinkingLevelChangeEntry extends EntryBase {
	type: "thinking_level_change";
	thinkingLevel: ThinkingLevel | null;
	configured?: string | null;
}
/** pi writes provider + modelId; omp writes model = "provider/modelId[:level]" (+ role). */
export interface ModelChangeEntry extends EntryBase {
	type: "model_change";
	provider?: string;
	modelId?: string;
	model?: string;
	role?: string;
}
export interface CompactionEntry extends EntryBase {
	/** May equal the compaction's own id (pi 1.6 "keep nothing"). */
	type: "compaction";
	summary: string;
	firstKeptEntryId?: string;
	tokensBefore: number;
	details?: unknown;
	/** pi 1.6: the summarizer's usage, and the replayed prompt/tool state at this point (leads the context). */
	usage?: Usage;
	systemMessage?: SystemMessage;
	fromHook?: boolean;
	fromExtension?: boolean;
	[k: string]: unknown;
}
export interface BranchSummaryEntry extends EntryBase {
	/** pi >= 0.84.3: the leaf navigated away from ("root" when none); older files hold the destination. */
	type: "branch_summary";
	fromId: string | null;
	summary: string;
	details?: unknown;
	usage?: Usage;
	fromHook?: boolean;
	fromExtension?: boolean;
}
/** pi 1.6: model usage outside the conversation (cache warming); never in the context. */
export interface UsageEntry extends EntryBase {
	type: "usage";
	kind: string;
	provider: string;
	model: string;
	usage: Usage;
	note?: string;
}
/** pi 1.6: `replacement: null` omits the target from the context, `{ content }` replaces its content. */
export interface ContextEditEntry extends EntryBase {
	type: "context_edit";
	targetId: string;
	replacement: { content: string | ContentBlock[] } | null;
}
export interface CustomEntry extends EntryBase {
	type: "custom";
	customType: string;
	data?: unknown;
}
export interface CustomMessageEntry extends EntryBase {
	type: "custom_message";
	customType: string;
	content: string | ContentBlock[];
	display: boolean;
	details?: unknown;
}
export interface LabelEntry extends EntryBase {
	type: "label";
	targetId: string;
	label?: string;
}
export interface SessionInfoEntry extends EntryBase {
	type: "session_info";
	name?: string;
}
/** Any other type (omp-only records, future types, third-party extensions): kept byte-for-byte. */
export interface UnknownEntry {
	type: string;
	id?: string;
	parentId?: string | null;
	timestamp?: string;
	[k: string]: unknown;
}

// oh-my-pi 18.3 records (its session-entries.ts); none of them is a message.
export interface ModelUsageEntry extends EntryBase {
	type: "model_usage";
	purpose: string;
	role?: string;
	api: string;
	provider: string;
	model: string;
	usage: Usage;
	stopReason: StopReason;
	errorMessage?: string;
}
export interface ServiceTierChangeEntry extends EntryBase {
	type: "service_tier_change";
	serviceTier: Record<string, unknown> | string | null;
}
/** omp `/clear`: the model context starts after the latest one (unless a later compaction supersedes it). */
export interface ResetBoundaryEntry extends EntryBase {
	type: "reset_boundary";
}
export interface TitleChangeEntry extends EntryBase {
	type: "title_change";
	title: string;
	previousTitle?: string;
	source: "auto" | "user";
	trigger?: string;
}
export interface TtsrInjectionEntry extends EntryBase {
	type: "ttsr_injection";
	injectedRules: string[];
}
export interface SessionInitEntry extends EntryBase {
	type: "session_init";
	systemPrompt: string;
	task: string;
	tools: string[];
	agent?: string;
	[k: string]: unknown;
}
export interface ModeChangeEntry extends EntryBase {
	type: "mode_change";
	mode: string;
	data?: Record<string, unknown>;
}
export interface CredentialPinEntry extends EntryBase {
	type: "credential_pin";
	provider: string;
	hash: string;
}

export type KnownEntry =
	| MessageEntry
	| ThinkingLevelChangeEntry
	| ModelChangeEntry
	| CompactionEntry
	| BranchSummaryEntry
	| CustomEntry
	| CustomMessageEntry
	| LabelEntry
	| SessionInfoEntry
	| UsageEntry
	| ContextEditEntry
	| ModelUsageEntry
	| ServiceTierChangeEntry
	| ResetBoundaryEntry
	| TitleChangeEntry
	| TtsrInjectionEntry
	| SessionInitEntry
	| ModeChangeEntry
	| CredentialPinEntry;
export type SessionEntry = KnownEntry | UnknownEntry;

/** What `buildSessionContext` returns: pi's shape exactly (compared byte for byte in conformance tests). */
export interface SessionContext {
	messages: AgentMessage[];
	thinkingLevel: string;
	model: { provider: string; modelId: string } | null;
}

export const CURRENT_SESSION_VERSION = 3;
