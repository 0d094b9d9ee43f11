// The open sessions: opened once per file, followed on disk (catch-up + events), written through one
// door, closed. Flows get the registry explicitly (docs/services.md "The session registry").

import * as fs from "node:fs";
import * as path from "node:path";
import type { SessionSummary } from "../../shared/api";
import type { SessionEntry } from "../../shared/entries";
import { EntryKind } from "../../shared/skeleton";
import { lineageOf, SessionManager } from "../session";
import { ArborServiceError, toServiceError } from "./errors";
import type { EventHub } from "./events";
import type { SessionStartEvent } from "./extensions/types";
import { OpenSession, titleOf } from "./open-session";
import { FileWatcher } from "./watcher";

/** Why a session started, as pi's session_start tells extensions. */
export interface SessionStart {
	reason: SessionStartEvent["reason"];
	previousSessionFile?: string;
}

export interface SessionRegistryOptions {
	events: EventHub;
	/** Watch open files for appends by other processes. */
	watch: boolean;
	pollMs: number;
	/** Slice length of a cooperative open, ms (the core's default when undefined). */
	sliceMs?: number;
	/** A session was registered (pi's session_start goes to extensions). */
	onStart(s: OpenSession, start: SessionStart): void;
	/** A session_info entry arrived: the session's name may have changed. */
	onRenamed(s: OpenSession): void;
	/** A file was opened (recent files). */
	onOpened(file: string): void;
}

/** Caps what a summary carries; the count says how many there were. */
const MAX_WARNINGS_IN_SUMMARY = 200;

export class SessionRegistry {
	readonly #o: SessionRegistryOptions;
	readonly #sessions = new Map<string, OpenSession>();
	/** Files being opened: a second request for one waits for the same open. */
	readonly #opening = new Map<string, Promise<OpenSession>>();
	#nextId = 1;
	/** A session was opened already: the next one "resumes" (pi's session_start reasons). */
	#started = false;
	#disposed = false;

	constructor(options: SessionRegistryOptions) {
		this.#o = options;
	}

	// ---------------------------------------------------------------- lookup

	/** The open session, or not_found. */
	get(sessionId: string): OpenSession {
		const s = this.#sessions.get(sessionId);
		if (!s) throw new ArborServiceError("not_found", `No open session ${sessionId}.`);
		return s;
	}

	find(sessionId: string): OpenSession | undefined {
		return this.#sessions.get(sessionId);
	}

