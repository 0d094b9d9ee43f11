// Client views (one part of SessionManager, docs/session-core.md "Parts"): what the app draws from the
// index without a second model — the skeleton and its deltas (shared/skeleton.ts), pi's tree-selector row
// text, card facts and usage roll-ups. Entry bodies are read in batches (sorted by offset, neighbouring lines
// in one positional read).

import type { SessionEntry, ToolCallBlock } from "../../shared/entries";
import { type CardFacts, cardFacts, type UsageFacts, type UsageRollup, usageFacts, usageRollup } from "../../shared/card-facts";
import { firstSkeletonOf } from "../../shared/first-skeleton";
import { previewText } from "../../shared/preview";
import { EntryFlag, EntryKind, type Skeleton, type SkeletonDelta, type SkeletonLabel } from "../../shared/skeleton";
import { isAlwaysHiddenKind } from "../../shared/tree-view";
import type { EntryIndex } from "./entry-index";
import { isRecord } from "../../shared/guards";
import type { Columns } from "./store";

type Loose = Record<string, unknown>;

export class ClientViews {
	/** Tool call id → assistant entry, built on first need for the columns and entry count it was built from. */
	#toolCalls: { cols: Columns; count: number; at: Map<string, number> } | undefined;

	skeleton(ix: EntryIndex): Skeleton {
		const c = ix.cols;
		const n = c.count;
		return {
			count: n,
			ids: c.ids.slice(0, n),
			parent: c.parent.slice(0, n),
			kind: c.kind.slice(0, n),
			flags: c.flags.slice(0, n),
			time: c.time.slice(0, n),
			tokens: c.tokens.slice(0, n),
			cost: c.cost.slice(0, n),
			labels: skeletonLabels(ix),
			leaf: ix.anchorOf(ix.leafIndex()),
			resumeLeaf: ix.resumeAnchorIndex(),
		};
	}

	/** A big session's first part (shared/first-skeleton.ts), picked from the columns without copying them. */
	firstSkeleton(ix: EntryIndex, size: number, minEntries: number): Skeleton | null {
		const c = ix.cols;
		const whole: Skeleton = {
			count: c.count,
			ids: c.ids,
			parent: c.parent,
			kind: c.kind,
			flags: c.flags,
			time: c.time,
			tokens: c.tokens,
			cost: c.cost,
			labels: skeletonLabels(ix),
			leaf: ix.anchorOf(ix.leafIndex()),
			resumeLeaf: ix.resumeAnchorIndex(),
		};
		return firstSkeletonOf(whole, size, minEntries);
	}

	skeletonDelta(ix: EntryIndex, start: number): SkeletonDelta {
		const c = ix.cols;
		const n = c.count;
		const s = Math.max(0, Math.min(start, n));
		return {
			start: s,
			ids: c.ids.slice(s, n),
			parent: c.parent.slice(s, n),
			kind: c.kind.slice(s, n),
			flags: c.flags.slice(s, n),
			time: c.time.slice(s, n),
			tokens: c.tokens.slice(s, n),
			cost: c.cost.slice(s, n),
			labels: skeletonLabels(ix),
			leaf: ix.anchorOf(ix.leafIndex()),
			resumeLeaf: ix.resumeAnchorIndex(),
		};
	}

