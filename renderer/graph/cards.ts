// What a card says about its entry, from the skeleton alone (kind, flags, tokens, label) plus the preview
// line the main process sends (pi's tree row text). Pure, so it is tested without a DOM.

import type { CardFacts, UsageRollup } from "../../shared/card-facts";
import { EntryFlag, EntryKind, type Skeleton } from "../../shared/skeleton";

export interface KindStyle {
	/** CSS modifier: `arbor-card--<cls>`. */
	cls: string;
	/** Short title shown on the card header. */
	title: string;
	/** A glyph that reads at small sizes; plain symbols present in common fonts (emoji are not everywhere). */
	icon: string;
}

const KIND_STYLES: Record<number, KindStyle> = {
	[EntryKind.user]: { cls: "user", title: "user", icon: "☺" },
	[EntryKind.assistant]: { cls: "assistant", title: "assistant", icon: "✦" },
	[EntryKind.toolResult]: { cls: "tool", title: "tool result", icon: "⚙" },
	[EntryKind.bashExecution]: { cls: "bash", title: "bash", icon: "$" },
	[EntryKind.customMessageRole]: { cls: "custom", title: "custom message", icon: "✉" },
	[EntryKind.otherRole]: { cls: "other", title: "message", icon: "·" },
	[EntryKind.compaction]: { cls: "compaction", title: "compaction", icon: "⇊" },
	[EntryKind.branchSummary]: { cls: "summary", title: "branch summary", icon: "Σ" },
	[EntryKind.customMessage]: { cls: "custom", title: "custom message", icon: "✉" },
	[EntryKind.custom]: { cls: "setting", title: "custom", icon: "⋯" },
	[EntryKind.label]: { cls: "setting", title: "label", icon: "⚑" },
	[EntryKind.modelChange]: { cls: "setting", title: "model", icon: "◈" },
	[EntryKind.thinkingLevelChange]: { cls: "setting", title: "thinking", icon: "◌" },
	[EntryKind.sessionInfo]: { cls: "setting", title: "session info", icon: "ℹ" },
	[EntryKind.unknown]: { cls: "unknown", title: "unknown entry", icon: "?" },
	// pi 1.6.
	[EntryKind.system]: { cls: "system", title: "system", icon: "§" },
	[EntryKind.usage]: { cls: "usage", title: "usage", icon: "¢" },
	[EntryKind.contextEdit]: { cls: "edit", title: "context edit", icon: "✎" },
	// omp 18.3 records.
	[EntryKind.modelUsage]: { cls: "usage", title: "model usage", icon: "¢" },
	[EntryKind.serviceTierChange]: { cls: "setting", title: "service tier", icon: "◇" },
	[EntryKind.resetBoundary]: { cls: "reset", title: "context cleared", icon: "⟲" },
	[EntryKind.titleChange]: { cls: "setting", title: "title", icon: "ℹ" },
	[EntryKind.ttsrInjection]: { cls: "setting", title: "rules injected", icon: "≡" },
	[EntryKind.sessionInit]: { cls: "setting", title: "subagent", icon: "▸" },
	[EntryKind.modeChange]: { cls: "setting", title: "mode", icon: "◐" },
	[EntryKind.credentialPin]: { cls: "setting", title: "account pin", icon: "⊙" },
};

export function kindStyle(kind: number): KindStyle {
	return KIND_STYLES[kind] ?? KIND_STYLES[EntryKind.unknown];
}

export interface CardMarker {
	cls: string;
	text: string;
	title: string;
}

