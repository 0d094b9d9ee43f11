// The model context oh-my-pi 18.3 builds for a session (its session/session-context.ts, non-transcript mode),
// for showing an omp file "as omp would send it". pi's buildSessionContext stays the default everywhere; this
// one adds omp's record rules:
// - settings from the path: `model_change.model` by `role` (an explicit default wins over assistant messages),
//   `service_tier_change`, `thinking_level_change` (+ `configured`), `ttsr_injection` rule names, `mode_change`;
// - `reset_boundary` (omp's /clear): when it is later on the path than the latest compaction, only entries
//   after it are sent;
// - the latest compaction's kept tail, with omp's provider-native compactions: an OpenAI remote compaction
//   (`preserveData.openaiRemoteCompaction` with a provider and a replacementHistory of objects) sends its
//   replacement history on the summary message (`providerPayload`, type "openaiResponsesHistory") instead of
//   the kept entries, plus the entries after `providerReplayThroughEntryId`; an Anthropic server compaction
//   (`preserveData.anthropicCompaction`) with an empty `firstKeptEntryId` keeps the entries after
//   `providerReplayThroughEntryId` and carries its payload (`providerPayload`, type "anthropicCompaction", and
//   `historyRewriteAt`); snapcompact compactions keep the ordinary kept range; the summary message has omp's
//   fields (`shortSummary`, `tokensAfter`, `method`, `warning`) in omp's order;
// - `model_usage`, `title_change`, `credential_pin`, `session_init`, labels, custom entries never reach the model;
// - assistant turns marked `retryRecovery` and empty error turns are skipped; tool calls without a result on
//   the path are stripped (a turn left empty is dropped); aborted / error turns are dropped with their results.
// Checked against omp 18.3.4's own code run by Bun (electron/session/test/omp-oracle.test.ts). Not reproduced:
// the snapcompact frames omp re-attaches to the summary message, context notes, the notes-backed rollover,
// two internal custom-message types it filters, and the legacy service-tier coercion (the stored value is
// passed through). docs/compatibility.md.

import type { AgentMessage, SessionEntry } from "../../../../shared/entries";
import type { SessionManager } from "../../manager";
import { toContextMessages } from "../../context";
import { isRecord } from "../../../../shared/guards";
import { EntryKind } from "../../../../shared/skeleton";

// Which agent wrote a file, for choosing whose context rules to show (docs/compatibility.md "Whose context").
// The header's version is 3 for both, so the file's own records decide. A file is omp's when any of:
// - its first line is a title record (`{"type":"title",...}`: omp 18.3 writes its fixed-width title slot
//   first in every file; pi never writes one and refuses such files);
// - the header carries a field only omp writes: `title`, `titleSource`, `additionalDirectories`,
//   `previousSessionFiles`, `providerPromptCacheKey` (pi 1.6's header has type/version/id/timestamp/cwd/
//   parentSession only);
// - an entry has a type only omp writes: model_usage, service_tier_change, reset_boundary, title_change,
//   ttsr_injection, session_init, mode_change, credential_pin.
// Everything else is pi's (older omp files that hold none of these read the same under both rules).

export type SessionWriter = "pi" | "omp";

/** Header fields omp 18.3 writes and pi 1.6 does not. */
export const OMP_HEADER_FIELDS = ["title", "titleSource", "additionalDirectories", "previousSessionFiles", "providerPromptCacheKey"] as const;

/** Entry types only omp 18.3 writes. */
export const OMP_ONLY_TYPES: ReadonlySet<string> = new Set([
	"model_usage",
	"service_tier_change",
	"reset_boundary",
	"title_change",
	"ttsr_injection",
	"session_init",
	"mode_change",
	"credential_pin",
]);

const OMP_ONLY_KINDS: ReadonlySet<number> = new Set([
	EntryKind.modelUsage,
	EntryKind.serviceTierChange,
	EntryKind.resetBoundary,
	EntryKind.titleChange,
	EntryKind.ttsrInjection,
	EntryKind.sessionInit,
	EntryKind.modeChange,
	EntryKind.credentialPin,
]);

