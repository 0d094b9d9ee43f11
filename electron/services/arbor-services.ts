// ArborServices: one async method per Arbor API request (shared/api.ts), on top of the session registry,
// the extensions and the library (docs/services.md). Plain Node: the Electron app, the browser host, the
// CLI and tests share it.

import * as path from "node:path";
import { arborHome } from "../../shared-node/paths";
import type {
	ActiveModelInfo,
	ArborEvent,
	ArborSettings,
	ContextView,
	ExtensionListing,
	LiveSessionInfo,
	LoadWarning,
	NavigateResult,
	RequestParams,
	RequestResult,
	SessionSummary,
	PiConnection,
	PiConnectResult,
} from "../../shared/api";
import type { UserMessage } from "../../shared/entries";
import type { Skeleton } from "../../shared/skeleton";
import { FIRST_SKELETON_MIN_ENTRIES, FIRST_SKELETON_SIZE } from "../../shared/first-skeleton";
import { piAgentDir, SessionManager } from "../session";
import { compareView } from "./compare";
import { compareFiles } from "./compare-files";
import { buildContextView } from "./context-view";
import { ArborServiceError, toServiceError } from "./errors";
import { EventHub } from "./events";
import { exportBranch } from "./export";
import { prunedCopySteps } from "./prune";
import { runStepsCooperatively } from "../session/steps";
import { ExtensionBridge } from "./extension-bridge";
import { setShimAgentDir } from "./extensions/pi-coding-agent-shim";
import type { FlowContext } from "./flow-context";
import type { FamilyScope } from "./family";
import { LibraryRequests } from "./library-requests";
import { type ModelResolution, resolveActiveModel, sessionModelOf } from "./models";
import type { ArborServicesOptions } from "./arbor-services-options";
import { connectPi, piConnection } from "./pi-connect";
import { planNavigation, toPreview } from "./navigation";
import type { OpenSession } from "./open-session";
import { rollupCosts, subtreeStats } from "./rollup";
import { savePosition } from "./save-position";
import { SessionRegistry } from "./session-registry";
import { type RecentCheck, RecentFiles } from "./recent-files";
import { SettingsStore } from "./settings";
import { DEFAULT_POLL_MS } from "./watcher";
import { watchModelConfig } from "./config-watch";
import { LiveService } from "./live/live-service";
import { type Steering, type SteeringDeps, steeringFor, type SwitchAnswer } from "./steering";
import { livePiRuntime, TriesRequests } from "./tries";
import { TriesSessionRequests } from "./tries/session-requests";

