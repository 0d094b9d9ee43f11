// The commands that move the selection through the visible tree (pi's arrow keys, fold / branch-point
// jumps, labels, the leaf and resume point, session tabs, leaf history) and the guards every command uses.

import {
	childCountOf,
	firstChildOf,
	foldOrUp,
	initialSelection,
	isVisible,
	keepSelection,
	nextBranchPoint,
	nextLabelled,
	parentOf,
	siblingOf,
	unfoldOrDown,
	type TreeKeyAction,
	type TreeView,
} from "../../shared/tree-view";
import { EntryKind } from "../../shared/skeleton";
import { COMMAND_INFO } from "../../shared/commands";
import { newestOfBranch } from "../compare/branches";
import { activeSession } from "../store/selectors";
import type { Command, CommandContext } from "./registry";

export function hasSession(ctx: CommandContext): boolean {
	return ctx.skeleton !== null && ctx.state.activeSessionId !== null;
}

export function hasTarget(ctx: CommandContext): boolean {
	return hasSession(ctx) && ctx.target >= 0;
}

/** Select an entry index and bring it into view. */
export function selectIndex(ctx: CommandContext, index: number): void {
	if (!ctx.skeleton || index < 0) return;
	const id = ctx.skeleton.ids[index];
	ctx.store.getState().select(id);
	ctx.graph.reveal(id);
}

/** Select an entry (its nearest shown ancestor when the filter hides it) and zoom to it readably. */
/** Select an entry, or its nearest ancestor the filter shows; returns the selected id. */
export function selectShown(ctx: CommandContext, index: number): string | null {
	if (!ctx.skeleton || index < 0) return null;
	const shown = ctx.tree ? keepSelection(ctx.tree, index) : index;
	const id = ctx.skeleton.ids[shown >= 0 ? shown : index];
	ctx.store.getState().select(id);
	return id;
}

/** Select an entry (or its nearest shown ancestor) and bring it into view at a readable zoom. */
export function goTo(ctx: CommandContext, index: number): void {
	const id = selectShown(ctx, index);
	if (id === null) return;
	if (ctx.graph.zoomToEntry) ctx.graph.zoomToEntry(id);
	else ctx.graph.reveal(id);
}

function switchSession(ctx: CommandContext, step: 1 | -1): void {
	const { order, activeSessionId } = ctx.state;
	if (order.length < 2) return;
	const i = Math.max(0, order.indexOf(activeSessionId ?? ""));
	ctx.store.getState().setActive(order[(i + step + order.length) % order.length]);
}

/** Where an arrow key starts from: the selection, or pi's opening row when nothing is selected. */
function cursor(ctx: CommandContext): number {
	if (!ctx.tree) return -1;
	return ctx.target >= 0 && isVisible(ctx.tree, ctx.target) ? ctx.target : initialSelection(ctx.tree);
}

function applyTreeKey(ctx: CommandContext, action: TreeKeyAction): void {
	if (!ctx.skeleton) return;
	const id = ctx.skeleton.ids[action.index];
	if (action.kind === "fold") ctx.store.getState().setFolded(id, true);
	else if (action.kind === "unfold") ctx.store.getState().setFolded(id, false);
	else selectIndex(ctx, action.index);
}

/** The nearest shown ancestor of i (not i) with two or more shown children, else the root. */
function branchPointAbove(v: TreeView, i: number): number {
	if (!isVisible(v, i)) return i;
	let cur = i;
	for (let p = parentOf(v, i); p >= 0; p = parentOf(v, p)) {
		cur = p;
		if (childCountOf(v, p) > 1) return p;
	}
	return cur;
}

/** The next (+1) / previous (-1) shown user message after i in display order; -1 when none (no wrap). */
function nextUserMessage(v: TreeView, i: number, direction: 1 | -1): number {
	const n = v.rows.length;
	for (let r = isVisible(v, i) ? v.rowOf[i] + direction : direction > 0 ? 0 : n - 1; r >= 0 && r < n; r += direction)
		if (v.skeleton.kind[v.rows[r]] === EntryKind.user) return v.rows[r];
	return -1;
}

type Move = "parent" | "child" | "prevSibling" | "nextSibling";

function move(ctx: CommandContext, m: Move): void {
	const tree = ctx.tree;
	if (!tree) return;
	const from = cursor(ctx);
	if (from < 0) return;
	if (from !== ctx.target) return selectIndex(ctx, from);
	let to = -1;
	if (m === "parent") to = parentOf(tree, from);
	else if (m === "child") to = firstChildOf(tree, from);
	else to = siblingOf(tree, from, m === "nextSibling" ? 1 : -1);
	if (to >= 0) selectIndex(ctx, to);
}

