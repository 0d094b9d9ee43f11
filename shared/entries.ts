// The pi / oh-my-pi session file format as types (../shared/format/SESSION-FORMAT.md).
// Discriminated by `type` (entries) and `role` (messages), each with a tolerant fallback: session files
// are untrusted input written by many tool versions, so every field may be missing or of the wrong type.

export type ThinkingLevel = "off" | "minimal" | "low" | "medium" | "high" | "xhigh" | (string & {});

export interface TextBlock { type: "text"; text: string; textSignature?: string }
export interface ThinkingBlock { type: "thinking"; thinking: string; thinkingSignature?: string; redacted?: boolean }
export interface ImageBlock { type: "image"; data: string; mimeType: string }
export interface ToolCallBlock { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown>; thoughtSignature?: string }
export interface UnknownBlock { type: string; [key: string]: unknown }
export type ContentBlock = TextBlock | ThinkingBlock | ImageBlock | ToolCallBlock | UnknownBlock;

export interface Usage {
	input?: number; output?: number; cacheRead?: number; cacheWrite?: number; totalTokens?: number;
	cost?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; total?: number };
	[key: string]: unknown;
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted" | (string & {});

export interface UserMessage { role: "user"; content: string | ContentBlock[]; timestamp?: number; [k: string]: unknown }
export interface AssistantMessage {
	role: "assistant"; content: ContentBlock[]; api?: string; provider?: string; model?: string; usage?: Usage;
	stopReason?: StopReason; errorMessage?: string; timestamp?: number; [k: string]: unknown;
}
export interface ToolResultMessage {
	role: "toolResult"; toolCallId: string; toolName: string; content: ContentBlock[]; details?: unknown; isError?: boolean;
	timestamp?: number; [k: string]: unknown;
}
export interface BashExecutionMessage {
	role: "bashExecution"; command: string; output: string; exitCode?: number; cancelled?: boolean; truncated?: boolean;
	fullOutputPath?: string; excludeFromContext?: boolean; timestamp?: number; [k: string]: unknown;
}
export interface CustomRoleMessage {
	role: "custom" | "hookMessage"; customType: string; content: string | ContentBlock[]; display?: boolean; details?: unknown;
	timestamp?: number; [k: string]: unknown;
}
export interface BranchSummaryMessage { role: "branchSummary"; summary: string; fromId: string; timestamp: number }
export interface CompactionSummaryMessage { role: "compactionSummary"; summary: string; tokensBefore: number; timestamp: number }
export interface UnknownRoleMessage { role: string; [k: string]: unknown }

export type AgentMessage =
	| UserMessage | AssistantMessage | ToolResultMessage | BashExecutionMessage | CustomRoleMessage
	| BranchSummaryMessage | CompactionSummaryMessage | UnknownRoleMessage;

export interface SessionHeader {
	type: "session"; version?: number | string; id: string; timestamp?: string; cwd?: string;
	parentSession?: string; branchedFrom?: string; title?: string; titleSource?: "auto" | "user";
	[k: string]: unknown;
}

/** omp's optional fixed-width (256 bytes incl. "\n") first line. */
export interface TitleSlot { type: "title"; v: 1; title: string; source?: "auto" | "user"; updatedAt: string; pad: string }

interface EntryBase { id: string; parentId: string | null; timestamp: string }

export interface MessageEntry extends EntryBase { type: "message"; message: AgentMessage }
export interface ThinkingLevelChangeEntry extends EntryBase { type: "thinking_level_change"; thinkingLevel: ThinkingLevel | null; configured?: string | null }
/** pi writes provider + modelId; omp writes model = "provider/modelId[:level]" (+ role). */
export interface ModelChangeEntry extends EntryBase { type: "model_change"; provider?: string; modelId?: string; model?: string; role?: string }
export interface CompactionEntry extends EntryBase {
	type: "compaction"; summary: string; firstKeptEntryId?: string; tokensBefore: number; details?: unknown;
	fromHook?: boolean; fromExtension?: boolean; [k: string]: unknown;
}
export interface BranchSummaryEntry extends EntryBase {
	type: "branch_summary"; fromId: string; summary: string; details?: unknown; fromHook?: boolean; fromExtension?: boolean;
}
export interface CustomEntry extends EntryBase { type: "custom"; customType: string; data?: unknown }
export interface CustomMessageEntry extends EntryBase {
	type: "custom_message"; customType: string; content: string | ContentBlock[]; display: boolean; details?: unknown;
}
export interface LabelEntry extends EntryBase { type: "label"; targetId: string; label?: string }
export interface SessionInfoEntry extends EntryBase { type: "session_info"; name?: string }
/** Any other type (omp-only records, future types, third-party extensions): kept byte-for-byte. */
export interface UnknownEntry { type: string; id?: string; parentId?: string | null; timestamp?: string; [k: string]: unknown }

export type KnownEntry =
	| MessageEntry | ThinkingLevelChangeEntry | ModelChangeEntry | CompactionEntry | BranchSummaryEntry
	| CustomEntry | CustomMessageEntry | LabelEntry | SessionInfoEntry;
export type SessionEntry = KnownEntry | UnknownEntry;

/** What `buildSessionContext` returns: pi's shape exactly (compared byte for byte in conformance tests). */
export interface SessionContext {
	messages: AgentMessage[];
	thinkingLevel: string;
	model: { provider: string; modelId: string } | null;
}

export const CURRENT_SESSION_VERSION = 3;
