// What the navigate and branch flows need from ArborServices (its events, extension dispatch, writes,
// session registry), as one interface so each flow lives in its own file.

import type { ArborEvent, SessionSummary } from "../../shared/api";
import type { SessionEntry } from "../../shared/entries";
import type { SessionManager } from "../session";
import type { ExtensionHost } from "./extensions/host";
import type { SessionStartEvent } from "./extensions/types";
import type { ModelResolution, ResolvedModel } from "./models";
import type { OpenSession } from "./open-session";

export interface FlowHost {
	readonly extensions: ExtensionHost;
	emit(e: ArborEvent): void;
	/** Dispatch to extensions with `s` as the session their `pi` calls act on. */
	emitExtension(s: OpenSession, event: Parameters<ExtensionHost["emit"]>[0], ctx: unknown): Promise<Record<string, unknown> | undefined>;
	eventContext(s: OpenSession, signal?: AbortSignal, model?: ResolvedModel): Record<string, unknown>;
	/** Read what other processes appended (or reload), reporting events. */
	catchUp(s: OpenSession): void;
	/** A synchronous write through the core, then events. */
	write<T>(s: OpenSession, fn: (m: SessionManager) => T): T;
	/** With `s`: the model pi would use in that (resumed) session. */
	resolveModel(s?: OpenSession): Promise<ModelResolution>;
	entry(s: OpenSession, id: string): SessionEntry;
	/** `start`: pi 1.6's session_start reason for extensions (default: startup / resume). */
	register(m: SessionManager, start?: { reason: SessionStartEvent["reason"]; previousSessionFile?: string }): OpenSession;
	openPath(file: string, start?: { reason: SessionStartEvent["reason"]; previousSessionFile?: string }): Promise<OpenSession>;
	summary(s: OpenSession): SessionSummary;
	reloaded(s: OpenSession, reason: string): void;
}
