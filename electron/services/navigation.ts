// What a /tree navigation would do, computed without changing anything: the abandoned path to
// summarize, the common ancestor, the new leaf and the composer text (DESIGN.md "Navigation").

import type { SessionEntry } from "../../shared/entries";
import type { NavigationPreview } from "../../shared/api";
import { entryText, type SessionManager } from "../session";
import { ArborServiceError } from "./errors";
import { estimateTokensOfText, renderEntry } from "./summarizer";

export interface NavigationPlan {
	targetId: string;
	target: SessionEntry;
	oldLeafId: string | null;
	commonAncestorId: string | null;
	/** Oldest first. */
	entriesToSummarize: SessionEntry[];
	newLeafId: string | null;
	editorText?: string;
	isNoop: boolean;
}

function isUserMessage(entry: SessionEntry): boolean {
	if (entry.type !== "message") return false;
	const msg = (entry as { message?: unknown }).message;
	return typeof msg === "object" && msg !== null && (msg as { role?: unknown }).role === "user";
}

/** Entries whose selection puts their text back in the composer and the leaf on their parent. */
export function isComposerTarget(entry: SessionEntry): boolean {
	return isUserMessage(entry) || entry.type === "custom_message";
}

export { isUserMessage };

/**
 * Deepest entry on both the old leaf's path and the target's path. Uses the target's path (not the new
 * leaf's) as pi does, so selecting a user message counts that message's parent chain.
 */
export function findCommonAncestor(m: SessionManager, oldLeafId: string | null, targetId: string): string | null {
	if (oldLeafId === null) return null;
	const oldPath = new Set(m.getBranch(oldLeafId).map((e) => e.id));
	const targetPath = m.getBranch(targetId);
	for (let i = targetPath.length - 1; i >= 0; i--) {
		const id = (targetPath[i] as SessionEntry).id;
		if (id !== undefined && oldPath.has(id)) return id;
	}
	return null;
}

/**
 * Old leaf back to (not including) the common ancestor. A compaction ends the walk: it is included, and
 * its summary stands for everything older, which the model already saw condensed.
 */
export function collectAbandoned(m: SessionManager, oldLeafId: string | null, commonAncestorId: string | null): SessionEntry[] {
	const out: SessionEntry[] = [];
	const seen = new Set<string>();
	let cur = oldLeafId;
	while (cur !== null && cur !== commonAncestorId && !seen.has(cur)) {
		seen.add(cur);
		const entry = m.getEntry(cur);
		if (!entry) break;
		out.push(entry);
		if (entry.type === "compaction") break;
		cur = typeof entry.parentId === "string" ? entry.parentId : null;
	}
	return out.reverse();
}

export function planNavigation(m: SessionManager, targetId: string): NavigationPlan {
	const target = m.getEntry(targetId);
	if (!target) throw new ArborServiceError("not_found", `Entry ${targetId} is not in this session.`);
	const oldLeafId = m.getLeafId();
	if (targetId === oldLeafId) {
		return { targetId, target, oldLeafId, commonAncestorId: oldLeafId, entriesToSummarize: [], newLeafId: oldLeafId, isNoop: true };
	}
	const commonAncestorId = findCommonAncestor(m, oldLeafId, targetId);
	const entriesToSummarize = collectAbandoned(m, oldLeafId, commonAncestorId);
	let newLeafId: string | null = targetId;
	let editorText: string | undefined;
	if (isComposerTarget(target)) {
		const parent = typeof target.parentId === "string" ? target.parentId : null;
		// An orphan's parent is not in the file: the best available position is "before the first entry".
		newLeafId = parent !== null && m.getEntry(parent) ? parent : null;
		editorText = entryText(target);
	}
	return { targetId, target, oldLeafId, commonAncestorId, entriesToSummarize, newLeafId, editorText, isNoop: false };
}

export function estimateEntriesTokens(entries: SessionEntry[]): number {
	let total = 0;
	for (const e of entries) {
		const block = renderEntry(e);
		if (block) total += estimateTokensOfText(block);
	}
	return total;
}

export function toPreview(plan: NavigationPlan): NavigationPreview {
	const ids: string[] = [];
	for (const e of plan.entriesToSummarize) if (typeof e.id === "string") ids.push(e.id);
	return {
		targetId: plan.targetId,
		oldLeafId: plan.oldLeafId,
		commonAncestorId: plan.commonAncestorId,
		entriesToSummarize: ids,
		newLeafId: plan.newLeafId,
		...(plan.editorText !== undefined ? { editorText: plan.editorText } : {}),
		isNoop: plan.isNoop,
		estimatedTokens: estimateEntriesTokens(plan.entriesToSummarize),
	};
}
