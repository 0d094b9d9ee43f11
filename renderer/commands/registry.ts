// The command registry (STYLE.md "One command, declared once", after Excalidraw's actions): every user
// command is one object with its label, shortcuts, a `when` predicate and `perform`. The context menu,
// keyboard, Electron menu bar (menu_command events) and the command palette all read this registry, so
// they cannot disagree.

import type { ArborClient } from "../../shared/api";
import type { Skeleton } from "../../shared/skeleton";
import type { TreeView } from "../../shared/tree-view";
import type { AppState, AppStore } from "../store";
import { activeSkeleton, indexOfId, selectTreeView } from "../store/selectors";
import { displayShortcut } from "./keys";

/** What the graph component can do when asked (the runtime's graph actions, renderer/graph/store.ts; tests pass recorders). */
export interface GraphControls {
	fit(): void;
	zoomToLeaf(): void;
	zoomIn(): void;
	zoomOut(): void;
	/** Bring an entry into view (after a keyboard move, a search match). */
	reveal(entryId: string): void;
	/** Center an entry at a readable zoom (Go to leaf, Go to where pi resumes). */
	zoomToEntry?(entryId: string): void;
	/** Expand the "+N" segment holding this entry; false when it is not inside one. */
	expandSegment(entryId: string): boolean;
	/** True when the entry is hidden inside a "+N" segment. */
	inSegment(entryId: string): boolean;
	/** Forget dragged positions (re-layout). */
	relayout?(): void;
	/** Collapse every expanded "+N" segment again. */
	collapseAll?(): void;
	/** Drop what the graph keeps for a session (dragged positions, expanded segments, viewport) once it is closed. */
	forgetSession?(sessionId: string): void;
}

export interface CommandDeps {
	store: AppStore;
	client: ArborClient;
	graph: GraphControls;
	clipboard(text: string): Promise<void>;
	/** Set by the app: double-Escape timing lives outside the store (a UI gesture, not state). */
	now?: () => number;
}

export interface CommandContext extends CommandDeps {
	state: AppState;
	skeleton: Skeleton | null;
	tree: TreeView | null;
	/** The entry the command acts on: the context-menu target, else the selection. */
	targetId: string | null;
	/** Its index in the skeleton, -1 when none. */
	target: number;
	/** Where the command was invoked from. */
	source: CommandSource;
	args?: unknown;
}

export type CommandSource = "keyboard" | "menu" | "contextMenu" | "palette" | "button" | "test";

export type CommandCategory = "Navigate" | "Entry" | "View" | "Filter" | "Search" | "Session" | "pi" | "Extension";

export interface Command {
	id: string;
	label: string | ((ctx: CommandContext) => string);
	/** Text on a button that runs it (toolbar, filter bar); the label when absent. */
	short?: string;
	/** Tooltip of such a button, before its key; the label when absent. */
	title?: string;
	category: CommandCategory;
	/** Shortcuts such as "Ctrl+U", "Shift+L", "/", "Ctrl+Left" (see keys.ts for the spelling). */
	keys?: readonly string[] | ((ctx: CommandContext) => readonly string[]);
	/** The shortcut also works while typing in a text field (search box, composer). */
	keysInInputs?: boolean;
	/** The shortcut also works while a modal dialog is open. */
	keysInDialogs?: boolean;
	/** Listed in the right-click menu of a node. */
	contextMenu?: boolean;
	/** Listed in the command palette (default true). */
	palette?: boolean;
	when?(ctx: CommandContext): boolean;
	perform(ctx: CommandContext): void | Promise<void>;
}

export function commandLabel(cmd: Command, ctx: CommandContext): string {
	return typeof cmd.label === "function" ? cmd.label(ctx) : cmd.label;
}

export function commandKeys(cmd: Command, ctx: CommandContext): readonly string[] {
	if (!cmd.keys) return [];
	return typeof cmd.keys === "function" ? cmd.keys(ctx) : cmd.keys;
}

/** Text on a button running the command. */
export function commandShort(cmd: Command, ctx: CommandContext): string {
	return cmd.short ?? commandLabel(cmd, ctx);
}

/**
 * Tooltip of a button running the command: its title and first key, "Fit graph (Ctrl+0)". `localKeys`
 * come first: keys the surrounding field handles itself (Enter in the search box).
 */
export function commandTitle(cmd: Command, ctx: CommandContext, localKeys: readonly string[] = []): string {
	const first = commandKeys(cmd, ctx)[0];
	const keys = [...localKeys, ...(first ? [first] : [])].map(displayShortcut);
	const text = cmd.title ?? commandLabel(cmd, ctx);
	return keys.length > 0 ? `${text} (${keys.join(", ")})` : text;
}

export function makeContext(deps: CommandDeps, opts: { targetId?: string | null; source?: CommandSource; args?: unknown } = {}): CommandContext {
	const state = deps.store.getState();
	const skeleton = activeSkeleton(state);
	const targetId = opts.targetId !== undefined ? opts.targetId : state.selectedId;
	const target = skeleton && targetId ? indexOfId(skeleton, targetId) : -1;
	return {
		...deps,
		state,
		skeleton,
		tree: selectTreeView(state),
		targetId: target >= 0 ? targetId : null,
		target,
		source: opts.source ?? "test",
		args: opts.args,
	};
}

export class CommandRegistry {
	readonly #commands = new Map<string, Command>();
	#dynamic: () => Command[] = () => [];

	constructor(commands: readonly Command[] = []) {
		for (const c of commands) this.register(c);
	}

	register(cmd: Command): void {
		if (this.#commands.has(cmd.id)) throw new Error(`command ${cmd.id} declared twice`);
		this.#commands.set(cmd.id, cmd);
	}

	/** Commands that come and go (extension commands): computed on each read. */
	setDynamic(source: () => Command[]): void {
		this.#dynamic = source;
	}

	get(id: string): Command | undefined {
		return this.#commands.get(id) ?? this.#dynamic().find((c) => c.id === id);
	}

	all(): Command[] {
		return [...this.#commands.values(), ...this.#dynamic()];
	}

	enabled(cmd: Command, ctx: CommandContext): boolean {
		try {
			return cmd.when ? cmd.when(ctx) : true;
		} catch {
			return false;
		}
	}

	/** Run a command by id if it applies; false when unknown or not applicable. */
	async run(id: string, ctx: CommandContext): Promise<boolean> {
		const cmd = this.get(id);
		if (!cmd || !this.enabled(cmd, ctx)) return false;
		try {
			await cmd.perform(ctx);
		} catch (err) {
			ctx.store.getState().reportError(err, commandLabel(cmd, ctx));
		}
		return true;
	}

	/** Commands for the node context menu, in declaration order, filtered by `when`. */
	contextMenu(ctx: CommandContext): Command[] {
		return this.all().filter((c) => c.contextMenu && this.enabled(c, ctx));
	}

	palette(ctx: CommandContext): Command[] {
		return this.all().filter((c) => c.palette !== false && this.enabled(c, ctx));
	}
}
