// A scripted in-memory ArborClient for renderer tests: records every request, answers from per-request
// handlers (tests override them), and lets a test emit events as the main process would.

import {
	ArborRequestError,
	type ArborClient,
	type ArborEvent,
	type ArborSettings,
	type RequestName,
	type RequestParams,
	type RequestResult,
	type SessionSummary,
} from "../../shared/api";
import type { SessionEntry } from "../../shared/entries";
import { EntryKind, type EntryKindCode, type Skeleton, type SkeletonDelta, type SkeletonLabel } from "../../shared/skeleton";

export interface FakeEntry {
	id: string;
	parent: string | null;
	kind: keyof typeof EntryKind;
	flags?: number;
	/** Row text for getPreviews. */
	text?: string;
	/** Full entry for getEntry (a user message with `text` when omitted). */
	entry?: SessionEntry;
}

export function makeSkeleton(
	entries: readonly FakeEntry[],
	opts: { leaf?: string | null; resumeLeaf?: string | null; labels?: Record<string, string> } = {},
): Skeleton {
	const ids = entries.map((e) => e.id);
	const index = new Map(ids.map((id, i) => [id, i]));
	const n = entries.length;
	const parent = new Int32Array(n);
	const kind = new Uint8Array(n);
	const flags = new Uint16Array(n);
	const time = new Float64Array(n);
	const tokens = new Float64Array(n);
	entries.forEach((e, i) => {
		parent[i] = e.parent === null ? -1 : (index.get(e.parent) ?? -1);
		kind[i] = EntryKind[e.kind] as EntryKindCode;
		flags[i] = e.flags ?? 0;
		time[i] = 1_700_000_000_000 + i * 1000;
	});
	const leafOf = (id: string | null | undefined, fallback: number): number => (id === undefined ? fallback : id === null ? -1 : (index.get(id) ?? -1));
	const labels: SkeletonLabel[] = Object.entries(opts.labels ?? {}).map(([id, label]) => ({ target: index.get(id) ?? -1, label, time: 1_700_000_500_000 }));
	const leaf = leafOf(opts.leaf, n - 1);
	return { count: n, ids, parent, kind, flags, time, tokens, cost: new Float64Array(n), labels, leaf, resumeLeaf: leafOf(opts.resumeLeaf, n - 1) };
}

export function makeDelta(sk: Skeleton, entries: readonly FakeEntry[], opts: { leaf?: number; resumeLeaf?: number } = {}): SkeletonDelta {
	const all = new Map(sk.ids.map((id, i) => [id, i]));
	entries.forEach((e, k) => all.set(e.id, sk.count + k));
	const n = entries.length;
	const d: SkeletonDelta = {
		start: sk.count,
		ids: entries.map((e) => e.id),
		parent: new Int32Array(entries.map((e) => (e.parent === null ? -1 : (all.get(e.parent) ?? -1)))),
		kind: new Uint8Array(entries.map((e) => EntryKind[e.kind])),
		flags: new Uint16Array(entries.map((e) => e.flags ?? 0)),
		time: new Float64Array(n).fill(1_800_000_000_000),
		tokens: new Float64Array(n),
		cost: new Float64Array(n),
		labels: sk.labels,
		leaf: opts.leaf ?? sk.count + n - 1,
		resumeLeaf: opts.resumeLeaf ?? sk.count + n - 1,
	};
	return d;
}

export const DEFAULT_SETTINGS: ArborSettings = {
	model: {},
	doubleEscapeAction: "branch",
	treeFilterMode: "default",
	skipSummaryPrompt: false,
	layoutDirection: "TB",
	recentFiles: [],
	hiddenBranches: {},
};

export function makeSummary(sessionId = "s1", extra: Partial<SessionSummary> = {}): SessionSummary {
	return {
		sessionId,
		path: `/tmp/${sessionId}.jsonl`,
		header: { type: "session", id: sessionId, version: 3 },
		fileVersion: 3,
		needsUpgrade: false,
		title: null,
		warnings: [],
		warningCount: 0,
		fileSize: 1234,
		...extra,
	};
}

