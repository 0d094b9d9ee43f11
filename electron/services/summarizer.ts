// Branch summaries with a real model: the abandoned entries are turned into a transcript (newest first
// within a token budget, long tool output cut), sent with our structured prompt through pi-ai, and the
// streamed text is returned with the files the branch read and modified and the usage the model
// reported (docs/summaries.md). The request goes through the resolved model's pi-ai 1.6 collection, which
// resolves the credential (and refreshes an expired OAuth token) at request time.

import type { Api, AssistantMessage, Context, Model, Usage } from "@earendil-works/pi-ai";
import type { ContentBlock, SessionEntry } from "../../shared/entries";
import { ArborServiceError } from "./errors";
import type { ResolvedModel } from "./models";
import { errorText, isRecord } from "../../shared/guards";
import { contentText } from "../../shared/content-text";
import { safeJson } from "../../shared/tree-text";

export interface SummaryDetails {
	readFiles: string[];
	modifiedFiles: string[];
}

export interface SummaryRequest {
	entries: SessionEntry[];
	resolved: ResolvedModel;
	signal: AbortSignal;
	customInstructions?: string;
	replaceInstructions?: boolean;
	onDelta?: (text: string) => void;
}

export type SummaryOutcome = { aborted: true } | { aborted: false; summary: string; details: SummaryDetails; usage?: Usage };

/** Tokens kept free for the prompt and the answer (pi's branchSummary.reserveTokens default). */
export const RESERVE_TOKENS = 16_384;
const TOOL_OUTPUT_MAX_CHARS = 2_000;
const ANSWER_MAX_TOKENS = 4_096;

export const SYSTEM_PROMPT =
	"You write handover notes for a coding agent. You are given the transcript of a conversation branch between a " +
	"developer and an AI coding assistant that is being left behind. Do not continue the conversation and do not " +
	"answer questions in it: only describe it, in the format requested.";

export const SUMMARY_PROMPT = `Write a handover note for this abandoned branch so the work can be picked up from another point in the conversation.

Use these headings, in this order, in Markdown:

## Goal
What the developer wanted to achieve on this branch (one or two sentences).

## Progress
- What was finished (mark each item with [x]).
- What was started but not finished (mark each item with [ ]).

## Decisions
- Each choice that was made, with its reason in a few words.

## Open items
- Problems still unsolved, errors seen, and the next steps that were planned.

Be brief. Keep exact file paths, identifiers, commands and error messages. Write "(none)" under a heading with nothing to report.`;

/** Tokens of transcript a model with this context window is given. */
export function summaryInputBudget(contextWindow: number | undefined): number {
	return Math.max(1_000, (contextWindow || 128_000) - RESERVE_TOKENS);
}

export function estimateTokensOfText(text: string): number {
	return estimateTokensOfLength(text.length);
}

/** Tokens of that many characters of text (4 characters a token): the one estimate of text's size in tokens. */
export function estimateTokensOfLength(chars: number): number {
	return Math.ceil(chars / 4);
}

function blocks(content: unknown): ContentBlock[] {
	if (typeof content === "string") return [{ type: "text", text: content }];
	return Array.isArray(content) ? content.filter(isRecord).map((b) => b as ContentBlock) : [];
}

function textOf(content: unknown): string {
	return contentText(content, "\n");
}

function cut(text: string, max: number): string {
	if (text.length <= max) return text;
	return `${text.slice(0, max)}\n[... ${text.length - max} more characters not shown]`;
}

function formatArgs(args: unknown): string {
	if (!isRecord(args)) return "";
	return Object.entries(args)
		.map(([k, v]) => `${k}=${cut(safeJson(v) ?? "", 300)}`)
		.join(", ");
}

