// SessionManager: the seed's tree model over one pi/omp session file (DESIGN.md "The core model"), pi's API
// plus Arbor's additions. It delegates to parts with one job each (docs/session-core.md "Parts"): the file's
// index (entry-index.ts), reading a file (line-reader.ts), the file on disk — catch-up and appends
// (live-file.ts), branch files and the legacy upgrade (branch-file.ts), and client views (views.ts).

import { dirname, join, resolve } from "node:path";
import type { LoadWarning, SearchScope } from "../../shared/api";
import type { AgentMessage, ContentBlock, SessionContext, SessionEntry, SessionHeader, TitleSlot } from "../../shared/entries";
import { createParent, newSessionHeader } from "./formats/pi/header";
import type { SessionFormat } from "./formats/format";
import type { Skeleton, SkeletonDelta } from "../../shared/skeleton";
import { EntryKind } from "../../shared/skeleton";
import type { CardFacts, UsageRollup } from "../../shared/card-facts";
import { resumePointStatus, type ResumePointStatus } from "../../shared/resume-point";
import { currentSystemMessage } from "../../shared/system-message";
import { FIRST_SKELETON_MIN_ENTRIES, FIRST_SKELETON_SIZE } from "../../shared/first-skeleton";
import { type BranchOptions, createBranchedSession, upgradeLegacy } from "./branch-file";
import { buildContextFromPath, buildProjectionFromPath, contextEntryPositions, type SessionProjection } from "./context";
import { type EntryIndex, isSyntheticId, type SessionTreeNode } from "./entry-index";
import { defaultSessionDir } from "./formats/pi/dirs";
import { createSessionId, sessionFileName } from "./ids";
import { type CatchUpProbe, type CatchUpResult, LiveFile } from "./live-file";
import {
	branchSummaryRecord,
	compactionRecord,
	customMessageRecord,
	customRecord,
	labelRecord,
	messageRecord,
	modelChangeRecord,
	type RecordHead,
	sessionInfoRecord,
	thinkingLevelRecord,
} from "./records";
import { runSteps, runStepsCooperatively } from "./steps";
import { ClientViews } from "./views";

export type { BranchOptions } from "./branch-file";
export type { SessionTreeNode } from "./entry-index";
export type { CatchUpProbe, CatchUpResult, CatchUpTrace } from "./live-file";

/** customType of the entry Arbor's "Save position for pi" appends (it moves pi's resume point on purpose). */
export const SAVED_POSITION_TYPE = "arbor.position";

export interface OpenOptions {
	onProgress?(doneBytes: number, totalBytes: number): void;
	/**
	 * Keep entry bodies on disk and index lines with the byte skimmer. Default: only for files of
	 * SMALL_FILE_BYTES and more (smaller files keep every parsed entry). Tests force it to prove both paths agree.
	 */
	lazy?: boolean;
	/** Observes (and, in tests, steers) how the open manager follows the file: see CatchUpProbe. */
	probe?: CatchUpProbe;
	/** Read the file as this format (formats/format.ts) instead of the one detected from its first bytes and path. */
	format?: SessionFormat;
}

export interface CreateOptions {
	/** Path (or id) of the session this one continues from (pi's `/fork` from a root message). */
	parentSession?: string;
}

export class SessionManager {
	/** The file on disk and its current index (replaced whenever the file is read from the start). */
	readonly #live: LiveFile;
	#dir: string;
	readonly #views = new ClientViews();

	private constructor(live: LiveFile, dir: string) {
		this.#live = live;
		this.#dir = dir;
	}

