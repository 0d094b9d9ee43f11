// Arbor's live service (docs/live.md): for every open session file, the running pi (with Arbor's extension)
// that holds it, if any. It connects to that pi, keeps its state, forwards its state and streamed messages as
// Arbor events, and hands the router's and the CLI's steering requests to it. A pi that starts later (or
// runs /arbor) is found by watching the registration folder; one that exits leaves the session in file mode.

import * as fs from "node:fs";
import type { ArborEvent, LiveSessionInfo } from "../../../shared/api";
import type { LiveState } from "../../../shared/live";
import { makePrivateDir } from "../../../shared-node/private";
import { LiveConnection, LiveError } from "./connection";
import { defaultLiveDir, registrationsFor, removeRegistration, sameFile } from "./registry";

export interface LiveServiceOptions {
	/** The registration folder (default ~/.arbor/live). */
	dir?: string;
	client: { name: string; version: string };
	emit: (e: ArborEvent) => void;
	/** Watch the folder for pis that start later (the app: yes; one-shot CLI commands: no). */
	watch?: boolean;
	/** How long a pi has to answer (default LIVE_ANSWER_MS, connection.ts). */
	answerMs?: number;
}

interface Tracked {
	sessionId: string;
	path: string;
	conn: LiveConnection | null;
	state: LiveState | null;
	otherPids: number[];
	/** The connection a dropped-message warning was shown for (once each). */
	warned?: LiveConnection;
	/** Serialises rescans of this session. */
	busy: Promise<void>;
	off: (() => void)[];
}

/** Connect to the pi that holds `file` (newest first); stale registrations on the way are removed. */
export async function connectToHolder(
	dir: string,
	file: string,
	client: { name: string; version: string },
	answerMs?: number,
): Promise<{ conn: LiveConnection; otherPids: number[] } | null> {
	const regs = registrationsFor(dir, file);
	for (const [i, reg] of regs.entries()) {
		try {
			const conn = await LiveConnection.connect(reg, client, { answerMs });
			// Those before it did not answer and were removed; those after are older pis on the same file.
			return { conn, otherPids: regs.slice(i + 1).map((r) => r.pid) };
		} catch (err) {
			// Nothing listens (a pid reused by another program): stale. A socket that is not the user's own: never
			// used, and its registration dropped. A stopped pi (timeout) keeps its registration: it may resume.
			if (err instanceof LiveError && (err.code === "unreachable" || err.code === "untrusted")) {
				removeRegistration(dir, reg);
				continue;
			}
			throw err;
		}
	}
	return null;
}

export class LiveService {
	readonly dir: string;
	readonly #o: LiveServiceOptions;
	readonly #tracked = new Map<string, Tracked>();
	#watcher: fs.FSWatcher | null = null;
	#rescanTimer: ReturnType<typeof setTimeout> | null = null;
	#disposed = false;

	constructor(o: LiveServiceOptions) {
		this.#o = o;
		this.dir = o.dir ?? defaultLiveDir();
	}

