// electron/services: the flows on top of the session core (open, navigate, branch, label, summaries,
// extensions, live files). One async method per Arbor API request; results and typed events. Plain Node.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type {
	ArborEvent, ArborSettings, ContextView, NavigateResult, RequestParams, RequestResult, SessionSummary,
} from "../../shared/api";
import type { SessionEntry, UserMessage } from "../../shared/entries";
import type { Skeleton } from "../../shared/skeleton";
import { SessionManager } from "../session";
// Not yet re-exported by electron/session/index.ts; switch to "../session" once it is.
import { listSessions } from "../session/library";
import { branchFlow } from "./branch-flow";
import { buildContextView } from "./context-view";
import { ArborServiceError, errorMessage, toServiceError } from "./errors";
import { createCommandContext, createEventContext } from "./extensions/context";
import { ExtensionHost } from "./extensions/host";
import type { ExtensionFailure } from "./extensions/types";
import type { FlowHost } from "./flow-host";
import { type ModelResolution, type ResolvedModel, resolveActiveModel } from "./models";
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
	#active: OpenSession | undefined;
	#disposed = false;
	readonly #flowHost: FlowHost;

	constructor(options: ArborServicesOptions = {}) {
		const env = options.env ?? process.env;
		this.#env = env;
		this.#settingsDir = options.settingsDir ?? path.join(os.homedir(), ".arbor");
		this.#piAgentDir = options.piAgentDir ?? env.PI_CODING_AGENT_DIR ?? path.join(os.homedir(), ".pi", "agent");
		this.#watch = options.watch ?? true;
		this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS;
		this.#sliceMs = options.sliceMs;
		this.#settings = new SettingsStore(this.#settingsDir, this.#piAgentDir);
		this.#extensions = new ExtensionHost({
			dirs: [path.join(this.#settingsDir, "extensions")],
			paths: options.extensionPaths ?? [],
			handlerTimeoutMs: options.extensionTimeoutMs,
			commandTimeoutMs: options.commandTimeoutMs,
			onFailure: (f) => this.#reportExtensionFailure(f),
			bindings: {
				appendEntry: (customType, data) => this.#withActive((s) => s.manager.appendCustomEntry(customType, data)),
				setLabel: (entryId, label) => this.#withActive((s) => s.manager.appendLabelChange(entryId, label)),
				setSessionName: (name) => this.#withActive((s) => s.manager.appendSessionInfo(name)),
				getSessionName: () => (this.#active ? (titleOf(this.#active.manager) ?? undefined) : undefined),
				notify: (extension, message, level) => this.#emit({ type: "notice", sessionId: this.#active?.id ?? null, level, message, source: extension }),
			},
		});
		this.#flowHost = {
			extensions: this.#extensions,
			emit: (e) => this.#emit(e),
			emitExtension: (s, event, ctx) => this.#emitExtension(s, event, ctx),
			eventContext: (s, signal, model) => this.#eventContext(s, signal, model),
			catchUp: (s) => this.#onFileChange(s),
			write: (s, fn) => this.#write(s, fn),
			resolveModel: () => this.#resolveModel(),
			entry: (s, id) => this.#entry(s, id),
			register: (m) => this.#register(m),
			openPath: (file) => this.#openPath(file),
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
		if (this.#count(m) < s.sentCount) {
			this.#reloaded(s, "file changed on disk");
			return;
		}
		const delta = m.getSkeletonDelta(s.sentCount);
		if (delta.ids.length > 0) {
			s.sentCount = delta.start + delta.ids.length;
			this.#emit({ type: "session_appended", sessionId: s.id, delta });
		}
		const leafId = m.getLeafId();
		const resumeLeafId = m.getResumeLeafId();
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

	/** After a reload or rewrite: the client refetches the skeleton, so start counting afresh. */
	#reloaded(s: OpenSession, reason: string): void {
		s.title = undefined;
		s.sentCount = this.#count(s.manager);
		s.labelsKey = JSON.stringify(s.manager.getSkeletonDelta(s.sentCount).labels);
		s.lastLeafId = s.manager.getLeafId();
		s.lastResumeLeafId = s.manager.getResumeLeafId();
		this.#emit({ type: "session_reloaded", sessionId: s.id, session: this.#summary(s), reason });
		this.#emit({ type: "leaf_changed", sessionId: s.id, leafId: s.lastLeafId, resumeLeafId: s.lastResumeLeafId });
	}

	#onFileChange(s: OpenSession): void {
		if (!this.#sessions.has(s.id)) return;
		try {
			const r = s.manager.catchUp();
			if (r.kind === "reloaded") this.#reloaded(s, r.reason);
			else if (r.kind === "appended") this.#sync(s);
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

	#register(m: SessionManager): OpenSession {
		const s = new OpenSession(`s${this.#nextId++}`, m);
		s.sentCount = this.#count(m);
		s.labelsKey = JSON.stringify(m.getSkeletonDelta(s.sentCount).labels);
		this.#sessions.set(s.id, s);
		const file = m.isPersistent() ? m.getSessionFile() : undefined;
		if (this.#watch && file) s.watcher = new FileWatcher(file, () => this.#onFileChange(s), this.#pollMs);
		return s;
	}

	/**
	 * Opens a file as a session, or returns the session already open on it. The file is read in slices
	 * (SessionManager.openCooperative), so a 1 GB file does not stop the other sessions from answering;
	 * a second request for a file still being opened waits for the same open.
	 */
	async #openPath(file: string): Promise<OpenSession> {
		const abs = path.resolve(file);
		for (const s of this.#sessions.values()) {
			if (s.manager.getSessionFile() === abs) return s;
		}
		const pending = this.#opening.get(abs);
		if (pending) return pending;
		const opening = this.#openFresh(abs);
		this.#opening.set(abs, opening);
		try {
			return await opening;
		} finally {
			this.#opening.delete(abs);
		}
	}

	async #openFresh(abs: string): Promise<OpenSession> {
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
		const s = this.#register(m);
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
		return listSessions(params.dirs, { env: { ...this.#env, PI_CODING_AGENT_DIR: this.#piAgentDir } });
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

	async #resolveModel(): Promise<ModelResolution> {
		return resolveActiveModel({ arbor: this.#settings.load().model, piAgentDir: this.#piAgentDir, env: this.#env });
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
		const prev = this.#active;
		this.#active = s;
		try {
			return await this.#extensions.emit(event, ctx);
		} finally {
			this.#active = prev;
		}
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
			return m.appendLabelChange(params.entryId, label);
		});
	}

	async savePosition(params: RequestParams<"savePosition">): Promise<RequestResult<"savePosition">> {
		const s = this.#session(params.sessionId);
		const leafId = s.manager.getLeafId();
		const entryId = this.#write(s, (m) => m.appendCustomEntry("arbor.position", { leafId, savedAt: new Date().toISOString() }));
		return { entryId };
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
			return redactSettings(this.#settings.update(patch));
		} catch (err) {
			throw toServiceError(err);
		}
	}

	async getActiveModel(_params: RequestParams<"getActiveModel">): Promise<RequestResult<"getActiveModel">> {
		const r = await this.#resolveModel();
		return r.ok ? r.resolved.info : null;
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
			reload: async () => {
				await this.#extensions.reload();
				this.#emit({ type: "commands_changed" });
			},
		});
		const prev = this.#active;
		this.#active = s;
		try {
			await this.#extensions.runCommand(command, params.args ?? "", ctx);
		} catch (err) {
			if (err instanceof ArborServiceError) throw err;
			throw new ArborServiceError("extension_error", `/${command.name} (${command.extension}) failed: ${errorMessage(err)}`);
		} finally {
			this.#active = prev;
		}
	}

	/** Arbor extra: load the extension folders again and tell clients the command list may have changed. */
	async reloadExtensions(): Promise<void> {
		await this.#extensions.reload();
		this.#emit({ type: "commands_changed" });
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
