// Commands of issue #12 part 1, declared once for the context menu, palette and menu bar: compare two
// branches (marked entry, the leaf, or two children of a branch point), export a branch (Markdown, HTML,
// JSONL), save a pruned copy without marked branches, and hide a branch (view state in Arbor's settings).

import type { ExportFormat } from "../../shared/api";
import { EntryKind } from "../../shared/skeleton";
import { branchEnd, childToward, childrenOf, download, forkAbove, isAncestor } from "../compare/branches";
import { marks } from "../compare/marks";
import { activePathMask } from "../../shared/tree-view";
import { activeSession, indexOfId, leafId } from "../store/selectors";
import type { Command, CommandContext } from "./registry";

function has(ctx: CommandContext): boolean {
	return ctx.skeleton !== null && ctx.state.activeSessionId !== null && ctx.target >= 0;
}

function sid(ctx: CommandContext): string {
	return ctx.state.activeSessionId as string;
}

function targetId(ctx: CommandContext): string {
	return ctx.skeleton!.ids[ctx.target];
}

const exportCommand = (format: ExportFormat, name: string): Command => ({
	id: `export.${format}`,
	label: `Export branch to here as ${name}`,
	category: "Session",
	contextMenu: format === "md",
	when: has,
	async perform(ctx) {
		const r = await ctx.client.request("exportBranch", { sessionId: sid(ctx), leafId: targetId(ctx), format });
		download(r.text, r.fileName, r.mimeType);
		ctx.store.getState().toast("info", `Exported ${r.fileName}`);
	},
});

