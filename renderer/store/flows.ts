// Flows slice: the user actions that are one API request each (navigate, branch to file, label, save
// position, send, leaf history, upgrade). Results update dialogs and the composer; the skeleton itself
// changes only when the main process's events arrive (events.ts).

import { ArborRequestError } from "../../shared/api";
import { errorText, type NavigateDialog, type NavigateRequest } from "./dialogs";
import { activeSession, activeSkeleton, draftOf, indexOfId, leafId } from "./selectors";
import type { AppState, SliceCreator } from "./types";

const isWorking = (s: AppState, sessionId: string): boolean => s.live[sessionId]?.state.status === "streaming";

export type NavigateChoice = "none" | "summarize" | "custom";

export interface FlowSlice {
	/** Open the navigate dialog for a target: preview first, then No summary / Summarize / custom. */
	startNavigate(targetId: string): Promise<void>;
	/** Run the navigation with the chosen summary mode ("custom" needs `customInstructions`). */
	confirmNavigate(choice: NavigateChoice, custom?: { instructions: string; replace: boolean }): Promise<void>;
	/** "Undo" after a summarized move: the leaf goes back where it was (the summary stays in the file). */
	undoNavigate(): Promise<void>;
	/** Escape in the navigate dialog: cancel a running summary, otherwise close. */
	cancelNavigate(): Promise<void>;
	/** pi refused (busy): navigate once its turn ends ("wait"), or stop the turn and then navigate ("stop"). */
	resolveBusyNavigate(how: "wait" | "stop"): Promise<void>;
	onSummaryProgress(phase: "start" | "delta" | "done" | "error" | "aborted", text: string): void;
	branchToFile(entryId: string): Promise<void>;
	startLabelEdit(entryId: string): void;
	saveLabel(entryId: string, text: string): Promise<void>;
	/** Save pi's resume position: under the leaf of the moment, or under `entryId` (the resume banner's suggestion). */
	savePosition(entryId?: string): Promise<void>;
	sendComposer(): Promise<void>;
	leafHistory(direction: "back" | "forward"): Promise<void>;
	upgradeLegacy(): Promise<void>;
	/**
	 * Put text in a session's composer (default: the active one) unless the user already typed something
	 * there (pi: "if the editor is empty").
	 */
	prefillComposer(text: string | undefined, sessionId?: string | null): void;
}