/** Small markers from the entry's flags: what it contains and whether it went wrong. */
export function flagMarkers(flags: number): CardMarker[] {
	const out: CardMarker[] = [];
	if (flags & EntryFlag.error) out.push({ cls: "error", text: "error", title: "Error (stopReason error, tool error or non-zero exit)" });
	if (flags & EntryFlag.aborted) out.push({ cls: "aborted", text: "aborted", title: "Aborted turn" });
	if (flags & EntryFlag.truncated) out.push({ cls: "truncated", text: "length", title: "Stopped at the length limit" });
	if (flags & EntryFlag.hasThinking) out.push({ cls: "thinking", text: "thinking", title: "Has thinking" });
	if (flags & EntryFlag.hasToolCalls) out.push({ cls: "tools", text: "tools", title: "Calls tools" });
	if (flags & EntryFlag.hasImage) out.push({ cls: "image", text: "image", title: "Has an image" });
	if (flags & EntryFlag.hidden) out.push({ cls: "hidden", text: "hidden", title: "Not displayed by pi (display: false)" });
	if (flags & EntryFlag.orphan) out.push({ cls: "warn", text: "orphan", title: "Its parent is not in the file" });
	if (flags & EntryFlag.duplicateId) out.push({ cls: "warn", text: "dup id", title: "Another entry has the same id" });
	if (flags & EntryFlag.cycleCut) out.push({ cls: "warn", text: "cycle", title: "Parent link cut to break a cycle" });
	return out;
}

/** "12k tokens" style; empty for 0. */
export function formatTokens(tokens: number): string {
	if (!(tokens > 0)) return "";
	if (tokens < 1000) return `${Math.round(tokens)} tok`;
	return `${Math.round(tokens / 1000)}k tok`;
}

/** pi's label-time format: HH:MM today, M/D HH:MM this year, YY/M/D HH:MM before. */
export function formatLabelTime(ms: number, now: number = Date.now()): string {
	if (!Number.isFinite(ms)) return "";
	const d = new Date(ms);
	const n = new Date(now);
	const hm = `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
	if (d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate()) return hm;
	if (d.getFullYear() === n.getFullYear()) return `${d.getMonth() + 1}/${d.getDate()} ${hm}`;
	return `${String(d.getFullYear() % 100).padStart(2, "0")}/${d.getMonth() + 1}/${d.getDate()} ${hm}`;
}

/**
 * Card body text. The preview is pi's row text (`user: …`, `[read: path:1-40]`, `[compaction: 12k tokens]`);
 * while it is loading, a placeholder from the kind alone keeps the card readable.
 */
export function cardText(s: Skeleton, e: number, preview: string | undefined): string {
	if (preview !== undefined) return stripRolePrefix(preview);
	const k = s.kind[e];
	if (k === EntryKind.compaction && s.tokens[e] > 0) return `[compaction: ${Math.round(s.tokens[e] / 1000)}k tokens]`;
	return "…";
}

// The card header already names the role, so "user: hi" reads better as "hi".
function stripRolePrefix(text: string): string {
	const m = /^(user|assistant): /.exec(text);
	return m ? text.slice(m[0].length) : text;
}

/** What a "+N" segment holds, for its tooltip: "3 assistant, 2 tool result; 1 error". */
export function segmentSummary(s: Skeleton, members: ArrayLike<number>): string {
	const counts = new Map<string, number>();
	let errors = 0;
	for (let k = 0; k < members.length; k++) {
		const e = members[k];
		const t = kindStyle(s.kind[e]).title;
		counts.set(t, (counts.get(t) ?? 0) + 1);
		if (s.flags[e] & EntryFlag.error) errors++;
	}
	const parts = [...counts].map(([t, c]) => `${c} ${t}`);
	return parts.join(", ") + (errors > 0 ? `; ${errors} error${errors === 1 ? "" : "s"}` : "");
}

/** True when any member of a segment carries an error flag (the segment shows a red dot). */
export function segmentHasError(s: Skeleton, members: ArrayLike<number>): boolean {
	for (let k = 0; k < members.length; k++) if (s.flags[members[k]] & (EntryFlag.error | EntryFlag.aborted)) return true;
	return false;
}

/** "$0.0021" (4 decimals under a dollar, 2 above); empty for 0. */
export function formatCost(cost: number): string {
	if (!(cost > 0)) return "";
	return cost < 1 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`;
}

function firstWords(text: string, n: number): string {
	const words = text.replace(/\s+/g, " ").trim().split(" ").filter(Boolean);
	return words.slice(0, n).join(" ") + (words.length > n ? " …" : "");
}

/**
 * A system message patch in words, naming only what changes: "2 sections set, 1 removed, 1 tool added"
 * (empty when it changes none). "+5 sections / −0 / tools +4 −0" read as arithmetic, zeros included.
 */
