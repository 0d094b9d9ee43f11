// /tree: move the leaf to a target, optionally writing a summary of the branch being left. The order of
// steps follows pi's navigateTree (docs/services.md "navigate").
//
// Where the target is checked: a request with nothing to wait for (no summary asked, no extension
// listening to session_before_tree) is planned, checked and applied inside one `sessions.write`, so the
// file is caught up once, right before the plan. A request that waits on a model or an extension plans
// on the file as it is when it starts (one catch-up), and is checked once more inside the write (after
// the write's catch-up), since the file may have changed while it waited.

import type { NavigateResult, RequestParams } from "../../shared/api";
import type { SessionManager } from "../session";
import { errorText, isRecord } from "../../shared/guards";
import { ArborServiceError } from "./errors";
import type { TreePreparation } from "./extensions/types";
import type { FlowContext } from "./flow-context";
import type { ResolvedModel } from "./models";
import { entriesForSummary, loadEntries, type NavigationPlan, planNavigation } from "./navigation";
import type { OpenSession } from "./open-session";
import { generateSummary, summaryInputBudget } from "./summarizer";

interface Summary {
	text: string;
	details: unknown;
	usage: unknown;
	fromExtension: boolean;
}

type Params = RequestParams<"navigate">;

function trimmed(label: string | undefined): string | undefined {
	return label?.trim() ? label.trim() : undefined;
}

function noop(plan: NavigationPlan): NavigateResult {
	return { cancelled: false, noop: true, newLeafId: plan.oldLeafId, oldLeafId: plan.oldLeafId };
}

function assertWritable(m: SessionManager): void {
	if (m.needsUpgrade()) {
		throw new ArborServiceError(
			"legacy_needs_upgrade",
			"This file uses an old format version: upgrade it before writing summaries or labels.",
			m.getSessionFile(),
		);
	}
}

export async function navigateFlow(ctx: FlowContext, s: OpenSession, p: Params): Promise<NavigateResult> {
	await ctx.extensions.ready();
	if (p.summarize !== true && !ctx.extensions.hasHandlers("session_before_tree")) return navigateNow(ctx, s, p);
	return navigateAfterWaiting(ctx, s, p);
}

/** Nothing to wait for: plan, check and apply in one write. */
async function navigateNow(ctx: FlowContext, s: OpenSession, p: Params): Promise<NavigateResult> {
	const label = trimmed(p.label);
	let plan: NavigationPlan | undefined;
	const summaryEntryId = ctx.sessions.write(s, (m) => {
		plan = planNavigation(m, p.targetId);
		if (plan.isNoop) return undefined;
		if (label) assertWritable(m);
		return apply(m, plan, undefined, label);
	});
	const done = plan as NavigationPlan;
	if (done.isNoop) return noop(done);
	return finish(ctx, s, done, summaryEntryId, undefined, undefined);
}

