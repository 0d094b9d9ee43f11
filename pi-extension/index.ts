// Arbor's pi extension (docs/live.md): makes Arbor the live graphical /tree of this pi. While pi runs it
// listens on Arbor's private live channel; Arbor's steering requests are carried out here by pi's own calls
// (navigateTree, fork, setLabel, sendUserMessage, abort), and pi's state and streamed turns are reported back.
// `/arbor` opens the current session in Arbor.
//
// One channel per pi process, kept on globalThis: pi rebinds extensions after a fork / new session / reload
// (a new instance of this module runs), and Arbor's connections must survive that, since a fork is one of
// Arbor's own requests and its answer is sent after pi has moved to the new file.

import { existsSync } from "node:fs";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { AssistantMessage } from "../shared/entries";
import type { LiveAgent, LiveCapability } from "../shared/live";
import { LIVE_CAPABILITIES } from "../shared/live";
import { LiveChannel } from "./channel";
import { EXTENSION_VERSION, hub, type LiveHub, liveState, TRAMPOLINE } from "./hub";
import { openInArbor } from "./open-arbor";
import { requestHandlers } from "./requests";
import { type PiRuntime, piRuntime } from "./runtime";

/** pi or omp, and its version: omp hands extensions its own exports (`pi.pi`) and schema builders; pi does not. */
async function agentIdentity(pi: ExtensionAPI): Promise<{ agent: LiveAgent; version: string }> {
	const api = pi as unknown as { pi?: { VERSION?: unknown }; arktype?: unknown };
	if (api.arktype !== undefined && typeof api.pi?.VERSION === "string") return { agent: "omp", version: api.pi.VERSION };
	try {
		const m = (await import("@earendil-works/pi-coding-agent")) as { VERSION?: unknown };
		if (typeof m.VERSION === "string") return { agent: "pi", version: m.VERSION };
	} catch {}
	return { agent: "pi", version: "unknown" };
}

/** How to start this pi again (pi only: Arbor's tries speak pi's RPC); nothing when it cannot be told. */
function runtimeFor(agent: LiveAgent): { runtime?: PiRuntime } {
	const runtime = agent === "pi" ? piRuntime() : undefined;
	return runtime ? { runtime } : {};
}

/** What this agent's extension API lets Arbor do (docs/live.md "oh-my-pi"). */
function capabilities(h: LiveHub): LiveCapability[] {
	if (h.agent === "pi") return [...LIVE_CAPABILITIES];
	// omp 18.3: navigateTree takes only {summarize}; branch() instead of fork(); pi.setLabel(x) names the extension,
	// not an entry; commands run only when typed (sendUserMessage never dispatches them), so navigate and branch
	// need the context of a typed /arbor.
	return LIVE_CAPABILITIES.filter((c) => c !== "label");
}

function publishState(h: LiveHub): void {
	h.channel?.broadcast({ type: "state", state: liveState(h) });
}

function flushStream(h: LiveHub, phase: "start" | "update" | "end"): void {
	const s = h.stream;
	if (s.timer) clearTimeout(s.timer);
	s.timer = null;
	if (s.current) h.channel?.broadcast({ type: "message_update", phase, stream: s.current });
	if (phase === "end") s.current = null;
}

async function ensureChannel(h: LiveHub): Promise<LiveChannel | null> {
	if (h.channel) return h.channel;
	h.opening ??= (async () => {
		const id = await agentIdentity(h.pi!);
		h.agent = id.agent;
		h.agentVersion = id.version;
		const ch = await LiveChannel.open(
			{
				welcome: () => ({
					agent: h.agent,
					agentVersion: h.agentVersion,
					extensionVersion: EXTENSION_VERSION,
					capabilities: capabilities(h),
					state: liveState(h),
				}),
				requests: requestHandlers(h),
			},
			{ agent: id.agent, agentVersion: id.version, extensionVersion: EXTENSION_VERSION, ...runtimeFor(id.agent) },
		);
		h.channel = ch;
		if (!h.exitHooked) {
			h.exitHooked = true;
			// A killed pi leaves its files behind (Arbor sweeps them); a pi that exits removes them itself.
			process.once("exit", () => hub().channel?.close("pi exited"));
		}
		return ch;
	})().catch((err: unknown) => {
		h.opening = null;
		h.ctx?.ui.notify(`Arbor live channel: ${err instanceof Error ? err.message : String(err)}`, "warning");
		return null;
	});
	return h.opening;
}

