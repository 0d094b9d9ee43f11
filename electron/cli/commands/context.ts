// `arbor context FILE`: what the model would see with the leaf at a given entry (buildSessionContext),
// as pi's exact JSON shape or as a readable transcript. omp files (the session core's sessionWriter rule)
// get omp 18.3's context (buildOmpContext) unless `--as pi` is given; docs/cli.md has the omp JSON shape.

import type { AgentMessage, SessionContext } from "../../../shared/entries";
import { flag, parseCommandArgs, positionals, stringOption, UsageError } from "../args";
import { safeString as text } from "../../../shared/preview";
import { writeJson } from "../../../shared/tree-text";
import { openSession, Output, printUsage, reportWarnings } from "../io";
import { buildOmpContext, readPathContext, sessionWriter, type OmpSessionContext } from "../../session";

export const contextUsage = `Usage: arbor context FILE [--leaf ENTRY_ID] [--as pi|omp] [--json]

Print the model context (the messages sent to the LLM) for the path from the root to the leaf.
The leaf defaults to the file's leaf: its last entry, where pi and omp resume.

Options:
  --leaf ID      build the context as if ID were the leaf
  --as pi|omp    whose rules build it: pi 1.6's or omp 18.3's (default: omp's for files omp wrote, else pi's)
  --json         print exactly buildSessionContext()'s {"messages","thinkingLevel","model"} (pi's shape);
                 with omp's rules {"rules":"omp","messages","entryIds",...} (docs/cli.md)
  -h, --help     show this help`;

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
			const args = JSON.stringify(b.arguments ?? {});
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

export async function contextCommand(argv: string[]): Promise<number> {
	const args = parseCommandArgs(argv, { leaf: { type: "string" }, as: { type: "string" }, json: { type: "boolean" } }, contextUsage);
	if (flag(args, "help")) {
		printUsage(contextUsage);
		return 0;
	}
	const [file] = positionals(args, ["FILE"], 0, contextUsage);
	if (!file) throw new UsageError("missing FILE", contextUsage);
	const leaf = stringOption(args, "leaf");
	const as = stringOption(args, "as");
	if (as !== undefined && as !== "pi" && as !== "omp") throw new UsageError(`--as must be "pi" or "omp", not "${as}"`, contextUsage);
	// The path-only reader (docs/session-core.md): it parses only the path's lines and hands every file it
	// cannot read exactly that way (damage, legacy versions, duplicate ids, ...) to SessionManager. It builds
	// pi's context only: without --as, an omp file is a fallback too and goes the full way.
	if (process.env.ARBOR_CONTEXT_READER !== "full" && as !== "omp") {
		const fast = readPathContext(file, leaf, { piOnly: as === undefined });
		if (fast.ok) {
			await printContext(fast.context, leaf ?? fast.leafId, flag(args, "json"));
			return 0;
		}
	}
	const sm = openSession(file, contextUsage);
	try {
		reportWarnings(sm);
		if (leaf !== undefined && sm.indexOf(leaf) < 0) throw new UsageError(`no entry "${leaf}" in ${sm.getSessionFile()}`, contextUsage);
		if ((as ?? sessionWriter(sm)) === "omp") {
			await printOmpContext(buildOmpContext(sm, leaf ?? sm.getLeafId()), leaf ?? sm.getLeafId() ?? "none", flag(args, "json"));
			return 0;
		}
		const ctx = sm.buildSessionContext(leaf ?? sm.getLeafId());
		await printContext(ctx, leaf ?? sm.getLeafId() ?? "none", flag(args, "json"));
		return 0;
	} finally {
		sm.close();
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

async function printOmpContext(ctx: OmpSessionContext, leafShown: string, json: boolean): Promise<void> {
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

async function printContext(ctx: SessionContext, leafShown: string, json: boolean): Promise<void> {
	if (json) return writeContextJson(ctx);
	const out = new Output();
	const model = ctx.model ? `${ctx.model.provider}/${ctx.model.modelId}` : "none";
	out.line(`leaf: ${leafShown}  thinking: ${ctx.thinkingLevel}  model: ${model}  messages: ${ctx.messages.length}`);
	printMessages(out, ctx.messages);
	await out.flush();
}