	all(): OpenSession[] {
		return [...this.#sessions.values()];
	}

	/** An entry of the session as indexed now, or not_found. */
	entry(s: OpenSession, id: string): SessionEntry {
		const e = s.manager.getEntry(id);
		if (!e) throw new ArborServiceError("not_found", `Entry ${id} is not in this session.`, s.manager.getSessionFile());
		return e;
	}

	summary(s: OpenSession): SessionSummary {
		const m = s.manager;
		const file = m.isPersisted() ? (m.getSessionFile() ?? null) : null;
		let fileSize = 0;
		if (file) {
			try {
				fileSize = fs.statSync(file).size;
			} catch {
				fileSize = 0;
			}
		}
		if (s.title === undefined) s.title = titleOf(m);
		return {
			sessionId: s.id,
			path: file,
			header: m.getHeader(),
			fileVersion: m.getFileVersion(),
			needsUpgrade: m.needsUpgrade(),
			title: s.title,
			parentFile: lineageOf(m.getHeader())?.file ?? null,
			warnings: m.getWarnings().slice(0, MAX_WARNINGS_IN_SUMMARY),
			warningCount: m.getWarningCount(),
			fileSize,
		};
	}

	// ---------------------------------------------------------------- open / close

	register(m: SessionManager, start: SessionStart = { reason: this.#started ? "resume" : "startup" }): OpenSession {
		this.#started = true;
		const s = new OpenSession(`s${this.#nextId++}`, m);
		s.sentCount = m.getEntryCount();
		s.labelsKey = JSON.stringify(m.getSkeletonDelta(s.sentCount).labels);
		this.#sessions.set(s.id, s);
		const file = m.isPersisted() ? m.getSessionFile() : undefined;
		if (this.#o.watch && file) s.watcher = new FileWatcher(file, () => this.catchUp(s), this.#o.pollMs);
		this.#o.onStart(s, start);
		return s;
	}

	/**
	 * Opens a file as a session, or returns the session already open on it. The file is read in slices
	 * (SessionManager.openCooperative), so a 1 GB file does not stop the other sessions from answering;
	 * a second request for a file still being opened waits for the same open.
	 */
	async open(file: string, start?: SessionStart): Promise<OpenSession> {
		const abs = path.resolve(file);
		for (const s of this.#sessions.values()) {
			if (s.manager.getSessionFile() === abs) return s;
		}
		const pending = this.#opening.get(abs);
		if (pending) return pending;
		const opening = this.#openFresh(abs, start);
		this.#opening.set(abs, opening);
		try {
			return await opening;
		} finally {
			this.#opening.delete(abs);
		}
	}

	async #openFresh(abs: string, start?: SessionStart): Promise<OpenSession> {
		if (!fs.existsSync(abs)) throw new ArborServiceError("not_found", `No such file: ${abs}`, abs);
		let lastReport = 0;
		let m: SessionManager;
		try {
			m = await SessionManager.openCooperative(abs, {
				sliceMs: this.#o.sliceMs,
				onProgress: (done: number, total: number) => {
					const now = Date.now();
					if (now - lastReport < 100 && done < total) return;
					lastReport = now;
					this.#o.events.emit({ type: "progress", sessionId: null, task: "open", done, total });
				},
			});
		} catch (err) {
			throw toServiceError(err);
		}
		if (this.#disposed) {
			m.close();
			throw new ArborServiceError("cancelled", "Arbor is shutting down.", abs);
		}
		const s = this.register(m, start);
		this.#o.onOpened(abs);
		return s;
	}

	close(s: OpenSession): void {
		s.closed = true;
		s.abort?.abort();
		s.watcher?.close();
		this.#sessions.delete(s.id);
		try {
			s.manager.close();
		} catch {
			// closing never fails the caller
		}
	}

	dispose(): void {
		this.#disposed = true;
		for (const s of [...this.#sessions.values()]) this.close(s);
	}

	// ---------------------------------------------------------------- following the file

	/** Read what other processes appended (or reload a replaced file) and tell clients; the watcher's call. */
	catchUp(s: OpenSession): void {
		if (!this.#sessions.has(s.id)) return;
		try {
			const r = s.manager.catchUp({ writerHoldsLeaf: s.leafFollowsPi });
			if (r.kind === "reloaded") this.reloaded(s, r.reason);
			else if (r.kind === "appended") this.sync(s);
			// omp rewrote its title line in place: the renderer takes the new summary (title) as it is, no refetch.
			if (r.kind === "title_changed" || (r.kind === "appended" && r.titleChanged)) {
				s.title = undefined;
				this.#o.events.emit({ type: "session_loaded", session: this.summary(s) });
			}
		} catch (err) {
			const e = toServiceError(err);
			this.#o.events.emit({ type: "error", sessionId: s.id, error: { code: e.code, message: e.message, file: e.file, line: e.line } });
		}
	}

	/**
	 * A live pi reported its leaf (its state after a turn, a tree move, a send): Arbor's leaf goes there, so
	 * every preview, dialog and the composer read pi's leaf (docs/live.md "One leaf"). While pi works it only
	 * appends: a reported leaf the file has already grown past (an ancestor of Arbor's leaf) is not taken back.
	 * A leaf the file does not have (pi writes a new session's first lines with its first answer) is left for
	 * the catch-up that brings it.
	 */
	followPiLeaf(s: OpenSession, leafId: string | null, working: boolean): void {
		if (!this.#sessions.has(s.id)) return;
		try {
			this.write(s, (m) => {
				const cur = m.getLeafId();
				if (cur === leafId) return;
				if (leafId === null) {
					if (!working) m.resetLeaf();
					return;
				}
				if (m.getEntry(leafId) === undefined) return;
				if (working && cur !== null && m.getBranchIds(cur).includes(leafId)) return;
				m.branch(leafId);
			});
		} catch {
			// The file cannot be read right now: the catch-up that follows reports it.
		}
	}

	/** Tell the client what changed in a session since the last sync: new entries, leaf, labels. */
	sync(s: OpenSession, opts: { fromHistory?: boolean } = {}): void {
		const m = s.manager;
		const count = m.getEntryCount();
		if (count < s.sentCount || m.getGeneration() !== s.generation) {
			// The core rebuilt its index (a reload inside a write) or changed entries the client already
			// holds (an appended entry is the missing parent of an earlier one, or re-uses its id): a delta
			// of the new entries alone would leave the client's copy different from the file.
			this.reloaded(s, m.getGeneration() !== s.generation && count >= s.sentCount ? "entries already shown changed on disk" : "file changed on disk");
			return;
		}
		const events = this.#o.events;
		const delta = m.getSkeletonDelta(s.sentCount);
		if (delta.ids.length > 0) {
			s.sentCount = delta.start + delta.ids.length;
			events.emit({ type: "session_appended", sessionId: s.id, delta });
			let renamed = false;
			for (let i = delta.start; i < s.sentCount && !renamed; i++) renamed = m.kindAt(i) === EntryKind.sessionInfo;
			if (renamed) {
				s.title = undefined;
				this.#o.onRenamed(s);
			}
		}
		const leafId = m.getLeafAnchorId();
		// The drawn resume point: usage lines pi's cache warmer appends every few minutes do not move it.
		const resumeLeafId = m.getResumeAnchorId();
		if (leafId !== s.lastLeafId || resumeLeafId !== s.lastResumeLeafId) {
			s.lastLeafId = leafId;
			s.lastResumeLeafId = resumeLeafId;
			if (!opts.fromHistory) s.history.push(leafId);
			events.emit({ type: "leaf_changed", sessionId: s.id, leafId, resumeLeafId });
		}
		const labelsKey = JSON.stringify(delta.labels);
		if (labelsKey !== s.labelsKey) {
			const first = s.labelsKey === "";
			s.labelsKey = labelsKey;
			if (!first) events.emit({ type: "labels_changed", sessionId: s.id });
		}
	}

	/** After a reload or rewrite: the client refetches the skeleton, so start counting afresh. */
	reloaded(s: OpenSession, reason: string): void {
		const m = s.manager;
		s.title = undefined;
		s.sentCount = m.getEntryCount();
		s.generation = m.getGeneration();
		s.labelsKey = JSON.stringify(m.getSkeletonDelta(s.sentCount).labels);
		s.lastLeafId = m.getLeafAnchorId();
		s.lastResumeLeafId = m.getResumeAnchorId();
		this.#o.events.emit({ type: "session_reloaded", sessionId: s.id, session: this.summary(s), reason });
		this.#o.events.emit({ type: "leaf_changed", sessionId: s.id, leafId: s.lastLeafId, resumeLeafId: s.lastResumeLeafId });
	}

	// ---------------------------------------------------------------- writing

	/**
	 * The one door for changes: catch up with the file (a reload found there reaches the client as
	 * session_reloaded, not as a confusing delta), run `fn` on the caught-up manager, report what changed.
	 * `fn` checks whatever it relies on against the caught-up index; core errors become service errors.
	 */
	write<T>(s: OpenSession, fn: (m: SessionManager) => T): T {
		this.catchUp(s);
		try {
			return fn(s.manager);
		} catch (err) {
			throw toServiceError(err);
		} finally {
			this.sync(s);
		}
	}

	/** Run an async flow after the previous one of the same session finished. */
	exclusive<T>(s: OpenSession, fn: () => Promise<T>): Promise<T> {
		const run = s.queue.then(fn, fn);
		s.queue = run.catch(() => undefined);
		return run.catch((err: unknown) => {
			throw toServiceError(err);
		});
	}
}
