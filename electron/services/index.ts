// electron/services: the flows on top of the session core (open, navigate, branch, label, summaries,
// extensions, live files). One async method per Arbor API request; results and typed events. Plain Node.

import { AsyncLocalStorage } from "node:async_hooks";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type {
	ActiveModelInfo, ArborEvent, ArborSettings, ContextView, ExtensionListing, NavigateResult, RequestParams, RequestResult, SessionSummary,
} from "../../shared/api";
import type { SessionEntry, UserMessage } from "../../shared/entries";
import { EntryKind, type Skeleton } from "../../shared/skeleton";
import { piAgentDir, SAVED_POSITION_TYPE, SessionManager } from "../session";
// Not yet re-exported by electron/session/index.ts; switch to "../session" once it is.
import { type ExactCount, exactEntryCountSteps, listSessions } from "../session/library";
import { runStepsCooperatively } from "../session/steps";
import { sessionFamily } from "./family";
import { indexedFileList, SearchIndex } from "./search-index";
import { branchFlow } from "./branch-flow";
import { buildContextView } from "./context-view";
import { ArborServiceError, errorMessage, toServiceError } from "./errors";
import { createCommandContext, createEventContext, sessionNameOf } from "./extensions/context";
import { discoverPiExtensions } from "./extensions/discovery";
import { ExtensionHost } from "./extensions/host";
import { setShimAgentDir } from "./extensions/pi-coding-agent-shim";
import type { ExtensionFailure, SessionStartEvent } from "./extensions/types";
import { readJsonFile } from "./fs-util";
import type { FlowHost } from "./flow-host";
import { type ModelResolution, type ResolvedModel, resolveActiveModel, sessionModelOf } from "./models";
import { navigateFlow } from "./navigate-flow";
import { planNavigation, toPreview } from "./navigation";
import { OpenSession, titleOf } from "./open-session";
import { SettingsStore } from "./settings";
import { compareView } from "./compare";
import { exportBranch, savePrunedCopy } from "./export";
import { rollupCosts, subtreeStats } from "./rollup";
import { DEFAULT_POLL_MS, FileWatcher } from "./watcher";

export { ArborServiceError } from "./errors";
export type { ResolvedModel } from "./models";

export interface ArborServicesOptions {
	/** Arbor's own folder (settings.json, extensions/). Default ~/.arbor. */
	settingsDir?: string;
	/** pi's agent folder (settings.json, auth.json, models.json). Default $PI_CODING_AGENT_DIR or ~/.pi/agent. */
	piAgentDir?: string;
	/** Extra extension files or folders (`--extension PATH`). */
	extensionPaths?: string[];
	/** Environment for provider keys (default process.env). */
	env?: NodeJS.ProcessEnv;
	/** Watch open files for appends by other processes (default true). */
	watch?: boolean;
	/** Stat-poll interval of the file watcher, ms (default 500). */
	pollMs?: number;
	/** Per-handler timeout for extension event handlers, ms (default 30 s). */
	extensionTimeoutMs?: number;
	/** Timeout for extension commands, ms (default 10 min). */
	commandTimeoutMs?: number;
	/**
	 * Opening a file and searching hand the thread back to other requests after this much work, ms
	 * (default 20): a 1 GB open or a first search of seconds never stops the other sessions.
	 */
	sliceMs?: number;
}

type Listener = (e: ArborEvent) => void;

/** Caps what a summary carries; the count says how many there were. */
const MAX_WARNINGS_IN_SUMMARY = 200;