	#startWatching(): void {
		if (this.#watcher || this.#o.watch === false || this.#disposed) return;
		try {
			makePrivateDir(this.dir);
			this.#watcher = fs.watch(this.dir, () => this.#scheduleRescan());
			this.#watcher.on("error", () => {
				this.#watcher?.close();
				this.#watcher = null;
			});
		} catch {
			// No folder to watch (read-only home): pis are still found when a session is opened.
		}
	}

	#scheduleRescan(): void {
		if (this.#rescanTimer || this.#disposed) return;
		// A registration is written as temp + rename: a burst of change events, one look.
		this.#rescanTimer = setTimeout(() => {
			this.#rescanTimer = null;
			for (const t of this.#tracked.values()) void this.rescan(t.sessionId);
		}, 50);
	}

	/** Follow this open session's file; resolves once the first look (and connection) is done. */
	async track(sessionId: string, path: string | null): Promise<void> {
		if (!path || this.#disposed || this.#tracked.has(sessionId)) return;
		this.#tracked.set(sessionId, { sessionId, path, conn: null, state: null, otherPids: [], busy: Promise.resolve(), off: [] });
		this.#startWatching();
		await this.rescan(sessionId);
	}

	untrack(sessionId: string): void {
		const t = this.#tracked.get(sessionId);
		if (!t) return;
		this.#tracked.delete(sessionId);
		this.#drop(t);
	}

	#drop(t: Tracked): void {
		for (const off of t.off) off();
		t.off = [];
		t.conn?.closeWhenIdle();
		t.conn = null;
		t.state = null;
	}

	info(sessionId: string): LiveSessionInfo | null {
		const t = this.#tracked.get(sessionId);
		if (!t?.conn || !t.state) return null;
		const w = t.conn.welcome;
		return {
			pid: t.state.pid,
			agent: t.state.agent,
			agentVersion: t.state.agentVersion,
			extensionVersion: w.extensionVersion,
			model: t.state.model,
			thinkingLevel: t.state.thinkingLevel,
			status: t.state.status,
			leafId: t.state.leafId,
			sessionFile: t.state.sessionFile,
			capabilities: w.capabilities,
			otherPids: t.otherPids,
		};
	}

	/** The connection steering requests for this session go through, or null (file mode). */
	connection(sessionId: string): LiveConnection | null {
		const t = this.#tracked.get(sessionId);
		return t?.conn && !t.conn.closed ? t.conn : null;
	}

	/** Look again for the pi holding this session's file (serialised per session). */
	rescan(sessionId: string): Promise<void> {
		const t = this.#tracked.get(sessionId);
		if (!t) return Promise.resolve();
		t.busy = t.busy.then(() => this.#rescan(t)).catch(() => {});
		return t.busy;
	}

	async #rescan(t: Tracked): Promise<void> {
		if (this.#disposed || this.#tracked.get(t.sessionId) !== t) return;
		const regs = registrationsFor(this.dir, t.path);
		// The newest pi on the file is the one steered (the CLI picks the same): stay while it still is.
		if (t.conn && !t.conn.closed && regs[0]?.pid === t.conn.registration.pid) {
			const others = regs.filter((r) => r.pid !== t.conn!.registration.pid).map((r) => r.pid);
			if (others.join() !== t.otherPids.join()) {
				t.otherPids = others;
				this.#emitState(t);
			}
			return;
		}
		const hadLive = t.conn !== null;
		this.#drop(t);
		let found: Awaited<ReturnType<typeof connectToHolder>> = null;
		try {
			found = await connectToHolder(this.dir, t.path, this.#o.client, this.#o.answerMs);
		} catch (err) {
			this.#o.emit({
				type: "notice",
				sessionId: t.sessionId,
				level: "warning",
				message: `A live pi holds this file but Arbor could not connect: ${(err as Error).message}`,
				source: "live",
			});
		}
		if (this.#tracked.get(t.sessionId) !== t) {
			found?.conn.close();
			return;
		}
		if (!found) {
			if (hadLive)
				this.#o.emit({ type: "live_state", sessionId: t.sessionId, live: null, reason: "no live pi holds this file any more: Arbor acts on the file" });
			return;
		}
		const { conn, otherPids } = found;
		t.conn = conn;
		t.state = conn.welcome.state;
		t.otherPids = otherPids;
		t.off.push(
			conn.onEvent((e) => {
				if (e.type === "state") {
					t.state = e.state;
					// pi forked / switched to another file: this session is no longer the one it holds.
					if (!e.state.sessionFile || !sameFile(e.state.sessionFile, t.path)) {
						this.#drop(t);
						this.#o.emit({
							type: "live_state",
							sessionId: t.sessionId,
							live: null,
							reason: `pi ${e.state.pid} moved to ${e.state.sessionFile ?? "a session without a file"}: Arbor acts on this file`,
						});
						return;
					}
					this.#emitState(t);
				} else if (e.type === "message_update") {
					const s = e.stream;
					this.#o.emit({ type: "live_stream", sessionId: t.sessionId, phase: e.phase, key: s.key, parentId: s.parentId, message: s.message });
				}
			}),
			// A malformed event was dropped: said once per connection (a broken extension may send many).
			conn.onWarning((warning) => {
				if (t.warned === conn) return;
				t.warned = conn;
				this.#o.emit({ type: "notice", sessionId: t.sessionId, level: "warning", message: `${warning}; Arbor ignores such messages`, source: "live" });
			}),
			conn.onClose((reason) => {
				if (t.conn !== conn) return;
				t.conn = null;
				t.state = null;
				this.#o.emit({ type: "live_state", sessionId: t.sessionId, live: null, reason: `${reason}: Arbor acts on the file` });
				void this.rescan(t.sessionId);
			}),
		);
		this.#emitState(t);
	}

	#emitState(t: Tracked): void {
		this.#o.emit({ type: "live_state", sessionId: t.sessionId, live: this.info(t.sessionId) });
	}

	dispose(): void {
		this.#disposed = true;
		if (this.#rescanTimer) clearTimeout(this.#rescanTimer);
		this.#watcher?.close();
		for (const t of this.#tracked.values()) this.#drop(t);
		this.#tracked.clear();
	}
}
