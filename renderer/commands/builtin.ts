// Every built-in command, declared once. Shortcuts follow pi's tree selector where pi has one
// (../shared/notes/PEERS.md (d) "Keys"): Ctrl+D/T/U/L/A/O filters, Shift+L label, Ctrl/Alt+←/→ fold and
// branch-point jumps, Enter navigate, Escape. Alt+←/→ being pi's fold keys, leaf history uses Ctrl+[ / Ctrl+].

import { EntryKind } from "../../shared/skeleton";
import { initialSelection, isFoldable, isFolded } from "../../shared/tree-view";
import { FILTER_MODES, type FilterMode } from "../../shared/api";
import { COMMAND_INFO, FILTERS, type SharedCommandId } from "../../shared/commands";
import { entryPlainText, prettyJson } from "../panels/entry-text";
import { activeSession, leafId } from "../store/selectors";
import { hasSession, selectShown, hasTarget, selectIndex, treeMoveCommands } from "./moves";
import type { Command, CommandContext } from "./registry";
import { stopAllTries, triesRunning } from "../tries/commands";

const DOUBLE_ESCAPE_MS = 500;

function targetKind(ctx: CommandContext): number {
	return ctx.skeleton && ctx.target >= 0 ? ctx.skeleton.kind[ctx.target] : -1;
}

function filterCommand(mode: FilterMode, toggle: boolean): Command {
	const info = COMMAND_INFO[FILTERS[mode].command as SharedCommandId];
	return {
		...info,
		label: (ctx) => `${info.label}${ctx.state.filter === mode ? " ✓" : ""}`,
		category: "Filter",
		when: hasSession,
		perform(ctx) {
			const st = ctx.store.getState();
			// pi's keys toggle; a menu item or palette entry named after a mode sets it.
			if (toggle && ctx.source === "keyboard") st.toggleFilter(mode);
			else st.setFilter(mode);
		},
	};
}

async function copy(ctx: CommandContext, text: string, what: string): Promise<void> {
	await ctx.clipboard(text);
	ctx.store.getState().toast("info", `Copied ${what}`);
}

