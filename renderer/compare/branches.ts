// Pure helpers over the skeleton for the compare commands: the children of a branch point and the end of
// each child's branch (its latest entry in file order, which is a leaf of that subtree).

import { EntryKind, type Skeleton } from "../../shared/skeleton";
import { isAlwaysHiddenKind } from "../../shared/tree-view";

export function childrenOf(sk: Skeleton, i: number): number[] {
	const out: number[] = [];
	// pi's cache-warming `usage` lines hang under an entry without being a branch of it.
	for (let j = 0; j < sk.count; j++) if (sk.parent[j] === i && !isAlwaysHiddenKind(sk.kind[j])) out.push(j);
	return out;
}

/** The child of `point` whose subtree holds `entry` (-1 when `entry` is not below `point`). */
export function childToward(sk: Skeleton, point: number, entry: number): number {
	for (let i = entry, guard = 0; i >= 0 && guard <= sk.count; i = sk.parent[i], guard++) if (sk.parent[i] === point) return i;
	return -1;
}

/** The first user message in the subtree under `root` (file order), -1 when there is none. */
export function firstPromptUnder(sk: Skeleton, root: number, userKind: number): number {
	if (sk.kind[root] === userKind) return root;
	const inSub = new Uint8Array(sk.count);
	inSub[root] = 1;
	for (let j = root + 1; j < sk.count; j++) {
		const p = sk.parent[j];
		if (p >= 0 && inSub[p]) {
			inSub[j] = 1;
			if (sk.kind[j] === userKind) return j;
		}
	}
	return -1;
}

/** Latest entry (highest file index) in the subtree under `root`. */
export function branchEnd(sk: Skeleton, root: number): number {
	const inSub = new Uint8Array(sk.count);
	inSub[root] = 1;
	let end = root;
	// Parents precede children in file order in every file pi writes; a later pass catches the rest.
	for (let pass = 0; pass < 2; pass++) {
		for (let j = 0; j < sk.count; j++) {
			const p = sk.parent[j];
			if (!inSub[j] && p >= 0 && inSub[p]) inSub[j] = 1;
			if (inSub[j] && j > end) end = j;
		}
	}
	return end;
}

/**
 * The newest entry of the branch through `i`: the latest entry written in its subtree that a tree can show
 * as a conversation entry (not a label line or a cache-warming `usage` line), `i` itself when none is later.
 */
export function newestOfBranch(sk: Skeleton, i: number): number {
	const inSub = new Uint8Array(sk.count);
	inSub[i] = 1;
	let end = i;
	for (let pass = 0; pass < 2; pass++) {
		for (let j = 0; j < sk.count; j++) {
			const p = sk.parent[j];
			if (!inSub[j] && p >= 0 && inSub[p]) inSub[j] = 1;
			const k = sk.kind[j];
			if (inSub[j] && j > end && k !== EntryKind.label && !isAlwaysHiddenKind(k)) end = j;
		}
	}
	return end;
}

/**
 * The fork `i`'s path passes: the nearest ancestor with two or more children in the file (whatever the filter
 * shows: a thinking-level change that the default filter hides is a fork too), with the child on `i`'s side.
 * `i` itself counts as that child; null when the path from the root to `i` never branches.
 */
export function forkAbove(sk: Skeleton, i: number): { point: number; child: number } | null {
	const kids = new Int32Array(sk.count);
	for (let j = 0; j < sk.count; j++) {
		const p = sk.parent[j];
		if (p >= 0 && !isAlwaysHiddenKind(sk.kind[j])) kids[p]++;
	}
	for (let c = i, guard = 0; c >= 0 && guard <= sk.count; c = sk.parent[c], guard++) {
		const p = sk.parent[c];
		if (p >= 0 && kids[p] >= 2) return { point: p, child: c };
	}
	return null;
}

/** True when `a` is `b` or one of its ancestors. */
export function isAncestor(sk: Skeleton, a: number, b: number): boolean {
	for (let c = b, guard = 0; c >= 0 && guard <= sk.count; c = sk.parent[c], guard++) if (c === a) return true;
	return false;
}

/** Save text as a download (works in the browser host and in Electron, which shows a save dialog). */
export function download(text: string, fileName: string, mimeType: string): void {
	const url = URL.createObjectURL(new Blob([text], { type: `${mimeType};charset=utf-8` }));
	const a = document.createElement("a");
	a.href = url;
	a.download = fileName;
	a.rel = "noopener";
	document.body.appendChild(a);
	a.click();
	a.remove();
	setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
