// The file's index (one part of SessionManager, docs/session-core.md "Parts"): the entries in file order as
// typed columns (store.ts) with their bodies behind the entry cache, ids → rows, parent links (orphans,
// loops, duplicate ids), labels in effect, the leaf, pi's resume point and the load warnings. It knows
// nothing about files: the reader hands it records, the writer its own lines.

import { forEachParentLoop } from "./parent-loops";
import type { LoadWarning } from "../../shared/api";
import type { SessionEntry } from "../../shared/entries";
import { EntryFlag, EntryKind } from "../../shared/skeleton";
import { isAlwaysHiddenKind } from "../../shared/tree-view";
import { factsOf } from "./classify";
import { EntryCache } from "./entry-cache";
import { generateEntryId } from "./ids";
import type { IndexRow } from "./formats/format";
import { SearchIndex } from "./search";
import { Columns } from "./store";

type Loose = Record<string, unknown>;

export interface LabelState {
	label: string;
	timestamp: string | undefined;
}

export interface SessionTreeNode {
	entry: SessionEntry;
	children: SessionTreeNode[];
	label?: string;
	labelTimestamp?: string;
}

const WARNING_CAP = 1000;
/** Prefix of the ids Arbor gives entries that have none (never written to a file). */
export const SYNTHETIC_PREFIX = "~arbor:no-id:";

/** An id Arbor made up for an entry that has none in the file: it exists only in memory. */
export function isSyntheticId(id: unknown): id is string {
	return typeof id === "string" && id.startsWith(SYNTHETIC_PREFIX);
}

/** The fields of a record that name another entry by id (pi's `parentId`, `fromId`, `targetId`, `firstKeptEntryId`). */
const ID_FIELDS = ["id", "fromId", "targetId", "firstKeptEntryId"] as const;

/** Refuses a record that names an in-memory id in one of its id fields (`parentId` is handled by the writer). */
export function assertNoSyntheticIds(record: Record<string, unknown>, file: string | undefined): void {
	for (const field of ID_FIELDS) {
		if (isSyntheticId(record[field])) {
			throw new Error(
				`${file ?? "the session"}: entry ${String(record[field])} has no id in the file, so no entry can refer to it (${field}); nothing was written`,
			);
		}
	}
}

export class EntryIndex {
	readonly cols = new Columns();
	readonly cache: EntryCache;
	readonly byId = new Map<string, number>();
	/** Labels in effect: target id → the latest label entry's text and time. */
	readonly labels = new Map<string, LabelState>();
	readonly search: SearchIndex;
	leafId: string | null = null;
	/** Index of the entry pi/omp resume from: the last one read from a whole line (-1 = none). */
	resumeIndex = -1;
	/** Entry bodies stay on disk (large files); lines are indexed by the skimmer. */
	lazy: boolean;
	readonly warnings: LoadWarning[] = [];
	warningCount = 0;
	/** Synthetic ids handed out so far (carried over to the next index, so a reload never repeats one). */
	syntheticCount: number;
	#hasDuplicates = false;
	/** Some parent links form a loop: path walks then need a visited check. */
	#hasLoops = false;
	/** Parent ids named by entries but not (yet) in the file → those entries, re-linked when the parent arrives. */
	#dangling = new Map<string, number[]>();
	/** Set by addRow when an id repeats (earlier entries' flags and links may change). */
	#sawDuplicate = false;

	constructor(lazy: boolean, syntheticCount = 0) {
		this.lazy = lazy;
		this.syntheticCount = syntheticCount;
		this.cache = new EntryCache(this.cols);
		this.search = new SearchIndex({
			count: () => this.cols.count,
			entries: (indices) => this.cache.getMany(indices),
			label: (i) => this.labels.get(this.cols.ids[i])?.label,
			// Labels and session_info's "title" word are not in the entry's own bytes.
			alwaysCandidate: (i) => this.cols.kind[i] === EntryKind.sessionInfo || this.labels.has(this.cols.ids[i]),
			offset: (i) => this.cols.offset[i],
			scanRaw: (indices, visit) => this.cache.scanRaw(indices, visit),
			lazy: () => this.lazy,
		});
	}

	warn(line: number, kind: LoadWarning["kind"], message: string): void {
		this.warningCount++;
		if (this.warnings.length < WARNING_CAP) this.warnings.push({ line, kind, message });
	}