export function systemPatchText(f: NonNullable<CardFacts["system"]>): string {
	const n = (count: number, one: string, many: string, verb: string): string => (count === 0 ? "" : `${count} ${count === 1 ? one : many} ${verb}`);
	return [
		n(f.sectionsSet, "section", "sections", "set"),
		n(f.sectionsRemoved, "section", "sections", "removed"),
		n(f.toolsAdded, "tool", "tools", "added"),
		n(f.toolsRemoved, "tool", "tools", "removed"),
	]
		.filter(Boolean)
		.join(", ");
}

/**
 * Card body text from card facts for the kinds whose preview line says little (system messages, context
 * edits, omp records); undefined when the facts do not apply. `targetPreview` is the context edit target's
 * row text when loaded.
 */
export function factsText(f: CardFacts, targetPreview?: string): string | undefined {
	if (f.system) {
		const parts: string[] = [];
		if (f.system.contentPreview.trim() !== "") parts.push(firstWords(f.system.contentPreview, 10));
		const patch = systemPatchText(f.system);
		if (patch) parts.push(patch);
		return parts.length > 0 ? parts.join(" · ") : "(no changes)";
	}
	if (f.contextEdit) {
		const target = targetPreview !== undefined && targetPreview !== "" ? stripRolePrefix(targetPreview) : f.contextEdit.targetId || "(no target)";
		return `context ${f.contextEdit.mode}: ${target}`;
	}
	if (f.omp && f.omp.summary !== "") return f.omp.summary;
	return undefined;
}

/** The parent card's usage line for the usage lines folded into it: "+$0.0020 ×3" and its tooltip. */
export function usageRollupText(r: UsageRollup): { text: string; title: string } {
	const cost = formatCost(r.cost);
	const calls = `${r.lines} call${r.lines === 1 ? "" : "s"}`;
	return {
		text: `${cost ? `+${cost}` : "+usage"} ×${r.lines}`,
		title: `cache warming: ${calls}${r.tokens > 0 ? `, ${Math.round(r.tokens).toLocaleString("en-US")} tokens` : ""}, ${cost || "$0"} (usage lines hidden in every view)`,
	};
}

/**
 * Cut a card's text so that it ends on a whole word within `lines` lines of `width` px: words are laid
 * out greedily as the browser wraps them (newlines start a new line); when the text does not fit, the
 * last line keeps the words that fit before a "…". A word longer than a whole line is cut by characters
 * (the browser breaks it too). `measure` gives a string's width in px.
 */
export function fitWords(text: string, lines: number, width: number, measure: (s: string) => number): string {
	const paras = text.split("\n").map((p) => p.replace(/\s+/g, " ").trim());
	const out: string[] = [];
	let line = "";
	const ell = "…";
	const finish = (rest: boolean): string => {
		if (!rest) return [...out, line].filter((l, i, a) => i < a.length - 1 || l !== "").join("\n");
		// Last line: drop words until the line plus the ellipsis fits.
		let last = line;
		while (last !== "" && measure(last + ell) > width) {
			const cut = last.lastIndexOf(" ");
			last = cut > 0 ? last.slice(0, cut) : last.slice(0, -1);
		}
		return [...out, last.replace(/[\s,.;:]+$/, "") + ell].join("\n");
	};
	for (let p = 0; p < paras.length; p++) {
		const words = paras[p] === "" ? [] : paras[p].split(" ");
		for (let w = 0; w < words.length; w++) {
			let word = words[w];
			const next = line === "" ? word : `${line} ${word}`;
			if (measure(next) <= width) {
				line = next;
				continue;
			}
			// The word goes on a new line (cut by characters when it is wider than a line).
			if (line !== "") {
				if (out.length + 1 >= lines) return finish(true);
				out.push(line);
				line = "";
			}
			while (measure(word) > width) {
				let k = word.length - 1;
				while (k > 1 && measure(word.slice(0, k)) > width) k--;
				if (out.length + 1 >= lines) {
					line = word.slice(0, k);
					return finish(true);
				}
				out.push(word.slice(0, k));
				word = word.slice(k);
			}
			line = word;
		}
		if (p < paras.length - 1) {
			if (out.length + 1 >= lines) return paras.slice(p + 1).some((x) => x !== "") ? finish(true) : finish(false);
			out.push(line);
			line = "";
		}
	}
	return finish(false);
}
