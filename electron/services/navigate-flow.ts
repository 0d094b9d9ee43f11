// /tree: move the leaf to a target, optionally writing a summary of the branch being left. The order of
// steps follows pi's navigateTree (docs/services.md "navigate").

import type { NavigateResult, RequestParams } from "../../shared/api";
import { ArborServiceError, errorMessage } from "./errors";
import type { TreePreparation } from "./extensions/types";
import type { FlowHost } from "./flow-host";
import type { ResolvedModel } from "./models";
import { entriesForSummary, loadEntries, planNavigation } from "./navigation";
import type { OpenSession } from "./open-session";
import { generateSummary, summaryInputBudget } from "./summarizer";

function isRecord(v: unknown): v is Record<string, unknown> {
	return typeof v === "object" && v !== null && !Array.isArray(v);
}

export async function navigateFlow(host: FlowHost, s: OpenSession, p: RequestParams<"navigate">): Promise<NavigateResult> {
	const m = s.manager;
	host.catchUp(s);
	const plan = planNavigation(m, p.targetId);
	const oldLeafId = plan.oldLeafId;
	if (plan.isNoop) return { cancelled: false, noop: true, newLeafId: oldLeafId, oldLeafId };
	await host.extensions.ready();
	const willWrite = p.summarize === true || (p.label !== undefined && p.label.trim() !== "");
	if (willWrite && m.needsUpgrade()) {
		throw new ArborServiceError("legacy_needs_upgrade", "This file uses an old format version: upgrade it before writing summaries or labels.", m.getSessionFile());
	}
	let resolved: ResolvedModel | undefined;
	let noModel: string | undefined;
	if (p.summarize) {
		const r = await host.resolveModel(s);
		if (r.ok) resolved = r.resolved;
		else noModel = r.reason;
		// Without a model only an extension could write the summary: fail at once when none listens.
		if (noModel !== undefined && !host.extensions.hasHandlers("session_before_tree")) throw new ArborServiceError("no_model", noModel);
	}
	const controller = new AbortController();
	s.abort = controller;
	const cancelled = (reason: string): NavigateResult => ({ cancelled: true, reason, newLeafId: m.getLeafId(), oldLeafId });
	try {
		let customInstructions = p.customInstructions;
		let replaceInstructions = p.replaceInstructions;
		let label = p.label;
		let extensionSummary: { summary: string; details?: unknown; usage?: unknown } | undefined;
		const preparation: TreePreparation = {
			targetId: p.targetId,
			oldLeafId,
			commonAncestorId: plan.commonAncestorId,
			// A copy: a handler that edits the entries must not change what the core has cached.
			entriesToSummarize: host.extensions.hasHandlers("session_before_tree") ? structuredClone(loadEntries(m, plan.abandonedIds)) : [],
			userWantsSummary: p.summarize === true,
			...(customInstructions !== undefined ? { customInstructions } : {}),
			...(replaceInstructions !== undefined ? { replaceInstructions } : {}),
			...(label !== undefined ? { label } : {}),
		};
		const result = await host.emitExtension(
			s,
			{ type: "session_before_tree", preparation, signal: controller.signal },
			host.eventContext(s, controller.signal, resolved),
		);
		if (result?.cancel === true) return cancelled("cancelled by an extension");
		if (result) {
			const sum = result.summary;
			if (p.summarize && isRecord(sum) && typeof sum.summary === "string") {
				extensionSummary = { summary: sum.summary, details: sum.details, ...(isRecord(sum.usage) ? { usage: sum.usage } : {}) };
			}
			if (typeof result.customInstructions === "string") customInstructions = result.customInstructions;
			if (typeof result.replaceInstructions === "boolean") replaceInstructions = result.replaceInstructions;
			if (typeof result.label === "string") label = result.label;
		}
		if (controller.signal.aborted) return cancelled("aborted");
		if (noModel !== undefined && !extensionSummary && plan.abandonedIds.length > 0) throw new ArborServiceError("no_model", noModel);

		let summaryText: string | undefined;
		let summaryDetails: unknown;
		let summaryUsage: unknown;
		let fromExtension = false;
		if (extensionSummary) {
			summaryText = extensionSummary.summary;
			summaryDetails = extensionSummary.details;
			summaryUsage = extensionSummary.usage;
			fromExtension = true;
		} else if (p.summarize && plan.abandonedIds.length > 0 && resolved) {
			host.emit({ type: "summary_progress", sessionId: s.id, phase: "start", text: "" });
			let outcome: Awaited<ReturnType<typeof generateSummary>>;
			try {
				outcome = await generateSummary({
					entries: entriesForSummary(m, plan.abandonedIds, summaryInputBudget(resolved.model.contextWindow)),
					resolved,
					signal: controller.signal,
					customInstructions,
					replaceInstructions,
					onDelta: (text) => host.emit({ type: "summary_progress", sessionId: s.id, phase: "delta", text }),
				});
			} catch (err) {
				host.emit({ type: "summary_progress", sessionId: s.id, phase: "error", text: errorMessage(err) });
				throw err;
			}
			if (outcome.aborted) {
				host.emit({ type: "summary_progress", sessionId: s.id, phase: "aborted", text: "" });
				return cancelled("aborted");
			}
			host.emit({ type: "summary_progress", sessionId: s.id, phase: "done", text: outcome.summary });
			summaryText = outcome.summary;
			summaryDetails = outcome.details;
			summaryUsage = outcome.usage;
		}
		if (controller.signal.aborted) return cancelled("aborted");
		// The file may have changed while the model was writing: catch up, then the plan must still hold.
		host.catchUp(s);
		if (!m.getEntry(p.targetId) || (plan.newLeafId !== null && !m.getEntry(plan.newLeafId))) {
			throw new ArborServiceError("conflict", "The session file changed while summarizing; the target entry is gone.", m.getSessionFile());
		}

		let summaryEntryId: string | undefined;
		const trimmedLabel = label?.trim() ? label.trim() : undefined;
		host.write(s, (mm) => {
			if (summaryText !== undefined) {
				summaryEntryId = mm.branchWithSummary(plan.newLeafId, summaryText, summaryDetails, fromExtension, summaryUsage);
				if (trimmedLabel) mm.appendLabelChange(summaryEntryId, trimmedLabel);
			} else if (plan.newLeafId === null) {
				mm.resetLeaf();
			} else {
				mm.branch(plan.newLeafId);
			}
			// pi's rule: without a summary entry the label goes on the selected entry.
			if (trimmedLabel && summaryText === undefined) mm.appendLabelChange(p.targetId, trimmedLabel);
		});
		const newLeafId = m.getLeafId();
		host.emit({
			type: "session_tree",
			sessionId: s.id,
			newLeafId,
			oldLeafId,
			...(summaryEntryId ? { summaryEntryId } : {}),
			...(summaryText !== undefined ? { fromExtension } : {}),
		});
		const summaryEntry = summaryEntryId ? m.getEntry(summaryEntryId) : undefined;
		await host.emitExtension(
			s,
			{ type: "session_tree", newLeafId, oldLeafId, ...(summaryEntry ? { summaryEntry } : {}), ...(summaryText !== undefined ? { fromExtension } : {}) },
			host.eventContext(s, undefined, resolved),
		);
		return {
			cancelled: false,
			newLeafId,
			oldLeafId,
			...(plan.editorText !== undefined ? { editorText: plan.editorText } : {}),
			...(summaryEntryId ? { summaryEntryId } : {}),
		};
	} finally {
		if (s.abort === controller) s.abort = undefined;
	}
}