	/** An entry id no entry of this session has. */
	newId(): string {
		return generateEntryId((id) => this.byId.has(id));
	}

	// ---------------------------------------------------------------- adding entries

	/**
	 * Adds one parsed entry; parent links are resolved afterwards (resolveParents).
	 * `resumable`: the line parsed whole, so pi sees this entry too. Records recovered from a glued line are
	 * shown but never become the resume point or the leaf on load (pi resumes at the last line it parsed,
	 * and an entry appended under a record pi cannot see would be an orphan there).
	 */
	ingest(obj: Loose, offset: number, length: number, lineNo: number, keep: boolean, resumable = true): number {
		const facts = factsOf(obj);
		let id = obj.id;
		let synthetic = false;
		if (typeof id !== "string") {
			id = this.#syntheticId(lineNo);
			// Visible on the entry object so callers can address it; stripped whenever entries are written.
			obj.id = id;
			synthetic = true;
		}
		const rp = obj.parentId;
		const i = this.addRow(
			id as string,
			typeof rp === "string" || rp === null ? rp : undefined,
			facts.kind,
			facts.flags | (synthetic ? EntryFlag.syntheticId : 0),
			facts.time,
			facts.tokens,
			offset,
			length,
			lineNo,
			resumable,
		);
		this.cols.cost[i] = facts.cost;
		this.cache.put(i, obj as SessionEntry, keep || offset < 0);
		if (obj.type === "label") this.#applyLabel(obj.targetId, obj.label, obj.timestamp);
		return i;
	}

	/**
	 * Adds one entry known from a format's index row (a skimmed line, or a foreign format's record). Without
	 * `entry` the body stays on disk (read back through the format on demand); `mapEntry` makes it from the row's
	 * final id (synthetic when the row has none), for formats whose entries are not the records themselves.
	 */
	ingestRow(row: IndexRow, offset: number, length: number, lineNo: number, mapEntry?: (id: string) => SessionEntry, keep = false, resumable = true): number {
		let id = row.id;
		let flags = row.flags;
		if (id === undefined) {
			id = this.#syntheticId(lineNo);
			flags |= EntryFlag.syntheticId;
		}
		const i = this.addRow(id, row.parentId, row.kind, flags, row.time, row.tokens, offset, length, lineNo, resumable);
		this.cols.cost[i] = row.cost;
		if (mapEntry) this.cache.put(i, mapEntry(id), keep || offset < 0);
		if (row.kind === EntryKind.label) this.#applyLabel(row.targetId, row.label, row.timestamp);
		return i;
	}

