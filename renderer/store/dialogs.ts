// Dialogs slice: which dialog / context menu is open, toasts (errors with file and line), the
// composer text and long-running progress. One modal dialog at a time keeps Escape unambiguous.

import { ArborRequestError, type NavigationPreview } from "../../shared/api";
import type { SliceCreator } from "./types";

export type NavigateStage = "loading" | "choose" | "custom" | "summarizing" | "error";

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
}

export type Dialog =
	| { kind: "library" }
	| { kind: "palette"; initialQuery: string }
	| NavigateDialog
	| { kind: "labelEditor"; entryId: string; initial: string }
	| { kind: "branchList" }
	| { kind: "warnings" }
	| { kind: "settings" }
	| { kind: "family"; path: string }
	/** Compare the branches ending at a and b; siblingsOf: chosen among that branch point's children. */
	| { kind: "compare"; a: string; b: string; siblingsOf?: string };

export type DialogKind = Dialog["kind"];

export interface Toast {
	id: number;
	level: "error" | "info";
	message: string;
	file?: string;
	line?: number;
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
	composerText: string;
	/** Keyed by task name. Removed when done >= total. */
	progress: Record<string, ProgressTask>;
	openDialog(dialog: Dialog): void;
	/** Close the open dialog (only if it is of `kind`, when given). */
	closeDialog(kind?: DialogKind): void;
	updateDialog<K extends DialogKind>(kind: K, patch: Partial<Extract<Dialog, { kind: K }>>): void;
	openContextMenu(menu: ContextMenuState): void;
	closeContextMenu(): void;
	toast(level: Toast["level"], message: string, where?: { file?: string; line?: number }): void;
	dismissToast(id: number): void;
	/** Show a failed request plainly: message, file and line when the main process named them. */
	reportError(err: unknown, context?: string): void;
	setComposerText(text: string): void;
	setProgress(p: ProgressTask): void;
}

let toastSeq = 0;
const MAX_TOASTS = 5;

export function errorText(err: unknown): string {
	if (err instanceof Error) return err.message;
	return String(err);
}

export const createDialogSlice: SliceCreator<DialogSlice> = (set, get) => ({
	dialog: null,
	contextMenu: null,
	toasts: [],
	composerText: "",
	progress: {},

	openDialog(dialog) {
		set({ dialog, contextMenu: null });
	},

	closeDialog(kind) {
		const cur = get().dialog;
		if (!cur || (kind && cur.kind !== kind)) return;
		set({ dialog: null });
		if (cur.kind === "navigate") get().setAbandoned(null);
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
		set((s) => ({ toasts: [...s.toasts, t].slice(-MAX_TOASTS) }));
		if (level === "info") setTimeout(() => get().dismissToast(t.id), 4000);
	},

	dismissToast(id) {
		set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
	},

	reportError(err, context) {
		const message = context ? `${context}: ${errorText(err)}` : errorText(err);
		if (err instanceof ArborRequestError) get().toast("error", message, { file: err.file, line: err.line });
		else get().toast("error", message);
	},

	setComposerText(text) {
		set({ composerText: text });
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
