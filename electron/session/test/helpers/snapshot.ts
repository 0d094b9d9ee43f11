// Differential comparison of a loaded session as pi's SessionManager and Arbor's see it. Keys are entry
// ids, or `#<file index>` when the two implementations cannot share ids (v1 files get random ids during
// migration).
import { canonicalJson, idOf, type TreeNodeLike, treeLines } from "./shapes";

/** The read API both implementations share (pi's names). */
export interface SessionLike {
	getEntries(): unknown[];
	getLeafId(): string | null | undefined;
	getTree(): TreeNodeLike[];
	getLabel(id: string): string | undefined;
	getChildren(parentId: string): unknown[];
	getBranch(fromId?: string): unknown[];
	branch(id: string): void;
	resetLeaf(): void;
	buildSessionContext(): unknown;
}

export interface SnapshotOptions {
	/** Compare by ids (true) or by file index (false, for migrated v1 files). */
	byId: boolean;
	/** File indices at which getBranch / getChildren / buildSessionContext are compared. */
	sample: number[];
}

/** Per-session helpers: keys and canonical JSON as seen from one implementation. */
function viewOf(sm: SessionLike, opt: SnapshotOptions) {
	const entries = sm.getEntries();
	const byObject = new Map<unknown, number>();
	const idIndex = new Map<string, number>();
	entries.forEach((e, i) => {
		byObject.set(e, i);
		const id = idOf(e);
		if (id !== undefined && !idIndex.has(id)) idIndex.set(id, i);
	});
	const key = (e: unknown): string => {
		if (opt.byId) return idOf(e) ?? "<no id>";
		const i = byObject.get(e) ?? (idOf(e) !== undefined ? idIndex.get(idOf(e) as string) : undefined);
		return i === undefined ? "<unknown>" : `#${i}`;
	};
	const keyOfId = (id: string | null | undefined): string | null => {
		if (id === null || id === undefined) return null;
		if (opt.byId) return id;
		const i = idIndex.get(id);
		return i === undefined ? `<unknown ${id}>` : `#${i}`;
	};
	const json = (v: unknown): string => (opt.byId ? JSON.stringify(v) : canonicalJson(v, idIndex));
	return { entries, key, keyOfId, json };
}

function clip(v: unknown, n = 300): string {
	const s = typeof v === "string" ? v : JSON.stringify(v);
	if (s === undefined) return "undefined";
	return s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s;
}

/** Where two JSON texts first differ, with some context on both sides. */
function jsonDiff(a: string, b: string): string {
	let i = 0;
	while (i < a.length && i < b.length && a[i] === b[i]) i++;
	const from = Math.max(0, i - 100);
	return `at char ${i}: arbor …${a.slice(from, i + 150)}… | pi …${b.slice(from, i + 150)}…`;
}

/**
 * Walk Arbor (`a`) and pi (`b`) in lockstep and list where they disagree, one readable line per kind of
 * difference (first occurrence only; [] = identical). Nothing large is retained: each context is
 * stringified, compared and dropped, so 4k-entry sessions with 300-deep paths stay cheap.
 */
