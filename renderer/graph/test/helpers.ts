// Test helpers: hand-built and generated skeletons plus a minimal visible tree (active branch first,
// hidden entries re-parented), so graph tests need neither electron/ nor a DOM.

import { EntryFlag, EntryKind, type Skeleton, type SkeletonLabel } from "../../../shared/skeleton";
import type { GraphTreeInput } from "../model";

export interface SpecEntry {
	kind?: number;
	parent: number;
	flags?: number;
}

export function skeletonOf(entries: SpecEntry[], opts: { leaf?: number; resumeLeaf?: number; labels?: SkeletonLabel[] } = {}): Skeleton {
	const n = entries.length;
	const s: Skeleton = {
		count: n,
		ids: entries.map((_, i) => `e${i}`),
		parent: Int32Array.from(entries.map((e) => e.parent)),
		kind: Uint8Array.from(entries.map((e) => e.kind ?? EntryKind.assistant)),
		flags: Uint16Array.from(entries.map((e) => e.flags ?? 0)),
		time: Float64Array.from(entries.map((_, i) => 1_700_000_000_000 + i * 1000)),
		tokens: new Float64Array(n),
		cost: new Float64Array(n),
		labels: opts.labels ?? [],
		leaf: opts.leaf ?? n - 1,
		resumeLeaf: opts.resumeLeaf ?? n - 1,
	};
	return s;
}

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/**
 * A session shaped like gen-session.mjs output: turns of user -> (assistant tool call -> tool result)* ->
 * assistant, a branch every ~`branchEvery` entries that moves the leaf 5-40 entries back, occasional
 * labels and compactions.
 */
export function generateSkeleton(n: number, seed = 1, branchEvery = 30): Skeleton {
	const r = rng(seed);
	const entries: SpecEntry[] = [];
	const labels: SkeletonLabel[] = [];
	const path: number[] = [];
	let leaf = -1;
	let sinceBranch = 0;
	const add = (kind: number, flags = 0): void => {
		entries.push({ kind, parent: leaf, flags });
		leaf = entries.length - 1;
		path.push(leaf);
		sinceBranch++;
	};
	while (entries.length < n) {
		if (branchEvery > 0 && sinceBranch >= branchEvery * (0.75 + 0.5 * r()) && path.length > 45) {
			// Like pi's /tree onto a user message: the leaf moves to a turn boundary 5-40 entries back.
			let idx = path.length - 1 - (5 + Math.floor(r() * 36));
			while (idx > 0 && entries[path[idx + 1]].kind !== EntryKind.user) idx--;
			path.length = idx + 1;
			leaf = path[idx];
			sinceBranch = 0;
			if (r() < 0.3) add(EntryKind.branchSummary);
		}
		if (r() < 0.04) add(EntryKind.thinkingLevelChange);
		add(EntryKind.user);
		const tools = 1 + Math.floor(r() * 7);
		for (let t = 0; t < tools && entries.length < n; t++) {
			add(EntryKind.assistant, EntryFlag.toolOnly | EntryFlag.hasToolCalls);
			if (entries.length < n) add(EntryKind.toolResult, r() < 0.05 ? EntryFlag.error : 0);
		}
		if (entries.length < n) add(EntryKind.assistant, r() < 0.5 ? EntryFlag.hasThinking : 0);
		if (entries.length < n && r() < 0.02) add(EntryKind.compaction);
		if (r() < 0.05) labels.push({ target: leaf, label: `mark ${labels.length}`, time: 1_700_000_000_000 + leaf });
	}
	entries.length = n;
	return skeletonOf(entries, { leaf: n - 1, resumeLeaf: n - 1, labels: labels.filter((l) => l.target < n) });
}

/**
 * Visible tree as pi builds it for the graph: entries failing `visible` drop out and their children
 * re-parent to the nearest visible ancestor; the child leading to the leaf comes first, others keep file order.
 */
export function visibleTreeOf(s: Skeleton, visible: (i: number) => boolean = () => true): GraphTreeInput {
	const vpar = new Int32Array(s.count);
	for (let i = 0; i < s.count; i++) {
		let p = s.parent[i];
		while (p >= 0 && !visible(p)) p = s.parent[p];
		vpar[i] = p;
	}
	const onPath = new Uint8Array(s.count);
	for (let p = s.leaf; p >= 0; p = s.parent[p]) onPath[p] = 1;
	const children: number[][] = Array.from({ length: s.count }, () => []);
	const roots: number[] = [];
	for (let i = 0; i < s.count; i++) {
		if (!visible(i)) continue;
		if (vpar[i] >= 0) children[vpar[i]].push(i);
		else roots.push(i);
	}
	// A hidden entry on the path still marks its visible descendant's branch as active.
	const containsLeaf = (i: number): boolean => onPath[i] === 1;
	const activeFirst = (list: number[]): number[] => {
		const a = list.filter(containsLeaf);
		return a.concat(list.filter((i) => !containsLeaf(i)));
	};
	const order: number[] = [];
	const stack = activeFirst(roots).reverse();
	while (stack.length > 0) {
		const i = stack.pop() as number;
		order.push(i);
		const kids = activeFirst(children[i]);
		for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]);
	}
	return { rows: order, visibleParent: vpar };
}

/** pi's rule that applies in every filter mode: tool-call-only assistant messages are hidden unless leaf. */
export function piDefaultVisible(s: Skeleton): (i: number) => boolean {
	return (i) => i === s.leaf || !(s.flags[i] & EntryFlag.toolOnly);
}