export class ArborServices {
	readonly #settingsDir: string;
	readonly #piAgentDir: string;
	readonly #env: NodeJS.ProcessEnv;
	readonly #watch: boolean;
	readonly #pollMs: number;
	readonly #sliceMs: number | undefined;
	/** Files being opened: a second request for one waits for the same open. */
	readonly #opening = new Map<string, Promise<OpenSession>>();
	readonly #settings: SettingsStore;
	readonly #extensions: ExtensionHost;
	readonly #sessions = new Map<string, OpenSession>();
	readonly #listeners = new Set<Listener>();
	#nextId = 1;
	/** Session whose extension handler / command is running (target of pi.appendEntry, pi.setLabel). */
	readonly #activeStore = new AsyncLocalStorage<OpenSession>();
	/** Follows each handler and command through its awaits: two sessions' handlers can run at once. */
	get #active(): OpenSession | undefined {
		return this.#activeStore.getStore();
	}
	#disposed = false;
	/** A session was opened already: the next one "resumes" (pi's session_start reasons). */
	#started = false;
	readonly #flowHost: FlowHost;

	constructor(options: ArborServicesOptions = {}) {
		const env = options.env ?? process.env;
		this.#env = env;
		this.#settingsDir = options.settingsDir ?? path.join(os.homedir(), ".arbor");
		this.#piAgentDir = options.piAgentDir ?? piAgentDir(env);
		this.#watch = options.watch ?? true;
		this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS;
		this.#sliceMs = options.sliceMs;
		this.#settings = new SettingsStore(this.#settingsDir, this.#piAgentDir);
		setShimAgentDir(this.#piAgentDir);
		this.#extensions = new ExtensionHost({
			dirs: [path.join(this.#settingsDir, "extensions")],
			paths: options.extensionPaths ?? [],
			// pi's extensions run only when the user enabled them (docs/extensions.md).
			extraEntries: () => {
				const enabled = new Set(this.#enabledExtensions());
				return discoverPiExtensions(this.#piAgentDir, process.cwd()).entries.filter((e) => enabled.has(e.path));
			},
			handlerTimeoutMs: options.extensionTimeoutMs,
			commandTimeoutMs: options.commandTimeoutMs,
			onFailure: (f) => this.#reportExtensionFailure(f),
			bindings: {
				appendEntry: (customType, data) => this.#withActive((s) => s.manager.appendCustomEntry(customType, data)),
				setLabel: (entryId, label) => this.#withActive((s) => s.manager.appendLabelChange(entryId, label)),
				setSessionName: (name) => this.#withActive((s) => s.manager.appendSessionInfo(name)),
				getSessionName: () => (this.#active ? (titleOf(this.#active.manager) ?? undefined) : undefined),
				notify: (extension, message, level) => this.#emit({ type: "notice", sessionId: this.#active?.id ?? null, level, message, source: extension }),
				getPiSettings: () => {
					const pi = readJsonFile(path.join(this.#piAgentDir, "settings.json"));
					return typeof pi === "object" && pi !== null && !Array.isArray(pi) ? (pi as Record<string, unknown>) : {};
				},
			},
		});
		this.#flowHost = {
			extensions: this.#extensions,
			emit: (e) => this.#emit(e),
			emitExtension: (s, event, ctx) => this.#emitExtension(s, event, ctx),
			eventContext: (s, signal, model) => this.#eventContext(s, signal, model),
			catchUp: (s) => this.#onFileChange(s),
			write: (s, fn) => this.#write(s, fn),
			resolveModel: (s?: OpenSession) => this.#resolveModel(s),
			entry: (s, id) => this.#entry(s, id),
			register: (m, start) => this.#register(m, start),
			openPath: (file, start) => this.#openPath(file, start),
			summary: (s) => this.#summary(s),
			reloaded: (s, reason) => this.#reloaded(s, reason),
		};
		// Load now so load errors and the command list reach the UI without waiting for a first use.
		void this.#extensions.ready().then(() => {
			if (!this.#disposed && this.#extensions.listCommands().length > 0) this.#emit({ type: "commands_changed" });
		});
	}

	// ---------------------------------------------------------------- events

	onEvent(listener: Listener): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	#emit(e: ArborEvent): void {
		for (const l of [...this.#listeners]) {
			try {
				l(e);
			} catch {
				// A listener's failure (a closed socket) must not break the flow that emitted.
			}
		}
	}

	#reportExtensionFailure(f: ExtensionFailure): void {
		this.#emit({
			type: "error",
			sessionId: this.#active?.id ?? null,
			error: { code: "extension_error", message: `Extension ${path.basename(f.extension)} failed in ${f.event}: ${f.message}`, file: f.extension },
		});
	}

	#withActive(fn: (s: OpenSession) => void): void {
		const s = this.#active;
		if (!s) throw new Error("no session is active for this extension call");
		fn(s);
		this.#sync(s);
	}

	#count(m: SessionManager): number {
		return m.getEntryCount();
	}

	/** Tell the client what changed in a session since the last sync: new entries, leaf, labels. */
	#sync(s: OpenSession, opts: { fromHistory?: boolean } = {}): void {
		const m = s.manager;
		if (this.#count(m) < s.sentCount || m.getGeneration() !== s.generation) {
			// The core rebuilt its index (a reload inside a write) or changed entries the client already
			// holds (an appended entry is the missing parent of an earlier one, or re-uses its id): a delta
			// of the new entries alone would leave the client's copy different from the file.
			this.#reloaded(s, m.getGeneration() !== s.generation && this.#count(m) >= s.sentCount ? "entries already shown changed on disk" : "file changed on disk");
			return;
		}
		const delta = m.getSkeletonDelta(s.sentCount);
		if (delta.ids.length > 0) {
			s.sentCount = delta.start + delta.ids.length;
			this.#emit({ type: "session_appended", sessionId: s.id, delta });
			let renamed = false;
			for (let i = delta.start; i < s.sentCount && !renamed; i++) renamed = m.kindAt(i) === EntryKind.sessionInfo;
			if (renamed) this.#nameMaybeChanged(s);
		}
		const leafId = m.getLeafAnchorId();
		// The drawn resume point: usage lines pi's cache warmer appends every few minutes do not move it.
		const resumeLeafId = m.getResumeAnchorId();
		if (leafId !== s.lastLeafId || resumeLeafId !== s.lastResumeLeafId) {
			s.lastLeafId = leafId;
			s.lastResumeLeafId = resumeLeafId;
			if (!opts.fromHistory) s.history.push(leafId);
			this.#emit({ type: "leaf_changed", sessionId: s.id, leafId, resumeLeafId });
		}
		const labelsKey = JSON.stringify(delta.labels);
		if (labelsKey !== s.labelsKey) {
			const first = s.labelsKey === "";
			s.labelsKey = labelsKey;
			if (!first) this.#emit({ type: "labels_changed", sessionId: s.id });
		}
	}

	/** pi 1.6's session_info_changed, when the session's name really changed (a session_info entry arrived). */
	#nameMaybeChanged(s: OpenSession): void {
		s.title = undefined;
		const name = sessionNameOf(s.manager);
		if (name === s.sessionName) return;
		s.sessionName = name;
		if (this.#extensions.hasHandlers("session_info_changed")) void this.#emitExtension(s, { type: "session_info_changed", name }, this.#eventContext(s));
	}

	/** pi 1.6's session_start, queued on the session so its flows run after the handlers. */
	#sessionStart(s: OpenSession, reason: SessionStartEvent["reason"], previousSessionFile?: string): void {
		s.sessionName = sessionNameOf(s.manager);
		const event: SessionStartEvent = { type: "session_start", reason, ...(previousSessionFile ? { previousSessionFile } : {}) };
		void this.#exclusive(s, async () => {
			await this.#extensions.ready();
			// No context is built (nothing read) for the many opens no extension listens to.
			if (s.closed || !this.#extensions.hasHandlers("session_start")) return;
			await this.#emitExtension(s, event, this.#eventContext(s));
		}).catch(() => undefined);
	}

	#enabledExtensions(): string[] {
		try {
			return this.#settings.load().enabledExtensions ?? [];
		} catch {
			return [];
		}
	}

	/** After a reload or rewrite: the client refetches the skeleton, so start counting afresh. */
	#reloaded(s: OpenSession, reason: string): void {
		s.title = undefined;
		s.sentCount = this.#count(s.manager);
		s.generation = s.manager.getGeneration();
		s.labelsKey = JSON.stringify(s.manager.getSkeletonDelta(s.sentCount).labels);
		s.lastLeafId = s.manager.getLeafAnchorId();
		s.lastResumeLeafId = s.manager.getResumeAnchorId();
		this.#emit({ type: "session_reloaded", sessionId: s.id, session: this.#summary(s), reason });
		this.#emit({ type: "leaf_changed", sessionId: s.id, leafId: s.lastLeafId, resumeLeafId: s.lastResumeLeafId });
	}

	#onFileChange(s: OpenSession): void {
		if (!this.#sessions.has(s.id)) return;
		try {
			const r = s.manager.catchUp();
			if (r.kind === "reloaded") this.#reloaded(s, r.reason);
			else if (r.kind === "appended") this.#sync(s);
			// omp rewrote its title line in place: the renderer takes the new summary (title) as it is, no refetch.
			if (r.kind === "title_changed" || (r.kind === "appended" && r.titleChanged)) {
				s.title = undefined;
				this.#emit({ type: "session_loaded", session: this.#summary(s) });
			}
		} catch (err) {
			const e = toServiceError(err);
			this.#emit({ type: "error", sessionId: s.id, error: { code: e.code, message: e.message, file: e.file, line: e.line } });
		}
	}

	// ---------------------------------------------------------------- sessions

	#session(sessionId: string): OpenSession {
		const s = this.#sessions.get(sessionId);
		if (!s) throw new ArborServiceError("not_found", `No open session ${sessionId}.`);
		return s;
	}

	#entry(s: OpenSession, id: string): SessionEntry {
		const e = s.manager.getEntry(id);
		if (!e) throw new ArborServiceError("not_found", `Entry ${id} is not in this session.`, s.manager.getSessionFile());
		return e;
	}

	#summary(s: OpenSession): SessionSummary {
		const m = s.manager;
		const file = m.isPersistent() ? (m.getSessionFile() ?? null) : null;
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
			warnings: m.getWarnings().slice(0, MAX_WARNINGS_IN_SUMMARY),
			warningCount: m.getWarningCount(),
			fileSize,
		};
	}

	#register(m: SessionManager, start: { reason: SessionStartEvent["reason"]; previousSessionFile?: string } = { reason: this.#started ? "resume" : "startup" }): OpenSession {
		this.#started = true;
		const s = new OpenSession(`s${this.#nextId++}`, m);
		s.sentCount = this.#count(m);
		s.labelsKey = JSON.stringify(m.getSkeletonDelta(s.sentCount).labels);
		this.#sessions.set(s.id, s);
		const file = m.isPersistent() ? m.getSessionFile() : undefined;
		if (this.#watch && file) s.watcher = new FileWatcher(file, () => this.#onFileChange(s), this.#pollMs);
		this.#sessionStart(s, start.reason, start.previousSessionFile);
		return s;
	}

	/**
	 * Opens a file as a session, or returns the session already open on it. The file is read in slices
	 * (SessionManager.openCooperative), so a 1 GB file does not stop the other sessions from answering;
	 * a second request for a file still being opened waits for the same open.
	 */
	async #openPath(file: string, start?: { reason: SessionStartEvent["reason"]; previousSessionFile?: string }): Promise<OpenSession> {
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

	async #openFresh(abs: string, start?: { reason: SessionStartEvent["reason"]; previousSessionFile?: string }): Promise<OpenSession> {
		if (!fs.existsSync(abs)) throw new ArborServiceError("not_found", `No such file: ${abs}`, abs);
		let lastReport = 0;
		let m: SessionManager;
		try {
			m = await SessionManager.openCooperative(abs, {
				sliceMs: this.#sliceMs,
				onProgress: (done: number, total: number) => {
					const now = Date.now();
					if (now - lastReport < 100 && done < total) return;
					lastReport = now;
					this.#emit({ type: "progress", sessionId: null, task: "open", done, total });
				},
			});
		} catch (err) {
			throw toServiceError(err);
		}
		if (this.#disposed) {
			m.close();
			throw new ArborServiceError("cancelled", "Arbor is shutting down.", abs);
		}
		const s = this.#register(m, start);
		try {
			this.#settings.addRecentFile(abs);
		} catch {
			// A read-only home must not stop a file from opening.
		}
		return s;
	}

	/** Run an async flow after the previous one of the same session finished. */
	#exclusive<T>(s: OpenSession, fn: () => Promise<T>): Promise<T> {
		const run = s.queue.then(fn, fn);
		s.queue = run.catch(() => undefined);
		return run.catch((err: unknown) => {
			throw toServiceError(err);
		});
	}

	/** Run a synchronous write and report its events; core errors become service errors. */
	#write<T>(s: OpenSession, fn: (m: SessionManager) => T): T {
		// Catch up first ourselves: the core would do it silently inside the write, and a reload found
		// there must reach the client as session_reloaded, not as a confusing delta.
		this.#onFileChange(s);
		let out: T;
		try {
			out = fn(s.manager);
		} catch (err) {
			throw toServiceError(err);
		} finally {
			this.#sync(s);
		}
		return out;
	}

	// ---------------------------------------------------------------- requests

	async openSession(params: RequestParams<"openSession">): Promise<RequestResult<"openSession">> {
		return this.#summary(await this.#openPath(params.path));
	}

	/** Arbor extra (CLI, tests, extension flows): a new in-memory session, not backed by a file. */
	openInMemory(cwd?: string): SessionSummary {
		return this.#summary(this.#register(SessionManager.inMemory(cwd)));
	}

	async closeSession(params: RequestParams<"closeSession">): Promise<RequestResult<"closeSession">> {
		const s = this.#sessions.get(params.sessionId);
		if (!s) return;
		this.#close(s);
		this.#emit({ type: "session_closed", sessionId: s.id });
	}

	#close(s: OpenSession): void {
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

	async getInitialSessions(_params: RequestParams<"getInitialSessions">): Promise<RequestResult<"getInitialSessions">> {
		return [...this.#sessions.values()].map((s) => this.#summary(s));
	}

	async listSessions(params: RequestParams<"listSessions">): Promise<RequestResult<"listSessions">> {
		// pi's folder is the one these services were given, whatever the environment says.
		const items = listSessions(params.dirs, { env: { ...this.#env, PI_CODING_AGENT_DIR: this.#piAgentDir } });
		// Counts refined earlier are exact while the file keeps its size and mtime; the rest ("≈") are
		// counted in the background and sent as library_counts events.
		const todo: string[] = [];
		for (const it of items) {
			if (it.entryCountExact || it.error) continue;
			const known = this.#exactCounts.get(it.path);
			if (known && known.size === it.size && known.mtimeMs === it.mtimeMs) {
				it.entryCount = known.entryCount;
				it.entryCountExact = true;
			} else todo.push(it.path);
		}
		if (todo.length > 0) setImmediate(() => void this.#refineCounts(todo));
		return items;
	}

	#exactCounts = new Map<string, ExactCount>();
	#countGeneration = 0;

	/** Counts the files' entries one at a time in cooperative slices; a newer listSessions call takes over. */
	async #refineCounts(files: string[]): Promise<void> {
		const generation = ++this.#countGeneration;
		const stale = () => this.#disposed || generation !== this.#countGeneration;
		for (const file of files) {
			const c = await runStepsCooperatively(exactEntryCountSteps(file), this.#sliceMs ?? 8, stale);
			if (stale()) return;
			if (!c) continue;
			this.#exactCounts.set(file, c);
			this.#emit({ type: "library_counts", counts: [{ path: c.path, entryCount: c.entryCount, size: c.size, mtimeMs: c.mtimeMs }] });
		}
	}

	async getFamily(params: RequestParams<"getFamily">): Promise<RequestResult<"getFamily">> {
		try {
			return sessionFamily(params.path, { env: { ...this.#env, PI_CODING_AGENT_DIR: this.#piAgentDir } });
		} catch (err) {
			throw new ArborServiceError("bad_file", errorMessage(err), params.path);
		}
	}

	#searchIndex: SearchIndex | null = null;
	#indexing: Promise<void> | null = null;
	#indexAgain = false;

	/** Brings the index up to date in cooperative slices (one build at a time; a request during it queues one more). */
	#updateIndex(dirs: string[] | undefined): Promise<void> {
		const index = (this.#searchIndex ??= new SearchIndex({ indexDir: path.join(this.#settingsDir, "search-index") }));
		if (this.#indexing) {
			this.#indexAgain = true;
			return this.#indexing;
		}
		const run = async () => {
			do {
				this.#indexAgain = false;
				const files = indexedFileList(dirs, { env: { ...this.#env, PI_CODING_AGENT_DIR: this.#piAgentDir } });
				let last = 0;
				await runStepsCooperatively(index.updateSteps(files, (p) => {
					const now = Date.now();
					if (p.phase !== "done" && now - last < 200 && p.filesDone !== 0) return;
					last = now;
					if (p.filesTotal > 0 || p.phase === "done") this.#emit({ type: "search_index", phase: p.phase === "done" ? "done" : "indexing", filesDone: p.filesDone, filesTotal: p.filesTotal, bytesDone: p.bytesDone, bytesTotal: p.bytesTotal });
				}), this.#sliceMs ?? 8, () => this.#disposed);
			} while (this.#indexAgain && !this.#disposed);
		};
		this.#indexing = run().finally(() => {
			this.#indexing = null;
		});
		return this.#indexing;
	}

	async searchAllSessions(params: RequestParams<"searchAllSessions">): Promise<RequestResult<"searchAllSessions">> {
		const building = this.#updateIndex(params.dirs);
		// A first search waits for nothing: it answers from what is indexed (partial) while the build runs.
		// A quick update (a few appended tails) finishes within a moment, so wait briefly for it.
		await Promise.race([building, new Promise((ok) => setTimeout(ok, 150))]);
		const index = this.#searchIndex as SearchIndex;
		const files = params.dirs && params.dirs.length ? indexedFileList(params.dirs) : undefined;
		const result = index.search(params.query, { limit: params.limit ?? 50, files });
		return { ...result, partial: result.partial || this.#indexing !== null };
	}

	async getSkeleton(params: RequestParams<"getSkeleton">): Promise<Skeleton> {
		const s = this.#session(params.sessionId);
		const sk = s.manager.getSkeleton();
		s.sentCount = sk.count;
		return sk;
	}

	async getPreviews(params: RequestParams<"getPreviews">): Promise<RequestResult<"getPreviews">> {
		return this.#session(params.sessionId).manager.getPreviews(params.indices);
	}

	async getCardFacts(params: RequestParams<"getCardFacts">): Promise<RequestResult<"getCardFacts">> {
		return this.#session(params.sessionId).manager.getCardFacts(params.indices);
	}

	async getUsageRollup(params: RequestParams<"getUsageRollup">): Promise<RequestResult<"getUsageRollup">> {
		return this.#session(params.sessionId).manager.getUsageRollup();
	}

	async getEntry(params: RequestParams<"getEntry">): Promise<RequestResult<"getEntry">> {
		const s = this.#session(params.sessionId);
		return this.#entry(s, params.id);
	}

	async getContext(params: RequestParams<"getContext">): Promise<ContextView> {
		const s = this.#session(params.sessionId);
		if (params.leafId !== null) this.#entry(s, params.leafId);
		return buildContextView(s.manager, params.leafId);
	}

	async search(params: RequestParams<"search">): Promise<RequestResult<"search">> {
		// A first query parses the whole file (seconds on 100k entries): it runs in slices so the session
		// keeps answering other requests, and a newer query for the same session supersedes it.
		const s = this.#session(params.sessionId);
		const seq = ++s.searchSeq;
		const manager = s.manager;
		const result = await manager.searchCooperative(params.query, params.scope, {
			sliceMs: this.#sliceMs,
			stop: () => s.searchSeq !== seq || s.closed || s.manager !== manager,
		});
		if (result === undefined) throw new ArborServiceError("cancelled", "search superseded by a newer query (or the session was closed)");
		return result;
	}

	async previewNavigation(params: RequestParams<"previewNavigation">): Promise<RequestResult<"previewNavigation">> {
		const s = this.#session(params.sessionId);
		return toPreview(s.manager, planNavigation(s.manager, params.targetId));
	}

	/**
	 * For a session: pi's rule for a resumed session (its own model, project settings of its header's
	 * cwd); without one, the choice pi would make in Arbor's working folder (docs/summaries.md).
	 */
	async #resolveModel(s?: OpenSession): Promise<ModelResolution> {
		const sessionModel = s ? sessionModelOf(s.manager.getBranch()) : undefined;
		return resolveActiveModel({
			arbor: this.#settings.load().model,
			piAgentDir: this.#piAgentDir,
			env: this.#env,
			cwd: s ? s.manager.getCwd() || process.cwd() : process.cwd(),
			...(sessionModel ? { sessionModel } : {}),
		});
	}

	#eventContext(s: OpenSession, signal?: AbortSignal, model?: ResolvedModel): Record<string, unknown> {
		return createEventContext({
			manager: s.manager,
			sessionId: s.id,
			signal,
			abort: () => s.abort?.abort(),
			model,
			notify: (message, level) => this.#emit({ type: "notice", sessionId: s.id, level, message }),
		});
	}

	async #emitExtension(s: OpenSession, event: Parameters<ExtensionHost["emit"]>[0], ctx: unknown): Promise<Record<string, unknown> | undefined> {
		await this.#extensions.ready();
		if (!this.#extensions.hasHandlers(event.type)) return undefined;
		return this.#activeStore.run(s, () => this.#extensions.emit(event, ctx));
	}

	/**
	 * /tree: move the leaf to `targetId`, optionally writing a summary of the branch being left
	 * (DESIGN.md "Navigation"; the order of steps follows pi's navigateTree).
	 */
	async navigate(params: RequestParams<"navigate">): Promise<NavigateResult> {
		const s = this.#session(params.sessionId);
		return this.#exclusive(s, () => navigateFlow(this.#flowHost, s, params));
	}


	/** /branch: a new session file from a user message (the message itself goes back to the composer). */
	async branchToFile(params: RequestParams<"branchToFile">): Promise<RequestResult<"branchToFile">> {
		const s = this.#session(params.sessionId);
		return this.#exclusive(s, () => branchFlow(this.#flowHost, s, params.entryId));
	}


	async setLabel(params: RequestParams<"setLabel">): Promise<RequestResult<"setLabel">> {
		const s = this.#session(params.sessionId);
		this.#entry(s, params.entryId);
		const label = params.label?.trim() ? params.label.trim() : undefined;
		this.#write(s, (m) => {
			// The write catches up with the file first; another program may have replaced it meanwhile.
			if (m.getEntry(params.entryId) === undefined) {
				throw new ArborServiceError("conflict", `Entry ${params.entryId} is no longer in ${m.getSessionFile() ?? "the session"}: the file was replaced on disk and has been reloaded. Nothing was written.`);
			}
			// Parented on pi's resume point, not the in-app leaf: labelling an entry while looking at another
			// branch must not move where pi resumes (pi #9930).
			return m.appendLabelChange(params.entryId, label, { atResume: true });
		});
	}

	async savePosition(params: RequestParams<"savePosition">): Promise<RequestResult<"savePosition">> {
		const s = this.#session(params.sessionId);
		const leafId = s.manager.getLeafId();
		const entryId = this.#write(s, (m) => m.appendCustomEntry(SAVED_POSITION_TYPE, { leafId, savedAt: new Date().toISOString() }));
		return { entryId };
	}

	async getResumePoint(params: RequestParams<"getResumePoint">): Promise<RequestResult<"getResumePoint">> {
		const m = this.#session(params.sessionId).manager;
		const st = m.getResumePointStatus();
		const id = (i: number): string | null => (i >= 0 ? (m.idAt(i) ?? null) : null);
		return {
			resumeLeafId: id(st.resumeLeaf), anchorId: id(st.anchor), newestConversationId: id(st.newestConversation),
			stale: st.stale, suggestedId: id(st.suggested),
		};
	}

	async appendUserMessage(params: RequestParams<"appendUserMessage">): Promise<RequestResult<"appendUserMessage">> {
		const s = this.#session(params.sessionId);
		if (!params.text.trim()) throw new ArborServiceError("bad_request", "The message is empty.");
		const message: UserMessage = { role: "user", content: [{ type: "text", text: params.text }], timestamp: Date.now() };
		const entryId = this.#write(s, (m) => m.appendMessage(message));
		return { entryId };
	}

	async leafHistory(params: RequestParams<"leafHistory">): Promise<RequestResult<"leafHistory">> {
		const s = this.#session(params.sessionId);
		const m = s.manager;
		const id = s.history.step(params.direction, (leaf) => leaf === null || m.getEntry(leaf) !== undefined);
		if (id !== undefined && id !== m.getLeafId()) {
			if (id === null) m.resetLeaf();
			else m.branch(id);
			this.#sync(s, { fromHistory: true });
		}
		return { leafId: m.getLeafId(), canBack: s.history.canBack(), canForward: s.history.canForward() };
	}

	async upgradeLegacy(params: RequestParams<"upgradeLegacy">): Promise<RequestResult<"upgradeLegacy">> {
		const s = this.#session(params.sessionId);
		let backupPath: string;
		try {
			backupPath = s.manager.upgradeLegacy();
		} catch (err) {
			throw toServiceError(err);
		}
		s.watcher?.sync();
		this.#reloaded(s, "upgraded");
		return { backupPath };
	}

	async getSettings(_params: RequestParams<"getSettings">): Promise<ArborSettings> {
		return redactSettings(this.#settings.load());
	}

	async setSettings(params: RequestParams<"setSettings">): Promise<ArborSettings> {
		try {
			const patch = params.settings;
			// The renderer never sees the stored key, so a model update without one keeps it; "" clears it.
			if (patch.model && patch.model.apiKey === undefined) {
				const stored = this.#settings.load().model.apiKey;
				if (stored) patch.model = { ...patch.model, apiKey: stored };
			}
			if (patch.model) delete patch.model.apiKeySet;
			// Running code is chosen through setExtensionEnabled only, which checks what discovery found.
			delete patch.enabledExtensions;
			return redactSettings(this.#settings.update(patch));
		} catch (err) {
			throw toServiceError(err);
		}
	}

	async getActiveModel(_params: RequestParams<"getActiveModel">): Promise<RequestResult<"getActiveModel">> {
		const r = await this.#resolveModel();
		return r.ok ? r.resolved.info : null;
	}

	/** Arbor extra (`arbor model`): the model a summary would use and where it came from, or why there is none. */
	async modelStatus(): Promise<{ ok: true; info: ActiveModelInfo } | { ok: false; reason: string }> {
		const r = await this.#resolveModel();
		return r.ok ? { ok: true, info: r.resolved.info } : { ok: false, reason: r.reason };
	}

	/** Arbor extra: why no model is active (for the settings dialog), or null when one is. */
	async getModelProblem(): Promise<string | null> {
		const r = await this.#resolveModel();
		return r.ok ? null : r.reason;
	}

	async listCommands(_params: RequestParams<"listCommands">): Promise<RequestResult<"listCommands">> {
		await this.#extensions.ready();
		return this.#extensions.listCommands();
	}

	async runExtensionCommand(params: RequestParams<"runExtensionCommand">): Promise<RequestResult<"runExtensionCommand">> {
		const s = this.#session(params.sessionId);
		await this.#extensions.ready();
		const command = this.#extensions.getCommand(params.name);
		if (!command) throw new ArborServiceError("not_found", `No extension command /${params.name}.`);
		if (params.entryId !== undefined) this.#entry(s, params.entryId);
		const r = await this.#resolveModel();
		const controller = new AbortController();
		const ctx = createCommandContext({
			manager: s.manager,
			sessionId: s.id,
			signal: controller.signal,
			abort: () => controller.abort(),
			model: r.ok ? r.resolved : undefined,
			notify: (message, level) => this.#emit({ type: "notice", sessionId: s.id, level, message, source: command.extension }),
			entryId: params.entryId,
			navigateTree: async (targetId, options) => {
				const res = await this.navigate({ sessionId: s.id, targetId, ...options });
				return { cancelled: res.cancelled };
			},
			branch: async (entryId) => {
				const res = await this.branchToFile({ sessionId: s.id, entryId });
				return { cancelled: res.cancelled };
			},
			reload: () => this.reloadExtensions(),
		});
		try {
			await this.#activeStore.run(s, () => this.#extensions.runCommand(command, params.args ?? "", ctx));
		} catch (err) {
			if (err instanceof ArborServiceError) throw err;
			throw new ArborServiceError("extension_error", `/${command.name} (${command.extension}) failed: ${errorMessage(err)}`);
		}
	}

	/** The folders of every extension module of the last load (the hosts' crash guard treats them as extension code). */
	extensionFolders(): string[] {
		return [...new Set(this.#extensions.records.map((r) => path.dirname(r.path)))];
	}

	async listExtensions(_params: RequestParams<"listExtensions"> = {}): Promise<ExtensionListing> {
		await this.#extensions.ready();
		const enabled = new Set(this.#enabledExtensions());
		const pi = discoverPiExtensions(this.#piAgentDir, process.cwd());
		const records = new Map(this.#extensions.records.map((r) => [r.path, r]));
		const extensions: ExtensionListing["extensions"] = [];
		for (const r of this.#extensions.records) {
			if (r.origin !== "arbor" && r.origin !== "cli") continue;
			extensions.push({ path: r.path, name: r.name, origin: r.origin, enabled: true, loaded: r.loaded, ...(r.error ? { error: r.error } : {}), commands: r.commands });
		}
		for (const e of pi.entries) {
			const r = records.get(e.path);
			// A pi extension also given with --extension is listed once, as the command line's.
			if (r && (r.origin === "arbor" || r.origin === "cli")) continue;
			extensions.push({
				path: e.path,
				name: path.basename(e.path).replace(/\.[^.]+$/, "") === "index" ? path.basename(path.dirname(e.path)) : path.basename(e.path),
				origin: e.origin,
				...(e.package !== undefined ? { package: e.package } : {}),
				...(e.piEnabled === false ? { piEnabled: false as const } : {}),
				enabled: enabled.has(e.path),
				loaded: r?.loaded === true,
				...(r?.error ? { error: r.error } : {}),
				commands: r?.commands ?? [],
			});
		}
		return { extensions, missing: pi.missing, ...(pi.untrustedProject ? { untrustedProject: pi.untrustedProject } : {}) };
	}

	async setExtensionEnabled(params: RequestParams<"setExtensionEnabled">): Promise<ExtensionListing> {
		const found = discoverPiExtensions(this.#piAgentDir, process.cwd()).entries.some((e) => e.path === params.path);
		if (!found) throw new ArborServiceError("not_found", `${params.path} is not one of the pi extensions Arbor found (see \`arbor extensions\`).`);
		const current = this.#enabledExtensions();
		const next = params.enabled ? [...new Set([...current, params.path])] : current.filter((p) => p !== params.path);
		try {
			this.#settings.update({ enabledExtensions: next });
		} catch (err) {
			throw toServiceError(err);
		}
		await this.reloadExtensions();
		return this.listExtensions({});
	}

	/** Arbor extra: load the extension folders again and tell clients the command list may have changed. */
	async reloadExtensions(): Promise<void> {
		// pi 1.6's reload: the old extensions hear session_shutdown, the new ones session_start, per open session.
		const open = [...this.#sessions.values()];
		for (const s of open) await this.#emitExtension(s, { type: "session_shutdown", reason: "reload" }, this.#eventContext(s)).catch(() => undefined);
		await this.#extensions.reload();
		this.#emit({ type: "commands_changed" });
		for (const s of open) if (!s.closed) this.#sessionStart(s, "reload");
	}

	async compareBranches(params: RequestParams<"compareBranches">): Promise<RequestResult<"compareBranches">> {
		const s = this.#session(params.sessionId);
		this.#entry(s, params.a);
		this.#entry(s, params.b);
		return compareView(s.manager, params.a, params.b);
	}

	async getRollupCosts(params: RequestParams<"getRollupCosts">): Promise<RequestResult<"getRollupCosts">> {
		return rollupCosts(this.#session(params.sessionId).manager);
	}

	async getSubtreeStats(params: RequestParams<"getSubtreeStats">): Promise<RequestResult<"getSubtreeStats">> {
		const s = this.#session(params.sessionId);
		this.#entry(s, params.entryId);
		return subtreeStats(s.manager, params.entryId);
	}

	async exportBranch(params: RequestParams<"exportBranch">): Promise<RequestResult<"exportBranch">> {
		const s = this.#session(params.sessionId);
		if (params.leafId !== undefined) this.#entry(s, params.leafId);
		const data = exportBranch(s.manager, params.format, params.leafId);
		const base = path.basename(s.manager.getSessionFile() ?? "session.jsonl").replace(/\.jsonl$/i, "");
		const leaf = params.leafId ?? s.manager.getLeafId() ?? "empty";
		const ext = params.format === "jsonl" ? "jsonl" : params.format;
		const mimeType = params.format === "md" ? "text/markdown" : params.format === "html" ? "text/html" : "application/x-ndjson";
		return { text: data.toString("utf8"), fileName: `${base}.${leaf}.${ext}`, mimeType };
	}

	async savePrunedCopy(params: RequestParams<"savePrunedCopy">): Promise<RequestResult<"savePrunedCopy">> {
		const s = this.#session(params.sessionId);
		for (const id of params.dropIds) this.#entry(s, id);
		try {
			const r = savePrunedCopy(s.manager, params.dropIds);
			return { path: r.file, kept: r.kept, dropped: r.dropped };
		} catch (err) {
			throw toServiceError(err);
		}
	}

	async cancel(params: RequestParams<"cancel">): Promise<RequestResult<"cancel">> {
		this.#sessions.get(params.sessionId)?.abort?.abort();
	}

	/**
	 * Catch up with the file(s) now, exactly as the watcher does on a change (events included). For hosts
	 * and tests that must not depend on when fs.watch or the poll fires.
	 */
	catchUpNow(sessionId?: string): void {
		for (const s of sessionId === undefined ? [...this.#sessions.values()] : [this.#session(sessionId)]) this.#onFileChange(s);
	}

	dispose(): void {
		if (this.#disposed) return;
		this.#disposed = true;
		for (const s of [...this.#sessions.values()]) this.#close(s);
		this.#listeners.clear();
	}
}

/** Settings as clients see them: an API key is a secret of the main process (the renderer shows untrusted content). */
function redactSettings(settings: ArborSettings): ArborSettings {
	const { apiKey, ...model } = settings.model;
	return { ...settings, model: apiKey ? { ...model, apiKeySet: true } : model };
}