/**
 * A small branched session:
 *   u1 ─ a1 ┬ u2 ─ a2
 *           └ u3 ─ a3 (leaf)
 */
export const BRANCHED: FakeEntry[] = [
	{ id: "u1", parent: null, kind: "user", text: "user: first question" },
	{ id: "a1", parent: "u1", kind: "assistant", text: "assistant: first answer" },
	{ id: "u2", parent: "a1", kind: "user", text: "user: try the left way" },
	{ id: "a2", parent: "u2", kind: "assistant", text: "assistant: left answer" },
	{ id: "u3", parent: "a1", kind: "user", text: "user: try the right way" },
	{ id: "a3", parent: "u3", kind: "assistant", text: "assistant: right answer" },
];

type Handler<K extends RequestName> = (params: RequestParams<K>) => RequestResult<K> | Promise<RequestResult<K>>;
type Handlers = { [K in RequestName]?: Handler<K> };

export class FakeClient implements ArborClient {
	host: "electron" | "browser" = "browser";
	readonly calls: { name: RequestName; params: unknown }[] = [];
	readonly #listeners = new Set<(e: ArborEvent) => void>();
	readonly handlers: Handlers = {};
	entries: FakeEntry[];
	skeleton: Skeleton;
	settings: ArborSettings = { ...DEFAULT_SETTINGS };

	constructor(entries: FakeEntry[] = BRANCHED, skeletonOpts: Parameters<typeof makeSkeleton>[1] = {}) {
		this.entries = entries;
		this.skeleton = makeSkeleton(entries, skeletonOpts);
		const summary = makeSummary();
		this.on("getSettings", () => this.settings);
		this.on("setSettings", ({ settings }) => (this.settings = { ...this.settings, ...settings }));
		this.on("getActiveModel", () => null);
		this.on("listCommands", () => []);
		this.on("listExtensions", () => ({ extensions: [], missing: [] }));
		this.on("getInitialSessions", () => [summary]);
		this.on("openSession", ({ path }) => makeSummary("s-opened", { path }));
		this.on("getSkeleton", () => this.skeleton);
		this.on("getPreviews", ({ indices }) => indices.map((i) => this.entries[i]?.text ?? ""));
		this.on("getEntry", ({ id }) => {
			const e = this.entries.find((x) => x.id === id);
			if (!e) throw new ArborRequestError({ code: "not_found", message: `no entry ${id}` });
			return (
				e.entry ?? { type: "message", id: e.id, parentId: e.parent, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: e.text ?? "" } }
			);
		});
		this.on("search", () => []);
		this.on("closeSession", () => undefined);
	}

	on<K extends RequestName>(name: K, handler: Handler<K>): this {
		(this.handlers as Record<string, unknown>)[name] = handler;
		return this;
	}

	async request<K extends RequestName>(name: K, params: RequestParams<K>): Promise<RequestResult<K>> {
		this.calls.push({ name, params });
		const h = this.handlers[name] as Handler<K> | undefined;
		if (!h) throw new ArborRequestError({ code: "unsupported", message: `fake client: no handler for ${name}` });
		return await h(params);
	}

	onEvent(listener: (event: ArborEvent) => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}

	emit(event: ArborEvent): void {
		for (const l of this.#listeners) l(event);
	}

	callsOf<K extends RequestName>(name: K): RequestParams<K>[] {
		return this.calls.filter((c) => c.name === name).map((c) => c.params as RequestParams<K>);
	}
}

/** Resolve pending promise callbacks (store actions chain a few awaits). */
export async function flush(times = 5): Promise<void> {
	for (let i = 0; i < times; i++) await new Promise<void>((r) => setTimeout(r, 0));
}