/** A summary is asked for or an extension listens: plan now, wait for them, check the plan inside the write. */
async function navigateAfterWaiting(ctx: FlowContext, s: OpenSession, p: Params): Promise<NavigateResult> {
	const { sessions, extensions, events } = ctx;
	const m = s.manager;
	sessions.catchUp(s);
	const plan = planNavigation(m, p.targetId);
	const oldLeafId = plan.oldLeafId;
	if (plan.isNoop) return noop(plan);
	const willWrite = p.summarize === true || trimmed(p.label) !== undefined;
	if (willWrite) assertWritable(m);
	let resolved: ResolvedModel | undefined;
	let noModel: string | undefined;
	if (p.summarize) {
		const r = await ctx.resolveModel(s);
		if (r.ok) resolved = r.resolved;
		else noModel = r.reason;
		// Without a model only an extension could write the summary: fail at once when none listens.
		if (noModel !== undefined && !extensions.hasHandlers("session_before_tree")) throw new ArborServiceError("no_model", noModel);
	}
	const controller = new AbortController();
	s.abort = controller;
	const cancelled = (reason: string): NavigateResult => ({ cancelled: true, reason, newLeafId: m.getLeafId(), oldLeafId });
	try {
		let customInstructions = p.customInstructions;
		let replaceInstructions = p.replaceInstructions;
		let label = p.label;
		let summary: Summary | undefined;
		const preparation: TreePreparation = {
			targetId: p.targetId,
			oldLeafId,
			commonAncestorId: plan.commonAncestorId,
			// A copy: a handler that edits the entries must not change what the core has cached.
			entriesToSummarize: extensions.hasHandlers("session_before_tree") ? structuredClone(loadEntries(m, plan.abandonedIds)) : [],
			userWantsSummary: p.summarize === true,
			...(customInstructions !== undefined ? { customInstructions } : {}),
			...(replaceInstructions !== undefined ? { replaceInstructions } : {}),
			...(label !== undefined ? { label } : {}),
		};
		const result = await extensions.emit(
			s,
			{ type: "session_before_tree", preparation, signal: controller.signal },
			extensions.eventContext(s, controller.signal, resolved),
		);
		if (result?.cancel === true) return cancelled("cancelled by an extension");
		if (result) {
			const sum = result.summary;
			if (p.summarize && isRecord(sum) && typeof sum.summary === "string") {
				summary = { text: sum.summary, details: sum.details, usage: isRecord(sum.usage) ? sum.usage : undefined, fromExtension: true };
			}
			if (typeof result.customInstructions === "string") customInstructions = result.customInstructions;
			if (typeof result.replaceInstructions === "boolean") replaceInstructions = result.replaceInstructions;
			if (typeof result.label === "string") label = result.label;
		}
		if (controller.signal.aborted) return cancelled("aborted");
		if (noModel !== undefined && !summary && plan.abandonedIds.length > 0) throw new ArborServiceError("no_model", noModel);

		if (!summary && p.summarize && plan.abandonedIds.length > 0 && resolved) {
			const progress = (phase: "start" | "delta" | "done" | "error" | "aborted", text: string) =>
				events.emit({ type: "summary_progress", sessionId: s.id, phase, text });
			progress("start", "");
			let outcome: Awaited<ReturnType<typeof generateSummary>>;
			try {
				outcome = await generateSummary({
					entries: entriesForSummary(m, plan.abandonedIds, summaryInputBudget(resolved.model.contextWindow)),
					resolved,
					signal: controller.signal,
					customInstructions,
					replaceInstructions,
					onDelta: (text) => progress("delta", text),
				});
			} catch (err) {
				progress("error", errorText(err));
				throw err;
			}
			if (outcome.aborted) {
				progress("aborted", "");
				return cancelled("aborted");
			}
			progress("done", outcome.summary);
			summary = { text: outcome.summary, details: outcome.details, usage: outcome.usage, fromExtension: false };
		}
		if (controller.signal.aborted) return cancelled("aborted");

		const trimmedLabel = trimmed(label);
		const summaryEntryId = sessions.write(s, (mm) => {
			// The file may have changed while the model or an extension worked: the plan must still hold.
			if (!mm.getEntry(p.targetId) || (plan.newLeafId !== null && !mm.getEntry(plan.newLeafId))) {
				throw new ArborServiceError("conflict", "The session file changed while summarizing; the target entry is gone.", mm.getSessionFile());
			}
			return apply(mm, plan, summary, trimmedLabel);
		});
		return await finish(ctx, s, plan, summaryEntryId, summary, resolved);
	} finally {
		if (s.abort === controller) s.abort = undefined;
	}
}

/** Moves the leaf as planned, writing the summary and the label when there are; the summary entry's id. */
function apply(m: SessionManager, plan: NavigationPlan, summary: Summary | undefined, label: string | undefined): string | undefined {
	let summaryEntryId: string | undefined;
	if (summary !== undefined) {
		summaryEntryId = m.branchWithSummary(plan.newLeafId, summary.text, summary.details, summary.fromExtension, summary.usage);
		if (label) m.appendLabelChange(summaryEntryId, label);
	} else if (plan.newLeafId === null) {
		m.resetLeaf();
	} else {
		m.branch(plan.newLeafId);
	}
	// pi's rule: without a summary entry the label goes on the selected entry.
	if (label && summary === undefined) m.appendLabelChange(plan.targetId, label);
	return summaryEntryId;
}

/** session_tree to clients and extensions, and the result. */
async function finish(
	ctx: FlowContext,
	s: OpenSession,
	plan: NavigationPlan,
	summaryEntryId: string | undefined,
	summary: Summary | undefined,
	resolved: ResolvedModel | undefined,
): Promise<NavigateResult> {
	const m = s.manager;
	const newLeafId = m.getLeafId();
	const oldLeafId = plan.oldLeafId;
	const fromExtension = summary?.fromExtension;
	ctx.events.emit({
		type: "session_tree",
		sessionId: s.id,
		newLeafId,
		oldLeafId,
		...(summaryEntryId ? { summaryEntryId } : {}),
		...(summary !== undefined ? { fromExtension } : {}),
	});
	const summaryEntry = summaryEntryId ? m.getEntry(summaryEntryId) : undefined;
	await ctx.extensions.emit(
		s,
		{ type: "session_tree", newLeafId, oldLeafId, ...(summaryEntry ? { summaryEntry } : {}), ...(summary !== undefined ? { fromExtension } : {}) },
		ctx.extensions.eventContext(s, undefined, resolved),
	);
	return {
		cancelled: false,
		newLeafId,
		oldLeafId,
		...(plan.editorText !== undefined ? { editorText: plan.editorText } : {}),
		...(summaryEntryId ? { summaryEntryId } : {}),
	};
}