/** One transcript block per entry, or undefined for entries that carry no conversation (settings, labels). */
export function renderEntry(entry: SessionEntry): string | undefined {
	switch (entry.type) {
		case "message": {
			const msg = (entry as { message?: unknown }).message;
			if (!isRecord(msg)) return undefined;
			const role = msg.role;
			if (role === "user") {
				const t = textOf(msg.content);
				return t ? `USER:\n${t}` : undefined;
			}
			if (role === "assistant") {
				const parts: string[] = [];
				for (const b of blocks(msg.content)) {
					const rec = b as Record<string, unknown>;
					if (b.type === "text" && typeof rec.text === "string" && rec.text.trim()) parts.push(`ASSISTANT:\n${rec.text}`);
					else if (b.type === "thinking" && typeof rec.thinking === "string" && rec.thinking.trim()) {
						parts.push(`ASSISTANT (thinking):\n${cut(rec.thinking, TOOL_OUTPUT_MAX_CHARS)}`);
					} else if (b.type === "toolCall" && typeof rec.name === "string") parts.push(`ASSISTANT CALLS TOOL: ${rec.name}(${formatArgs(rec.arguments)})`);
				}
				if (typeof msg.errorMessage === "string" && msg.stopReason === "error") parts.push(`(the assistant turn failed: ${msg.errorMessage})`);
				return parts.length ? parts.join("\n") : undefined;
			}
			if (role === "toolResult") {
				const t = textOf(msg.content);
				const name = typeof msg.toolName === "string" ? msg.toolName : "tool";
				return `TOOL OUTPUT (${name}${msg.isError === true ? ", error" : ""}):\n${cut(t || "(no text output)", TOOL_OUTPUT_MAX_CHARS)}`;
			}
			if (role === "bashExecution") {
				const cmd = typeof msg.command === "string" ? msg.command : "";
				const out = typeof msg.output === "string" ? msg.output : "";
				return `USER RAN SHELL COMMAND: ${cmd}\n${cut(out, TOOL_OUTPUT_MAX_CHARS)}`;
			}
			if (role === "custom" || role === "hookMessage") {
				const t = textOf(msg.content);
				return t ? `NOTE (${String(msg.customType ?? "custom")}):\n${t}` : undefined;
			}
			if (role === "branchSummary" && typeof msg.summary === "string") return `EARLIER BRANCH SUMMARY:\n${msg.summary}`;
			if (role === "compactionSummary" && typeof msg.summary === "string") return `SUMMARY OF EARLIER HISTORY:\n${msg.summary}`;
			return undefined;
		}
		case "custom_message": {
			const t = textOf((entry as { content?: unknown }).content);
			return t ? `NOTE (${String((entry as { customType?: unknown }).customType ?? "custom")}):\n${t}` : undefined;
		}
		case "branch_summary": {
			const s = (entry as { summary?: unknown }).summary;
			return typeof s === "string" && s.trim() ? `EARLIER BRANCH SUMMARY:\n${s}` : undefined;
		}
		case "compaction": {
			const s = (entry as { summary?: unknown }).summary;
			return typeof s === "string" && s.trim() ? `SUMMARY OF EARLIER HISTORY:\n${s}` : undefined;
		}
		default:
			return undefined;
	}
}

/**
 * Walk newest to oldest and keep blocks until the budget is spent, so a long branch keeps its most
 * recent work. Summaries of earlier history are worth keeping when they nearly fit.
 */
export function serializeForSummary(entries: SessionEntry[], tokenBudget: number): { text: string; tokens: number; included: number } {
	const kept: string[] = [];
	let tokens = 0;
	for (let i = entries.length - 1; i >= 0; i--) {
		const entry = entries[i] as SessionEntry;
		const block = renderEntry(entry);
		if (!block) continue;
		const t = estimateTokensOfText(block);
		if (tokenBudget > 0 && tokens + t > tokenBudget) {
			const isSummary = entry.type === "compaction" || entry.type === "branch_summary";
			if (isSummary && tokens < tokenBudget * 0.9) {
				kept.unshift(block);
				tokens += t;
			} else if (kept.length === 0) {
				// Even the newest block alone is over budget: keep its end rather than nothing.
				const room = Math.max(0, tokenBudget * 4 - 100);
				kept.unshift(`[... earlier part not shown]\n${block.slice(block.length - room)}`);
				tokens = tokenBudget;
			}
			break;
		}
		kept.unshift(block);
		tokens += t;
	}
	return { text: kept.join("\n\n"), tokens, included: kept.length };
}

/**
 * Files touched on the abandoned path: read → readFiles, write/edit → modifiedFiles (a file both read and
 * modified counts as modified). Details of earlier built-in summaries on the path carry over, as in pi.
 */