export default function arborLive(pi: ExtensionAPI): void {
	const h = hub();
	if (process.env.ARBOR_LIVE === "0") return;

	pi.registerCommand(TRAMPOLINE, {
		description: "Arbor's live channel (used by Arbor, not typed)",
		handler: async (args, ctx) => {
			const op = h.ops.get(args.trim());
			if (!op) return;
			h.ops.delete(args.trim());
			try {
				op.resolve(await op.run(ctx));
			} catch (err) {
				op.reject(err);
			}
		},
	});

	pi.registerCommand("arbor", {
		description: "Open this session in Arbor, connected to this pi (Arbor steers the running pi)",
		handler: async (_args, ctx) => {
			h.pi = pi;
			h.ctx = ctx;
			// omp cannot dispatch our trampoline command: the typed /arbor's context carries navigate and branch.
			h.commandCtx = ctx;
			const ch = await ensureChannel(h);
			const file = ctx.sessionManager.getSessionFile();
			if (!file) {
				ctx.ui.notify("Arbor: nothing to open (this session is not saved to a file: pi --no-session).", "info");
				return;
			}
			if (ch) ch.register(file);
			// pi writes a new session's file with its first answer: Arbor opens it then, by itself, once.
			if (!existsSync(file)) {
				h.pendingOpen = file;
				ctx.ui.notify("Arbor: this session has no file until pi's first answer; Arbor opens it as soon as pi writes it.", "info");
				return;
			}
			h.pendingOpen = null;
			const notice = await openInArbor(file);
			ctx.ui.notify(notice.text, notice.level);
		},
	});

	/** The /arbor that waited for the file, once pi has written it (a session change forgets it). */
	const openPending = async (ctx: ExtensionContext): Promise<void> => {
		const file = h.pendingOpen;
		if (!file || ctx.sessionManager.getSessionFile() !== file || !existsSync(file)) return;
		h.pendingOpen = null;
		const notice = await openInArbor(file);
		ctx.ui.notify(notice.text, notice.level);
	};

	pi.on("session_start", async (_e, ctx) => {
		h.pi = pi;
		h.commandCtx = null;
		if (h.pendingOpen !== ctx.sessionManager.getSessionFile()) h.pendingOpen = null;
		h.ctx = ctx;
		const ch = await ensureChannel(h);
		ch?.register(ctx.sessionManager.getSessionFile() ?? null);
		publishState(h);
	});
	// omp reports a switch / branch in place of a new session_start.
	const onSwitch = (_e: unknown, ctx: ExtensionContext): void => {
		h.ctx = ctx;
		h.commandCtx = null;
		h.channel?.register(ctx.sessionManager.getSessionFile() ?? null);
		publishState(h);
	};
	const onAny = pi.on.bind(pi) as unknown as (event: string, handler: (e: unknown, ctx: ExtensionContext) => void) => void;
	if (h.agent === "omp" || (pi as unknown as { arktype?: unknown }).arktype !== undefined) {
		onAny("session_switch", onSwitch);
		onAny("session_branch", onSwitch);
	}
	pi.on("session_shutdown", (e) => {
		h.commandCtx = null;
		if (e.reason === "quit") h.channel?.close("pi is exiting");
		// Otherwise a new session follows in this process (fork, new, resume, reload): keep the channel.
	});
	pi.on("agent_start", (_e, ctx) => {
		h.ctx = ctx;
		h.streaming = true;
		h.stream.count = 0;
		for (const w of [...h.sendWaiters]) w.onStart();
		publishState(h);
	});
	pi.on("agent_end", (e, ctx) => {
		h.ctx = ctx;
		h.streaming = false;
		flushStream(h, "end");
		const leafId = ctx.sessionManager.getLeafId();
		const last = [...e.messages].reverse().find((m) => (m as { role?: string }).role === "assistant") as AssistantMessage | undefined;
		for (const w of [...h.sendWaiters]) w.onEnd(leafId, last);
		publishState(h);
		void openPending(ctx);
	});
	pi.on("turn_start", (e) => {
		h.stream.turnIndex = e.turnIndex;
	});
	// pi's leaf after every turn (the entries themselves reach Arbor through the file).
	pi.on("turn_end", (_e, ctx) => {
		h.ctx = ctx;
		publishState(h);
		void openPending(ctx);
	});
	pi.on("message_start", (e, ctx) => {
		if ((e.message as { role?: string }).role !== "assistant" || !h.channel) return;
		h.stream.current = {
			key: `${h.stream.turnIndex}.${h.stream.count++}`,
			parentId: ctx.sessionManager.getLeafId(),
			message: e.message as unknown as AssistantMessage,
		};
		flushStream(h, "start");
	});
	pi.on("message_update", (e) => {
		const s = h.stream;
		if (!s.current || (e.message as { role?: string }).role !== "assistant") return;
		s.current = { ...s.current, message: e.message as unknown as AssistantMessage };
		// Deltas come per token; Arbor gets the message as it stands at most every 50 ms.
		s.timer ??= setTimeout(() => flushStream(h, "update"), 50);
	});
	pi.on("message_end", (e) => {
		const s = h.stream;
		if (!s.current || (e.message as { role?: string }).role !== "assistant") return;
		s.current = { ...s.current, message: e.message as unknown as AssistantMessage };
		flushStream(h, "end");
	});
	pi.on("session_tree", (e, ctx) => {
		h.ctx = ctx;
		h.lastTree = { newLeafId: e.newLeafId, summaryEntryId: e.summaryEntry?.id };
		// pi's leaf after every tree move, whoever asked (pi's own /tree, Arbor).
		publishState(h);
	});
	// pi is idle (ctx.isIdle()) only once the run has settled, after agent_end: say so then.
	pi.on("agent_settled", () => publishState(h));
	pi.on("model_select", () => publishState(h));
	pi.on("thinking_level_select", () => publishState(h));
}
