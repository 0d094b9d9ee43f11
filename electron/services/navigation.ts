// What a /tree navigation would do, computed without changing anything: the abandoned path to
// summarize, the common ancestor, the new leaf and the composer text (DESIGN.md "Navigation").
// Works on ids and skeleton kinds so a 100k-entry path is walked without parsing its entries.

import type { NavigationPreview } from "../../shared/api";
import type { SessionEntry } from "../../shared/entries";
import { EntryFlag, EntryKind } from "../../shared/skeleton";
import { entryText, type SessionManager } from "../session";
import { ArborServiceError } from "./errors";
import { estimateTokensOfText, RESERVE_TOKENS, renderEntry } from "./summarizer";

export interface NavigationPlan {
	targetId: string;
	target: SessionEntry;
	oldLeafId: string | null;
	commonAncestorId: string | null;
	/** Abandoned entries, oldest first. */
	abandonedIds: string[];
	newLeafId: string | null;
	editorText?: string;
	isNoop: boolean;
}

/** Default summary input budget when the model is not known yet (a 128k-token context window). */
export const DEFAULT_INPUT_BUDGET = 128_000 - RESERVE_TOKENS;

export function isUserMessage(entry: SessionEntry): boolean {
	if (entry.type !== "message") return false;
	const msg = (entry as { message?: unknown }).message;
	return typeof msg === "object" && msg !== null && (msg as { role?: unknown }).role === "user";
}

/** Entries whose selection puts their text back in the composer and the leaf on their parent. */
export function isComposerTarget(entry: SessionEntry): boolean {
	return isUserMessage(entry) || entry.type === "custom_message";
}

/**
 * Index of the deepest entry on both the old leaf's path and the target's path (-1: none). Uses the
 * target's path (not the new leaf's) as pi does, so selecting a user message counts that message itself.
 * Works on file-order indices: a 100k-deep path costs two walks and a byte per entry, no id strings.
 */
function commonAncestorIndex(count: number, oldPath: Int32Array, targetPath: Int32Array): number {
	const onOld = new Uint8Array(count);
	for (let k = 0; k < oldPath.length; k++) onOld[oldPath[k] as number] = 1;
	for (let k = targetPath.length - 1; k >= 0; k--) {
		const i = targetPath[k] as number;
		if (onOld[i]) return i;
	}
	return -1;
}

/**
 * Old leaf back to (not including) the common ancestor, oldest first. A compaction ends the walk: it is
 * included, and its summary stands for everything older, which the model already saw condensed.
 */
function abandoned(m: SessionManager, oldPath: Int32Array, commonAncestor: number): string[] {
	const out: string[] = [];
	for (let k = oldPath.length - 1; k >= 0; k--) {
		const i = oldPath[k] as number;
		if (i === commonAncestor) break;
		out.push(m.idAt(i));
		if (m.kindAt(i) === EntryKind.compaction) break;
	}
	return out.reverse();
}

export function planNavigation(m: SessionManager, targetId: string): NavigationPlan {
	const target = m.getEntry(targetId);
	if (!target) throw new ArborServiceError("not_found", `Entry ${targetId} is not in this session.`);
	const oldLeafId = m.getLeafId();
	if (targetId === oldLeafId) {
		return { targetId, target, oldLeafId, commonAncestorId: oldLeafId, abandonedIds: [], newLeafId: oldLeafId, isNoop: true };
	}
	let commonAncestorId: string | null = null;
	let abandonedIds: string[] = [];
	const leafIndex = oldLeafId === null ? -1 : m.indexOf(oldLeafId);
	if (leafIndex >= 0) {
		const oldPath = m.pathIndices(leafIndex);
		const ca = commonAncestorIndex(m.getEntryCount(), oldPath, m.pathIndices(m.indexOf(targetId)));
		commonAncestorId = ca >= 0 ? m.idAt(ca) : null;
		abandonedIds = abandoned(m, oldPath, ca);
	}
	let newLeafId: string | null = targetId;
	let editorText: string | undefined;
	if (isComposerTarget(target)) {
		const parent = typeof target.parentId === "string" ? target.parentId : null;
		// An orphan's parent is not in the file: the best available position is "before the first entry".
		newLeafId = parent !== null && m.getEntry(parent) ? parent : null;
		editorText = entryText(target);
	}
	return { targetId, target, oldLeafId, commonAncestorId, abandonedIds, newLeafId, editorText, isNoop: false };
}

export function loadEntries(m: SessionManager, ids: string[]): SessionEntry[] {
	const out: SessionEntry[] = [];
	for (const id of ids) {
		const e = m.getEntry(id);
		if (e) out.push(e);
	}
	return out;
}

/**
 * The abandoned entries the summarizer needs, oldest first: the newest ones until the input budget is
 * spent (older ones would be cut anyway), plus every older entry that can carry file operations (tool
 * calls, earlier summaries), which `details` must still count. Keeps a 100k-entry branch from being parsed
 * in full.
 */
export function entriesForSummary(m: SessionManager, ids: string[], budgetTokens: number): SessionEntry[] {
	const out: SessionEntry[] = [];
	let tokens = 0;
	for (let i = ids.length - 1; i >= 0; i--) {
		const id = ids[i] as string;
		const idx = m.indexOf(id);
		const inBudget = tokens <= budgetTokens;
		const kind = m.kindAt(idx);
		const carriesFiles = m.flagsAt(idx) & EntryFlag.hasToolCalls || kind === EntryKind.branchSummary || kind === EntryKind.compaction;
		if (!inBudget && !carriesFiles) continue;
		const e = m.getEntry(id);
		if (!e) continue;
		out.push(e);
		if (inBudget) {
			const block = renderEntry(e);
			if (block) tokens += estimateTokensOfText(block);
		}
	}
	return out.reverse();
}

/** Tokens the summary request would carry: the rendered abandoned entries, newest first, up to the budget. */
export function estimateAbandonedTokens(m: SessionManager, ids: string[], budgetTokens = DEFAULT_INPUT_BUDGET): number {
	let total = 0;
	for (let i = ids.length - 1; i >= 0 && total < budgetTokens; i--) {
		const e = m.getEntry(ids[i] as string);
		const block = e ? renderEntry(e) : undefined;
		if (block) total += estimateTokensOfText(block);
	}
	return Math.min(total, budgetTokens);
}

export function toPreview(m: SessionManager, plan: NavigationPlan): NavigationPreview {
	return {
		targetId: plan.targetId,
		oldLeafId: plan.oldLeafId,
		commonAncestorId: plan.commonAncestorId,
		entriesToSummarize: plan.abandonedIds,
		newLeafId: plan.newLeafId,
		...(plan.editorText !== undefined ? { editorText: plan.editorText } : {}),
		isNoop: plan.isNoop,
		estimatedTokens: estimateAbandonedTokens(m, plan.abandonedIds),
	};
}
