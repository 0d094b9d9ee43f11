// Live slice: a running pi (with Arbor's extension) that holds a session's file (docs/app.md "Live pi").
// What it says about itself (version, pid, model, idle / working) comes from the main process (`live_state`,
// SessionSummary.live); the assistant messages it streams (`live_stream`) are kept here until the file brings
// the entry that replaces them. pi's leaf is not kept here: the main process keeps the session's one leaf on
// pi's (the skeleton's `leaf`, docs/live.md "One leaf"). Losing pi never touches drafts or the file: the
// session simply goes back to file mode, its leaf where pi was.

import { agentDisplayName } from "../../shared/agents";
import type { LiveSessionInfo, SessionSummary } from "../../shared/api";
import type { AssistantMessage } from "../../shared/entries";
import { EntryKind, type Skeleton } from "../../shared/skeleton";
import { indexOfId } from "./selectors";
import type { SliceCreator } from "./types";

export interface LiveStream {
	key: string;
	parentId: string | null;
	message: AssistantMessage;
	/** pi ended the message; the card stays until the file has the entry. */
	done: boolean;
	/** Entries the skeleton had when the message started: an assistant entry under `parentId` past it replaces the card. */
	baseCount: number;
}

export interface LiveSessionView {
	state: LiveSessionInfo;
	streams: LiveStream[];
	/** Stop was asked and pi has not answered yet. */
	stopping: boolean;
}

export interface LiveSlice {
	/** Live sessions by session id (absent: file mode). */
	live: Record<string, LiveSessionView>;
	/**
	 * A live pi took (info) or released (null) a session. Released with `announce`: the user hears why and
	 * that Arbor is on the file again (their draft stays as it is).
	 */
	setLive(sessionId: string, info: LiveSessionInfo | null, opts?: { reason?: string; announce?: boolean }): void;
	/** A summary that says whether the file is live (open, reload): taken as is, without a notice. */
	liveFromSummary(summary: SessionSummary): void;
	onLiveStream(sessionId: string, phase: "start" | "update" | "end", key: string, parentId: string | null, message: AssistantMessage): void;
	/** Drop streaming cards whose entry the file now has (after each skeleton change). */
	pruneStreams(sessionId: string): void;
	/** Stop the live pi's turn (Escape, the Stop buttons); default: the active session. */
	stopLive(sessionId?: string): Promise<void>;
}

export const createLiveSlice: SliceCreator<LiveSlice> = (set, get, client) => {
	const patch = (sessionId: string, f: (v: LiveSessionView) => LiveSessionView | null): void =>
		set((s) => {
			const cur = s.live[sessionId];
			if (!cur) return {};
			const next = f(cur);
			if (next === cur) return {};
			const live = { ...s.live };
			if (next) live[sessionId] = next;
			else delete live[sessionId];
			return { live };
		});

	return {
		live: {},

		setLive(sessionId, info, opts) {
			const before = get().live[sessionId];
			if (!info) {
				if (!before) return;
				set((s) => {
					const live = { ...s.live };
					delete live[sessionId];
					return { live };
				});
				if (opts?.announce !== false) {
					const who = `${agentDisplayName(before.state.agent)} (pid ${before.state.pid})`;
					const draft = (get().drafts[sessionId] ?? "").trim() !== "" ? " Your draft is kept." : "";
					const why = opts?.reason?.trim().replace(/\.?$/, ".");
					const fileMode = why?.includes("the file") ? "" : " Arbor works on the file again.";
					// "pi 4242 closed the connection…" already names it: said once, not twice.
					const own = `pi ${before.state.pid} `;
					const what = !why
						? `${who} is no longer connected.`
						: why.startsWith(own)
							? `${who} ${why.slice(own.length)}`
							: `${who} is no longer connected: ${why}`;
					get().toast("info", `${what}${fileMode}${draft}`);
				}
				return;
			}
			if (!get().sessions[sessionId]) return;
			set((s) => {
				const cur = s.live[sessionId];
				// Another pi took the file: its streams are not this one's.
				const streams = cur && cur.state.pid === info.pid ? cur.streams : [];
				// A turn ended: streams that never ended go (pi writes none of them). A new turn starts: ended streams of
				// the last one that the file never brought (pi did not write them) go too.
				const starting = info.status === "streaming" && cur?.state.status === "idle";
				const kept = info.status === "idle" ? streams.filter((x) => x.done) : starting ? streams.filter((x) => !x.done) : streams;
				const working = info.status === "streaming";
				return { live: { ...s.live, [sessionId]: { state: info, streams: kept, stopping: working ? (cur?.stopping ?? false) : false } } };
			});
			if (!before && opts?.announce) {
				get().toast("info", `Live: ${agentDisplayName(info.agent)} ${info.agentVersion} (pid ${info.pid}) holds this file; steering goes through it.`);
			}
			get().pruneStreams(sessionId);
		},

		liveFromSummary(summary) {
			if (summary.live === undefined) return;
			get().setLive(summary.sessionId, summary.live, { announce: false });
		},

		onLiveStream(sessionId, phase, key, parentId, message) {
			const sk = get().sessions[sessionId]?.skeleton ?? null;
			patch(sessionId, (v) => {
				const i = v.streams.findIndex((x) => x.key === key);
				const old = i >= 0 ? v.streams[i] : null;
				const next: LiveStream = { key, parentId, message, done: phase === "end", baseCount: old?.baseCount ?? sk?.count ?? 0 };
				const streams = i >= 0 ? v.streams.map((x, k) => (k === i ? next : x)) : [...v.streams, next];
				return { ...v, streams };
			});
			if (phase === "end") get().pruneStreams(sessionId);
		},

		pruneStreams(sessionId) {
			const sk = get().sessions[sessionId]?.skeleton;
			if (!sk) return;
			patch(sessionId, (v) => {
				if (v.streams.length === 0) return v;
				const kept = v.streams.filter((x) => !x.done || landedAt(sk, x) < 0);
				return kept.length === v.streams.length ? v : { ...v, streams: kept };
			});
		},

		async stopLive(sessionId) {
			const id = sessionId ?? get().activeSessionId;
			if (!id || !get().live[id]) return;
			patch(id, (v) => ({ ...v, stopping: true }));
			try {
				const r = await client.request("abort", { sessionId: id });
				if (!r.wasStreaming) get().toast("info", "pi was not working on a turn");
			} catch (err) {
				get().reportError(err, "Could not stop pi's turn");
			} finally {
				patch(id, (v) => (v.stopping ? { ...v, stopping: false } : v));
			}
		},
	};
};

/** Where the file has the streamed message (an assistant entry under its parent, appended after it started), or -1. */
function landedAt(sk: Skeleton, x: LiveStream): number {
	const parent = x.parentId === null ? -1 : indexOfId(sk, x.parentId);
	if (x.parentId !== null && parent < 0) return -1;
	for (let i = Math.min(x.baseCount, sk.count); i < sk.count; i++) if (sk.parent[i] === parent && sk.kind[i] === EntryKind.assistant) return i;
	return -1;
}
