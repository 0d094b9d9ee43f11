// Arbor's requests, carried out by the running pi with its own calls (docs/live.md "What goes through pi").

import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { existsSync } from "node:fs";
import { editorText as editorTextOf } from "../shared/editor-text";
import type { LiveForkResult, LiveHandlers, LiveNavigateResult, LiveRequestOf, LiveSendResult, LiveSwitchResult } from "../shared/live";
import { LiveRequestError } from "./channel";
import { type LiveHub, liveState, withCommandContext } from "./hub";

type Entry = { type: string; id: string; parentId: string | null };

const BUSY =
	"pi is busy: it runs a turn (or a summary / compaction), and pi's navigateTree refuses while it does. Wait for it to finish, or stop it, then try again.";

/** pi's own refusals, as our error codes (the words come from pi 1.6's navigateTree). */
function mapPiError(err: unknown): LiveRequestError {
	const message = err instanceof Error ? err.message : String(err);
	if (/^Wait for the current|already processing|while compaction/i.test(message)) return new LiveRequestError("busy", `${BUSY} (pi: ${message})`);
	if (/No model/i.test(message)) return new LiveRequestError("no_model", message);
	if (/not found/i.test(message)) return new LiveRequestError("not_found", message);
	return new LiveRequestError("failed", message);
}

async function readyFor(ctx: ExtensionCommandContext, wait: boolean | undefined): Promise<void> {
	if (ctx.isIdle()) return;
	if (!wait) throw new LiveRequestError("busy", BUSY);
	await ctx.waitForIdle();
}

function entryOf(ctx: { sessionManager: { getEntry(id: string): unknown } }, id: string): Entry {
	const e = ctx.sessionManager.getEntry(id) as Entry | undefined;
	if (!e) throw new LiveRequestError("not_found", `no entry ${id} in the session pi holds`);
	return e;
}

/** Arbor's requests as this pi carries them out: one handler per request name (the compiler checks each result). */
export function requestHandlers(h: LiveHub): LiveHandlers {
	const session = () => {
		const ctx = h.ctx;
		const pi = h.pi;
		if (!ctx || !pi) throw new LiveRequestError("no_session", "pi has no session right now (it is switching sessions): try again");
		return { ctx, pi };
	};
	return {
		state: async () => {
			session();
			return liveState(h);
		},
		label: async (body) => {
			const { ctx, pi } = session();
			if (h.agent === "omp") throw new LiveRequestError("unsupported", "omp's pi.setLabel names the extension, not an entry: Arbor labels the file itself");
			entryOf(ctx, body.entryId);
			try {
				pi.setLabel(body.entryId, body.label ?? undefined);
			} catch (err) {
				throw mapPiError(err);
			}
			return { ok: true };
		},
		abort: async () => {
			const { ctx } = session();
			const wasStreaming = !ctx.isIdle() || h.streaming;
			ctx.abort();
			return { wasStreaming };
		},
		navigate: async (body) => {
			session();
			return navigate(h, body);
		},
		fork: async (body) => {
			session();
			return fork(h, body);
		},
		send: async (body) => {
			session();
			return send(h, body);
		},
		switchSession: async (body) => {
			session();
			return switchSession(h, body);
		},
	};
}

function navigate(h: LiveHub, body: LiveRequestOf<"navigate">): Promise<LiveNavigateResult> {
	return withCommandContext(h, async (c): Promise<LiveNavigateResult> => {
		await readyFor(c, body.waitForIdle);
		const target = entryOf(c, body.targetId);
		const oldLeafId = c.sessionManager.getLeafId();
		h.lastTree = null;
		let r: { cancelled: boolean };
		if (h.agent === "omp" && (body.customInstructions !== undefined || body.label !== undefined || body.replaceInstructions))
			throw new LiveRequestError("unsupported", "omp's navigateTree takes no custom summary instructions or label");
		if (body.summarize) {
			h.summarizing = true;
			h.channel?.broadcast({ type: "state", state: liveState(h) });
		}
		try {
			r = await c.navigateTree(body.targetId, {
				summarize: body.summarize,
				customInstructions: body.customInstructions,
				replaceInstructions: body.replaceInstructions,
				label: body.label,
			});
		} catch (err) {
			throw mapPiError(err);
		} finally {
			if (h.summarizing) {
				h.summarizing = false;
				h.channel?.broadcast({ type: "state", state: liveState(h) });
			}
		}
		const tree = h.lastTree as { summaryEntryId?: string } | null;
		const editorText = r.cancelled ? undefined : editorTextOf(target);
		return {
			cancelled: r.cancelled,
			oldLeafId,
			newLeafId: c.sessionManager.getLeafId(),
			...(editorText !== undefined ? { editorText } : {}),
			...(tree?.summaryEntryId ? { summaryEntryId: tree.summaryEntryId } : {}),
		};
	});
}

