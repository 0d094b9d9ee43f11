// The requests about the whole library rather than one open session: listing session files (exact entry
// counts refined in the background), a file's family, and the cross-session search index.

import * as path from "node:path";
import type { RequestParams, RequestResult } from "../../shared/api";
// Not yet re-exported by electron/session/index.ts; switch to "../session" once it is.
import { type ExactCount, exactEntryCountSteps, listSessions } from "../session/library";
import { runStepsCooperatively } from "../session/steps";
import { errorText } from "../../shared/guards";
import { ArborServiceError } from "./errors";
import type { EventHub } from "./events";
import { type FamilyScope, sessionFamily } from "./family";
import { IndexBusyError, IndexFolderError, IndexWriteError, indexedFileList, SearchIndex } from "./search-index";

/** The index folder refused (not Arbor's) or a write the disk refused: a clear error, not a crash. */
function indexError(err: unknown): unknown {
	return err instanceof IndexFolderError || err instanceof IndexWriteError ? new ArborServiceError("io", err.message) : err;
}

export interface LibraryRequestsOptions {
	events: EventHub;
	/** Arbor's own folder (search-index/ lives there). */
	settingsDir: string;
	env: NodeJS.ProcessEnv;
	/** pi's folder as the services were given it, whatever the environment says. */
	piAgentDir: string;
	sliceMs?: number;
	disposed(): boolean;
}

export class LibraryRequests {
	readonly #o: LibraryRequestsOptions;
	readonly #exactCounts = new Map<string, ExactCount>();
	#countGeneration = 0;
	#searchIndex: SearchIndex | null = null;
	#indexing: Promise<void> | null = null;
	#indexAgain = false;

	constructor(options: LibraryRequestsOptions) {
		this.#o = options;
	}

	#env(): NodeJS.ProcessEnv {
		return { ...this.#o.env, PI_CODING_AGENT_DIR: this.#o.piAgentDir };
	}

	listSessions(params: RequestParams<"listSessions">): RequestResult<"listSessions"> {
		const items = listSessions(params.dirs, { env: this.#env() });
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

	/** Counts the files' entries one at a time in cooperative slices; a newer listSessions call takes over. */
	async #refineCounts(files: string[]): Promise<void> {
		const generation = ++this.#countGeneration;
		const stale = () => this.#o.disposed() || generation !== this.#countGeneration;
		for (const file of files) {
			const c = await runStepsCooperatively(exactEntryCountSteps(file), this.#o.sliceMs ?? 8, stale);
			if (stale()) return;
			if (!c) continue;
			this.#exactCounts.set(file, c);
			this.#o.events.emit({ type: "library_counts", counts: [{ path: c.path, entryCount: c.entryCount, size: c.size, mtimeMs: c.mtimeMs }] });
		}
	}

	async getFamily(params: RequestParams<"getFamily"> & { scope?: FamilyScope }): Promise<RequestResult<"getFamily">> {
		try {
			return await sessionFamily(params.path, { env: this.#env(), scope: params.scope });
		} catch (err) {
			throw new ArborServiceError("bad_file", errorText(err), params.path);
		}
	}

	/** Brings the index up to date in cooperative slices (one build at a time; a request during it queues one more). */
	#updateIndex(dirs: string[] | undefined): Promise<void> {
		let index: SearchIndex;
		try {
			index = this.#searchIndex ??= new SearchIndex({ indexDir: path.join(this.#o.settingsDir, "search-index") });
		} catch (err) {
			return Promise.reject(indexError(err));
		}
		if (this.#indexing) {
			this.#indexAgain = true;
			return this.#indexing;
		}
		const run = async () => {
			do {
				this.#indexAgain = false;
				const files = indexedFileList(dirs, { env: this.#env() });
				let last = 0;
				const steps = index.updateSteps(files, (p) => {
					const now = Date.now();
					if (p.phase !== "done" && now - last < 200 && p.filesDone !== 0) return;
					last = now;
					// Only a build that had files to index says so: an up-to-date index answering a search emits
					// nothing, or every search would announce "done" and make an open page search again (issue 38).
					if (p.filesTotal > 0)
						this.#o.events.emit({
							type: "search_index",
							phase: p.phase === "done" ? "done" : "indexing",
							filesDone: p.filesDone,
							filesTotal: p.filesTotal,
							bytesDone: p.bytesDone,
							bytesTotal: p.bytesTotal,
						});
				});
				try {
					await runStepsCooperatively(steps, this.#o.sliceMs ?? 8, () => this.#o.disposed());
				} catch (err) {
					// Another process (an `arbor search`) is updating the index: answer from the index as it is.
					if (err instanceof IndexBusyError) return;
					throw indexError(err);
				}
			} while (this.#indexAgain && !this.#o.disposed());
		};
		this.#indexing = run().finally(() => {
			this.#indexing = null;
		});
		return this.#indexing;
	}

	async searchAllSessions(params: RequestParams<"searchAllSessions">): Promise<RequestResult<"searchAllSessions">> {
		const building = this.#updateIndex(params.dirs);
		// A failure after the wait below (a full disk) is reported by the next search, which tries again.
		building.catch(() => undefined);
		// A first search waits for nothing: it answers from what is indexed (partial) while the build runs.
		// A quick update (a few appended tails) finishes within a moment, so wait briefly for it.
		await Promise.race([building, new Promise((ok) => setTimeout(ok, 150))]);
		const index = this.#searchIndex as SearchIndex;
		const files = params.dirs && params.dirs.length ? indexedFileList(params.dirs) : undefined;
		const result = index.search(params.query, { limit: params.limit ?? 50, files });
		return { ...result, partial: result.partial || this.#indexing !== null };
	}
}