/** The header (and title line) part of the rule: true when they alone say omp. */
export function ompByHeader(header: unknown, hasTitleLine: boolean): boolean {
	if (hasTitleLine) return true;
	if (!isRecord(header)) return false;
	return OMP_HEADER_FIELDS.some((f) => header[f] !== undefined);
}

/** Who wrote the open file: "omp" by the rule above, else "pi". Reads the skeleton's kinds, parses nothing. */
export function sessionWriter(sm: SessionManager): SessionWriter {
	if (ompByHeader(sm.getHeader(), sm.getTitleSlot() !== undefined)) return "omp";
	for (let i = 0, n = sm.getEntryCount(); i < n; i++) if (OMP_ONLY_KINDS.has(sm.kindAt(i))) return "omp";
	return "pi";
}

type Loose = Record<string, unknown>;

export interface OmpSessionContext {
	messages: AgentMessage[];
	/** The entry that produced each message (same order and length as `messages`). */
	entryIds: string[];
	thinkingLevel?: string;
	configuredThinkingLevel?: string;
	serviceTier?: unknown;
	/** Model per role: { default: "provider/modelId", smol: ... }. */
	models: Record<string, string>;
	injectedTtsrRules: string[];
	mode: string;
	modeData?: Record<string, unknown>;
}

function empty(): OmpSessionContext {
	return { messages: [], entryIds: [], thinkingLevel: "off", serviceTier: undefined, models: {}, injectedTtsrRules: [], mode: "none" };
}

/** omp's isEmptyErrorTurn: an error turn with no text, thinking, tool call or unknown block. */
function isEmptyErrorTurn(m: Loose): boolean {
	if (m.stopReason !== "error") return false;
	const content = Array.isArray(m.content) ? m.content : [];
	return !content.some((b) => {
		if (!isRecord(b)) return false;
		switch (b.type) {
			case "text":
				return typeof b.text === "string" && b.text.trim().length > 0;
			case "thinking":
				return (
					(typeof b.thinking === "string" && b.thinking.trim().length > 0) || (typeof b.thinkingSignature === "string" && b.thinkingSignature.trim().length > 0)
				);
			case "redactedThinking":
				return typeof b.data === "string" && b.data.trim().length > 0;
			case "toolCall":
				return true;
			case "fallback":
				return false;
			default:
				return true;
		}
	});
}

/** omp's getOpenAiRemoteCompactionPayload: a provider name and a replacement history made of objects, else none. */
function openAiRemotePayload(c: Loose): Loose | undefined {
	const pd = c.preserveData;
	const r = isRecord(pd) ? pd.openaiRemoteCompaction : undefined;
	if (!isRecord(r)) return undefined;
	if (typeof r.provider !== "string" || r.provider.length === 0) return undefined;
	if (!Array.isArray(r.replacementHistory) || !r.replacementHistory.every(isRecord)) return undefined;
	return { type: "openaiResponsesHistory", provider: r.provider, items: r.replacementHistory };
}

const nonEmpty = (x: unknown): x is string => typeof x === "string" && x.length > 0;

/**
 * omp's getAnthropicCompactionPayload (pi-agent-core 18.3.4, read in the omp 18.3.4 bundle): the preserveData
 * slot `anthropicCompaction` counts when it names a provider and holds content (both non-empty strings); the
 * payload keeps the non-empty `signature`, `encryptedContent` and `filesText` too.
 */
function anthropicPayload(c: Loose): Loose | undefined {
	const pd = c.preserveData;
	const a = isRecord(pd) ? pd.anthropicCompaction : undefined;
	if (!isRecord(a) || !nonEmpty(a.provider) || !nonEmpty(a.content)) return undefined;
	return {
		type: "anthropicCompaction",
		provider: a.provider,
		content: a.content,
		...(nonEmpty(a.signature) ? { signature: a.signature } : {}),
		...(nonEmpty(a.encryptedContent) ? { encryptedContent: a.encryptedContent } : {}),
		...(nonEmpty(a.filesText) ? { filesText: a.filesText } : {}),
	};
}

