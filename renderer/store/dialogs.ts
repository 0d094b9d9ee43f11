// Dialogs slice: which dialog / context menu is open, toasts (errors with file and line), the
// composer text and long-running progress. One modal dialog at a time keeps Escape unambiguous.

import { ArborRequestError, type NavigationPreview } from "../../shared/api";
import type { CompareSideRef } from "../../shared/compare";
import type { SliceCreator } from "./types";

/** busy: a live pi runs a turn and refused to move; waiting: asked to move once that turn ends. */
export type NavigateStage = "loading" | "choose" | "custom" | "summarizing" | "done" | "undoing" | "error" | "busy" | "waiting";

/** The navigate request as chosen, kept so a refused one (pi busy) can be sent again. */
export interface NavigateRequest {
	summarize: boolean;
	customInstructions?: string;
	replaceInstructions?: boolean;
}

export interface NavigateDialog {
	kind: "navigate";
	targetId: string;
	stage: NavigateStage;
	preview: NavigationPreview | null;
	/** Streamed summary text (summary_progress deltas). */
	summaryText: string;
	error: string | null;
	/** Set once Escape asked the main process to cancel. */
	cancelling: boolean;
	/** Which choice gets keyboard focus ("Navigate with summary…" focuses Summarize). */
	focus?: "none" | "summarize" | "custom";
	/** After a summarized move ("done"): what was saved and where, and the leaf to go back to. */
	result?: {
		summaryEntryId: string | null;
		oldLeafId: string | null;
		newLeafId: string | null;
		file: string | null;
		viaPid?: number;
		/** The move put a user message's text in the composer: closing the dialog hands it the focus. */
		focusComposer?: boolean;
	};
	/** The request last sent (set once a choice is made). */
	request?: NavigateRequest;
	/** pi's own words when it refused (stage "busy"). */
	busyMessage?: string;
}

/** The two sides of a compare across files, as the dialog names them. */
export interface CompareFiles {
	a: CompareSideRef;
	b: CompareSideRef;
	/** What each side is called ("Try 1"). */
	names: [string, string];
	/** The file both sides forked from: its graph names the common ancestor when it is the open tab. */
	source?: string;
	/** Two tries of a run: the dialog shows their worktree diffs, file by file, and can keep either. */
	tries?: { runId: string; indices: [number, number] };
}

export type Dialog =
	| { kind: "library" }
	| { kind: "palette"; initialQuery: string }
	| NavigateDialog
	| { kind: "labelEditor"; entryId: string; initial: string }
	| { kind: "branchList" }
	| { kind: "warnings" }
	| { kind: "settings" }
	| { kind: "about" }
	| { kind: "family"; path: string }
	/** Compare the branches ending at a and b; siblingsOf: chosen among that branch point's children. */
	| { kind: "compare"; a: string; b: string; siblingsOf?: string; files?: undefined }
	/** Compare across files: one side per session file (two tries of a run, renderer/tries). */
	| { kind: "compare"; files: CompareFiles }
	/** "Try N ways…" from an entry (renderer/tries). */
	| { kind: "tries"; entryId: string };

export type DialogKind = Dialog["kind"];

export interface ToastAction {
	/** Button text, in the user's words ("Upgrade file (keeps a .bak)"). */
	label: string;
	/** Command id the button runs (renderer/commands). */
	command: string;
}

export interface Toast {
	id: number;
	level: "error" | "info";
	message: string;
	file?: string;
	line?: number;
	action?: ToastAction;
}

export interface ContextMenuState {
	entryId: string;
	x: number;
	y: number;
}

export interface ProgressTask {
	sessionId: string | null;
	task: string;
	done: number;
	total: number;
}

export interface DialogSlice {
	dialog: Dialog | null;
	contextMenu: ContextMenuState | null;
	toasts: Toast[];
	/** Composer drafts, one per session (key = session id): text typed in one tab never shows in another. */
	drafts: Record<string, string>;
	/** Keyed by task name. Removed when done >= total. */
	progress: Record<string, ProgressTask>;
	openDialog(dialog: Dialog): void;
	/** Close the open dialog (only if it is of `kind`, when given). */
	closeDialog(kind?: DialogKind): void;
	updateDialog<K extends DialogKind>(kind: K, patch: Partial<Extract<Dialog, { kind: K }>>): void;
	openContextMenu(menu: ContextMenuState): void;
	closeContextMenu(): void;
	/**
	 * Show a toast. Info toasts go away after a few seconds, errors after longer; an error that offers an
	 * action stays until it is used or dismissed.
	 */
	toast(level: Toast["level"], message: string, where?: { file?: string; line?: number; action?: ToastAction }): void;
	dismissToast(id: number): void;
	/** Show a failed request plainly: message, file and line when the main process named them. */
	reportError(err: unknown, context?: string): void;
	/** Set a session's draft (default: the active session's). */
	setComposerText(text: string, sessionId?: string | null): void;
	setProgress(p: ProgressTask): void;
}