/** Arrow keys follow the drawing: top-down trees go down to children, left-right trees go right. */
function arrowKeys(m: Move): (ctx: CommandContext) => readonly string[] {
	const tb: Record<Move, string> = { parent: "Up", child: "Down", prevSibling: "Left", nextSibling: "Right" };
	const lr: Record<Move, string> = { parent: "Left", child: "Right", prevSibling: "Up", nextSibling: "Down" };
	return (ctx) => [(ctx.state.settings?.layoutDirection === "LR" ? lr : tb)[m]];
}

export function treeMoveCommands(): Command[] {
	return [
		{ id: "select.parent", label: "Select parent", category: "Navigate", keys: arrowKeys("parent"), when: hasSession, perform: (ctx) => move(ctx, "parent") },
		{ id: "select.child", label: "Select child", category: "Navigate", keys: arrowKeys("child"), when: hasSession, perform: (ctx) => move(ctx, "child") },
		{
			id: "select.prevSibling",
			label: "Select previous sibling",
			category: "Navigate",
			keys: arrowKeys("prevSibling"),
			when: hasSession,
			perform: (ctx) => move(ctx, "prevSibling"),
		},
		{
			id: "select.nextSibling",
			label: "Select next sibling",
			category: "Navigate",
			keys: arrowKeys("nextSibling"),
			when: hasSession,
			perform: (ctx) => move(ctx, "nextSibling"),
		},
		{
			id: "tree.up",
			label: "Up to the branch point above",
			category: "Navigate",
			// Always a move, never a fold (pi folds on Ctrl+← too; Alt+← keeps that).
			keys: ["Ctrl+Left"],
			when: (ctx) => !!ctx.tree && cursor(ctx) >= 0,
			perform: (ctx) => selectIndex(ctx, branchPointAbove(ctx.tree!, cursor(ctx))),
		},
		{
			id: "tree.foldOrUp",
			label: "Fold, or jump to the branch point above",
			category: "Navigate",
			keys: ["Alt+Left"],
			when: (ctx) => !!ctx.tree && cursor(ctx) >= 0,
			perform: (ctx) => applyTreeKey(ctx, foldOrUp(ctx.tree!, cursor(ctx))),
		},
		{
			id: "tree.unfoldOrDown",
			label: "Unfold, or jump to the next branch point below",
			category: "Navigate",
			keys: ["Ctrl+Right", "Alt+Right"],
			when: (ctx) => !!ctx.tree && cursor(ctx) >= 0,
			perform: (ctx) => applyTreeKey(ctx, unfoldOrDown(ctx.tree!, cursor(ctx))),
		},
		{
			id: "branch.newest",
			label: "Go to the newest entry of this branch",
			category: "Navigate",
			keys: ["End"],
			contextMenu: true,
			when: hasTarget,
			perform: (ctx) => goTo(ctx, newestOfBranch(ctx.skeleton!, ctx.target)),
		},
		{
			id: "branch.newestNavigate",
			label: "Navigate to the newest entry of this branch…",
			category: "Navigate",
			keys: ["Shift+End"],
			contextMenu: true,
			when: hasTarget,
			perform(ctx) {
				const end = newestOfBranch(ctx.skeleton!, ctx.target);
				goTo(ctx, end);
				void ctx.store.getState().startNavigate(ctx.skeleton!.ids[end]);
			},
		},
		{
			id: "user.next",
			label: "Next user message",
			category: "Navigate",
			keys: ["Alt+Down"],
			when: (ctx) => !!ctx.tree && nextUserMessage(ctx.tree, cursor(ctx), 1) >= 0,
			perform: (ctx) => selectIndex(ctx, nextUserMessage(ctx.tree!, cursor(ctx), 1)),
		},
		{
			id: "user.prev",
			label: "Previous user message",
			category: "Navigate",
			keys: ["Alt+Up"],
			when: (ctx) => !!ctx.tree && nextUserMessage(ctx.tree, cursor(ctx), -1) >= 0,
			perform: (ctx) => selectIndex(ctx, nextUserMessage(ctx.tree!, cursor(ctx), -1)),
		},
		{
			id: "branchPoint.next",
			label: "Next branch point",
			category: "Navigate",
			when: (ctx) => !!ctx.tree && nextBranchPoint(ctx.tree, cursor(ctx), 1) >= 0,
			perform: (ctx) => selectIndex(ctx, nextBranchPoint(ctx.tree!, cursor(ctx), 1)),
		},
		{
			id: "branchPoint.prev",
			label: "Previous branch point",
			category: "Navigate",
			when: (ctx) => !!ctx.tree && nextBranchPoint(ctx.tree, cursor(ctx), -1) >= 0,
			perform: (ctx) => selectIndex(ctx, nextBranchPoint(ctx.tree!, cursor(ctx), -1)),
		},
		{
			id: "label.next",
			label: "Next label",
			category: "Navigate",
			keys: ["]"],
			when: (ctx) => !!ctx.tree && ctx.skeleton!.labels.length > 0,
			perform(ctx) {
				const tree = ctx.tree!;
				const next = nextLabelled(tree, cursor(ctx), 1);
				selectIndex(ctx, next >= 0 ? next : nextLabelled(tree, -1, 1));
			},
		},
		{
			id: "label.prev",
			label: "Previous label",
			category: "Navigate",
			keys: ["["],
			when: (ctx) => !!ctx.tree && ctx.skeleton!.labels.length > 0,
			perform(ctx) {
				const tree = ctx.tree!;
				const prev = nextLabelled(tree, cursor(ctx), -1);
				selectIndex(ctx, prev >= 0 ? prev : nextLabelled(tree, -1, -1));
			},
		},
		{
			id: "menu.open",
			label: "Open the entry's menu",
			category: "Navigate",
			keys: ["Shift+F10", "ContextMenu"],
			when: hasTarget,
			perform(ctx) {
				const id = ctx.skeleton!.ids[ctx.target];
				// At the selected card when it is on screen, else at the graph's top left.
				const el = typeof document !== "undefined" ? document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`) : null;
				const r = el?.getBoundingClientRect();
				const g = typeof document !== "undefined" ? document.querySelector(".arbor-graph")?.getBoundingClientRect() : undefined;
				const x = r ? r.left + Math.min(40, r.width / 2) : (g?.left ?? 0) + 20;
				const y = r ? r.bottom - 4 : (g?.top ?? 0) + 20;
				ctx.store.getState().openContextMenu({ entryId: id, x, y });
			},
		},
		{
			id: "session.next",
			label: "Next session tab",
			category: "Session",
			keys: ["Ctrl+Tab", "Ctrl+PageDown"],
			keysInInputs: true,
			when: (ctx) => ctx.state.order.length > 1,
			perform: (ctx) => switchSession(ctx, 1),
		},
		{
			id: "session.prev",
			label: "Previous session tab",
			category: "Session",
			keys: ["Ctrl+Shift+Tab", "Ctrl+PageUp"],
			keysInInputs: true,
			when: (ctx) => ctx.state.order.length > 1,
			perform: (ctx) => switchSession(ctx, -1),
		},
		{
			id: "go.leaf",
			label: "Go to leaf",
			category: "Navigate",
			when: (ctx) => hasSession(ctx) && ctx.skeleton!.leaf >= 0,
			perform: (ctx) => goTo(ctx, ctx.skeleton!.leaf),
		},
		{
			id: "go.resume",
			label: "Go to where pi resumes",
			category: "Navigate",
			when: (ctx) => hasSession(ctx) && ctx.skeleton!.resumeLeaf >= 0,
			perform: (ctx) => goTo(ctx, ctx.skeleton!.resumeLeaf),
		},
		{
			id: "select.leaf",
			label: "Select the leaf",
			category: "Navigate",
			when: (ctx) => hasSession(ctx) && ctx.skeleton!.leaf >= 0,
			perform: (ctx) => selectIndex(ctx, ctx.tree ? initialSelection(ctx.tree) : ctx.skeleton!.leaf),
		},
		{
			...COMMAND_INFO["history.back"],
			category: "Navigate",
			when: (ctx) => hasSession(ctx) && (activeSession(ctx.state)?.canBack ?? true),
			perform: (ctx) => ctx.store.getState().leafHistory("back"),
		},
		{
			...COMMAND_INFO["history.forward"],
			category: "Navigate",
			when: (ctx) => hasSession(ctx) && (activeSession(ctx.state)?.canForward ?? true),
			perform: (ctx) => ctx.store.getState().leafHistory("forward"),
		},
	];
}
