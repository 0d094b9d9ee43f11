// The part of pi's extension API that Arbor hosts (docs/extensions.md). Shapes follow pi's own
// extension types so an extension written for pi that only uses these hooks runs unchanged.

import type { SessionEntry } from "../../../shared/entries";

export type HostedEventName =
	| "session_before_tree" | "session_tree"
	| "session_before_branch" | "session_branch"
	| "session_before_fork" | "session_fork"
	| "session_before_compact" | "session_compact";

export const HOSTED_EVENTS: readonly HostedEventName[] = [
	"session_before_tree", "session_tree", "session_before_branch", "session_branch",
	"session_before_fork", "session_fork", "session_before_compact", "session_compact",
];

export interface TreePreparation {
	targetId: string;
	oldLeafId: string | null;
	commonAncestorId: string | null;
	entriesToSummarize: SessionEntry[];
	userWantsSummary: boolean;
	customInstructions?: string;
	replaceInstructions?: boolean;
	label?: string;
}

export interface SessionBeforeTreeEvent { type: "session_before_tree"; preparation: TreePreparation; signal: AbortSignal }
export interface SessionTreeEvent {
	type: "session_tree"; newLeafId: string | null; oldLeafId: string | null; summaryEntry?: SessionEntry; fromExtension?: boolean;
}
export interface SessionBeforeTreeResult {
	cancel?: boolean;
	summary?: { summary: string; details?: unknown };
	customInstructions?: string;
	replaceInstructions?: boolean;
	label?: string;
}
export interface SessionBeforeBranchEvent { type: "session_before_branch"; entryId: string }
export interface SessionBranchEvent { type: "session_branch"; previousSessionFile?: string; newSessionFile?: string }
/** pi ≥ 0.50 names /branch "fork"; both names are emitted so either kind of extension sees it. */
export interface SessionBeforeForkEvent { type: "session_before_fork"; entryId: string; position: "before" | "at" }
export interface SessionForkEvent { type: "session_fork"; previousSessionFile?: string; newSessionFile?: string }
export interface SessionBeforeBranchResult { cancel?: boolean; skipConversationRestore?: boolean }

export type HostedEvent =
	| SessionBeforeTreeEvent | SessionTreeEvent | SessionBeforeBranchEvent | SessionBranchEvent
	| SessionBeforeForkEvent | SessionForkEvent
	| { type: "session_before_compact"; [k: string]: unknown } | { type: "session_compact"; [k: string]: unknown };

/** Result of a cancellable ("before") event: the last handler that returned something wins, a cancel stops at once. */
export interface BeforeResult {
	cancel?: boolean;
	[k: string]: unknown;
}

export type ExtensionHandler = (event: unknown, ctx: unknown) => unknown;

export interface RegisteredCommand {
	name: string;
	description: string;
	handler: (args: string, ctx: unknown) => unknown;
	extension: string;
}

export interface LoadedExtension {
	path: string;
	name: string;
	handlers: Map<string, ExtensionHandler[]>;
	commands: Map<string, RegisteredCommand>;
}

export interface ExtensionFailure {
	extension: string;
	event: string;
	message: string;
}