export class ArborServices {
	readonly #piAgentDir: string;
	readonly #env: NodeJS.ProcessEnv;
	readonly #sliceMs: number | undefined;
	readonly #settings: SettingsStore;
	readonly #recent: RecentFiles;
	readonly #events = new EventHub();
	readonly #sessions: SessionRegistry;
	readonly #extensions: ExtensionBridge;
	readonly #library: LibraryRequests;
	readonly #flow: FlowContext;
	readonly #live: LiveService | null;
	readonly #steering: SteeringDeps;
	readonly #piExtensionDir: string | null;
	#unwatchConfig: (() => void) | null = null;
	readonly #tries: TriesRequests;
	readonly #triesApi: TriesSessionRequests = new TriesSessionRequests(() => this.#tries, {
		session: (id) => this.#sessions.get(id),
		all: () => this.#sessions.all(),
		open: (p) => this.openSession({ path: p }),
		steering: (id) => this.steering(id),
		notice: (sessionId, message) => this.#events.emit({ type: "notice", sessionId, level: "warning", message }),
	});
	#disposed = false;

	constructor(options: ArborServicesOptions = {}) {
		const env = options.env ?? process.env;
		this.#env = env;
		this.#piExtensionDir = options.piExtensionDir ?? null;
		const settingsDir = options.settingsDir ?? arborHome();
		this.#piAgentDir = options.piAgentDir ?? piAgentDir(env);
		this.#sliceMs = options.sliceMs;
		this.#settings = new SettingsStore(settingsDir, this.#piAgentDir);
		this.#recent = new RecentFiles(this.#settings, settingsDir);
		setShimAgentDir(this.#piAgentDir);
		this.#sessions = new SessionRegistry({
			events: this.#events,
			watch: options.watch ?? true,
			pollMs: options.pollMs ?? DEFAULT_POLL_MS,
			sliceMs: this.#sliceMs,
			onStart: (s, start) => this.#extensions.sessionStart(s, start),
			onRenamed: (s) => this.#extensions.nameMaybeChanged(s),
			onOpened: (file) => {
				if (options.recordRecent === false) return;
				try {
					this.#recent.record(file);
				} catch {
					// A read-only home must not stop a file from opening.
				}
			},
		});
		this.#extensions = new ExtensionBridge({
			sessions: this.#sessions,
			events: this.#events,
			settings: this.#settings,
			settingsDir,
			piAgentDir: this.#piAgentDir,
			extensionPaths: options.extensionPaths ?? [],
			handlerTimeoutMs: options.extensionTimeoutMs,
			commandTimeoutMs: options.commandTimeoutMs,
		});
		this.#library = new LibraryRequests({
			events: this.#events,
			settingsDir,
			env,
			piAgentDir: this.#piAgentDir,
			sliceMs: this.#sliceMs,
			disposed: () => this.#disposed,
		});
		this.#live =
			options.liveDir === null
				? null
				: new LiveService({
						dir: options.liveDir ?? path.join(settingsDir, "live"),
						client: options.liveClient ?? { name: "arbor", version: "0" },
						emit: (e) => {
							if (e.type === "live_state") this.#followLive(e.sessionId, e.live);
							this.#events.emit(e);
						},
						watch: options.watch !== false,
					});
		if (options.watch !== false)
			this.#unwatchConfig = watchModelConfig(this.#piAgentDir, settingsDir, () => this.#events.emit({ type: "model_config_changed" }));
		this.#tries = new TriesRequests({
			triesDir: options.triesDir ?? path.join(settingsDir, "tries"),
			piAgentDir: this.#piAgentDir,
			env,
			emit: (e) => this.#events.emit(e),
			switchLive: (source, kept) => this.#triesApi.switchLive(path.resolve(source), kept),
			...(this.#live ? { liveRuntime: livePiRuntime(this.#live.dir) } : {}),
		});
		this.#flow = { sessions: this.#sessions, extensions: this.#extensions, events: this.#events, resolveModel: (s) => this.#resolveModel(s) };
		this.#steering = { sessions: this.#sessions, flow: this.#flow, live: this.#live, piAgentDir: this.#piAgentDir, env };
		// Load now so load errors and the command list reach the UI without waiting for a first use.
		void this.#extensions.ready().then(() => {
			if (!this.#disposed && this.#extensions.host.listCommands().length > 0) this.#events.emit({ type: "commands_changed" });
		});
	}

	/** While a live pi holds the file, Arbor's leaf is pi's; when pi goes, it stays where pi was (docs/live.md "One leaf"). */
	#followLive(sessionId: string, live: LiveSessionInfo | null): void {
		const s = this.#sessions.find(sessionId);
		if (!s) return;
		s.leafFollowsPi = live !== null;
		if (live) this.#sessions.followPiLeaf(s, live.leafId, live.status === "streaming");
	}

	onEvent(listener: (e: ArborEvent) => void): () => void {
		return this.#events.on(listener);
	}

	// ---------------------------------------------------------------- sessions

	async openSession(params: RequestParams<"openSession">): Promise<RequestResult<"openSession">> {
		return this.#withLive(await this.#sessions.open(params.path));
	}

	/** The summary with the live pi that holds the file (looked for once here; live_state events follow). */
	async #withLive(s: OpenSession): Promise<SessionSummary> {
		const summary = this.#sessions.summary(s);
		if (!this.#live || !summary.path) return summary;
		await this.#live.track(s.id, summary.path);
		return { ...summary, live: this.#live.info(s.id) };
	}

	/** Arbor extra (CLI): what reading the file found wrong (a bad header makes it a bad file for the CLI), at most `max`. */
	loadWarnings(sessionId: string, max = 5): { file: string | null; warnings: LoadWarning[]; total: number } {
		const m = this.#sessions.get(sessionId).manager;
		return { file: m.getSessionFile() ?? null, warnings: m.getWarnings().slice(0, max), total: m.getWarningCount() };
	}

	/** Arbor extra (CLI, tests, extension flows): a new in-memory session, not backed by a file. */
	openInMemory(cwd?: string): SessionSummary {
		return this.#sessions.summary(this.#sessions.register(SessionManager.inMemory(cwd)));
	}

	async closeSession(params: RequestParams<"closeSession">): Promise<RequestResult<"closeSession">> {
		const s = this.#sessions.find(params.sessionId);
		if (!s) return;
		this.#live?.untrack(s.id);
		this.#sessions.close(s);
		this.#events.emit({ type: "session_closed", sessionId: s.id });
	}

	async getInitialSessions(_params: RequestParams<"getInitialSessions">): Promise<RequestResult<"getInitialSessions">> {
		return this.#sessions.all().map((s) => this.#sessions.summary(s));
	}

	async listSessions(params: RequestParams<"listSessions">): Promise<RequestResult<"listSessions">> {
		return this.#library.listSessions(params);
	}

	/** `scope`: what the caller may read (the router passes the path policy's; none for a trusted caller). */
	async getFamily(params: RequestParams<"getFamily"> & { scope?: FamilyScope }): Promise<RequestResult<"getFamily">> {
		return this.#library.getFamily(params);
	}

	async searchAllSessions(params: RequestParams<"searchAllSessions">): Promise<RequestResult<"searchAllSessions">> {
		return this.#library.searchAllSessions(params);
	}

	// ---------------------------------------------------------------- reads

	async getSkeleton(params: RequestParams<"getSkeleton">): Promise<Skeleton> {
		const s = this.#sessions.get(params.sessionId);
		const sk = s.manager.getSkeleton();
		s.sentCount = sk.count;
		return sk;
	}

	/** Does not count as sent: live deltas stay relative to the whole skeleton (getSkeleton). */
	async getFirstSkeleton(params: RequestParams<"getFirstSkeleton">): Promise<Skeleton | null> {
		const s = this.#sessions.get(params.sessionId);
		const min = Number(process.env.ARBOR_FIRST_SKELETON_MIN_ENTRIES);
		return s.manager.getFirstSkeleton(FIRST_SKELETON_SIZE, Number.isFinite(min) && min > 0 ? min : FIRST_SKELETON_MIN_ENTRIES);
	}

	async getPreviews(params: RequestParams<"getPreviews">): Promise<RequestResult<"getPreviews">> {
		return this.#sessions.get(params.sessionId).manager.getPreviews(params.indices);
	}

	async getCardFacts(params: RequestParams<"getCardFacts">): Promise<RequestResult<"getCardFacts">> {
		return this.#sessions.get(params.sessionId).manager.getCardFacts(params.indices);
	}

	async getUsageRollup(params: RequestParams<"getUsageRollup">): Promise<RequestResult<"getUsageRollup">> {
		return this.#sessions.get(params.sessionId).manager.getUsageRollup();
	}

	async entryAtLine(params: RequestParams<"entryAtLine">): Promise<RequestResult<"entryAtLine">> {
		const m = this.#sessions.get(params.sessionId).manager;
		const i = m.indexOfLine(params.line);
		return i < 0 ? null : m.idAt(i);
	}

	async getEntry(params: RequestParams<"getEntry">): Promise<RequestResult<"getEntry">> {
		const s = this.#sessions.get(params.sessionId);
		return this.#sessions.entry(s, params.id);
	}

	async getContext(params: RequestParams<"getContext">): Promise<ContextView> {
		const s = this.#sessions.get(params.sessionId);
		if (params.leafId !== null) this.#sessions.entry(s, params.leafId);
		return buildContextView(s.manager, params.leafId, params.as);
	}

	async search(params: RequestParams<"search">): Promise<RequestResult<"search">> {
		// A first query parses the whole file (seconds on 100k entries): it runs in slices so the session
		// keeps answering other requests, and a newer query from the same asker supersedes it.
		const s = this.#sessions.get(params.sessionId);
		const by = params.by ?? "toolbar";
		const seq = ++s.searchSeq[by];
		const manager = s.manager;
		const result = await manager.searchCooperative(params.query, params.scope, {
			sliceMs: this.#sliceMs,
			stop: () => s.searchSeq[by] !== seq || s.closed || s.manager !== manager,
		});
		if (result === undefined) throw new ArborServiceError("cancelled", "search superseded by a newer query (or the session was closed)");
		return result;
	}

	async previewNavigation(params: RequestParams<"previewNavigation">): Promise<RequestResult<"previewNavigation">> {
		const s = this.#sessions.get(params.sessionId);
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

	// ---------------------------------------------------------------- flows and writes

	/**
	 * Who steers this session now: its live pi or the file (steering/index.ts). Arbor extra: the CLI's
	 * steering commands and the requests below all go through it.
	 */
	steering(sessionId: string): Steering {
		return steeringFor(this.#steering, this.#sessions.get(sessionId));
	}

	/**
	 * /tree: move the leaf to `targetId`, optionally writing a summary of the branch being left
	 * (DESIGN.md "Navigation"; the order of steps follows pi's navigateTree).
	 */
	async navigate(params: RequestParams<"navigate">): Promise<NavigateResult> {
		const { sessionId, ...p } = params;
		return this.steering(sessionId).navigate(p);
	}

	/** /branch: a new session file from a user message (the message itself goes back to the composer). */
	async branchToFile(params: RequestParams<"branchToFile">): Promise<RequestResult<"branchToFile">> {
		const r = await this.steering(params.sessionId).fork({ entryId: params.entryId, position: "before", waitForIdle: params.waitForIdle });
		// A fork made by pi: Arbor opens the file pi moved to (live, since pi holds it now).
		if (r.path && !r.session) return { ...r, session: await this.openSession({ path: r.path }) };
		return r;
	}

	async setLabel(params: RequestParams<"setLabel">): Promise<RequestResult<"setLabel">> {
		return this.steering(params.sessionId).label(params.entryId, params.label);
	}

	// Live pi (docs/live.md): in file mode (no live pi holds the file) these answer as below.
	async getLiveState(params: RequestParams<"getLiveState">): Promise<RequestResult<"getLiveState">> {
		const s = this.#sessions.get(params.sessionId);
		return this.#live?.info(s.id) ?? null;
	}

	async send(params: RequestParams<"send">): Promise<RequestResult<"send">> {
		const { sessionId, ...p } = params;
		return this.steering(sessionId).send(p);
	}

	async abort(params: RequestParams<"abort">): Promise<RequestResult<"abort">> {
		return this.steering(params.sessionId).abort();
	}

	/** Arbor extra (a kept try, issue 30): the live pi holding this session's file continues `path` instead. */
	async switchSession(params: { sessionId: string; path: string; waitForIdle?: boolean }): Promise<SwitchAnswer> {
		return this.steering(params.sessionId).switchSession(params.path, { waitForIdle: params.waitForIdle });
	}

	async savePosition(params: RequestParams<"savePosition">): Promise<RequestResult<"savePosition">> {
		return { entryId: savePosition(this.#sessions, this.#sessions.get(params.sessionId), params.entryId) };
	}

	async getResumePoint(params: RequestParams<"getResumePoint">): Promise<RequestResult<"getResumePoint">> {
		const m = this.#sessions.get(params.sessionId).manager;
		const st = m.getResumePointStatus();
		const id = (i: number): string | null => (i >= 0 ? (m.idAt(i) ?? null) : null);
		return {
			resumeLeafId: id(st.resumeLeaf),
			anchorId: id(st.anchor),
			newestConversationId: id(st.newestConversation),
			stale: st.stale,
			suggestedId: id(st.suggested),
		};
	}

	async appendUserMessage(params: RequestParams<"appendUserMessage">): Promise<RequestResult<"appendUserMessage">> {
		const s = this.#sessions.get(params.sessionId);
		if (!params.text.trim()) throw new ArborServiceError("bad_request", "The message is empty.");
		const message: UserMessage = { role: "user", content: [{ type: "text", text: params.text }], timestamp: Date.now() };
		const entryId = this.#sessions.write(s, (m) => m.appendMessage(message));
		return { entryId };
	}

	async leafHistory(params: RequestParams<"leafHistory">): Promise<RequestResult<"leafHistory">> {
		const s = this.#sessions.get(params.sessionId);
		const m = s.manager;
		const id = s.history.step(params.direction, (leaf) => leaf === null || m.getEntry(leaf) !== undefined);
		if (id !== undefined && id !== m.getLeafId()) {
			if (id === null) m.resetLeaf();
			else m.branch(id);
			this.#sessions.sync(s, { fromHistory: true });
		}
		return { leafId: m.getLeafId(), canBack: s.history.canBack(), canForward: s.history.canForward() };
	}

	async upgradeLegacy(params: RequestParams<"upgradeLegacy">): Promise<RequestResult<"upgradeLegacy">> {
		const s = this.#sessions.get(params.sessionId);
		let backupPath: string;
		try {
			backupPath = s.manager.upgradeLegacy();
		} catch (err) {
			throw toServiceError(err);
		}
		s.watcher?.sync();
		this.#sessions.reloaded(s, "upgraded");
		// The upgrade replaced the file (atomically, a new inode): it is still the one the user chose.
		const file = s.manager.getSessionFile();
		if (file && this.#recent.check(file).kind !== "not_recent") {
			try {
				this.#recent.record(file);
			} catch {
				// A read-only home must not fail the upgrade.
			}
		}
		return { backupPath };
	}

	/** Whether `path` is in Open Recent and still the very file the user opened (the router's port). */
	async checkRecentFile(path: string): Promise<RecentCheck> {
		try {
			return this.#recent.check(path);
		} catch {
			// Unreadable settings only mean no recent files; the request is still judged by the policy.
			return { kind: "not_recent" };
		}
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

	async getActiveModel(params: RequestParams<"getActiveModel">): Promise<RequestResult<"getActiveModel">> {
		// The same resolution the navigate flow makes for this session, so the status bar names the model a
		// summary really uses (a closed session falls back to the choice for a session of its own).
		const s = params.sessionId !== undefined ? this.#sessions.find(params.sessionId) : undefined;
		const r = await this.#resolveModel(s);
		return r.ok ? r.resolved.info : null;
	}

	/**
	 * Arbor extra (`arbor model [FILE]`): the model a summary would use and where it came from, or why there
	 * is none; with a session, the one a summary in it uses.
	 */
	async modelStatus(sessionId?: string): Promise<{ ok: true; info: ActiveModelInfo } | { ok: false; reason: string }> {
		const r = await this.#resolveModel(sessionId !== undefined ? this.#sessions.get(sessionId) : undefined);
		return r.ok ? { ok: true, info: r.resolved.info } : { ok: false, reason: r.reason };
	}

	async listCommands(_params: RequestParams<"listCommands">): Promise<RequestResult<"listCommands">> {
		await this.#extensions.ready();
		return this.#extensions.host.listCommands();
	}

	async runExtensionCommand(params: RequestParams<"runExtensionCommand">): Promise<RequestResult<"runExtensionCommand">> {
		const s = this.#sessions.get(params.sessionId);
		await this.#extensions.runCommand(s, params, {
			model: async () => {
				const r = await this.#resolveModel();
				return r.ok ? r.resolved : undefined;
			},
			navigate: (p) => this.navigate(p),
			branchToFile: (p) => this.branchToFile(p),
		});
	}

	/** The folders of every extension module of the last load (the hosts' crash guard treats them as extension code). */
	extensionFolders(): string[] {
		return this.#extensions.folders();
	}

	async getPiConnection(_params: RequestParams<"getPiConnection"> = {}): Promise<PiConnection> {
		return piConnection(this.#piExtensionDir);
	}

	async connectPi(_params: RequestParams<"connectPi"> = {}): Promise<PiConnectResult> {
		return connectPi(this.#piExtensionDir, this.#env);
	}

	async listExtensions(_params: RequestParams<"listExtensions"> = {}): Promise<ExtensionListing> {
		return this.#extensions.list();
	}

	async setExtensionEnabled(params: RequestParams<"setExtensionEnabled">): Promise<ExtensionListing> {
		return this.#extensions.setEnabled(params);
	}

	async compareBranches(params: RequestParams<"compareBranches">): Promise<RequestResult<"compareBranches">> {
		if (!("sessionId" in params)) {
			const openManager = (file: string) => this.#sessions.all().find((s) => s.manager.getSessionFile() === file)?.manager;
			return compareFiles(openManager, params.a, params.b, this.#sliceMs);
		}
		const s = this.#sessions.get(params.sessionId);
		this.#sessions.entry(s, params.a);
		this.#sessions.entry(s, params.b);
		return compareView(s.manager, params.a, params.b);
	}

	async getRollupCosts(params: RequestParams<"getRollupCosts">): Promise<RequestResult<"getRollupCosts">> {
		return rollupCosts(this.#sessions.get(params.sessionId).manager);
	}

	async getSubtreeStats(params: RequestParams<"getSubtreeStats">): Promise<RequestResult<"getSubtreeStats">> {
		const s = this.#sessions.get(params.sessionId);
		this.#sessions.entry(s, params.entryId);
		return subtreeStats(s.manager, params.entryId);
	}

	async exportBranch(params: RequestParams<"exportBranch">): Promise<RequestResult<"exportBranch">> {
		const s = this.#sessions.get(params.sessionId);
		if (params.leafId !== undefined) this.#sessions.entry(s, params.leafId);
		const data = exportBranch(s.manager, params.format, params.leafId);
		const base = path.basename(s.manager.getSessionFile() ?? "session.jsonl").replace(/\.jsonl$/i, "");
		const leaf = params.leafId ?? s.manager.getLeafId() ?? "empty";
		const ext = params.format === "jsonl" ? "jsonl" : params.format;
		const mimeType = params.format === "md" ? "text/markdown" : params.format === "html" ? "text/html" : "application/x-ndjson";
		return { text: data.toString("utf8"), fileName: `${base}.${leaf}.${ext}`, mimeType };
	}

	async savePrunedCopy(params: RequestParams<"savePrunedCopy">): Promise<RequestResult<"savePrunedCopy">> {
		const s = this.#sessions.get(params.sessionId);
		for (const id of params.dropIds) this.#sessions.entry(s, id);
		// In slices with progress, like opening: a 1 GB source must not stop the host from answering.
		let last = 0;
		let total = 0;
		const progress = (done: number, all: number): void => {
			total = all;
			const now = Date.now();
			if (now - last < 100 && done < all) return;
			last = now;
			this.#events.emit({ type: "progress", sessionId: s.id, task: "pruned copy", done: Math.min(done, all - 1), total: all });
		};
		try {
			const r = await runStepsCooperatively(
				prunedCopySteps(s.manager, params.dropIds, undefined, progress),
				this.#sliceMs ?? 8,
				() => this.#disposed || s.closed,
			);
			if (!r) throw new ArborServiceError("cancelled", "the session was closed before the pruned copy was saved; nothing was saved");
			return { path: r.file, kept: r.kept, dropped: r.dropped, tornTailBytes: r.tornTailBytes };
		} catch (err) {
			throw toServiceError(err);
		} finally {
			// Done (or failed): the status bar's task ends.
			if (total > 0) this.#events.emit({ type: "progress", sessionId: s.id, task: "pruned copy", done: total, total });
		}
	}

	// ---------------------------------------------------------------- tries (docs/tries.md, tries/session-requests.ts)

	startTries = async (p: RequestParams<"startTries">) => this.#triesApi.start(p);
	stopTries = async (p: RequestParams<"stopTries">) => this.#tries.stop(p.runId, p.index);
	keepTry = async (p: RequestParams<"keepTry">) => this.#triesApi.keep(p);
	discardTries = async (p: RequestParams<"discardTries">) => this.#tries.discard(p.runId);
	getTryDiff = async (p: RequestParams<"getTryDiff">) => this.#tries.diff(p.runId, p.index, p.path);
	listTries = async (_p: RequestParams<"listTries">) => this.#tries.list();
	prepareTries = async (p: RequestParams<"prepareTries">) => this.#triesApi.prepare(p);

	async cancel(params: RequestParams<"cancel">): Promise<RequestResult<"cancel">> {
		this.#sessions.find(params.sessionId)?.abort?.abort();
	}

	/**
	 * Catch up with the file(s) now, exactly as the watcher does on a change (events included). For hosts
	 * and tests that must not depend on when fs.watch or the poll fires.
	 */
	catchUpNow(sessionId?: string): void {
		for (const s of sessionId === undefined ? this.#sessions.all() : [this.#sessions.get(sessionId)]) this.#sessions.catchUp(s);
	}

	dispose(): void {
		if (this.#disposed) return;
		this.#disposed = true;
		// Tries still running are stopped; their records stay, so the next start lists what they left.
		void this.#tries.dispose();
		this.#live?.dispose();
		this.#unwatchConfig?.();
		this.#sessions.dispose();
		this.#events.clear();
	}
}

/** Settings as clients see them: an API key is a secret of the main process (the renderer shows untrusted content). */
function redactSettings(settings: ArborSettings): ArborSettings {
	const { apiKey, ...model } = settings.model;
	return { ...settings, model: apiKey ? { ...model, apiKeySet: true } : model };
}

export type { ArborServicesOptions };