	#syntheticId(lineNo: number): string {
		this.warn(lineNo, "missing_id", "entry has no string id; given a synthetic one (never written back)");
		return `${SYNTHETIC_PREFIX}${lineNo}:${++this.syntheticCount}`;
	}

	#applyLabel(targetId: unknown, label: unknown, timestamp: unknown): void {
		if (typeof targetId !== "string") return;
		this.search.labelVersion++;
		// pi: a truthy label sets, anything else clears; the latest label entry in file order wins.
		if (label) this.labels.set(targetId, { label: labelText(label), timestamp: typeof timestamp === "string" ? timestamp : undefined });
		else this.labels.delete(targetId);
	}

	addRow(
		id: string,
		rawParent: string | null | undefined,
		kind: number,
		flags: number,
		time: number,
		tokens: number,
		offset: number,
		length: number,
		lineNo: number,
		resumable = true,
	): number {
		const c = this.cols;
		const i = c.count;
		c.reserve(i + 1);
		c.count = i + 1;
		c.ids[i] = id;
		c.rawParent[i] = rawParent;
		c.parent[i] = -1;
		c.link[i] = -1;
		c.kind[i] = kind;
		c.time[i] = time;
		c.tokens[i] = tokens;
		c.cost[i] = 0; // the caller sets the cost column
		c.offset[i] = offset;
		c.length[i] = length;
		c.line[i] = lineNo;
		const prev = this.byId.get(id);
		if (prev !== undefined) {
			flags |= EntryFlag.duplicateId;
			c.flags[prev] |= EntryFlag.duplicateId;
			this.#hasDuplicates = true;
			this.#sawDuplicate = true;
			this.warn(lineNo, "duplicate_id", `id ${id} also used on line ${c.line[prev]}; the later entry wins lookups`);
		}
		c.flags[i] = flags;
		this.byId.set(id, i);
		if (resumable) {
			this.leafId = id;
			this.resumeIndex = i;
		}
		return i;
	}

	// ---------------------------------------------------------------- links

	/** Resolves every entry's parent link and cuts loops (after a load or a rebuilt index). */
	link(): void {
		this.resolveParents(0);
		this.cutCycles();
	}

	/**
	 * Links the entries from `firstNew` on (a catch-up). An earlier entry may have named one of the new
	 * entries as its parent before it was written (a reload links them, so the live view must too); a
	 * duplicate id can re-point earlier links (the later entry wins). Either way everything is resolved
	 * again and the result is true: entries already handed out changed.
	 */
	linkAppended(firstNew: number): boolean {
		const c = this.cols;
		let parentArrived = false;
		if (this.#dangling.size > 0) {
			for (let i = firstNew; i < c.count && !parentArrived; i++) parentArrived = this.#dangling.has(c.ids[i]);
		}
		this.resolveParents(this.#hasDuplicates || parentArrived ? 0 : firstNew, firstNew);
		this.cutCycles();
		const changed = this.#sawDuplicate || parentArrived;
		this.#sawDuplicate = false;
		return changed;
	}

	/** Forgets that an id repeated (a catch-up starts its own count). */
	clearSawDuplicate(): void {
		this.#sawDuplicate = false;
	}

	/** `warnFrom`: entries below it were already reported (re-resolved only because an id was re-used). */
	resolveParents(from: number, warnFrom = from): void {
		const c = this.cols;
		const warn = (i: number, kind: LoadWarning["kind"], message: string): void => {
			if (i >= warnFrom) this.warn(c.line[i], kind, message);
		};
		if (from === 0) this.#dangling.clear();
		for (let i = from; i < c.count; i++) {
			const rp = c.rawParent[i];
			c.flags[i] &= ~(EntryFlag.orphan | EntryFlag.cycleCut);
			let p = -1;
			if (rp === undefined) {
				c.flags[i] |= EntryFlag.orphan;
			} else if (rp === c.ids[i]) {
				c.flags[i] |= EntryFlag.cycleCut;
				warn(i, "cycle", `entry ${rp} names itself as parent; treated as a root`);
			} else if (rp !== null) {
				// Most entries follow their parent; without duplicate ids that row is the one the map holds.
				const j = i > 0 && !this.#hasDuplicates && c.ids[i - 1] === rp ? i - 1 : this.byId.get(rp);
				if (j === undefined) {
					c.flags[i] |= EntryFlag.orphan;
					warn(i, "orphan", `parent ${rp} is not in the file; entry shown as a root`);
					const waiting = this.#dangling.get(rp);
					if (waiting) waiting.push(i);
					else this.#dangling.set(rp, [i]);
				} else {
					p = j;
					// Share the parent's id string instead of keeping an equal copy (1M entries: ~40 MB).
					c.rawParent[i] = c.ids[j];
				}
			}
			c.parent[i] = p;
			c.link[i] = p;
		}
	}

	/** Breaks parent loops longer than one entry by cutting the link of the loop's earliest entry. */
	cutCycles(): void {
		const c = this.cols;
		forEachParentLoop(c.parent, c.count, (j) => {
			let min = j;
			let k = c.parent[j];
			while (k !== j) {
				if (k < min) min = k;
				k = c.parent[k];
			}
			c.parent[min] = -1;
			c.flags[min] |= EntryFlag.cycleCut;
			this.#hasLoops = true;
			this.warn(c.line[min], "cycle", `parent links of ${c.ids[min]} form a loop; cut there and treated as a root`);
		});
	}

	// ---------------------------------------------------------------- leaf and resume point

	leafIndex(): number {
		return this.leafId === null ? -1 : (this.byId.get(this.leafId) ?? -1);
	}

	resumeLeafId(): string | null {
		return this.resumeIndex >= 0 ? this.cols.ids[this.resumeIndex] : null;
	}

	/** `index`, or its nearest ancestor when it is a line no tree shows (usage / model_usage); -1 = none. */
	anchorOf(index: number): number {
		const c = this.cols;
		let i = index;
		for (let steps = 0; i >= 0 && steps <= c.count && isAlwaysHiddenKind(c.kind[i]); steps++) {
			const p = c.parent[i];
			i = p === i ? -1 : p;
		}
		return i;
	}

	resumeAnchorIndex(): number {
		return this.anchorOf(this.resumeIndex);
	}

	resumeAnchorId(): string | null {
		const i = this.resumeAnchorIndex();
		return i >= 0 ? this.cols.ids[i] : null;
	}

	// ---------------------------------------------------------------- reading

	/**
	 * Entries for many indices: plain objects when in memory (small files), else lazy stand-ins that parse
	 * on first use (large files), so walking 100k entries costs the walk, not a parse of every body.
	 */
	entriesAt(indices: ArrayLike<number>): SessionEntry[] {
		return this.lazy ? this.cache.lazyViews(indices) : this.cache.getMany(indices);
	}

	/**
	 * Entry indices from the root down to `index`. Follows the file's parent links; where they loop, the walk
	 * stops at the first entry it would visit twice (as omp does; pi hangs), so every entry appears once.
	 */
	pathIndices(index: number): Int32Array {
		const c = this.cols;
		if (!this.#hasLoops) {
			let depth = 0;
			for (let j = index; j >= 0; j = c.link[j]) depth++;
			const out = new Int32Array(depth);
			let k = depth;
			for (let j = index; j >= 0; j = c.link[j]) out[--k] = j;
			return out;
		}
		const seen = new Set<number>();
		const rev: number[] = [];
		for (let j = index; j >= 0 && !seen.has(j); j = c.link[j]) {
			seen.add(j);
			rev.push(j);
		}
		return Int32Array.from(rev.reverse());
	}

	/** Path indices pi's context rules start from: [] for an explicit null leaf, else the path to the leaf (unknown id: the last entry). */
	contextPath(leafId: string | null | undefined): ArrayLike<number> {
		const leaf = leafId === undefined ? this.leafId : leafId;
		const c = this.cols;
		if (leaf === null || c.count === 0) return [];
		return this.pathIndices((leaf ? this.byId.get(leaf) : undefined) ?? c.count - 1);
	}

	/** Start of a path walk: `fromId` or the leaf ("" is a hostile but possible id, not "no leaf"); -1 = none. */
	pathStart(fromId: string | undefined): number {
		const start = fromId ?? this.leafId;
		if (start === null || start === undefined) return -1;
		return this.byId.get(start) ?? -1;
	}

	children(parentId: string): SessionEntry[] {
		const c = this.cols;
		const out: number[] = [];
		for (let i = 0; i < c.count; i++) {
			// pi scans its id map, so with duplicate ids only the winning occurrence is a candidate.
			if (c.rawParent[i] === parentId && this.byId.get(c.ids[i]) === i) out.push(i);
		}
		return this.entriesAt(out);
	}

	tree(): SessionTreeNode[] {
		const c = this.cols;
		const n = c.count;
		// Stand-ins straight from the cache: going through getEntries' lazily filled array costs a Proxy trap
		// per element.
		const all = this.lazy ? undefined : this.cache.getMany(Array.from({ length: n }, (_, i) => i));
		const cache = this.cache;
		const labels = this.labels;
		const nodes: SessionTreeNode[] = new Array(n);
		for (let i = 0; i < n; i++) {
			const st = labels.size > 0 ? labels.get(c.ids[i]) : undefined;
			nodes[i] = { entry: all ? all[i] : cache.view(i), children: [], label: st?.label, labelTimestamp: st?.timestamp };
		}
		const childIdx: number[][] = new Array(n);
		const roots: number[] = [];
		for (let i = 0; i < n; i++) {
			const p = c.parent[i];
			if (p < 0) roots.push(i);
			else (childIdx[p] ??= []).push(i);
		}
		const time = c.time;
		for (let i = 0; i < n; i++) {
			const ch = childIdx[i];
			if (!ch) continue;
			// Same comparator as pi (timestamp difference, NaN for bad stamps) so ties and oddities sort alike.
			if (ch.length > 1) ch.sort((a, b) => time[a] - time[b]);
			const kids = nodes[i].children;
			for (const k of ch) kids.push(nodes[k]);
		}
		return roots.map((r) => nodes[r]);
	}
}

/**
 * pi treats any truthy `label` as a label. A hostile file can put an object or a 20,000-deep array there,
 * where String() would recurse until the stack overflows; show such a value as bounded JSON instead.
 */
function labelText(label: unknown): string {
	if (typeof label === "string") return label;
	if (typeof label !== "object" || label === null) return String(label);
	try {
		return JSON.stringify(label).slice(0, 200);
	} catch {
		return "[unreadable label]";
	}
}