let toastSeq = 0;
const MAX_TOASTS = 5;

export function errorText(err: unknown): string {
	if (err instanceof Error) return err.message;
	return String(err);
}

const INFO_TOAST_MS = 4000;
const ERROR_TOAST_MS = 12000;

/**
 * A failed request in the user's words, with the action that fixes it when there is one. The main
 * process's message (developer words, exact) stays available as the toast's tooltip.
 */
export function userError(err: unknown, context?: string): { message: string; action?: ToastAction } {
	const code = err instanceof ArborRequestError ? err.code : null;
	const raw = errorText(err);
	const prefix = context ? `${context}: ` : "";
	switch (code) {
		case "legacy_needs_upgrade":
			return {
				message: `${prefix}this file was written by an older pi. Arbor can show it, but it must be upgraded to the current format before anything is written to it.`,
				action: { label: "Upgrade file (keeps a .bak)", command: "session.upgrade" },
			};
		case "no_model":
			return { message: `${prefix}no model is set up for summaries. Nothing was changed.`, action: { label: "Choose a model…", command: "settings.open" } };
		case "conflict":
			return { message: `${prefix}the file changed on disk at the same moment. Nothing was written; try again.` };
		case "not_found":
			return { message: `${prefix}${raw.replace(/^not found: /i, "")}` };
		case "no_entry_id":
			return { message: `${prefix}this entry has no id in the file, so pi could not resolve a label on it. Nothing was written.` };
		default:
			return { message: `${prefix}${raw}` };
	}
}

export const createDialogSlice: SliceCreator<DialogSlice> = (set, get) => ({
	dialog: null,
	contextMenu: null,
	toasts: [],
	drafts: {},
	progress: {},

	openDialog(dialog) {
		set({ dialog, contextMenu: null });
	},

	closeDialog(kind) {
		const cur = get().dialog;
		if (!cur || (kind && cur.kind !== kind)) return;
		set({ dialog: null });
		if (cur.kind === "navigate") get().setAbandoned(null);
		if (cur.kind === "navigate" && cur.result?.focusComposer) get().focusComposer();
	},

	updateDialog(kind, patch) {
		const cur = get().dialog;
		if (!cur || cur.kind !== kind) return;
		set({ dialog: { ...cur, ...patch } as Dialog });
	},

	openContextMenu(menu) {
		set({ contextMenu: menu });
	},

	closeContextMenu() {
		if (get().contextMenu) set({ contextMenu: null });
	},

	toast(level, message, where) {
		const t: Toast = { id: ++toastSeq, level, message, ...where };
		// The same message twice replaces the older one instead of stacking.
		set((s) => ({ toasts: [...s.toasts.filter((o) => o.message !== message), t].slice(-MAX_TOASTS) }));
		if (!t.action) setTimeout(() => get().dismissToast(t.id), level === "info" ? INFO_TOAST_MS : ERROR_TOAST_MS);
	},

	dismissToast(id) {
		set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
	},

	reportError(err, context) {
		const { message, action } = userError(err, context);
		if (err instanceof ArborRequestError) get().toast("error", message, { file: err.file, line: err.line, ...(action ? { action } : {}) });
		else get().toast("error", message, action ? { action } : undefined);
	},

	setComposerText(text, sessionId) {
		const id = sessionId ?? get().activeSessionId;
		if (!id) return;
		set((s) => {
			if ((s.drafts[id] ?? "") === text) return {};
			const drafts = { ...s.drafts };
			if (text === "") delete drafts[id];
			else drafts[id] = text;
			return { drafts };
		});
	},

	setProgress(p) {
		set((s) => {
			const progress = { ...s.progress };
			if (p.total > 0 && p.done >= p.total) delete progress[p.task];
			else progress[p.task] = p;
			return { progress };
		});
	},
});
