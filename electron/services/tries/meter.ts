// A try's tokens and cost, kept up to date while an answer streams, so a cap stops even one endless answer
// (docs/tries.md "Costs and caps"). An ended answer counts what pi reports for it (message_end's usage). The answer
// streaming now counts pi's latest reported usage (message_update's `usage`, cumulative; many providers report
// nothing until the end) plus, for the output it does not report yet, an estimate of what has streamed: every
// text, thinking and tool-call delta's characters, 4 to a token, priced at the model's output price from pi's
// model list. An answer that ends without reported output (an abort) keeps that estimate.

import type { TryState } from "../../../shared/tries";
import { estimateTokensOfLength } from "../summarizer";

/** USD per million tokens, as pi's model list prices a model. */
export interface ModelPrice {
	input: number;
	output: number;
}

/** A model's price from pi's model list; undefined when unknown (its streamed output then costs nothing yet). */
export type PriceOf = (provider: string, model: string) => ModelPrice | undefined;

interface Usage {
	input?: number;
	output?: number;
	cacheRead?: number;
	cacheWrite?: number;
	totalTokens?: number;
	cost?: { total?: number };
}

type Tokens = TryState["tokens"];

const zero = (): Tokens => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 });

export class TryMeter {
	/** What the ended answers used. */
	readonly #ended = { tokens: zero(), cost: 0 };
	#chars = 0;
	#usage: Usage = {};
	#price: ModelPrice | undefined;

	constructor(
		/** The try's state: its `tokens` and `cost` are written as the answers stream and end. */
		readonly state: { tokens: Tokens; cost: number },
		readonly priceOf?: PriceOf,
	) {}

	/** An assistant answer starts (message_start): its model's price for the estimate. */
	start(message: { provider?: unknown; model?: unknown }): void {
		this.#chars = 0;
		this.#usage = {};
		this.#price = typeof message.provider === "string" && typeof message.model === "string" ? this.priceOf?.(message.provider, message.model) : undefined;
		this.#show(this.#streaming());
	}

	/** A piece of the answer streamed (message_update): its delta's length and pi's latest usage. */
	update(deltaChars: number, usage: unknown): void {
		this.#chars += deltaChars;
		if (usage && typeof usage === "object") this.#usage = usage as Usage;
		this.#show(this.#streaming());
	}

	/** The answer ended (message_end) with this usage. */
	end(usage: unknown): void {
		if (usage && typeof usage === "object") this.#usage = usage as Usage;
		const part = (this.#usage.output ?? 0) > 0 ? this.#streaming(0) : this.#streaming();
		for (const k of Object.keys(part.tokens) as (keyof Tokens)[]) this.#ended.tokens[k] += part.tokens[k];
		this.#ended.cost += part.cost;
		this.#chars = 0;
		this.#usage = {};
		this.#show({ tokens: zero(), cost: 0 });
	}

	/** True when the try has used more than a cap allows. */
	over(capUsd: number | undefined, capTokens: number | undefined): boolean {
		return (capUsd !== undefined && this.state.cost > capUsd) || (capTokens !== undefined && this.state.tokens.total > capTokens);
	}

	/** The answer streaming now: reported usage, plus the estimated output beyond what is reported. */
	#streaming(estimated = estimateTokensOfLength(this.#chars)): { tokens: Tokens; cost: number } {
		const u = this.#usage;
		const reportedOut = u.output ?? 0;
		const extra = Math.max(0, estimated - reportedOut);
		const total = (u.totalTokens ?? (u.input ?? 0) + reportedOut + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0)) + extra;
		return {
			tokens: { input: u.input ?? 0, output: reportedOut + extra, cacheRead: u.cacheRead ?? 0, cacheWrite: u.cacheWrite ?? 0, total },
			cost: (u.cost?.total ?? 0) + (extra * (this.#price?.output ?? 0)) / 1_000_000,
		};
	}

	#show(streaming: { tokens: Tokens; cost: number }): void {
		for (const k of Object.keys(streaming.tokens) as (keyof Tokens)[]) this.state.tokens[k] = this.#ended.tokens[k] + streaming.tokens[k];
		this.state.cost = this.#ended.cost + streaming.cost;
	}
}