	/** The current index (a reload or a branch replaces it: never keep it across calls). */
	get #ix(): EntryIndex {
		return this.#live.index;
	}

	// ---------------------------------------------------------------- construction

	static open(path: string, options: OpenOptions = {}): SessionManager {
		const sm = SessionManager.#forFile(path, options);
		runSteps(sm.#openSteps(options));
		return sm;
	}

	/**
	 * open() in slices of about `sliceMs` that hand the thread back between them (steps.ts), for the app's
	 * main process: opening a 1 GB file takes seconds, and the other open sessions keep answering meanwhile.
	 * The same manager as open() when it resolves.
	 */
	static async openCooperative(path: string, options: OpenOptions & { sliceMs?: number } = {}): Promise<SessionManager> {
		const sm = SessionManager.#forFile(path, options);
		await runStepsCooperatively(sm.#openSteps(options), options.sliceMs ?? 20);
		return sm;
	}

	static #forFile(path: string, options: OpenOptions): SessionManager {
		const file = resolve(path);
		return new SessionManager(
			new LiveFile(true, process.cwd(), { path: file, lazy: options.lazy, probe: options.probe, format: options.format }),
			dirname(file),
		);
	}

	*#openSteps(options: OpenOptions): Generator<void, void> {
		// Opening only reads: a torn line a killed Arbor left is repaired by the next write (write.ts).
		yield* this.#live.loadSteps(options.onProgress);
		const cwd = this.#live.header.cwd;
		if (typeof cwd === "string") this.#live.cwd = cwd;
	}

	static create(cwd: string, sessionDir?: string, options: CreateOptions = {}): SessionManager {
		const dir = resolve(sessionDir ?? defaultSessionDir(cwd));
		const sm = new SessionManager(new LiveFile(true, cwd), dir);
		sm.#newSession(createParent(options));
		return sm;
	}

	static inMemory(cwd: string = process.cwd()): SessionManager {
		const sm = new SessionManager(new LiveFile(false, cwd), "");
		sm.#newSession(undefined);
		return sm;
	}

	#newSession(parentFile: string | undefined): void {
		const timestamp = new Date().toISOString();
		const id = createSessionId();
		this.#live.startNew(newSessionHeader(id, timestamp, this.#live.cwd, parentFile), join(this.#dir, sessionFileName(timestamp, id)));
	}

	// ---------------------------------------------------------------- pi's accessors

	isPersisted(): boolean {
		return this.#live.persistent;
	}
	getSessionFile(): string | undefined {
		return this.#live.path;
	}
	getSessionDir(): string {
		return this.#dir;
	}
	getSessionId(): string {
		return this.#live.header.id;
	}
	getCwd(): string {
		return this.#live.cwd;
	}
	getHeader(): SessionHeader {
		return this.#live.header;
	}
	/** The open file's format (formats/registry.ts): pi for a new session. Read-only formats refuse every write (`read_only_format`). */
	getFormat(): SessionFormat {
		return this.#live.format;
	}

	/** omp's title slot line, when the file starts with one. */
	getTitleSlot(): TitleSlot | undefined {
		return this.#live.titleSlot as TitleSlot | undefined;
	}
	getLeafId(): string | null {
		return this.#ix.leafId;
	}
	getFileVersion(): number {
		return this.#live.fileVersion;
	}
	needsUpgrade(): boolean {
		return this.#live.legacy;
	}
	getWarnings(): LoadWarning[] {
		return this.#ix.warnings.slice();
	}
	getWarningCount(): number {
		return this.#ix.warningCount;
	}
	getEntryCount(): number {
		return this.#ix.cols.count;
	}
	getResumeLeafId(): string | null {
		return this.#ix.resumeLeafId();
	}

	/**
	 * The resume leaf, or its nearest ancestor when it is an entry no tree shows (usage / model_usage lines):
	 * where pi's resume point is drawn. null when there is no entry (or only such lines).
	 */
	getResumeAnchorId(): string | null {
		return this.#ix.resumeAnchorId();
	}

	/** The in-app leaf as drawn: itself, or its nearest ancestor when it is a line no tree shows (usage). */
	getLeafAnchorId(): string | null {
		const ix = this.#ix;
		const i = ix.anchorOf(ix.leafIndex());
		return i >= 0 ? ix.cols.ids[i] : null;
	}

	/**
	 * Whether pi's resume point (the last line) sits on another branch than the newest conversation
	 * (shared/resume-point.ts). A resume leaf Arbor's "Save position for pi" wrote (custom entry
	 * `arbor.position`) is deliberate and never stale.
	 */
	getResumePointStatus(): ResumePointStatus {
		const ix = this.#ix;
		const c = ix.cols;
		return resumePointStatus({ count: c.count, parent: c.parent, kind: c.kind, resumeLeaf: ix.resumeIndex }, (i) => {
			if (c.kind[i] !== EntryKind.custom) return false;
			return (ix.cache.get(i) as { customType?: unknown }).customType === SAVED_POSITION_TYPE;
		});
	}

	getLeafEntry(): SessionEntry | undefined {
		const leaf = this.#ix.leafId;
		return leaf === null ? undefined : this.getEntry(leaf);
	}

	getEntry(id: string): SessionEntry | undefined {
		const ix = this.#ix;
		const i = ix.byId.get(id);
		return i === undefined ? undefined : ix.cache.get(i);
	}

	/** Entry at a file-order index (skeleton index). */
	getEntryAt(index: number): SessionEntry | undefined {
		const ix = this.#ix;
		if (!(index >= 0 && index < ix.cols.count)) return undefined;
		return ix.cache.get(index);
	}

	indexOf(id: string): number {
		return this.#ix.byId.get(id) ?? -1;
	}

	/** File-order index of the entry read from a 1-based line of the file (-1: no entry there). */
	indexOfLine(line: number): number {
		const c = this.#ix.cols;
		for (let i = 0; i < c.count; i++) if (c.line[i] === line) return i;
		return -1;
	}

	/** Id at a file-order index ("" outside the file). No copy of the columns, unlike getSkeleton. */
	idAt(index: number): string {
		const c = this.#ix.cols;
		return index >= 0 && index < c.count ? c.ids[index] : "";
	}

	/** Skeleton kind at a file-order index (EntryKind.unknown outside the file). */
	kindAt(index: number): number {
		const c = this.#ix.cols;
		return index >= 0 && index < c.count ? c.kind[index] : EntryKind.unknown;
	}

	/** Skeleton flags at a file-order index (0 outside the file). */
	flagsAt(index: number): number {
		const c = this.#ix.cols;
		return index >= 0 && index < c.count ? c.flags[index] : 0;
	}

	getEntries(): SessionEntry[] {
		const ix = this.#ix;
		return ix.entriesAt(Array.from({ length: ix.cols.count }, (_, i) => i));
	}

	getChildren(parentId: string): SessionEntry[] {
		return this.#ix.children(parentId);
	}

	getLabel(id: string): string | undefined {
		return this.#ix.labels.get(id)?.label;
	}

	getLabelTimestamp(id: string): string | undefined {
		return this.#ix.labels.get(id)?.timestamp;
	}

	/**
	 * Entry indices from the root down to `index`. Follows the file's parent links; where they loop, the walk
	 * stops at the first entry it would visit twice (as omp does; pi hangs), so every entry appears once.
	 */
	pathIndices(index: number): Int32Array {
		return this.#ix.pathIndices(index);
	}

	getBranch(fromId?: string): SessionEntry[] {
		const ix = this.#ix;
		const i = ix.pathStart(fromId);
		return i < 0 ? [] : ix.entriesAt(ix.pathIndices(i));
	}

	/** Ids on the path root→entry (no parsing). */
	getBranchIds(fromId?: string): string[] {
		const ix = this.#ix;
		const i = ix.pathStart(fromId);
		if (i < 0) return [];
		const path = ix.pathIndices(i);
		const ids = ix.cols.ids;
		const out: string[] = new Array(path.length);
		for (let k = 0; k < path.length; k++) out[k] = ids[path[k]];
		return out;
	}

	getTree(): SessionTreeNode[] {
		return this.#ix.tree();
	}

	// ---------------------------------------------------------------- leaf movement

	branch(branchFromId: string): void {
		const ix = this.#ix;
		if (typeof branchFromId !== "string" || !ix.byId.has(branchFromId)) throw new Error(`Entry ${branchFromId} not found`);
		ix.leafId = branchFromId;
	}

	resetLeaf(): void {
		this.#ix.leafId = null;
	}

	/**
	 * pi 1.6 (0.84.3): `fromId` is the leaf navigated away from ("root" when there is none), no longer the
	 * destination; `usage` (the summarizer's) is written after `details` when given.
	 */
	branchWithSummary(branchFromId: string | null, summary: string, details?: unknown, fromHook?: boolean, usage?: unknown): string {
		const ix = this.#ix;
		if (branchFromId !== null && !ix.byId.has(branchFromId)) throw new Error(`Entry ${branchFromId} not found`);
		this.#live.assertWritable();
		// pi's leaf is an id-less last line's (absent) id, so pi writes "root" there: so does Arbor, never its
		// in-memory id.
		const fromId = ix.leafId !== null && !isSyntheticId(ix.leafId) ? ix.leafId : "root";
		ix.leafId = branchFromId;
		return this.#live.append(branchSummaryRecord(this.#at(branchFromId), fromId, summary, details, fromHook, usage));
	}

	// ---------------------------------------------------------------- appends (records.ts: pi's key order)

	/** A new entry's id, parent (the leaf unless given) and timestamp. */
	#at(parentId: string | null = this.#ix.leafId): RecordHead {
		return { id: this.#ix.newId(), parentId, timestamp: new Date().toISOString() };
	}

	appendMessage(message: AgentMessage): string {
		return this.#live.append(messageRecord(this.#at(), message));
	}

	appendThinkingLevelChange(thinkingLevel: string): string {
		return this.#live.append(thinkingLevelRecord(this.#at(), thinkingLevel));
	}

	appendModelChange(provider: string, modelId: string): string {
		return this.#live.append(modelChangeRecord(this.#at(), provider, modelId));
	}

	/**
	 * pi 1.6: without `firstKeptEntryId` the compaction keeps nothing (it names itself), and the prompt / tool
	 * state replayed from the context's system messages is written as the `systemMessage` checkpoint.
	 */
	appendCompaction(
		summary: string,
		firstKeptEntryId: string | undefined,
		tokensBefore: number,
		details?: unknown,
		fromHook?: boolean,
		usage?: unknown,
	): string {
		const at = this.#at();
		const system = currentSystemMessage(this.buildSessionContext().messages);
		const systemMessage = system ? { ...system, timestamp: new Date(at.timestamp).getTime() } : undefined;
		return this.#live.append(
			compactionRecord(at, { summary, firstKeptEntryId: firstKeptEntryId ?? at.id, tokensBefore, details, usage, fromHook, systemMessage }),
		);
	}

	appendCustomEntry(customType: string, data?: unknown): string {
		return this.#live.append(customRecord(this.#at(), customType, data));
	}

	appendCustomMessageEntry(customType: string, content: string | ContentBlock[], display: boolean, details?: unknown): string {
		return this.#live.append(customMessageRecord(this.#at(), customType, content, display, details));
	}

	/**
	 * pi's appendLabelChange. `opts.atResume` (the app's labels): parented on pi's resume point instead of the
	 * in-app leaf, so labelling from another branch never moves where pi resumes (pi #9930 / omp #12242).
	 */
	appendLabelChange(targetId: string, label: string | undefined, opts: { atResume?: boolean } = {}): string {
		if (typeof targetId !== "string" || !this.#ix.byId.has(targetId)) throw new Error(`Entry ${targetId} not found`);
		if (isSyntheticId(targetId)) throw new Error(`Entry ${targetId} has no id in the file: a label cannot name it (pi could not resolve it)`);
		return this.#live.append(labelRecord(this.#at(), targetId, label), opts.atResume === true);
	}

	appendSessionInfo(name: string, opts: { atResume?: boolean } = {}): string {
		return this.#live.append(sessionInfoRecord(this.#at(), name), opts.atResume === true);
	}

	// ---------------------------------------------------------------- other writers, upgrade, branch files

	/** Brings the index up to date with the file (another process, e.g. pi, may have appended). */
	catchUp(opts: { writerHoldsLeaf?: boolean } = {}): CatchUpResult {
		return this.#live.catchUp(true, opts.writerHoldsLeaf === true);
	}

	/** Changes when entries already handed out (skeleton, deltas) may differ now (see LiveFile.generation). */
	getGeneration(): number {
		return this.#live.generation;
	}

	close(): void {
		this.#ix.cache.clear();
	}

	/**
	 * Rewrites a v1/v2 file as v3 after copying it to FILE.bak (never overwritten); returns the .bak path.
	 * Bytes other writers append meanwhile are carried over (branch-file.ts).
	 */
	upgradeLegacy(): string {
		return upgradeLegacy(this.#live);
	}

	/**
	 * `options.sessionDir`: write the new file there instead of the current folder (like pi's
	 * `open(path, sessionDir)`); the temp file, fsync and no-clobber link all happen in that folder.
	 */
	createBranchedSession(leafId: string, options: BranchOptions = {}): string | undefined {
		const r = createBranchedSession(this.#live, this.#dir, leafId, options);
		this.#dir = r.dir;
		return r.path;
	}

	// ---------------------------------------------------------------- model context

	buildSessionContext(leafId?: string | null): SessionContext {
		const ix = this.#ix;
		const leaf = leafId === undefined ? ix.leafId : leafId;
		if (leaf === null) return { messages: [], thinkingLevel: "off", model: null };
		const c = ix.cols;
		if (c.count === 0) return { messages: [], thinkingLevel: "off", model: null };
		const idx = (leaf ? ix.byId.get(leaf) : undefined) ?? c.count - 1;
		const path = ix.pathIndices(idx);
		return buildContextFromPath({ kind: c.kind, ids: c.ids, entryAt: (i) => ix.cache.get(i) }, path);
	}

	/**
	 * pi 1.6's buildSessionProjection: every context entry (as an index) with the messages it contributes after
	 * context edits (`editIndex` names the edit applied), plus the context itself.
	 */
	buildSessionProjection(leafId?: string | null): SessionProjection {
		const ix = this.#ix;
		const c = ix.cols;
		return buildProjectionFromPath({ kind: c.kind, ids: c.ids, entryAt: (i) => ix.cache.get(i) }, ix.contextPath(leafId));
	}

	/** pi 1.6's buildContextEntries: the compaction-aware entry list the context is built from. */
	buildContextEntries(leafId?: string | null): SessionEntry[] {
		const ix = this.#ix;
		const c = ix.cols;
		const path = ix.contextPath(leafId);
		const src = { kind: c.kind, ids: c.ids, entryAt: (i: number) => ix.cache.get(i) };
		return contextEntryPositions(src, path).map((p) => ix.cache.get(path[p]));
	}

	// ---------------------------------------------------------------- skeleton, previews, search (views.ts)

	getSkeleton(): Skeleton {
		return this.#views.skeleton(this.#ix);
	}

	/** A big session's first skeleton, or null when it is small (shared/first-skeleton.ts). */
	getFirstSkeleton(size = FIRST_SKELETON_SIZE, minEntries = FIRST_SKELETON_MIN_ENTRIES): Skeleton | null {
		return this.#views.firstSkeleton(this.#ix, size, minEntries);
	}

	getSkeletonDelta(start: number): SkeletonDelta {
		return this.#views.skeletonDelta(this.#ix, start);
	}

	getPreviews(indices: number[], opts: { homeDir?: string } = {}): string[] {
		return this.#views.previews(this.#ix, indices, opts);
	}

	/** What cards need beyond the skeleton, per index (shared/card-facts.ts); read in one batch as getPreviews. */
	getCardFacts(indices: number[], opts: { homeDir?: string } = {}): (CardFacts | null)[] {
		return this.#views.cardFacts(this.#ix, indices, opts);
	}

	/** Usage lines (pi's usage, omp's model_usage) summed into the entry each hangs under (shared/card-facts.ts). */
	getUsageRollup(): UsageRollup[] {
		return this.#views.usageRollup(this.#ix);
	}

	/** pi's query rules over pi's searchable text ("pi") or all text ("full"); matching indices ascending. */
	search(query: string, scope: SearchScope): number[] {
		return this.#ix.search.search(query, scope);
	}

	/**
	 * search() in slices that hand the thread back between them (SearchIndex.searchCooperative), for a
	 * process that must keep answering while a first query reads a big file. Resolves undefined when
	 * `stop()` says so; a reload of the file during the search starts it again on the new index.
	 */
	async searchCooperative(query: string, scope: SearchScope, opts: { sliceMs?: number; stop?: () => boolean } = {}): Promise<number[] | undefined> {
		for (;;) {
			const index = this.#ix.search;
			let replaced = false;
			const result = await index.searchCooperative(query, scope, {
				sliceMs: opts.sliceMs,
				stop: () => (replaced = this.#ix.search !== index) || (opts.stop?.() ?? false),
			});
			if (!replaced) return result;
			if (opts.stop?.()) return undefined;
		}
	}
}