export function compareExportCommands(): Command[] {
	return [
		{
			id: "compare.withLeaf",
			label: "Compare with leaf",
			category: "Entry",
			contextMenu: true,
			when: (ctx) => has(ctx) && leafId(ctx.skeleton!) !== null && leafId(ctx.skeleton!) !== targetId(ctx),
			perform: (ctx) => ctx.store.getState().openDialog({ kind: "compare", a: leafId(ctx.skeleton!) as string, b: targetId(ctx) }),
		},
		{
			id: "compare.mark",
			label: (ctx) => (marks.getState().compare[ctx.state.activeSessionId ?? ""] === ctx.targetId ? "Unmark for compare" : "Mark for compare"),
			category: "Entry",
			contextMenu: true,
			when: has,
			perform(ctx) {
				const cur = marks.getState().compare[sid(ctx)];
				marks.getState().markCompare(sid(ctx), cur === targetId(ctx) ? null : targetId(ctx));
				if (cur !== targetId(ctx)) ctx.store.getState().toast("info", "Marked: choose another card and “Compare with marked”");
			},
		},
		{
			id: "compare.withMarked",
			label: "Compare with marked",
			category: "Entry",
			contextMenu: true,
			when: (ctx) => {
				if (!has(ctx)) return false;
				const m = marks.getState().compare[sid(ctx)];
				return m !== undefined && m !== targetId(ctx) && ctx.skeleton!.ids.includes(m);
			},
			perform(ctx) {
				const sk = ctx.skeleton!;
				const marked = indexOfId(sk, marks.getState().compare[sid(ctx)]);
				const t = ctx.target;
				const st = ctx.store.getState();
				// Two entries on one path compare that path; two on different branches (two sibling user
				// messages, say) compare their whole branches: each side runs to its branch's latest entry.
				if (isAncestor(sk, marked, t) || isAncestor(sk, t, marked)) return st.openDialog({ kind: "compare", a: sk.ids[marked], b: sk.ids[t] });
				if (sk.parent[marked] === sk.parent[t] && sk.parent[t] >= 0)
					return st.openDialog({ kind: "compare", a: sk.ids[marked], b: sk.ids[t], siblingsOf: sk.ids[sk.parent[t]] });
				st.openDialog({ kind: "compare", a: sk.ids[branchEnd(sk, marked)], b: sk.ids[branchEnd(sk, t)] });
			},
		},
		{
			id: "compare.withSibling",
			label: "Compare with sibling",
			category: "Entry",
			contextMenu: true,
			// Any entry whose path forks somewhere above it, whether the filter shows the fork or not.
			when: (ctx) => has(ctx) && forkAbove(ctx.skeleton!, ctx.target) !== null,
			perform(ctx) {
				const sk = ctx.skeleton!;
				const fork = forkAbove(sk, ctx.target)!;
				const kids = childrenOf(sk, fork.point);
				const b = kids[(kids.indexOf(fork.child) + 1) % kids.length];
				// Whole branches below the fork: the dialog runs each side to its branch's latest entry.
				ctx.store.getState().openDialog({ kind: "compare", a: sk.ids[fork.child], b: sk.ids[b], siblingsOf: sk.ids[fork.point] });
			},
		},
		{
			id: "compare.siblings",
			label: "Compare siblings",
			category: "Entry",
			contextMenu: true,
			when: (ctx) => has(ctx) && childrenOf(ctx.skeleton!, ctx.target).length >= 2,
			perform(ctx) {
				// Side A is the child you came from (the previous selection is under it), else the one on the
				// leaf's path; B the next sibling.
				const sk = ctx.skeleton!;
				const kids = childrenOf(sk, ctx.target);
				const prev = ctx.state.previousSelectedId ? indexOfId(sk, ctx.state.previousSelectedId) : -1;
				let a = prev >= 0 ? childToward(sk, ctx.target, prev) : -1;
				if (a < 0 && sk.leaf >= 0) a = childToward(sk, ctx.target, sk.leaf);
				if (a < 0) a = kids[0];
				const b = kids[(kids.indexOf(a) + 1) % kids.length];
				ctx.store.getState().openDialog({ kind: "compare", a: sk.ids[a], b: sk.ids[b], siblingsOf: targetId(ctx) });
			},
		},
		exportCommand("md", "Markdown"),
		exportCommand("html", "HTML"),
		exportCommand("jsonl", "JSONL"),
		{
			id: "prune.mark",
			label: (ctx) =>
				(marks.getState().prune[ctx.state.activeSessionId ?? ""] ?? []).includes(ctx.targetId ?? "")
					? "Keep branch in pruned copy"
					: "Leave branch out of pruned copy",
			category: "Session",
			contextMenu: true,
			when: (ctx) => has(ctx) && ctx.skeleton!.kind[ctx.target] !== EntryKind.label,
			perform: (ctx) => marks.getState().togglePrune(sid(ctx), targetId(ctx)),
		},
		{
			id: "prune.save",
			label: (ctx) => `Save pruned copy (${(marks.getState().prune[ctx.state.activeSessionId ?? ""] ?? []).length} branch(es) left out)`,
			category: "Session",
			contextMenu: true,
			when: (ctx) => ctx.state.activeSessionId !== null && (marks.getState().prune[sid(ctx)] ?? []).length > 0,
			async perform(ctx) {
				const dropIds = marks.getState().prune[sid(ctx)] ?? [];
				const r = await ctx.client.request("savePrunedCopy", { sessionId: sid(ctx), dropIds });
				marks.getState().clearPrune(sid(ctx));
				ctx.store.getState().toast("info", `Saved a pruned copy (${r.kept} entries kept, ${r.dropped} left out): ${r.path}`);
				if (r.tornTailBytes > 0)
					ctx.store
						.getState()
						.toast("error", `The source's last line is incomplete (${r.tornTailBytes} bytes without a newline): it was left out of the copy.`);
			},
		},
		{
			id: "branch.hide",
			label: (ctx) => (hiddenIds(ctx).includes(ctx.targetId ?? "") ? "Show hidden branch" : "Hide branch"),
			category: "View",
			contextMenu: true,
			when: (ctx) => has(ctx) && activeSession(ctx.state)?.summary.path != null,
			async perform(ctx) {
				const file = activeSession(ctx.state)?.summary.path as string;
				const id = targetId(ctx);
				const cur = hiddenIds(ctx);
				const hide = !cur.includes(id);
				const sk = ctx.skeleton!;
				if (hide && sk.leaf >= 0 && activePathMask(sk, sk.leaf)[ctx.target]) {
					ctx.store.getState().toast("error", "Not hidden: this branch holds the leaf (the active path always stays visible). Move the leaf elsewhere first.");
					return;
				}
				const list = hide ? [...cur, id] : cur.filter((x) => x !== id);
				const all = { ...(ctx.state.settings?.hiddenBranches ?? {}) };
				if (list.length > 0) all[file] = list;
				else delete all[file];
				await ctx.store.getState().updateSettings({ hiddenBranches: all });
				// The selection leaves the hidden subtree for the branch point it hangs from.
				const p = sk.parent[ctx.target];
				if (hide && p >= 0 && p < sk.count) ctx.store.getState().select(sk.ids[p]);
				if (hide)
					ctx.store.getState().toast("info", 'Branch hidden (view only; the file is unchanged). The graph\'s "hidden branches — show" button brings it back.');
			},
		},
	];
}

function hiddenIds(ctx: CommandContext): string[] {
	const file = activeSession(ctx.state)?.summary.path;
	return file ? (ctx.state.settings?.hiddenBranches?.[file] ?? []) : [];
}