export function collectFileDetails(entries: SessionEntry[]): SummaryDetails {
	const read = new Set<string>();
	const modified = new Set<string>();
	for (const entry of entries) {
		if (entry.type === "branch_summary" || entry.type === "compaction") {
			const e = entry as { details?: unknown; fromHook?: unknown; fromExtension?: unknown };
			if (e.fromHook === true || e.fromExtension === true || !isRecord(e.details)) continue;
			const d = e.details;
			if (Array.isArray(d.readFiles)) for (const f of d.readFiles) if (typeof f === "string") read.add(f);
			if (Array.isArray(d.modifiedFiles)) for (const f of d.modifiedFiles) if (typeof f === "string") modified.add(f);
			continue;
		}
		if (entry.type !== "message") continue;
		const msg = (entry as { message?: unknown }).message;
		if (!isRecord(msg) || msg.role !== "assistant" || !Array.isArray(msg.content)) continue;
		for (const b of msg.content) {
			if (!isRecord(b) || b.type !== "toolCall" || !isRecord(b.arguments)) continue;
			const p = b.arguments.path;
			if (typeof p !== "string" || !p) continue;
			if (b.name === "read") read.add(p);
			else if (b.name === "write" || b.name === "edit") modified.add(p);
		}
	}
	return {
		readFiles: [...read].filter((f) => !modified.has(f)).sort(),
		modifiedFiles: [...modified].sort(),
	};
}

export function buildInstructions(customInstructions?: string, replaceInstructions?: boolean): string {
	const custom = customInstructions?.trim();
	if (custom && replaceInstructions) return custom;
	if (custom) return `${SUMMARY_PROMPT}\n\nAlso follow these instructions from the developer:\n${custom}`;
	return SUMMARY_PROMPT;
}

export function buildPrompt(transcript: string, customInstructions?: string, replaceInstructions?: boolean): string {
	return `<transcript>\n${transcript}\n</transcript>\n\n${buildInstructions(customInstructions, replaceInstructions)}`;
}

function fileListSection(details: SummaryDetails): string {
	const parts: string[] = [];
	if (details.readFiles.length) parts.push(`<read-files>\n${details.readFiles.join("\n")}\n</read-files>`);
	if (details.modifiedFiles.length) parts.push(`<modified-files>\n${details.modifiedFiles.join("\n")}\n</modified-files>`);
	return parts.length ? `\n\n${parts.join("\n\n")}` : "";
}

function answerText(msg: AssistantMessage): string {
	return contentText(msg.content, "\n").trim();
}

export async function generateSummary(req: SummaryRequest): Promise<SummaryOutcome> {
	const { resolved } = req;
	const model: Model<Api> = resolved.model;
	const details = collectFileDetails(req.entries);
	const budget = summaryInputBudget(model.contextWindow);
	const { text: transcript } = serializeForSummary(req.entries, budget);
	if (!transcript) return { aborted: false, summary: `(The abandoned branch had no conversation to summarize.)${fileListSection(details)}`, details };
	const context: Context = {
		systemPrompt: SYSTEM_PROMPT,
		messages: [
			{ role: "user", content: [{ type: "text", text: buildPrompt(transcript, req.customInstructions, req.replaceInstructions) }], timestamp: Date.now() },
		],
	};
	if (req.signal.aborted) return { aborted: true };
	let final: AssistantMessage;
	try {
		const s = resolved.models.stream(model, context, {
			signal: req.signal,
			maxTokens: Math.min(ANSWER_MAX_TOKENS, model.maxTokens || ANSWER_MAX_TOKENS),
			// One retry for a transient 5xx/429; more would keep the user waiting on a dead endpoint.
			maxRetries: 1,
		});
		for await (const ev of s) {
			if (ev.type === "text_delta") req.onDelta?.(ev.delta);
		}
		final = await s.result();
	} catch (err) {
		if (req.signal.aborted) return { aborted: true };
		throw new ArborServiceError("llm_error", `Summary request to ${resolved.info.provider}/${resolved.info.modelId} failed: ${errorText(err)}`);
	}
	if (final.stopReason === "aborted" || req.signal.aborted) return { aborted: true };
	if (final.stopReason === "error") {
		throw new ArborServiceError(
			"llm_error",
			`Summary request to ${resolved.info.provider}/${resolved.info.modelId} failed: ${final.errorMessage || "unknown error"}`,
		);
	}
	const text = answerText(final);
	if (!text) throw new ArborServiceError("llm_error", `${resolved.info.provider}/${resolved.info.modelId} returned an empty summary.`);
	return { aborted: false, summary: `${text}${fileListSection(details)}`, details, ...(final.usage ? { usage: final.usage } : {}) };
}
