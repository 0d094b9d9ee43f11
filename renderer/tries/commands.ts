// The tries commands, declared once for the context menu, the command palette and the keyboard (docs/tries.md):
// "Try N ways…" on an entry, Stop all (also what Escape does while tries run), and removing what an earlier
// Arbor's tries left behind.

import type { Command, CommandContext } from "../commands/registry";
import { activeSession } from "../store/selectors";
import { runFinished, tries } from "./store";

function onFileEntry(ctx: CommandContext): boolean {
	return ctx.skeleton !== null && ctx.target >= 0 && activeSession(ctx.state)?.summary.path != null;
}

/** Tries of this window still run: Escape stops them (before anything else it would do). */
export function triesRunning(): boolean {
	const { run, lost } = tries.getState();
	// With the host gone nothing can be stopped from here: Escape does what it would do without tries.
	return run !== null && !runFinished(run) && !lost;
}

export async function stopAllTries(ctx: Pick<CommandContext, "client" | "store">): Promise<void> {
	const run = tries.getState().run;
	if (!run) return;
	try {
		await ctx.client.request("stopTries", { runId: run.runId });
	} catch (err) {
		ctx.store.getState().reportError(err, "Could not stop the tries");
	}
}

/**
 * Keep one try of this window's run (from the panel or the Compare dialog): its changes into the user's tree, its
 * session opened. True when kept; a conflict (nothing applied) or a failure says so in a toast and answers false.
 */
export async function keepTry(ctx: Pick<CommandContext, "client" | "store">, index: number): Promise<boolean> {
	const run = tries.getState().run;
	if (!run) return false;
	const st = ctx.store.getState();
	tries.getState().setBusy("keep");
	try {
		const r = await ctx.client.request("keepTry", { runId: run.runId, index });
		if (r.conflicts.length > 0) {
			st.toast(
				"error",
				`Nothing was applied: ${r.conflicts.join(", ")} changed in your working tree since the tries started, differently from try ${index + 1}.`,
			);
			tries.getState().setBusy(null);
			return false;
		}
		tries.getState().clear();
		if (r.session) await st.addSession(r.session);
		st.toast(
			"info",
			`Kept try ${index + 1}: ${r.applied.length} file${r.applied.length === 1 ? "" : "s"} applied to your working tree; its session continues${r.switched ? " in your live pi" : ""}. The other tries' sessions stay as forks.`,
		);
		return true;
	} catch (err) {
		tries.getState().setBusy(null);
		st.reportError(err, "Could not keep the try");
		return false;
	}
}

export function triesCommands(): Command[] {
	return [
		{
			id: "tries.start",
			label: "Try N ways…",
			title: "Run several tries of pi from this entry side by side, each in its own worktree",
			category: "Entry",
			keys: ["Shift+T"],
			contextMenu: true,
			when: (ctx) => onFileEntry(ctx) && !triesRunning(),
			perform: (ctx) => ctx.store.getState().openDialog({ kind: "tries", entryId: ctx.skeleton!.ids[ctx.target] }),
		},
		{
			id: "tries.stopAll",
			label: "Stop all tries",
			category: "Session",
			when: () => triesRunning(),
			perform: (ctx) => stopAllTries(ctx),
		},
		{
			id: "tries.discardLeftovers",
			label: "Remove the worktrees of tries left behind",
			category: "Session",
			when: () => tries.getState().leftovers.length > 0,
			async perform(ctx) {
				const removed: string[] = [];
				for (const l of tries.getState().leftovers) {
					try {
						removed.push(...(await ctx.client.request("discardTries", { runId: l.runId })).removed);
					} catch (err) {
						ctx.store.getState().reportError(err, `Could not remove the tries of ${l.source}`);
					}
				}
				tries.getState().setLeftovers((await ctx.client.request("listTries", {})).leftovers);
				ctx.store.getState().toast("info", `Removed ${removed.length} leftover worktree${removed.length === 1 ? "" : "s"} (their session files stay).`);
			},
		},
	];
}

/** At start: name the tries an earlier Arbor left behind, with a button to remove their worktrees. */
export async function announceLeftovers(ctx: Pick<CommandContext, "client" | "store">): Promise<void> {
	try {
		const { leftovers } = await ctx.client.request("listTries", {});
		tries.getState().setLeftovers(leftovers);
		if (leftovers.length === 0) return;
		const n = leftovers.reduce((k, l) => k + l.worktrees.length, 0);
		ctx.store
			.getState()
			.toast("info", `Tries of an earlier Arbor were left behind: ${n} worktree${n === 1 ? "" : "s"} (${leftovers.map((l) => l.source).join(", ")}).`, {
				action: { label: "Remove them", command: "tries.discardLeftovers" },
			});
	} catch {
		// A host without tries (an older main process): nothing to announce.
	}
}