export const createFlowSlice: SliceCreator<FlowSlice> = (set, get, client) => {
	const navDialog = (): NavigateDialog | null => {
		const d = get().dialog;
		return d && d.kind === "navigate" ? d : null;
	};

	/** Send the navigate request (again, with waitForIdle, after pi said it was busy) and show its outcome. */
	const runNavigate = async (request: NavigateRequest, waitForIdle: boolean): Promise<void> => {
		const dialog = navDialog();
		const sessionId = get().activeSessionId;
		if (!dialog || !sessionId) return;
		const { summarize } = request;
		get().updateDialog("navigate", {
			stage: waitForIdle && isWorking(get(), sessionId) ? "waiting" : summarize ? "summarizing" : "loading",
			request,
			summaryText: "",
			error: null,
			cancelling: false,
		});
		try {
			const result = await client.request("navigate", { sessionId, targetId: dialog.targetId, ...request, ...(waitForIdle ? { waitForIdle: true } : {}) });
			if (result.cancelled) {
				get().closeDialog("navigate");
				get().toast("info", `Navigation cancelled${result.reason ? ` (${result.reason})` : ""}; nothing changed`);
				return;
			}
			const viaPid = result.via === "pi" ? result.pid : undefined;
			// A saved summary stays on screen (what was saved, where, and an undo) until the user closes it.
			if (summarize && result.summaryEntryId && !result.noop) {
				get().setAbandoned(null);
				get().updateDialog("navigate", {
					stage: "done",
					result: {
						summaryEntryId: result.summaryEntryId,
						oldLeafId: result.oldLeafId,
						newLeafId: result.newLeafId,
						file: activeSession(get())?.summary.path ?? null,
						...(viaPid !== undefined ? { viaPid } : {}),
						...(result.editorText ? { focusComposer: true } : {}),
					},
				});
			} else {
				get().closeDialog("navigate");
				if (result.via === "pi" && !result.noop)
					get().toast("info", `pi${viaPid ? ` (pid ${viaPid})` : ""} moved its leaf: its next turn continues from there`);
			}
			if (result.noop) get().toast("info", "Already at this point");
			get().prefillComposer(result.editorText, sessionId);
			get().select(dialog.targetId);
			// pi puts a user message's text in the editor to edit and resend: the composer takes focus.
			if (result.editorText) get().focusComposer();
		} catch (err) {
			if (err instanceof ArborRequestError && err.code === "cancelled") {
				get().closeDialog("navigate");
				get().toast("info", "Navigation cancelled; nothing changed");
				return;
			}
			if (err instanceof ArborRequestError && err.code === "busy") {
				get().updateDialog("navigate", { stage: "busy", busyMessage: err.message, cancelling: false });
				return;
			}
			get().updateDialog("navigate", { stage: "error", error: errorText(err), cancelling: false });
		}
	};

	return {
		async startNavigate(targetId) {
			const state = get();
			const sessionId = state.activeSessionId;
			const sk = activeSkeleton(state);
			if (!sessionId || !sk) return;
			// Live, the leaf is the running pi's (the main process keeps it there).
			if (leafId(sk) === targetId) {
				get().toast("info", "Already at this point");
				return;
			}
			get().openDialog({ kind: "navigate", targetId, stage: "loading", preview: null, summaryText: "", error: null, cancelling: false });
			try {
				const preview = await client.request("previewNavigation", { sessionId, targetId });
				if (navDialog()?.targetId !== targetId) return;
				if (preview.isNoop) {
					get().closeDialog("navigate");
					get().toast("info", "Already at this point");
					return;
				}
				get().setAbandoned(preview.entriesToSummarize);
				get().updateDialog("navigate", { stage: "choose", preview });
				// pi's branchSummary.skipPrompt: navigate at once, without a summary.
				if (get().settings?.skipSummaryPrompt) await get().confirmNavigate("none");
			} catch (err) {
				get().updateDialog("navigate", { stage: "error", error: errorText(err) });
			}
		},

		async confirmNavigate(choice, custom) {
			const dialog = navDialog();
			if (!dialog || !get().activeSessionId) return;
			if (choice === "custom" && !custom) {
				get().updateDialog("navigate", { stage: "custom" });
				return;
			}
			const request: NavigateRequest = {
				summarize: choice !== "none",
				...(choice === "custom" && custom ? { customInstructions: custom.instructions, replaceInstructions: custom.replace } : {}),
			};
			await runNavigate(request, false);
		},

		async resolveBusyNavigate(how) {
			const dialog = navDialog();
			const sessionId = get().activeSessionId;
			if (!dialog?.request || !sessionId) return;
			if (how === "stop") {
				get().updateDialog("navigate", { stage: "waiting", cancelling: true });
				try {
					await client.request("abort", { sessionId });
				} catch (err) {
					// pi went away meanwhile: the navigate below goes to the file (or says why it cannot).
					if (!(err instanceof ArborRequestError && err.code === "no_live_agent")) {
						get().updateDialog("navigate", { stage: "error", error: errorText(err), cancelling: false });
						return;
					}
				}
			}
			// After a stop pi may still be winding the turn down: waitForIdle covers that moment too.
			await runNavigate(dialog.request, true);
		},

		async undoNavigate() {
			const dialog = navDialog();
			const sessionId = get().activeSessionId;
			const back = dialog?.result?.oldLeafId;
			if (!dialog || !sessionId || !back) return;
			get().updateDialog("navigate", { stage: "undoing" });
			try {
				await client.request("navigate", { sessionId, targetId: back, summarize: false });
				get().closeDialog("navigate");
				get().toast("info", "Leaf moved back; the summary stays in the file as a side branch");
			} catch (err) {
				get().updateDialog("navigate", { stage: "error", error: errorText(err) });
			}
		},

		async cancelNavigate() {
			const dialog = navDialog();
			const sessionId = get().activeSessionId;
			if (!dialog) return;
			if ((dialog.stage === "summarizing" || dialog.stage === "waiting") && sessionId) {
				// The navigate request answers `cancelled`; the dialog closes then, with nothing changed. Live,
				// pi's own summarizer runs: abort stops it (waiting: stops the turn, then pi moves).
				get().updateDialog("navigate", { cancelling: true });
				try {
					await client.request(get().live[sessionId] ? "abort" : "cancel", { sessionId });
				} catch (err) {
					get().reportError(err, "Could not cancel");
				}
				return;
			}
			if (dialog.stage === "custom") {
				get().updateDialog("navigate", { stage: "choose" });
				return;
			}
			get().closeDialog("navigate");
		},

		onSummaryProgress(phase, text) {
			const dialog = navDialog();
			if (!dialog) return;
			if (phase === "start") get().updateDialog("navigate", { summaryText: text });
			else if (phase === "delta") get().updateDialog("navigate", { summaryText: dialog.summaryText + text });
			else if (phase === "done" && text) get().updateDialog("navigate", { summaryText: text });
			else if (phase === "error") get().updateDialog("navigate", { stage: "error", error: text || "Summary failed" });
		},

		async branchToFile(entryId) {
			const sessionId = get().activeSessionId;
			if (!sessionId) return;
			try {
				const result = await client.request("branchToFile", { sessionId, entryId });
				if (result.cancelled) {
					get().toast("info", "Branch cancelled");
					return;
				}
				// The message text belongs to the new file: it goes into the new session's draft, never into the
				// tab it was branched from (where Send would write it into the original file).
				const target = result.session?.sessionId ?? sessionId;
				get().prefillComposer(result.editorText, target);
				if (result.session) {
					await get().addSession(result.session);
					if (result.path) get().rememberRecent(result.path);
				}
				if (result.via === "pi")
					get().toast("info", `pi${result.pid ? ` (pid ${result.pid})` : ""} branched${result.path ? ` to ${result.path}` : ""} and works there now`);
				else get().toast("info", result.path ? `Branched to ${result.path}` : "Branched to a new session");
			} catch (err) {
				if (err instanceof ArborRequestError && err.code === "busy") {
					get().toast("info", "pi is working on a turn and cannot branch now. Wait for it to finish, or stop it (Escape), then try again.");
					return;
				}
				get().reportError(err, "Branch to new file failed");
			}
		},

		startLabelEdit(entryId) {
			const sk = activeSkeleton(get());
			if (!sk) return;
			const idx = indexOfId(sk, entryId);
			const initial = sk.labels.find((l) => l.target === idx)?.label ?? "";
			get().openDialog({ kind: "labelEditor", entryId, initial });
		},

		async saveLabel(entryId, text) {
			const sessionId = get().activeSessionId;
			get().closeDialog("labelEditor");
			if (!sessionId) return;
			const trimmed = text.trim();
			const sk = activeSkeleton(get());
			const current = sk ? (sk.labels.find((l) => l.target === indexOfId(sk, entryId))?.label ?? "") : "";
			// Unchanged: nothing to append (every label change is a new line in the file).
			if (trimmed === current) return;
			try {
				await client.request("setLabel", { sessionId, entryId, label: trimmed === "" ? null : trimmed });
			} catch (err) {
				get().reportError(err, "Could not save the label");
			}
		},

		async savePosition(entryId) {
			const sessionId = get().activeSessionId;
			if (!sessionId) return;
			try {
				// No leaf id from here unless the banner names one: the service reads the leaf as the write runs.
				await client.request("savePosition", entryId === undefined ? { sessionId } : { sessionId, entryId });
				get().toast("info", "Position saved: pi resumes here");
			} catch (err) {
				get().reportError(err, "Could not save the position");
			}
		},

		async sendComposer() {
			const sessionId = get().activeSessionId;
			const text = draftOf(get(), sessionId);
			if (!sessionId || text.trim() === "") return;
			const live = get().live[sessionId];
			try {
				if (live) {
					// A real turn in the running pi; while it works, the message waits for the turn to end (pi's follow-up).
					const working = live.state.status === "streaming";
					const r = await client.request("send", { sessionId, text, wait: "start", ...(working ? { deliverAs: "followUp" as const } : {}) });
					if (r.outcome === "queued") get().toast("info", "pi is working: your message is queued for when this turn ends");
				} else {
					await client.request("appendUserMessage", { sessionId, text });
				}
				// Cleared only if unchanged meanwhile (the user may have typed on while the request ran).
				if (draftOf(get(), sessionId) === text) get().setComposerText("", sessionId);
			} catch (err) {
				if (live && err instanceof ArborRequestError && err.code === "no_live_agent") {
					get().toast("error", "pi is no longer connected, so the message was not sent; it is still in the composer. Send again to append it to the file.");
					return;
				}
				get().reportError(err, live ? "pi did not take the message (it is still in the composer)" : "Could not append the message");
			}
		},

		async leafHistory(direction) {
			const sessionId = get().activeSessionId;
			if (!sessionId) return;
			try {
				const r = await client.request("leafHistory", { sessionId, direction });
				set((s) => {
					const cur = s.sessions[sessionId];
					if (!cur) return {};
					return { sessions: { ...s.sessions, [sessionId]: { ...cur, canBack: r.canBack, canForward: r.canForward } } };
				});
				if (r.leafId) get().select(r.leafId);
			} catch (err) {
				get().reportError(err);
			}
		},

		async upgradeLegacy() {
			const sessionId = get().activeSessionId;
			if (!sessionId) return;
			try {
				const r = await client.request("upgradeLegacy", { sessionId });
				get().toast("info", `File upgraded; backup kept at ${r.backupPath}`);
				const s = activeSession(get());
				if (s) get().setSummary(sessionId, { ...s.summary, needsUpgrade: false });
			} catch (err) {
				get().reportError(err, "Upgrade failed");
			}
		},

		prefillComposer(text, sessionId) {
			const id = sessionId ?? get().activeSessionId;
			if (!text || !id) return;
			if (draftOf(get(), id).trim() === "") get().setComposerText(text, id);
			else get().toast("info", "The composer already has text; kept it");
		},
	};
};