function fork(h: LiveHub, body: LiveRequestOf<"fork">): Promise<LiveForkResult> {
	return withCommandContext(h, async (c): Promise<LiveForkResult> => {
		await readyFor(c, body.waitForIdle);
		const target = entryOf(c, body.entryId);
		let sessionFile: string | null = null;
		let r: { cancelled: boolean };
		try {
			// omp 18.3 names it branch(entryId) (its /branch), without position or withSession.
			const ompBranch = (c as unknown as { branch?: (id: string) => Promise<{ cancelled: boolean }> }).branch;
			if (h.agent === "omp" && ompBranch) {
				if (body.position === "at") throw new LiveRequestError("unsupported", 'omp\'s branch has no position "at"');
				r = await ompBranch.call(c, body.entryId);
				sessionFile = r.cancelled ? null : (h.ctx?.sessionManager.getSessionFile() ?? null);
			} else
				r = await c.fork(body.entryId, {
					position: body.position,
					withSession: async (next) => {
						sessionFile = next.sessionManager.getSessionFile() ?? null;
					},
				});
		} catch (err) {
			throw err instanceof LiveRequestError ? err : mapPiError(err);
		}
		const before = (body.position ?? "before") === "before";
		const editorText = !r.cancelled && before ? editorTextOf(target) : undefined;
		return { cancelled: r.cancelled, sessionFile, ...(editorText !== undefined ? { editorText } : {}) };
	});
}

function send(h: LiveHub, body: LiveRequestOf<"send">): Promise<LiveSendResult> {
	const ctx = h.ctx!;
	const pi = h.pi!;
	const model = ctx.model;
	if (!model) throw new LiveRequestError("no_model", "pi has no model selected: choose one in pi (/model) first");
	try {
		if (!ctx.modelRegistry.hasConfiguredAuth(model))
			throw new LiveRequestError("no_model", `pi has no credentials for ${model.provider}: log in or set its key in pi first`);
	} catch (err) {
		if (err instanceof LiveRequestError) throw err;
		// An agent without this check (omp) answers for itself when the turn starts.
	}
	if (!ctx.isIdle() || h.streaming) {
		if (!body.deliverAs) throw new LiveRequestError("busy", "pi is running a turn: queue the message (steer / follow-up) or wait for the turn to end");
		pi.sendUserMessage(body.text, { deliverAs: body.deliverAs });
		return Promise.resolve({ outcome: "queued", leafId: ctx.sessionManager.getLeafId() });
	}
	return new Promise<LiveSendResult>((resolve) => {
		const waiter = {
			onStart() {
				if (body.wait !== "start") return;
				h.sendWaiters.delete(waiter);
				resolve({ outcome: "started", leafId: liveState(h).leafId });
			},
			onEnd(leafId: string | null, last: { stopReason?: string; errorMessage?: string } | undefined) {
				h.sendWaiters.delete(waiter);
				resolve({ outcome: "ended", leafId, stopReason: last?.stopReason, errorMessage: last?.errorMessage });
			},
		};
		h.sendWaiters.add(waiter);
		pi.sendUserMessage(body.text);
	});
}

function switchSession(h: LiveHub, body: LiveRequestOf<"switchSession">): Promise<LiveSwitchResult> {
	return withCommandContext(h, async (c): Promise<LiveSwitchResult> => {
		await readyFor(c, body.waitForIdle);
		// pi would start a new file at a path that does not exist: only an existing session is a switch.
		if (!existsSync(body.sessionFile)) throw new LiveRequestError("not_found", `no session file ${body.sessionFile}`);
		let sessionFile: string | null = null;
		let r: { cancelled: boolean };
		try {
			if (h.agent === "omp") {
				// omp 18.3's switchSession takes no withSession: its context follows the switch.
				r = await c.switchSession(body.sessionFile);
				sessionFile = r.cancelled ? null : (h.ctx?.sessionManager.getSessionFile() ?? null);
			} else
				r = await c.switchSession(body.sessionFile, {
					withSession: async (next) => {
						sessionFile = next.sessionManager.getSessionFile() ?? null;
					},
				});
		} catch (err) {
			throw mapPiError(err);
		}
		return { cancelled: r.cancelled, sessionFile };
	});
}