export function builtinCommands(): Command[] {
	let lastEscape = -Infinity;

	const commands: Command[] = [
		// ---------------------------------------------------------------- acting on an entry
		{
			id: "navigate.here",
			label: "Navigate here",
			category: "Navigate",
			keys: ["Enter"],
			contextMenu: true,
			when: hasTarget,
			perform: (ctx) => ctx.store.getState().startNavigate(ctx.skeleton!.ids[ctx.target]),
		},
		{
			id: "navigate.summary",
			label: "Navigate with summary…",
			category: "Navigate",
			keys: ["Shift+Enter"],
			contextMenu: true,
			when: (ctx) => hasTarget(ctx) && ctx.targetId !== leafId(ctx.skeleton!),
			async perform(ctx) {
				const st = ctx.store.getState();
				await st.startNavigate(ctx.skeleton!.ids[ctx.target]);
				const d = ctx.store.getState().dialog;
				if (d?.kind === "navigate" && d.stage === "choose") ctx.store.getState().updateDialog("navigate", { focus: "summarize" });
			},
		},
		{
			id: "branch.toFile",
			label: "Branch to new file",
			category: "Navigate",
			keys: ["Ctrl+B"],
			contextMenu: true,
			when: (ctx) => hasTarget(ctx) && targetKind(ctx) === EntryKind.user,
			perform: (ctx) => ctx.store.getState().branchToFile(ctx.skeleton!.ids[ctx.target]),
		},
		{
			id: "label.edit",
			label: "Edit label",
			category: "Entry",
			keys: ["Shift+L"],
			contextMenu: true,
			when: hasTarget,
			perform: (ctx) => ctx.store.getState().startLabelEdit(ctx.skeleton!.ids[ctx.target]),
		},
		{
			id: "entry.copyText",
			label: "Copy text",
			category: "Entry",
			keys: ["Ctrl+X"],
			contextMenu: true,
			when: hasTarget,
			async perform(ctx) {
				const entry = await ctx.client.request("getEntry", { sessionId: ctx.state.activeSessionId!, id: ctx.skeleton!.ids[ctx.target] });
				await copy(ctx, entryPlainText(entry), "text");
			},
		},
		{
			id: "entry.copyId",
			label: "Copy id",
			category: "Entry",
			contextMenu: true,
			when: hasTarget,
			perform: (ctx) => copy(ctx, ctx.skeleton!.ids[ctx.target], "id"),
		},
		{
			id: "entry.copyJson",
			label: "Copy JSON",
			category: "Entry",
			when: hasTarget,
			async perform(ctx) {
				const entry = await ctx.client.request("getEntry", { sessionId: ctx.state.activeSessionId!, id: ctx.skeleton!.ids[ctx.target] });
				await copy(ctx, prettyJson(entry), "JSON");
			},
		},
		{
			id: "context.show",
			label: "Show context here",
			category: "Entry",
			contextMenu: true,
			when: hasTarget,
			perform(ctx) {
				const st = ctx.store.getState();
				st.select(ctx.skeleton!.ids[ctx.target]);
				st.setPanel("context");
			},
		},
		{
			id: "fold.toggle",
			label: (ctx) => (ctx.tree && ctx.target >= 0 && isFolded(ctx.tree, ctx.target) ? "Unfold" : "Fold"),
			category: "View",
			contextMenu: true,
			when: (ctx) => !!ctx.tree && ctx.target >= 0 && (isFolded(ctx.tree, ctx.target) || isFoldable(ctx.tree, ctx.target)),
			perform: (ctx) => ctx.store.getState().toggleFold(ctx.skeleton!.ids[ctx.target]),
		},
		{
			id: "segment.expand",
			label: "Expand segment",
			category: "View",
			contextMenu: true,
			when: (ctx) => hasTarget(ctx) && ctx.graph.inSegment(ctx.skeleton!.ids[ctx.target]),
			perform(ctx) {
				ctx.graph.expandSegment(ctx.skeleton!.ids[ctx.target]);
			},
		},
		{
			...COMMAND_INFO["position.save"],
			category: "Navigate",
			when: (ctx) => hasSession(ctx) && ctx.skeleton!.leaf >= 0 && ctx.skeleton!.leaf !== ctx.skeleton!.resumeLeaf,
			perform: (ctx) => ctx.store.getState().savePosition(),
		},

		...treeMoveCommands(),

		// ---------------------------------------------------------------- filters (pi's keys)
		...FILTER_MODES.map((mode) => filterCommand(mode, mode !== "default")),
		{
			id: "filter.cycle",
			label: "Cycle filter",
			category: "Filter",
			keys: ["Ctrl+O"],
			when: hasSession,
			perform: (ctx) => ctx.store.getState().cycleFilter(1),
		},
		{
			id: "filter.cycleBack",
			label: "Cycle filter backwards",
			category: "Filter",
			keys: ["Ctrl+Shift+O"],
			when: hasSession,
			perform: (ctx) => ctx.store.getState().cycleFilter(-1),
		},

		// ---------------------------------------------------------------- search
		{
			id: "search.focus",
			label: "Search",
			category: "Search",
			keys: ["/", "Ctrl+F"],
			when: hasSession,
			perform: (ctx) => ctx.store.getState().focusSearch(),
		},
		{
			id: "search.next",
			label: "Next match",
			category: "Search",
			keys: ["F3"],
			keysInInputs: true,
			when: (ctx) => hasSession(ctx) && ctx.state.search.matches.length > 0,
			perform(ctx) {
				ctx.store.getState().stepMatch(1);
				const id = ctx.store.getState().selectedId;
				if (id) ctx.graph.reveal(id);
			},
		},
		{
			id: "search.prev",
			label: "Previous match",
			category: "Search",
			keys: ["Shift+F3"],
			keysInInputs: true,
			when: (ctx) => hasSession(ctx) && ctx.state.search.matches.length > 0,
			perform(ctx) {
				ctx.store.getState().stepMatch(-1);
				const id = ctx.store.getState().selectedId;
				if (id) ctx.graph.reveal(id);
			},
		},
		{
			id: "search.land",
			label: "Go to the match (select it, bring it into view, focus the graph)",
			category: "Search",
			when: (ctx) => hasSession(ctx) && ctx.state.search.matches.length > 0,
			perform(ctx) {
				const st = ctx.store.getState();
				st.landOnMatch();
				const id = ctx.store.getState().selectedId;
				if (id) ctx.graph.reveal(id);
				st.focusGraph();
			},
		},
		{
			id: "search.toggleScope",
			label: (ctx) => (ctx.state.search.scope === "full" ? "Search: pi rules (label, role, first 200 chars)" : "Search: full text (tool arguments, paths)"),
			category: "Search",
			when: hasSession,
			perform(ctx) {
				const st = ctx.store.getState();
				st.setSearchScope(st.search.scope === "full" ? "pi" : "full");
			},
		},
		{
			id: "search.clear",
			label: "Clear search",
			category: "Search",
			when: (ctx) => ctx.state.search.query !== "",
			perform: (ctx) => ctx.store.getState().clearSearch(),
		},

		// ---------------------------------------------------------------- the view
		{
			...COMMAND_INFO["view.zoomToLeaf"],
			category: "View",
			when: hasSession,
			// The leaf becomes the selection too: moving the view there while the inspector kept showing the old
			// entry read as if Leaf had done nothing.
			perform: (ctx) => {
				if (ctx.skeleton) selectShown(ctx, ctx.skeleton.leaf);
				ctx.graph.zoomToLeaf();
			},
		},
		{ ...COMMAND_INFO["view.fit"], category: "View", when: hasSession, perform: (ctx) => ctx.graph.fit() },
		{ ...COMMAND_INFO["view.zoomIn"], category: "View", when: hasSession, perform: (ctx) => ctx.graph.zoomIn() },
		{ ...COMMAND_INFO["view.zoomOut"], category: "View", when: hasSession, perform: (ctx) => ctx.graph.zoomOut() },
		{
			id: "view.relayout",
			label: "Reset layout (forget dragged positions)",
			category: "View",
			when: (ctx) => hasSession(ctx) && !!ctx.graph.relayout,
			perform: (ctx) => ctx.graph.relayout?.(),
		},
		{
			id: "view.collapseSegments",
			label: "Collapse expanded segments",
			category: "View",
			when: (ctx) => hasSession(ctx) && !!ctx.graph.collapseAll,
			perform: (ctx) => ctx.graph.collapseAll?.(),
		},
		{
			id: "view.toggleDirection",
			label: (ctx) => (ctx.state.settings?.layoutDirection === "LR" ? "Layout: top-down" : "Layout: left-to-right"),
			category: "View",
			when: (ctx) => ctx.state.settings !== null,
			perform: (ctx) => ctx.store.getState().updateSettings({ layoutDirection: ctx.state.settings?.layoutDirection === "LR" ? "TB" : "LR" }),
		},
		{
			id: "view.toggleRows",
			label: (ctx) => ((ctx.state.settings?.layoutDirection ?? "rows") === "rows" ? "View: tree of cards" : "View: rows"),
			category: "View",
			keys: ["Ctrl+Shift+E"],
			when: (ctx) => ctx.state.settings !== null,
			perform: (ctx) => ctx.store.getState().updateSettings({ layoutDirection: (ctx.state.settings?.layoutDirection ?? "rows") === "rows" ? "TB" : "rows" }),
		},
		{ id: "panel.inspector", label: "Show inspector", category: "View", when: hasSession, perform: (ctx) => ctx.store.getState().setPanel("inspector") },
		{ id: "panel.context", label: "Show context panel", category: "View", when: hasSession, perform: (ctx) => ctx.store.getState().setPanel("context") },
		{ id: "panel.labels", label: "Show label list", category: "View", when: hasSession, perform: (ctx) => ctx.store.getState().setPanel("labels") },
		{
			id: "panel.branches",
			label: "Show branches (every leaf, by cost or time)",
			category: "View",
			when: hasSession,
			perform: (ctx) => ctx.store.getState().setPanel("branches"),
		},
		{
			...COMMAND_INFO["settings.open"],
			category: "View",
			// One dialog at a time: replacing a running navigation (a menu-bar click) would orphan its summary.
			when: (ctx) => ctx.state.dialog?.kind !== "navigate",
			perform: (ctx) => ctx.store.getState().openDialog({ kind: "settings" }),
		},
		{
			id: "app.about",
			label: "About Arbor (credits)",
			category: "View",
			when: (ctx) => ctx.state.dialog?.kind !== "navigate",
			perform: (ctx) => ctx.store.getState().openDialog({ kind: "about" }),
		},
		{
			...COMMAND_INFO["palette.open"],
			category: "View",
			keysInInputs: true,
			palette: false,
			perform: (ctx) => ctx.store.getState().openDialog({ kind: "palette", initialQuery: "" }),
		},
		{
			id: "app.escape",
			label: "Close / clear",
			category: "View",
			keys: ["Escape"],
			keysInInputs: true,
			keysInDialogs: true,
			palette: false,
			async perform(ctx) {
				const st = ctx.store.getState();
				const now = (ctx.now ?? Date.now)();
				if (st.contextMenu) return st.closeContextMenu();
				if (st.dialog?.kind === "navigate") return st.cancelNavigate();
				if (st.dialog) return st.closeDialog();
				// Escape while tries run stops them all (the Tries panel's "Stop all").
				if (triesRunning()) return stopAllTries(ctx);
				// pi: Escape while it works stops the turn (Arbor's Escape does the same to a live pi).
				const live = st.activeSessionId ? st.live[st.activeSessionId] : undefined;
				if (live?.state.status === "streaming") return st.stopLive();
				if (st.search.query !== "") {
					st.clearSearch();
					st.focusGraph();
					return;
				}
				// From a field that hands the keys back (the composer): to the graph, its draft kept (issue 38).
				if (typeof document !== "undefined" && document.activeElement?.closest("[data-escape-to-graph]")) {
					st.focusGraph();
					return;
				}
				// pi: double-Escape opens the selector named by doubleEscapeAction.
				if (now - lastEscape <= DOUBLE_ESCAPE_MS) {
					lastEscape = -Infinity;
					const action = st.settings?.doubleEscapeAction ?? "tree";
					openPiSelector(ctx, action);
					return;
				}
				lastEscape = now;
			},
		},

		// ---------------------------------------------------------------- pi's slash commands
		{
			id: "pi.tree",
			label: "/tree — focus the session tree",
			category: "pi",
			when: hasSession,
			perform: (ctx) => openPiSelector(ctx, "tree"),
		},
		{
			id: "pi.branch",
			label: "/branch — branch from a user message",
			category: "pi",
			when: hasSession,
			perform: (ctx) => openPiSelector(ctx, ctx.state.settings?.doubleEscapeAction === "tree" ? "tree" : "branch"),
		},

		{
			id: "branch.pick",
			label: "Branch to new file from a user message…",
			category: "Navigate",
			when: hasSession,
			perform: (ctx) => openPiSelector(ctx, "branch"),
		},

		// ---------------------------------------------------------------- sessions and files
		{
			...COMMAND_INFO["file.open"],
			category: "Session",
			async perform(ctx) {
				if (ctx.client.host !== "electron") {
					// The browser host cannot show a native dialog: the library lists files and takes drops.
					ctx.store.getState().openDialog({ kind: "library" });
					return;
				}
				const summary = await ctx.client.request("showOpenDialog", {});
				if (summary) {
					await ctx.store.getState().addSession(summary);
					if (summary.path) ctx.store.getState().rememberRecent(summary.path);
				}
			},
		},
		{
			...COMMAND_INFO["library.open"],
			category: "Session",
			perform: (ctx) => ctx.store.getState().openDialog({ kind: "library" }),
		},
		{
			...COMMAND_INFO["session.family"],
			category: "Session",
			when: (ctx) => !!activeSession(ctx.state)?.summary.path,
			perform: (ctx) => ctx.store.getState().openDialog({ kind: "family", path: activeSession(ctx.state)!.summary.path! }),
		},
		{
			...COMMAND_INFO["session.close"],
			category: "Session",
			when: (ctx) => ctx.state.activeSessionId !== null,
			perform: (ctx) => ctx.store.getState().closeSession(ctx.state.activeSessionId!),
		},
		{
			id: "session.upgrade",
			label: "Upgrade file (keeps .bak)",
			category: "Session",
			when: (ctx) => activeSession(ctx.state)?.summary.needsUpgrade === true,
			perform: (ctx) => ctx.store.getState().upgradeLegacy(),
		},
		{
			id: "session.warnings",
			label: "Show load warnings",
			category: "Session",
			when: (ctx) => (activeSession(ctx.state)?.summary.warningCount ?? 0) > 0,
			perform: (ctx) => ctx.store.getState().openDialog({ kind: "warnings" }),
		},
		{
			...COMMAND_INFO["session.reveal"],
			category: "Session",
			when: (ctx) => ctx.client.host === "electron" && !!activeSession(ctx.state)?.summary.path,
			perform: (ctx) => ctx.client.request("revealInFolder", { sessionId: ctx.state.activeSessionId! }),
		},
	];
	return commands;
}

function openPiSelector(ctx: CommandContext, which: "tree" | "branch"): void {
	const st = ctx.store.getState();
	if (which === "branch") {
		st.openDialog({ kind: "branchList" });
		return;
	}
	st.closeDialog();
	if (ctx.tree && !st.selectedId) selectIndex(ctx, initialSelection(ctx.tree));
	st.focusGraph();
}

/** Extension commands (listCommands) as registry entries; they run on the target entry. */
export function extensionCommands(ctx: Pick<CommandContext, "state">): Command[] {
	return ctx.state.extensionCommands.map((info) => ({
		id: `ext:${info.name}`,
		label: `/${info.name}${info.description ? ` — ${info.description}` : ""}`,
		category: "Extension" as const,
		contextMenu: true,
		when: (c: CommandContext) => hasSession(c),
		async perform(c: CommandContext) {
			await c.client.request("runExtensionCommand", {
				sessionId: c.state.activeSessionId!,
				name: info.name,
				...(c.targetId ? { entryId: c.targetId } : {}),
				...(typeof c.args === "string" ? { args: c.args } : {}),
			});
		},
	}));
}