	#findToolCall(ix: EntryIndex, fromIndex: number, toolCallId: string): ToolCallBlock | undefined {
		const c = ix.cols;
		// The call is almost always a few steps up the path (assistant → toolResult → toolResult...).
		let j = c.parent[fromIndex];
		for (let hops = 0; j >= 0 && hops < 64; hops++, j = c.parent[j]) {
			if (c.kind[j] !== EntryKind.assistant || !(c.flags[j] & EntryFlag.hasToolCalls)) continue;
			const hit = toolCallIn(ix.cache.get(j), toolCallId);
			if (hit) return hit;
		}
		// pi's tree selector maps every tool call in the session; fall back to a lazily built index.
		let t = this.#toolCalls;
		if (!t || t.cols !== c || t.count !== c.count) {
			const at = new Map<string, number>();
			for (let i = 0; i < c.count; i++) {
				if (c.kind[i] !== EntryKind.assistant || !(c.flags[i] & EntryFlag.hasToolCalls)) continue;
				const m = (ix.cache.get(i) as Loose).message;
				const content = isRecord(m) ? m.content : undefined;
				if (!Array.isArray(content)) continue;
				for (const b of content) if (isRecord(b) && b.type === "toolCall" && typeof b.id === "string") at.set(b.id, i);
			}
			t = this.#toolCalls = { cols: c, count: c.count, at };
		}
		const hit = t.at.get(toolCallId);
		return hit === undefined ? undefined : toolCallIn(ix.cache.get(hit), toolCallId);
	}

	previews(ix: EntryIndex, indices: number[], opts: { homeDir?: string } = {}): string[] {
		const homeDir = opts.homeDir ?? process.env.HOME ?? process.env.USERPROFILE ?? "";
		const c = ix.cols;
		const valid = indices.filter((i) => i >= 0 && i < c.count);
		// One batch (sorted by offset, neighbouring lines in one positional read) for the rows and the assistant
		// entries their tool results name, instead of a read per entry.
		const want = new Set<number>(valid);
		for (const i of valid) {
			if (c.kind[i] !== EntryKind.toolResult) continue;
			let j = c.parent[i];
			for (let hops = 0; j >= 0 && hops < 64; hops++, j = c.parent[j]) {
				if (c.kind[j] === EntryKind.assistant && c.flags[j] & EntryFlag.hasToolCalls) {
					want.add(j);
					break;
				}
			}
		}
		const batch = [...want];
		const got = ix.cache.getMany(batch);
		const byIndex = new Map<number, SessionEntry>();
		batch.forEach((i, k) => byIndex.set(i, got[k]));
		return indices.map((i) => {
			const e = byIndex.get(i);
			if (!e) return "";
			return previewText(e, (id) => this.#findToolCall(ix, i, id), { homeDir });
		});
	}

	/** What cards need beyond the skeleton, per index (shared/card-facts.ts); read in one batch as previews. */
	cardFacts(ix: EntryIndex, indices: number[], opts: { homeDir?: string } = {}): (CardFacts | null)[] {
		const homeDir = opts.homeDir ?? process.env.HOME ?? process.env.USERPROFILE ?? "";
		const c = ix.cols;
		const valid = indices.filter((i) => i >= 0 && i < c.count);
		const got = ix.cache.getMany(valid);
		const byIndex = new Map<number, SessionEntry>();
		valid.forEach((i, k) => byIndex.set(i, got[k]));
		return indices.map((i) => {
			const e = byIndex.get(i);
			return e ? cardFacts(e, (id) => this.#findToolCall(ix, i, id), { homeDir }) : null;
		});
	}

	/** Usage lines (pi's usage, omp's model_usage) summed into the entry each hangs under (shared/card-facts.ts). */
	usageRollup(ix: EntryIndex): UsageRollup[] {
		const c = ix.cols;
		const lines: number[] = [];
		for (let i = 0; i < c.count; i++) if (isAlwaysHiddenKind(c.kind[i])) lines.push(i);
		const got = ix.cache.getMany(lines);
		const facts = new Map<number, UsageFacts | undefined>();
		lines.forEach((i, k) => facts.set(i, usageFacts((got[k] as Loose).usage)));
		return usageRollup({ count: c.count, parent: c.parent, kind: c.kind }, (i) => facts.get(i));
	}
}

function skeletonLabels(ix: EntryIndex): SkeletonLabel[] {
	const out: SkeletonLabel[] = [];
	for (const [targetId, st] of ix.labels) {
		const target = ix.byId.get(targetId);
		if (target === undefined) continue;
		out.push({ target, label: st.label, time: st.timestamp ? new Date(st.timestamp).getTime() : Number.NaN });
	}
	return out;
}

function toolCallIn(entry: SessionEntry | undefined, toolCallId: string): ToolCallBlock | undefined {
	const m = (entry as Loose | undefined)?.message;
	if (!isRecord(m) || !Array.isArray(m.content)) return undefined;
	for (const b of m.content) {
		if (isRecord(b) && b.type === "toolCall" && b.id === toolCallId) return b as unknown as ToolCallBlock;
	}
	return undefined;
}
