// The model context at an entry, as the UI shows it: the core's buildSessionContext messages, each paired
// with the entry that produced it and a rough token estimate (characters / 4, images at a flat rate).
// omp files (the core's sessionWriter rule) get omp 18.3's context (its format's buildContext: buildOmpContext)
// unless pi's is asked for.

import type { ContextMessageView, ContextRules, ContextView } from "../../shared/api";
import type { AgentMessage } from "../../shared/entries";
import { EntryKind } from "../../shared/skeleton";
import { formatById, sessionWriter, type OmpSessionContext, type SessionManager } from "../session";
import { isRecord } from "../../shared/guards";
import { safeJson } from "../../shared/tree-text";

/** A flat per-image estimate: the image bytes say little about what a provider bills. */
const IMAGE_TOKENS = 1_200;

export function estimateMessageTokens(message: AgentMessage): number {
	let chars = 0;
	let images = 0;
	const addContent = (content: unknown): void => {
		if (typeof content === "string") {
			chars += content.length;
			return;
		}
		if (!Array.isArray(content)) return;
		for (const b of content) {
			if (!isRecord(b)) continue;
			if (b.type === "text" && typeof b.text === "string") chars += b.text.length;
			else if (b.type === "thinking" && typeof b.thinking === "string") chars += b.thinking.length;
			else if (b.type === "toolCall") chars += (typeof b.name === "string" ? b.name.length : 0) + (safeJson(b.arguments ?? {})?.length ?? 0);
			else if (b.type === "image") images++;
		}
	};
	const m = message as Record<string, unknown>;
	addContent(m.content);
	if (typeof m.summary === "string") chars += m.summary.length;
	if (typeof m.command === "string") chars += m.command.length;
	if (typeof m.output === "string") chars += m.output.length;
	return Math.ceil(chars / 4) + images * IMAGE_TOKENS;
}

/**
 * The context at `leafId` with each message paired with the entry that produced it, from the core's
 * projection (pi 1.6's buildSessionProjection: compaction checkpoint and summary, kept range, context edits).
 */
export function buildContextView(m: SessionManager, leafId: string | null, as?: ContextRules): ContextView {
	const writer = sessionWriter(m);
	const rules = as ?? writer;
	// A format with context rules of its own (omp's) builds the context; every other uses pi's projection.
	const own = formatById(rules)?.buildContext;
	if (own) return buildOmpContextView(m, leafId, writer, own(m, leafId) as OmpSessionContext, rules);
	const p = m.buildSessionProjection(leafId);
	const messages: ContextMessageView[] = [];
	let compactionId: string | null = null;
	p.entries.forEach((e, k) => {
		const id = m.idAt(e.index);
		if (k === 0 && m.kindAt(e.index) === EntryKind.compaction) compactionId = id;
		for (const message of e.messages) {
			const view: ContextMessageView = { entryId: id, message, estimatedTokens: estimateMessageTokens(message) };
			if (e.editIndex >= 0) view.contextEditId = m.idAt(e.editIndex);
			messages.push(view);
		}
	});
	return {
		leafId,
		thinkingLevel: p.thinkingLevel,
		model: p.model,
		messages,
		totalEstimatedTokens: messages.reduce((n, v) => n + v.estimatedTokens, 0),
		compactionId,
		rules: "pi",
		writer,
	};
}

/** "provider/modelId" -> its parts (the first slash splits; a string without one is a model id). */
function splitModel(s: string | undefined): { provider: string; modelId: string } | null {
	if (!s) return null;
	const k = s.indexOf("/");
	return k < 0 ? { provider: "", modelId: s } : { provider: s.slice(0, k), modelId: s.slice(k + 1) };
}

/** The context at `leafId` as omp 18.3 sends it (buildOmpContext), each message paired with its entry. */
function buildOmpContextView(m: SessionManager, leafId: string | null, writer: ContextRules, c: OmpSessionContext, rules: ContextRules): ContextView {
	// A null leaf is "no leaf" (an empty context), as in pi's projection.
	const messages: ContextMessageView[] = c.messages.map((message, k) => ({
		entryId: c.entryIds[k] ?? null,
		message,
		estimatedTokens: estimateMessageTokens(message),
	}));
	const first = c.entryIds[0];
	const firstIndex = first === undefined ? -1 : m.indexOf(first);
	const tier = c.serviceTier;
	return {
		leafId,
		thinkingLevel: c.thinkingLevel ?? "off",
		model: splitModel(c.models.default),
		messages,
		totalEstimatedTokens: messages.reduce((n, v) => n + v.estimatedTokens, 0),
		compactionId: firstIndex >= 0 && m.kindAt(firstIndex) === EntryKind.compaction ? first : null,
		rules,
		writer,
		omp: {
			models: c.models,
			...(tier === undefined || tier === null ? {} : { serviceTier: typeof tier === "string" ? tier : JSON.stringify(tier) }),
			...(c.thinkingLevel === undefined ? {} : { thinkingLevel: c.thinkingLevel }),
			...(c.configuredThinkingLevel === undefined ? {} : { configuredThinkingLevel: c.configuredThinkingLevel }),
			injectedTtsrRules: c.injectedTtsrRules,
			mode: c.mode,
		},
	};
}
