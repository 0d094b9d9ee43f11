// How `arbor context` prints a context: pi's JSON shape, omp's, or a readable transcript. Shared by the
// command (commands/context.ts) and its lean entry (context-main.ts), so it imports no session reader.

import type { AgentMessage, SessionContext } from "../../shared/entries";
import { safeString as text } from "../../shared/guards";
import { safeJson, writeJson } from "../../shared/tree-text";
import type { OmpSessionContext } from "../session/formats/omp/context";
import type { OptionSpec } from "./args";
import { Output } from "./output";

/** `arbor context`'s options (its usage text is in commands/context.ts). */
export const CONTEXT_OPTIONS: OptionSpec = { leaf: { type: "string" }, as: { type: "string" }, json: { type: "boolean" } };

type Loose = Record<string, unknown>;

function blocksText(content: unknown): string[] {
	if (typeof content === "string") return [content];
	if (!Array.isArray(content)) return [];
	const out: string[] = [];
	for (const raw of content) {
		if (typeof raw !== "object" || raw === null) continue;
		const b = raw as Loose;
		if (b.type === "text" && typeof b.text === "string") out.push(b.text);
		else if (b.type === "thinking") out.push(`(thinking, ${typeof b.thinking === "string" ? b.thinking.length : 0} chars)`);
		else if (b.type === "image") out.push("(image)");
		else if (b.type === "toolCall") {
			const args = safeJson(b.arguments ?? {}) ?? "";
			out.push(`→ ${text(b.name)} ${args.length > 200 ? `${args.slice(0, 200)}…` : args}`);
		} else out.push(`(${text(b.type)} block)`);
	}
	return out;
}

function messageText(m: AgentMessage): { title: string; body: string[] } {
	const x = m as Loose;
	const role = text(x.role);
	switch (role) {
		case "assistant": {
			const model = typeof x.model === "string" ? ` (${typeof x.provider === "string" ? `${x.provider}/` : ""}${x.model})` : "";
			const stop = typeof x.stopReason === "string" && x.stopReason !== "stop" && x.stopReason !== "toolUse" ? ` [${x.stopReason}]` : "";
			const body = blocksText(x.content);
			if (typeof x.errorMessage === "string") body.push(`error: ${x.errorMessage}`);
			return { title: `assistant${model}${stop}`, body };
		}
		case "toolResult":
			return { title: `toolResult ${text(x.toolName ?? "")}${x.isError ? " [error]" : ""}`, body: blocksText(x.content) };
		case "bashExecution":
			return {
				title: `bashExecution${typeof x.exitCode === "number" && x.exitCode !== 0 ? ` [exit ${x.exitCode}]` : ""}`,
				body: [`$ ${text(x.command ?? "")}`, text(x.output ?? "")],
			};
		case "branchSummary":
			return { title: "branchSummary", body: [text(x.summary ?? "")] };
		case "compactionSummary":
			return { title: `compactionSummary (${text(x.tokensBefore ?? "?")} tokens before)`, body: [text(x.summary ?? "")] };
		case "custom":
		case "hookMessage":
			return { title: `${role} ${text(x.customType ?? "")}${x.display === false ? " (hidden)" : ""}`, body: blocksText(x.content) };
		default:
			return { title: role, body: blocksText(x.content) };
	}
}

/** omp's JSON: `rules` first, then buildOmpContext's fields in its order (undefined ones left out). */
function ompJson(ctx: OmpSessionContext): Loose {
	return {
		rules: "omp",
		messages: ctx.messages,
		entryIds: ctx.entryIds,
		thinkingLevel: ctx.thinkingLevel,
		configuredThinkingLevel: ctx.configuredThinkingLevel,
		serviceTier: ctx.serviceTier,
		models: ctx.models,
		injectedTtsrRules: ctx.injectedTtsrRules,
		mode: ctx.mode,
		modeData: ctx.modeData,
	};
}

export async function printOmpContext(ctx: OmpSessionContext, leafShown: string, json: boolean): Promise<void> {
	if (json) return writeContextJson(ompJson(ctx));
	const out = new Output();
	const roles = Object.entries(ctx.models)
		.map(([role, model]) => `${role}=${text(model)}`)
		.join(" ");
	out.line(
		`leaf: ${leafShown}  thinking: ${text(ctx.thinkingLevel ?? "off")}  model: ${text(ctx.models.default ?? "none")}  messages: ${ctx.messages.length}  (as omp 18.3 sends it)`,
	);
	const tier =
		ctx.serviceTier === undefined || ctx.serviceTier === null
			? ""
			: `  service tier: ${typeof ctx.serviceTier === "string" ? ctx.serviceTier : JSON.stringify(ctx.serviceTier)}`;
	const ttsr = ctx.injectedTtsrRules.length > 0 ? `  ttsr: ${ctx.injectedTtsrRules.map((r) => text(r)).join(", ")}` : "";
	out.line(`models: ${roles || "none"}  mode: ${text(ctx.mode)}${tier}${ttsr}`);
	printMessages(out, ctx.messages);
	await out.flush();
}

function printMessages(out: Output, messages: AgentMessage[]): void {
	messages.forEach((m, k) => {
		const { title, body } = messageText(m);
		out.line();
		out.line(`[${k + 1}] ${title}`);
		for (const part of body) for (const l of part.split("\n")) out.line(`  ${l}`);
	});
}

async function writeContextJson(value: unknown): Promise<void> {
	const out = new Output();
	// JSON.stringify gives pi's exact bytes; only a hostile, absurdly nested value makes it overflow the
	// stack, and then the iterative writer prints the same JSON.
	let text: string | null = null;
	try {
		text = JSON.stringify(value);
	} catch {
		writeJson(value, (chunk) => out.json(chunk));
		out.json("\n");
	}
	if (text !== null) out.jsonLine(text);
	await out.flush();
}

export async function printContext(ctx: SessionContext, leafShown: string, json: boolean): Promise<void> {
	if (json) return writeContextJson(ctx);
	const out = new Output();
	const model = ctx.model ? `${ctx.model.provider}/${ctx.model.modelId}` : "none";
	out.line(`leaf: ${leafShown}  thinking: ${ctx.thinkingLevel}  model: ${model}  messages: ${ctx.messages.length}`);
	printMessages(out, ctx.messages);
	await out.flush();
}
