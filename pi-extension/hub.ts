// What outlives one instance of Arbor's pi extension in a pi process (see index.ts): the channel, the latest
// pi API and context, the requests waiting for a command context, the turn being streamed.

import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { AssistantMessage } from "../shared/entries";
import type { LiveAgent, LiveState, LiveStreamMessage } from "../shared/live";
import { type LiveChannel, LiveRequestError } from "./channel";

export const EXTENSION_VERSION = "1.0.0";
/** The command Arbor's requests run through: navigateTree and fork exist only on a command's context. */
export const TRAMPOLINE = "arbor-live";

type Op = { run: (ctx: ExtensionCommandContext) => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void };

/** Everything that outlives one extension instance. */
export interface LiveHub {
	channel: LiveChannel | null;
	opening: Promise<LiveChannel | null> | null;
	pi: ExtensionAPI | null;
	ctx: ExtensionContext | null;
	/** The context of a typed /arbor (omp: the only way to a command context); null after a session change. */
	commandCtx: ExtensionCommandContext | null;
	agent: LiveAgent;
	agentVersion: string;
	streaming: boolean;
	/** A tree summary Arbor asked for is running (reported as streaming: navigate / fork would be busy). */
	summarizing: boolean;
	ops: Map<string, Op>;
	nextOp: number;
	/** The last session_tree's summary entry (navigate reports it). */
	lastTree: { newLeafId: string | null; summaryEntryId?: string } | null;
	/** Send requests waiting for the turn they started. */
	sendWaiters: Set<{ onStart(): void; onEnd(leafId: string | null, last: AssistantMessage | undefined): void }>;
	stream: { turnIndex: number; count: number; current: LiveStreamMessage | null; timer: ReturnType<typeof setTimeout> | null };
	exitHooked: boolean;
	/** A /arbor typed before pi wrote the session's file: opened once the file exists (issue 38). */
	pendingOpen: string | null;
}

const HUB_KEY = Symbol.for("arbor.live.hub");

export function hub(): LiveHub {
	const g = globalThis as unknown as Record<symbol, LiveHub | undefined>;
	g[HUB_KEY] ??= {
		channel: null,
		opening: null,
		pi: null,
		ctx: null,
		commandCtx: null,
		agent: "pi",
		agentVersion: "unknown",
		streaming: false,
		summarizing: false,
		ops: new Map(),
		nextOp: 1,
		lastTree: null,
		sendWaiters: new Set(),
		stream: { turnIndex: 0, count: 0, current: null, timer: null },
		exitHooked: false,
		pendingOpen: null,
	};
	return g[HUB_KEY]!;
}

export function liveState(h: LiveHub): LiveState {
	const ctx = h.ctx;
	let sm: ExtensionContext["sessionManager"] | null = null;
	let model: LiveState["model"] = null;
	let idle = !h.streaming;
	let cwd = process.cwd();
	let thinkingLevel: string | null = null;
	try {
		if (ctx) {
			sm = ctx.sessionManager;
			model = ctx.model ? { provider: ctx.model.provider, modelId: ctx.model.id } : null;
			idle = ctx.isIdle();
			cwd = ctx.cwd;
			thinkingLevel = ctx.thinkingLevel ?? null;
		}
	} catch {
		// A stale ctx (between a session's shutdown and the next start): report what the hub knows.
	}
	return {
		pid: process.pid,
		agent: h.agent,
		agentVersion: h.agentVersion,
		sessionFile: sm?.getSessionFile() ?? null,
		sessionId: sm?.getSessionId() ?? null,
		leafId: sm?.getLeafId() ?? null,
		model,
		thinkingLevel,
		status: idle && !h.streaming && !h.summarizing ? "idle" : "streaming",
		cwd,
	};
}

/**
 * Run `run` with a command context: navigateTree and fork exist only there. pi: Arbor's request becomes an
 * invocation of our own command (pi.sendUserMessage with expandPromptTemplates runs it, even while a turn
 * streams). omp runs commands only when typed: the context of the last typed /arbor is used.
 */
export function withCommandContext<T>(h: LiveHub, run: (ctx: ExtensionCommandContext) => Promise<T>): Promise<T> {
	const pi = h.pi;
	if (!pi) return Promise.reject(new Error("pi has no session right now"));
	if (h.agent === "omp") {
		if (!h.commandCtx)
			return Promise.reject(
				new LiveRequestError("unsupported", "omp runs Arbor's navigate and branch only after /arbor was typed in this session: type /arbor in omp once"),
			);
		return run(h.commandCtx);
	}
	return new Promise<T>((resolve, reject) => {
		const token = String(h.nextOp++);
		h.ops.set(token, { run, resolve: resolve as (v: unknown) => void, reject });
		pi.sendUserMessage(`/${TRAMPOLINE} ${token}`, { expandPromptTemplates: true });
	});
}
