// The part of pi's extension API that Arbor hosts (docs/extensions.md). Shapes follow pi's own
// extension types so an extension written for pi that only uses these hooks runs unchanged.

import type { SessionEntry } from "../../../shared/entries";

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

export interface SessionBeforeTreeEvent {
	type: "session_before_tree";
	preparation: TreePreparation;
	signal: AbortSignal;
}
export interface SessionTreeEvent {
	type: "session_tree";
	newLeafId: string | null;
	oldLeafId: string | null;
	summaryEntry?: SessionEntry;
	fromExtension?: boolean;
}
/** pi 1.6: why a session started. Arbor opens files: "startup" for the files it starts with, "resume" later, "fork" for /branch. */
export interface SessionStartEvent {
	type: "session_start";
	reason: "startup" | "reload" | "new" | "resume" | "fork";
	previousSessionFile?: string;
}
export interface SessionInfoChangedEvent {
	type: "session_info_changed";
	name: string | undefined;
}
export interface SessionShutdownEvent {
	type: "session_shutdown";
	reason: "quit" | "reload" | "new" | "resume" | "fork";
	targetSessionFile?: string;
}
export interface SessionBeforeBranchEvent {
	type: "session_before_branch";
	entryId: string;
}
export interface SessionBranchEvent {
	type: "session_branch";
	previousSessionFile?: string;
	newSessionFile?: string;
}
/** pi ≥ 0.50 names /branch "fork"; both names are emitted so either kind of extension sees it. */
export interface SessionBeforeForkEvent {
	type: "session_before_fork";
	entryId: string;
	position: "before" | "at";
}
export interface SessionForkEvent {
	type: "session_fork";
	previousSessionFile?: string;
	newSessionFile?: string;
}

export type HostedEvent =
	| SessionStartEvent
	| SessionInfoChangedEvent
	| SessionShutdownEvent
	| SessionBeforeTreeEvent
	| SessionTreeEvent
	| SessionBeforeBranchEvent
	| SessionBranchEvent
	| SessionBeforeForkEvent
	| SessionForkEvent
	| { type: "session_before_compact"; reason: "manual" | "threshold" | "overflow"; willRetry: boolean; [k: string]: unknown }
	| { type: "session_compact"; reason: "manual" | "threshold" | "overflow"; willRetry: boolean; [k: string]: unknown }
	| { type: "session_compact_failed"; reason: "manual" | "threshold" | "overflow"; willRetry: boolean; [k: string]: unknown };

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
	/** Recorded, never run (Arbor runs no tools). */
	tools: Map<string, Record<string, unknown>>;
	/** Flag name → its default (Arbor has no command line for extension flags). */
	flags: Map<string, unknown>;
	/** Recorded, not used: summaries use Arbor's model (docs/summaries.md). */
	providers: Map<string, unknown>;
	mcpServers: Map<string, unknown>;
}

/** Where an extension module was found (docs/extensions.md "Where they are loaded from"). */
export type ExtensionOrigin = "arbor" | "cli" | "pi" | "pi-settings" | "pi-package" | "pi-project";

export interface ExtensionEntry {
	path: string;
	origin: ExtensionOrigin;
	/** The `packages` entry (pi-package) it came from. */
	package?: string;
	/** false when pi's own settings turn it off (`!pattern`, `-path`, …); Arbor still follows the user's choice. */
	piEnabled?: false;
}

export interface ExtensionFailure {
	extension: string;
	event: string;
	message: string;
}