export function compareSessions(a: SessionLike, b: SessionLike, opt: SnapshotOptions): string[] {
	const out: string[] = [];
	const note = (kind: string, line: string) => {
		if (!out.some((l) => l.startsWith(`${kind}`))) out.push(`${kind}${line}`);
	};
	const va = viewOf(a, opt);
	const vb = viewOf(b, opt);
	if (va.entries.length !== vb.entries.length) note("entry count", `: arbor ${va.entries.length}, pi ${vb.entries.length}`);
	const n = Math.min(va.entries.length, vb.entries.length);
	for (let i = 0; i < n; i++) {
		const ja = va.json(va.entries[i]);
		const jb = vb.json(vb.entries[i]);
		if (ja !== jb) note("entries", `[${i}] ${jsonDiff(ja, jb)}`);
		const id = idOf(va.entries[i]);
		if (id !== undefined && idOf(vb.entries[i]) === id && a.getLabel(id) !== b.getLabel(id))
			note("labels", `[${i}] ${id}: arbor ${a.getLabel(id)} | pi ${b.getLabel(id)}`);
	}
	const leafA = a.getLeafId();
	const leafB = b.getLeafId();
	if (va.keyOfId(leafA) !== vb.keyOfId(leafB)) note("leaf", `: arbor ${va.keyOfId(leafA)}, pi ${vb.keyOfId(leafB)}`);
	const ta = treeLines(a.getTree(), va.key);
	const tb = treeLines(b.getTree(), vb.key);
	const td = firstDifference(ta, tb);
	if (td) note("tree", ` pre-order node ${td[0]} of ${ta.length}/${tb.length}: arbor ${td[1]} | pi ${td[2]}`);

	let deepCompares = 0;
	for (const i of opt.sample) {
		const idA = idOf(va.entries[i]);
		const idB = idOf(vb.entries[i]);
		if (idA === undefined || idB === undefined) continue;
		const k = va.key(va.entries[i]);
		const ca = a.getChildren(idA).map((c) => va.keyOfId(idOf(c)));
		const cb = b.getChildren(idB).map((c) => vb.keyOfId(idOf(c)));
		if (JSON.stringify(ca) !== JSON.stringify(cb)) note("getChildren", `(${k}): arbor ${clip(ca)} | pi ${clip(cb)}`);
		const pa = a.getBranch(idA);
		const pb = b.getBranch(idB);
		const ka = pa.map((p) => va.keyOfId(idOf(p)));
		const kb = pb.map((p) => vb.keyOfId(idOf(p)));
		if (JSON.stringify(ka) !== JSON.stringify(kb)) note("getBranch ids", `(${k}): arbor ${clip(ka)} | pi ${clip(kb)}`);
		else if (deepCompares++ < 10) {
			// Entries were compared one by one above; a few whole paths suffice to prove getBranch returns them.
			const ja = va.json(pa);
			const jb = vb.json(pb);
			if (ja !== jb) note("getBranch entries", `(${k}) ${jsonDiff(ja, jb)}`);
		}
		a.branch(idA);
		b.branch(idB);
		const xa = va.json(a.buildSessionContext());
		const xb = vb.json(b.buildSessionContext());
		if (xa !== xb) note("buildSessionContext", `(leaf ${k}) ${jsonDiff(xa, xb)}`);
	}
	// Back to the loaded leaf: the context there, then an explicit null leaf.
	for (const [sm, leaf] of [
		[a, leafA],
		[b, leafB],
	] as const) {
		if (leaf === null) sm.resetLeaf();
		else if (leaf !== undefined) sm.branch(leaf);
	}
	const la = va.json(a.buildSessionContext());
	const lb = vb.json(b.buildSessionContext());
	if (la !== lb) note("context at loaded leaf", ` ${jsonDiff(la, lb)}`);
	a.resetLeaf();
	b.resetLeaf();
	const ra = JSON.stringify(a.buildSessionContext());
	const rb = JSON.stringify(b.buildSessionContext());
	if (ra !== rb) note("context after resetLeaf", `: arbor ${ra} | pi ${rb}`);
	for (const [sm, leaf] of [
		[a, leafA],
		[b, leafB],
	] as const)
		if (leaf !== null && leaf !== undefined) sm.branch(leaf);
	return out;
}

/** Indices worth comparing: every leaf tip, every structural entry, and a regular sample of the rest. */
export function samplePoints(entries: readonly unknown[], every = 50, max = Number.POSITIVE_INFINITY): number[] {
	const hasChild = new Set<string>();
	for (const e of entries) {
		const p = (e as { parentId?: unknown }).parentId;
		if (typeof p === "string") hasChild.add(p);
	}
	const out: number[] = [];
	entries.forEach((e, i) => {
		const type = (e as { type?: unknown }).type;
		const id = idOf(e);
		const tip = id !== undefined && !hasChild.has(id);
		if (
			tip ||
			i % every === 0 ||
			i === entries.length - 1 ||
			type === "compaction" ||
			type === "branch_summary" ||
			type === "label" ||
			type === "custom_message"
		)
			out.push(i);
	});
	if (out.length <= max) return out;
	// Evenly thinned, always keeping the last entry (the loaded leaf).
	const step = out.length / max;
	const thinned = Array.from({ length: max - 1 }, (_, k) => out[Math.floor(k * step)]);
	thinned.push(out[out.length - 1]);
	return thinned;
}

/**
 * The first place where two lists differ, as [index, a, b], or undefined. Lets a test report "entry #812
 * differs: ..." instead of dumping two 1000-element arrays.
 */
export function firstDifference<T>(a: readonly T[], b: readonly T[]): [number, T | undefined, T | undefined] | undefined {
	const n = Math.max(a.length, b.length);
	for (let i = 0; i < n; i++) {
		if (JSON.stringify(a[i]) !== JSON.stringify(b[i])) return [i, a[i], b[i]];
	}
	return undefined;
}