/** omp's compaction summary message: its fields in omp's order, the ones the entry lacks left out. */
function summaryMessage(c: Loose, providerPayload: Loose | undefined, historyRewriteAt: number | undefined): Loose {
	const m: Loose = { role: "compactionSummary", summary: c.summary };
	const optional: [string, unknown][] = [
		["shortSummary", c.shortSummary],
		["tokensBefore", c.tokensBefore],
		["tokensAfter", c.tokensAfter],
		["method", c.method],
		["providerPayload", providerPayload],
		["warning", c.warning],
		["historyRewriteAt", historyRewriteAt],
	];
	for (const [k, v] of optional) if (v !== undefined) m[k] = v;
	m.timestamp = new Date(c.timestamp as string).getTime();
	return m;
}

export function buildOmpContext(sm: SessionManager, leafId?: string | null): OmpSessionContext {
	if (leafId === null) return empty();
	let leaf = leafId === undefined ? sm.getLeafId() : leafId;
	if (leaf === null && leafId === undefined) return empty();
	if (leaf === null || sm.getEntry(leaf) === undefined) {
		const n = sm.getEntryCount();
		if (n === 0) return empty();
		leaf = sm.idAt(n - 1);
	}
	const path = sm.getBranch(leaf) as Loose[];
	let thinkingLevel: string | undefined = "off";
	let configuredThinkingLevel: string | undefined;
	let serviceTier: unknown;
	const models: Record<string, string> = {};
	let compaction: Loose | null = null;
	const rules = new Set<string>();
	let mode = "none";
	let modeData: Record<string, unknown> | undefined;
	let explicitDefault = false;
	for (const e of path) {
		switch (e.type) {
			case "thinking_level_change":
				thinkingLevel = (e.thinkingLevel as string | null | undefined) ?? "off";
				configuredThinkingLevel = (e.configured as string | null | undefined) ?? (e.thinkingLevel as string | null | undefined) ?? undefined;
				break;
			case "model_change":
				if (typeof e.model === "string" && e.model) {
					const role = typeof e.role === "string" ? e.role : "default";
					models[role] = e.model;
					if (role === "default") explicitDefault = true;
				}
				break;
			case "service_tier_change":
				serviceTier = e.serviceTier ?? undefined;
				break;
			case "message": {
				const m = e.message as Loose | undefined;
				if (m?.role === "assistant" && !explicitDefault) models.default = `${m.provider}/${m.model}`;
				break;
			}
			case "compaction":
				compaction = e;
				break;
			case "ttsr_injection":
				for (const r of Array.isArray(e.injectedRules) ? e.injectedRules : []) rules.add(r as string);
				break;
			case "mode_change":
				mode = e.mode as string;
				modeData = e.data as Record<string, unknown> | undefined;
				break;
		}
	}
	let resetAt = -1;
	path.forEach((e, i) => {
		if (e.type === "reset_boundary") resetAt = i;
	});
	const messages: AgentMessage[] = [];
	const entryIds: string[] = [];
	const append = (e: Loose): void => {
		if (e.type === "message") {
			const m = e.message as Loose | undefined;
			if (m?.role === "assistant" && (m.retryRecovery || isEmptyErrorTurn(m))) return;
			if (m !== undefined) {
				messages.push(m as AgentMessage);
				entryIds.push(e.id as string);
			}
		} else if (e.type === "custom_message" || (e.type === "branch_summary" && e.summary)) {
			for (const m of toContextMessages(e as SessionEntry)) {
				messages.push(m);
				entryIds.push(e.id as string);
			}
		}
	};
	const c = compaction as Loose | null;
	const cAt = c ? path.findIndex((e) => e.type === "compaction" && e.id === c.id) : -1;
	if (resetAt >= 0 && resetAt > cAt) {
		for (let i = resetAt + 1; i < path.length; i++) append(path[i]);
	} else if (c) {
		const remote = openAiRemotePayload(c);
		const anthropic = anthropicPayload(c);
		const replayThrough = typeof c.providerReplayThroughEntryId === "string" && c.providerReplayThroughEntryId ? c.providerReplayThroughEntryId : undefined;
		// The kept range from firstKeptEntryId; an Anthropic native compaction that kept nothing by id
		// resumes after the entry its replay snapshot ran through.
		const firstKept = path.findIndex((e, i) => i < cAt && e.id === c.firstKeptEntryId);
		const snapshot = anthropic !== undefined && c.firstKeptEntryId === "" && replayThrough ? path.findIndex((e) => e.id === replayThrough) : -1;
		const start = firstKept >= 0 ? firstKept : snapshot >= 0 ? snapshot + 1 : -1;
		// omp 18.3.4 dates an Anthropic replay 1 ms before the first entry it keeps (or the first after the
		// compaction), so that entry's thinking signatures stay valid on the next request.
		let historyRewriteAt: number | undefined;
		if (anthropic) {
			const retained = start >= 0 && start < cAt ? path[start] : path[cAt + 1];
			const at = retained ? new Date(retained.timestamp as string).getTime() : NaN;
			if (Number.isFinite(at)) historyRewriteAt = at - 1;
		}
		messages.push(summaryMessage(c, remote ?? anthropic, historyRewriteAt) as AgentMessage);
		entryIds.push(c.id as string);
		if (!remote) {
			if (start >= 0 && start < cAt) for (let i = start; i < cAt; i++) append(path[i]);
		} else if (replayThrough) {
			// The replacement history carries the kept turns up to the snapshot; later ones replay normally.
			const through = path.findIndex((e) => e.id === replayThrough);
			if (through >= 0 && through < cAt) for (let i = through + 1; i < cAt; i++) append(path[i]);
		}
		for (let i = cAt + 1; i < path.length; i++) append(path[i]);
	} else {
		for (const e of path) append(e);
	}
	// Tool calls with no result on the path are stripped (and signatures of the rewritten turn's thinking cleared).
	const paired = new Set<unknown>();
	for (const m of messages as Loose[]) if (m.role === "toolResult") paired.add(m.toolCallId);
	for (let i = messages.length - 1; i >= 0; i--) {
		const m = messages[i] as Loose;
		if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
		const dangling = (m.content as Loose[]).filter((b) => isRecord(b) && b.type === "toolCall" && !paired.has(b.id)).length;
		if (dangling === 0) continue;
		const content = (m.content as Loose[])
			.filter((b) => !(isRecord(b) && b.type === "toolCall" && !paired.has(b.id)) && !(isRecord(b) && b.type === "redactedThinking"))
			.map((b) => (isRecord(b) && b.type === "thinking" && b.thinkingSignature ? { ...b, thinkingSignature: undefined } : b));
		if (content.length === 0) {
			messages.splice(i, 1);
			entryIds.splice(i, 1);
		} else messages[i] = { ...m, content } as AgentMessage;
	}
	// Aborted / error turns are not replayed (with their paired tool results), unless an interrupted-thinking note follows.
	for (let i = messages.length - 1; i >= 0; i--) {
		const m = messages[i] as Loose;
		if (m?.role !== "assistant" || (m.stopReason !== "aborted" && m.stopReason !== "error")) continue;
		const next = messages[i + 1] as Loose | undefined;
		if (next?.role === "custom" && next.customType === "interrupted-thinking") continue;
		const dropped = new Set<unknown>();
		for (const b of Array.isArray(m.content) ? (m.content as Loose[]) : []) if (isRecord(b) && b.type === "toolCall") dropped.add(b.id);
		messages.splice(i, 1);
		entryIds.splice(i, 1);
		if (dropped.size > 0) {
			for (let j = messages.length - 1; j >= i; j--) {
				const x = messages[j] as Loose;
				if (x?.role === "toolResult" && dropped.has(x.toolCallId)) {
					messages.splice(j, 1);
					entryIds.splice(j, 1);
				}
			}
		}
	}
	return {
		messages,
		entryIds,
		thinkingLevel,
		configuredThinkingLevel,
		serviceTier,
		models,
		injectedTtsrRules: [...rules],
		mode,
		modeData,
	};
}
